// Strassen on one thread: the recursion of strassen.hpp with every product called in
// place, no task at all: the floor the task-parallel versions are measured against.
#include "strassen/strassen.hpp"

int main(int argc, char** argv) {
    namespace st = weft::bench::strassen;
    const st::options o = st::parse_options(argc, argv);
    // One thread whatever --workers says.
    st::measure("serial", 1, o, [&o](const st::product& m) { st::multiply<st::inline_group>(o.p, m, 1); });
    return 0;
}
