// The 1D heat stencil on oneTBB, with a barrier per time step (oneTBB has no dataflow
// between tasks short of a flow graph, whose nodes would have to be built per partition
// per step):
//   tbb-task_group    one tbb::task_group per step: one run() per partition, then wait()
//   tbb-parallel_for  tbb::parallel_for per step over the partitions, one partition per
//                     task (simple_partitioner, grain 1): recursive splitting, so the
//                     tasks are spawned in parallel rather than by one thread
#include "stencil/common.hpp"

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <cstddef>
#include <utility>
#include <vector>

int main(int argc, char** argv) {
    namespace wb = weft::bench;
    namespace st = weft::bench::stencil;
    const st::problem p = st::parse_problem(argc, argv);
    const std::size_t parts = p.partitions();

    // The arena's slot for the calling thread counts as one of the --workers.
    tbb::global_control const limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(p.workers));
    tbb::task_arena arena(static_cast<int>(p.workers));
    arena.initialize();
    const auto workers = static_cast<unsigned>(arena.max_concurrency());

    std::vector<double> next(p.nx);
    auto step_task_group = [&](const double* cur, double* nxt) {
        tbb::task_group g;
        for (std::size_t part = 0; part < parts; ++part) {
            g.run([&p, cur, nxt, part] { st::heat_partition(p, cur, nxt, part); });
        }
        g.wait();
    };
    auto step_parallel_for = [&](const double* cur, double* nxt) {
        tbb::parallel_for(
            tbb::blocked_range<std::size_t>(0, parts, 1),
            [&p, cur, nxt](const tbb::blocked_range<std::size_t>& range) {
                for (std::size_t part = range.begin(); part != range.end(); ++part) {
                    st::heat_partition(p, cur, nxt, part);
                }
            },
            tbb::simple_partitioner{});
    };
    auto run_with = [&](auto step) {
        return [&, step](std::vector<double>& grid) {
            double* a = grid.data();
            double* b = next.data();
            const double seconds = wb::time_seconds([&] {
                arena.execute([&] {
                    for (unsigned t = 0; t < p.nt; ++t) {
                        step(a, b);
                        std::swap(a, b);
                    }
                });
            });
            if (p.nt % 2 == 1) grid.swap(next);
            return seconds;
        };
    };

    st::measure("tbb-task_group", workers, p, run_with(step_task_group));
    st::measure("tbb-parallel_for", workers, p, run_with(step_parallel_for));
    return 0;
}
