// The transpose on oneTBB as its documentation suggests for 2D blocks: tbb::parallel_for
// over a tbb::blocked_range2d of tile indices (grain 1 tile each way) with the default
// auto_partitioner, which splits the grid recursively and lets idle threads steal the
// halves. The first touch uses the same loop. Everything runs in one task arena of
// --workers slots, the calling thread's included.
#include "transpose/common.hpp"

#include <tbb/blocked_range2d.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <cstddef>

namespace {

namespace tr = weft::bench::transpose;

struct tbb_tiles {
    template <class Body>
    void for_tiles(std::size_t tiles, const Body& body) const {
        tbb::parallel_for(tbb::blocked_range2d<std::size_t>(0, tiles, 0, tiles),
                          [&body](const tbb::blocked_range2d<std::size_t>& r) {
                              for (std::size_t ti = r.rows().begin(); ti != r.rows().end(); ++ti)
                                  for (std::size_t tj = r.cols().begin(); tj != r.cols().end(); ++tj) body(ti, tj);
                          });
    }
};

}  // namespace

int main(int argc, char** argv) {
    const tr::problem p = tr::parse_problem(argc, argv);

    // The arena's slot for the calling thread counts as one of the --workers.
    tbb::global_control const limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(p.workers));
    tbb::task_arena arena(static_cast<int>(p.workers));
    arena.initialize();
    const auto workers = static_cast<unsigned>(arena.max_concurrency());

    tbb_tiles t;
    tr::run("tbb-2d", workers, p, t, [&arena](auto&& body) { arena.execute(body); });
    return 0;
}
