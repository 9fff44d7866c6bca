// Floorplan on one thread: floorplan.hpp's serial search (each try copies its parent's
// layout, as a task would, but no task at all): the floor the task-parallel versions are
// measured against. calls= is the placements tried.
#include "floorplan/floorplan.hpp"

#include <mutex>

int main(int argc, char** argv) {
    namespace fp = weft::bench::floorplan;
    const fp::options o = fp::parse_options(argc, argv);
    // One thread whatever --workers says (and whatever --cutoff says: everything is serial).
    fp::measure("serial", 1, o, [&o](fp::best_placement<std::mutex>& best) {
        return fp::search_serial(o.in->cells, fp::layout{}, 1, fp::footprint{0, 0}, best);
    });
    return 0;
}
