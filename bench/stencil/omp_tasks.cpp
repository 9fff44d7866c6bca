// The 1D heat stencil with OpenMP tasks and `depend` clauses: one thread creates a task
// per partition per time step for the whole run, each with depend(in:) on partitions
// i-1, i, i+1 of the buffer it reads and depend(out:) on partition i of the buffer it
// writes, so the runtime orders the tasks as HPX's dataflow does (write-after-read on the
// two buffers included) and no barrier separates the steps; the end of the parallel
// region waits for all. ANCHORS.md's "OpenMP tasks+depend" column.
// The runtime's name comes from WEFT_BENCH_OMP_IMPL (scripts/bench sets
// "omp-tasks-libomp" for its clang build); otherwise it is guessed from the compiler.
#include "stencil/common.hpp"

#include <omp.h>

#include <cstddef>
#include <vector>

#if !defined(WEFT_BENCH_OMP_IMPL)
#if defined(__clang__)
#define WEFT_BENCH_OMP_IMPL "omp-tasks-libomp"
#else
#define WEFT_BENCH_OMP_IMPL "omp-tasks-libgomp"
#endif
#endif

int main(int argc, char** argv) {
    namespace wb = weft::bench;
    namespace st = weft::bench::stencil;
    const st::problem p = st::parse_problem(argc, argv);
    omp_set_dynamic(0);
    const int threads = static_cast<int>(p.workers);
    const std::size_t parts = p.partitions();

    unsigned team = 0;
#pragma omp parallel num_threads(threads)
#pragma omp single
    team = static_cast<unsigned>(omp_get_num_threads());

    std::vector<double> next(p.nx);
    st::measure(WEFT_BENCH_OMP_IMPL, team, p, [&](std::vector<double>& grid) {
        double* const buffers[2] = {grid.data(), next.data()};
        const double seconds = wb::time_seconds([&] {
#pragma omp parallel num_threads(threads)
#pragma omp single
            for (unsigned t = 0; t < p.nt; ++t) {
                const double* const cur = buffers[t % 2];
                double* const nxt = buffers[(t + 1) % 2];
                for (std::size_t part = 0; part < parts; ++part) {
                    // A partition is represented by its first point, in either buffer.
                    const std::size_t lb = p.begin(p.left(part));
                    const std::size_t mb = p.begin(part);
                    const std::size_t rb = p.begin(p.right(part));
#pragma omp task firstprivate(cur, nxt, part) depend(in : cur[lb : 1], cur[mb : 1], cur[rb : 1]) \
    depend(out : nxt[mb : 1])
                    st::heat_partition(p, cur, nxt, part);
                }
            }
        });
        if (p.nt % 2 == 1) grid.swap(next);
        return seconds;
    });
    return 0;
}
