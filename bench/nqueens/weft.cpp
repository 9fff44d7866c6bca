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
    return nq::place_fork_join<weft::task_group>(n, row, b, serial_from);
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
