// Health on oneTBB: the calling thread, inside the arena, runs the time steps; in each,
// every village runs one tbb::task_group child per village below it, does its own
// patients' step beside them, waits for them and then takes in the patients they sent up
// (BOTS's sim_village_par). The reallocation lists are guarded by tbb::spin_mutex.
#include "health/health.hpp"

#include <tbb/global_control.h>
#include <tbb/spin_mutex.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <cstddef>
#include <cstdint>

int main(int argc, char** argv) {
    namespace hl = weft::bench::health;
    constexpr const char* impl = "tbb-task_group";
    const hl::options o = hl::parse_options(argc, argv);
    const hl::parameters p = o.params();
    const auto calls = static_cast<std::uint64_t>(hl::tasks_per_step(p, o.cutoff)) * static_cast<std::uint64_t>(p.steps);

    // The arena's slot for the calling thread counts as one of the --workers.
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(o.workers));
    tbb::task_arena arena(static_cast<int>(o.workers));
    arena.initialize();
    const auto workers = static_cast<unsigned>(arena.max_concurrency());

    hl::measure<tbb::spin_mutex>(impl, workers, o, calls, [&](hl::world<tbb::spin_mutex>& w) {
        arena.execute([&] {
            for (int t = 0; t < p.steps; ++t) hl::step<tbb::task_group>(p, *w.top(), o.cutoff);
        });
    });
    return 0;
}
