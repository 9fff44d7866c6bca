// Sort on weft: the recursion of sort.hpp on weft::task_group, one group per step: four
// sorts, join, two merges, join, the last merge in the caller; every merge step above the
// cutoff runs its two halves as children and joins them.
#include "sort/sort.hpp"

#include <weft/weft.hpp>

int main(int argc, char** argv) {
    namespace srt = weft::bench::sort;
    weft::runtime rt(argc, argv);  // --weft:threads=W --weft:scheduler=S (scripts/bench passes them)
    const srt::options o = srt::parse_options(argc, argv);
    srt::measure("weft-fork_join", rt.num_workers(), o, [&o](bool counting, const srt::sort_range& r) {
        weft::async([&] {
            if (counting) srt::sort<srt::counted<weft::task_group>>(o.cut, r);
            else srt::sort<weft::task_group>(o.cut, r);
        }).get();
    });
    return 0;
}
