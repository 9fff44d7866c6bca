// UTS on weft, one task per node and no cutoff: a node spawns one weft::task_group child
// per child node (whose state the parent derives before the spawn, as the UTS reference's
// task versions do), joins them and adds up the counts they return in their own slots.
#include "uts/uts_tree.hpp"

#include <weft/weft.hpp>

#include <cstdint>

namespace {

namespace ut = weft::bench::uts;

std::uint64_t count(const ut::tree& t, const ut::node& n) { return ut::count_fork_join<weft::task_group>(t, n); }

}  // namespace

int main(int argc, char** argv) {
    weft::runtime rt(argc, argv);  // --weft:threads=W --weft:scheduler=S (scripts/bench passes them)
    const ut::options o = ut::parse_options(argc, argv);
    const ut::tree& t = *o.t;
    ut::measure("weft-fork_join", rt.num_workers(), o,
                [&] { return weft::async([&t] { return count(t, ut::make_root(t)); }).get(); });
    return 0;
}
