// fib(n) on oneTBB: one tbb::task_group per call, fib(n-1) spawned, fib(n-2) inline, wait.
#include "common/bench_common.hpp"

#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <cstddef>
#include <cstdint>

namespace {

std::uint64_t fib(unsigned n) {
    if (n < 2) {
        return n;
    }
    std::uint64_t x = 0;
    tbb::task_group g;
    g.run([&x, n] { x = fib(n - 1); });
    std::uint64_t const y = fib(n - 2);
    g.wait();
    return x + y;
}

}  // namespace

int main(int argc, char** argv) {
    namespace wb = weft::bench;
    constexpr char const* impl = "tbb-task_group";
    wb::options const o = wb::parse_options(argc, argv);
    std::uint64_t const expected = wb::fib_expected(o.n);

    // The arena's slot for the calling thread counts as one of the --workers.
    tbb::global_control const limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(o.workers));
    tbb::task_arena arena(static_cast<int>(o.workers));
    arena.initialize();
    auto const workers = static_cast<unsigned>(arena.max_concurrency());

    std::uint64_t result = 0;
    auto const run = [&] { arena.execute([&] { result = fib(o.n); }); };

    (void)wb::time_seconds(run);  // warm-up: starts the worker threads
    if (result != expected) {
        wb::fail_check("fib", impl, result, expected);
    }
    for (unsigned rep = 0; rep < o.reps; ++rep) {
        result = 0;
        double const seconds = wb::time_seconds(run);
        if (result != expected) {
            wb::fail_check("fib", impl, result, expected);
        }
        wb::print_result("fib", impl, workers, o.n, wb::fib_calls(o.n), seconds, result);
    }
    return 0;
}
