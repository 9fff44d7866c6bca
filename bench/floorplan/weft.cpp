// Floorplan on weft: for every cell up to the cutoff (default: every cell), one
// weft::task_group child per (shape, start) tried; each child holds its own copy of the
// layout (in its closure, on the heap), lays the cell down and, within the bound, goes on
// with the next cell; the parent joins them. The bound is an atomic read without a lock;
// a better complete placement is recorded under a std::mutex (held by no task that
// waits).
#include "floorplan/floorplan.hpp"

#include <weft/weft.hpp>

#include <cstdint>
#include <mutex>

int main(int argc, char** argv) {
    namespace fp = weft::bench::floorplan;
    weft::runtime rt(argc, argv);  // --weft:threads=W --weft:scheduler=S (scripts/bench passes them)
    const fp::options o = fp::parse_options(argc, argv);
    fp::measure("weft-fork_join", rt.num_workers(), o, [&o](fp::best_placement<std::mutex>& best) {
        return weft::async([&o, &best] {
                   return fp::search_fork_join<weft::task_group>(o.in->cells, fp::layout{}, 1, fp::footprint{0, 0},
                                                                 best, o.serial_from());
               })
            .get();
    });
    return 0;
}
