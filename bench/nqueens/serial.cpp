// N-queens on one thread by plain recursion (the search every task version runs below its
// cutoff), with no task at all: the floor the task-parallel versions are measured against.
#include "nqueens/nqueens.hpp"

int main(int argc, char** argv) {
    namespace nq = weft::bench::nqueens;
    const nq::options o = nq::parse_options(argc, argv);
    // One thread whatever --workers says; calls = the placements tried.
    nq::measure("serial", 1, o, nq::tasks_created(o.n, o.n), [&] { return nq::search(o.n, 0, nq::board{}); });
    return 0;
}
