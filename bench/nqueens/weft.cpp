// N-queens on weft: at every row above the cutoff (default: every row), one
// weft::task_group child per column tried; each child copies the board, places its queen
// and, if it is safe, searches on; the parent joins and adds up the solution counts the
// children left in their own slots.
#include "nqueens/nqueens.hpp"

#include <weft/weft.hpp>

#include <cstdint>

namespace {

namespace nq = weft::bench::nqueens;

std::uint64_t place(int n, int row, const nq::board& b, int serial_from) {
    if (row == n) return 1;
    if (row >= serial_from) return nq::search(n, row, b);
    std::uint64_t found[nq::max_n] = {};
    weft::task_group g;
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
    weft::runtime rt(argc, argv);  // --weft:threads=W --weft:scheduler=S (scripts/bench passes them)
    const nq::options o = nq::parse_options(argc, argv);
    const int serial_from = o.serial_from();
    nq::measure("weft-fork_join", rt.num_workers(), o, nq::tasks_created(o.n, serial_from), [&] {
        return weft::async([&o, serial_from] { return place(o.n, 0, nq::board{}, serial_from); }).get();
    });
    return 0;
}
