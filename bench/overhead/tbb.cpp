// Seed 004 Fig. 9's task-management overhead (bench/overhead/overhead_common.hpp) on
// oneTBB: the main thread joins an arena of W slots and spawns the n tasks with
// tbb::task_group::run, then waits (the seed's single producer, L170). Shape `tree`:
// each split runs its left half in a task_group of its own and recurses into the right.
#include "overhead/overhead_common.hpp"

#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

namespace ov = weft::bench::overhead;

void tree(ov::job const& j, std::uint64_t lo, std::uint64_t hi) {
    if (hi - lo == 1) {
        j(lo);
        return;
    }
    std::uint64_t const mid = lo + (hi - lo) / 2;
    tbb::task_group g;
    g.run([&j, lo, mid] { tree(j, lo, mid); });
    tree(j, mid, hi);
    g.wait();
}

}  // namespace

int main(int argc, char** argv) {
    ov::program const prog{"bench_overhead_tbb", {"tbb-task_group"}, 1000000, false};
    ov::options const o = ov::parse_options(argc, argv, prog);
    unsigned const workers = weft::bench::default_workers(o.workers);
    // Before the arena exists: no worker thread of ours competes for a core yet.
    std::vector<ov::point> const points = ov::prepare(o);

    tbb::global_control const limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(workers));
    tbb::task_arena arena(static_cast<int>(workers));
    arena.initialize();
    if (arena.max_concurrency() != static_cast<int>(workers)) {
        std::fprintf(stderr, "%s: asked for an arena of %u threads, got %d\n", prog.name, workers,
                     arena.max_concurrency());
        return 1;
    }

    ov::run_all(o, points, workers, "", [&arena](std::string const&, ov::shape s, std::uint64_t n, ov::job const& j) {
        arena.execute([&] {
            if (s == ov::shape::tree) {
                tree(j, 0, n);
                return;
            }
            tbb::task_group g;
            for (std::uint64_t i = 0; i < n; ++i) g.run([&j, i] { j(i); });
            g.wait();
        });
    });
    return 0;
}
