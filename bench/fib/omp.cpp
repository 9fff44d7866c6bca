// fib(n) on OpenMP tasks: fib(n-1) in an `omp task`, fib(n-2) inline, then `omp taskwait`.
// The runtime's name comes from WEFT_BENCH_OMP_IMPL (scripts/bench sets "omp-libomp" for
// its clang build); otherwise it is guessed from the compiler.
#include "common/bench_common.hpp"

#include <omp.h>

#include <cstdint>

#include "omp_impl.hpp"

namespace {

std::uint64_t fib(unsigned n) {
    if (n < 2) {
        return n;
    }
    std::uint64_t x = 0;
#pragma omp task shared(x) firstprivate(n)
    x = fib(n - 1);
    std::uint64_t const y = fib(n - 2);
#pragma omp taskwait
    return x + y;
}

}  // namespace

int main(int argc, char** argv) {
    namespace wb = weft::bench;
    constexpr char const* impl = WEFT_BENCH_OMP_IMPL;
    wb::options const o = wb::parse_options(argc, argv);
    std::uint64_t const expected = wb::fib_expected(o.n);
    omp_set_dynamic(0);

    std::uint64_t result = 0;
    unsigned team = 0;
    auto const run = [&] {
#pragma omp parallel num_threads(static_cast<int>(o.workers))
#pragma omp single
        {
            team = static_cast<unsigned>(omp_get_num_threads());
            result = fib(o.n);
        }
    };

    (void)wb::time_seconds(run);  // warm-up: starts the thread team
    if (result != expected) {
        wb::fail_check("fib", impl, result, expected);
    }
    for (unsigned rep = 0; rep < o.reps; ++rep) {
        result = 0;
        double const seconds = wb::time_seconds(run);
        if (result != expected) {
            wb::fail_check("fib", impl, result, expected);
        }
        wb::print_result("fib", impl, team, o.n, wb::fib_calls(o.n), seconds, result);
    }
    return 0;
}
