// fib(n) on weft, one task per call and no cutoff, in the shape of the anchors (spawn
// fib(n-1), compute fib(n-2) in the calling task, join):
//   weft-async      weft::async + future::get (full future semantics: the child may
//                   block, suspend, throw; its result travels in the future)
//   weft-fork_join  weft::task_group run + wait (the fork-join fast path)
#include "common/bench_common.hpp"

#include <weft/weft.hpp>

#include <cstdint>

namespace {

std::uint64_t fib_async(unsigned n) {
    if (n < 2) return n;
    weft::future<std::uint64_t> a = weft::async(fib_async, n - 1);
    const std::uint64_t b = fib_async(n - 2);
    return a.get() + b;
}

std::uint64_t fib_fork_join(unsigned n) {
    if (n < 2) return n;
    std::uint64_t a = 0;
    weft::task_group g;
    g.run([&a, n] { a = fib_fork_join(n - 1); });
    const std::uint64_t b = fib_fork_join(n - 2);
    g.wait();
    return a + b;
}

}  // namespace

int main(int argc, char** argv) {
    namespace wb = weft::bench;
    weft::runtime rt(argc, argv);  // --weft:threads=W (scripts/bench passes it)
    const wb::options o = wb::parse_options(argc, argv);
    const std::uint64_t expected = wb::fib_expected(o.n);
    const unsigned workers = rt.num_workers();

    struct variant {
        const char* impl;
        std::uint64_t (*fn)(unsigned);
    };
    for (const variant v : {variant{"weft-async", fib_async}, variant{"weft-fork_join", fib_fork_join}}) {
        std::uint64_t result = 0;
        const auto run = [&] { result = weft::async(v.fn, o.n).get(); };
        (void)wb::time_seconds(run);  // warm-up: stacks and task blocks into the pools
        if (result != expected) wb::fail_check("fib", v.impl, result, expected);
        for (unsigned rep = 0; rep < o.reps; ++rep) {
            result = 0;
            const double seconds = wb::time_seconds(run);
            if (result != expected) wb::fail_check("fib", v.impl, result, expected);
            wb::print_result("fib", v.impl, workers, o.n, wb::fib_calls(o.n), seconds, result);
        }
    }
    return 0;
}
