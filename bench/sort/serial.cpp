// Sort on one thread: the recursion of sort.hpp with every "task" called in place, no
// task at all: the floor the task-parallel versions are measured against. calls= counts
// the calls that the parallel versions make tasks.
#include "sort/sort.hpp"

int main(int argc, char** argv) {
    namespace srt = weft::bench::sort;
    const srt::options o = srt::parse_options(argc, argv);
    // One thread whatever --workers says.
    srt::measure("serial", 1, o, [&o](bool counting, const srt::sort_range& r) {
        if (counting) srt::sort<srt::counted<srt::inline_group>>(o.cut, r);
        else srt::sort<srt::inline_group>(o.cut, r);
    });
    return 0;
}
