// N-queens on oneTBB: at every row above the cutoff (default: every row), one
// tbb::task_group child per column tried; each copies the board, places its queen and, if
// it is safe, searches on; the parent waits and adds up the solution counts the children
// left in their own slots.
#include "nqueens/nqueens.hpp"

#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <cstddef>
#include <cstdint>

namespace {

namespace nq = weft::bench::nqueens;

std::uint64_t place(int n, int row, const nq::board& b, int serial_from) {
    return nq::place_fork_join<tbb::task_group>(n, row, b, serial_from);
}

}  // namespace

int main(int argc, char** argv) {
    constexpr const char* impl = "tbb-task_group";
    const nq::options o = nq::parse_options(argc, argv);
    const int serial_from = o.serial_from();

    // The arena's slot for the calling thread counts as one of the --workers.
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(o.workers));
    tbb::task_arena arena(static_cast<int>(o.workers));
    arena.initialize();
    const auto workers = static_cast<unsigned>(arena.max_concurrency());

    nq::measure(impl, workers, o, nq::tasks_created(o.n, serial_from), [&] {
        std::uint64_t found = 0;
        arena.execute([&] { found = place(o.n, 0, nq::board{}, serial_from); });
        return found;
    });
    return 0;
}
