// The 1D heat stencil with an OpenMP worksharing loop: one thread team for the whole
// run, `omp for schedule(static)` over the partitions at every time step and its implicit
// barrier between steps (the bulk-synchronous shape the dataflow versions avoid).
// The runtime's name comes from WEFT_BENCH_OMP_IMPL (scripts/bench sets "omp-for-libomp"
// for its clang build); otherwise it is guessed from the compiler.
#include "stencil/common.hpp"

#include <omp.h>

#include <cstddef>
#include <utility>
#include <vector>

#if !defined(WEFT_BENCH_OMP_IMPL)
#if defined(__clang__)
#define WEFT_BENCH_OMP_IMPL "omp-for-libomp"
#else
#define WEFT_BENCH_OMP_IMPL "omp-for-libgomp"
#endif
#endif

int main(int argc, char** argv) {
    namespace wb = weft::bench;
    namespace st = weft::bench::stencil;
    const st::problem p = st::parse_problem(argc, argv);
    omp_set_dynamic(0);
    const int threads = static_cast<int>(p.workers);
    const auto parts = static_cast<long>(p.partitions());

    unsigned team = 0;
#pragma omp parallel num_threads(threads)
#pragma omp single
    team = static_cast<unsigned>(omp_get_num_threads());

    std::vector<double> next(p.nx);
    st::measure(WEFT_BENCH_OMP_IMPL, team, p, [&](std::vector<double>& grid) {
        const double seconds = wb::time_seconds([&] {
#pragma omp parallel num_threads(threads)
            {
                double* cur = grid.data();
                double* nxt = next.data();
                for (unsigned t = 0; t < p.nt; ++t) {
#pragma omp for schedule(static)
                    for (long part = 0; part < parts; ++part) {
                        st::heat_partition(p, cur, nxt, static_cast<std::size_t>(part));
                    }
                    std::swap(cur, nxt);  // each thread its own copies, after the barrier
                }
            }
        });
        if (p.nt % 2 == 1) grid.swap(next);
        return seconds;
    });
    return 0;
}
