// Floorplan on oneTBB: for every cell up to the cutoff (default: every cell), one
// tbb::task_group child per (shape, start) tried; each child holds its own copy of the
// layout, lays the cell down and, within the bound, goes on with the next cell; the
// parent waits for them. The bound is an atomic read without a lock; a better complete
// placement is recorded under a std::mutex.
#include "floorplan/floorplan.hpp"

#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <cstddef>
#include <cstdint>
#include <mutex>

int main(int argc, char** argv) {
    namespace fp = weft::bench::floorplan;
    constexpr const char* impl = "tbb-task_group";
    const fp::options o = fp::parse_options(argc, argv);

    // The arena's slot for the calling thread counts as one of the --workers.
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(o.workers));
    tbb::task_arena arena(static_cast<int>(o.workers));
    arena.initialize();
    const auto workers = static_cast<unsigned>(arena.max_concurrency());

    fp::measure(impl, workers, o, [&](fp::best_placement<std::mutex>& best) {
        std::uint64_t tasks = 0;
        arena.execute([&] {
            tasks = fp::search_fork_join<tbb::task_group>(o.in->cells, fp::layout{}, 1, fp::footprint{0, 0}, best,
                                                          o.serial_from());
        });
        return tasks;
    });
    return 0;
}
