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
    if (row == n) return 1;
    if (row >= serial_from) return nq::search(n, row, b);
    std::uint64_t found[nq::max_n] = {};
    tbb::task_group g;
    for (int col = 0; col < n; ++col) {
        g.run([&found, &b, n, row, col, serial_from] {
            nq::board next = b;
            next.col[row] = static_cast<std::int8_t>(col);
            found[col] = nq::safe(next, row) ? place(n, row + 1, next, serial_from) : 0;
        });
    }
    g.wait();
    std::uint64_t total = 0;
    for (int col = 0; col < n; ++col) total += found[col];
    return total;
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
