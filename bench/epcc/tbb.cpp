// The EPCC-inspired scheduler microbenchmarks (bench/epcc/epcc_common.hpp) on oneTBB.
// The main thread joins an arena of W slots as its master. For the per-worker benchmarks
// it runs W generator tasks in a task_group; each creates its share of delay tasks in a
// task_group of its own and waits (which generator lands on which thread is up to oneTBB's
// stealing). For `stealing` the master alone creates the tasks. A task counts itself
// under tbb::this_task_arena::current_thread_index().
#include "epcc/epcc_common.hpp"

#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
    namespace ep = weft::bench::epcc;
    std::string const impl = "tbb";
    ep::options const o = ep::parse_options(argc, argv);
    unsigned const workers = weft::bench::default_workers(o.workers);
    // Before the arena exists: no worker thread of ours competes for a core yet.
    double const measured = o.iters_per_us > 0 ? 0 : ep::calibrate_iters_per_us();
    double const rate = ep::announce_calibration(impl, o, measured);

    tbb::global_control const limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(workers));
    tbb::task_arena arena(static_cast<int>(workers));
    arena.initialize();
    if (arena.max_concurrency() != static_cast<int>(workers)) {
        std::fprintf(stderr, "tbb: asked for an arena of %u threads, got %d\n", workers, arena.max_concurrency());
        return 1;
    }

    ep::run_all(o, impl, workers, rate, [&](ep::run_spec const& s, ep::counters& c) {
        auto const task = [&c](std::uint64_t iters) {
            return [&c, iters] {
                ep::delay(iters);
                c.add(tbb::this_task_arena::current_thread_index());
            };
        };
        arena.execute([&] {
            if (s.master_only) {
                tbb::task_group g;
                for (std::uint64_t i = 0; i < s.fine; ++i) g.run(task(s.fine_iters));
                g.wait();
                return;
            }
            tbb::task_group generators;
            for (unsigned gen = 0; gen < workers; ++gen) {
                generators.run([&, gen] {
                    tbb::task_group g;
                    if (gen == 0) {
                        for (std::uint64_t i = 0; i < s.coarse; ++i) g.run(task(s.coarse_iters));
                    }
                    for (std::uint64_t i = 0; i < s.fine; ++i) g.run(task(s.fine_iters));
                    g.wait();
                });
            }
            generators.wait();
        });
    });
    return 0;
}
