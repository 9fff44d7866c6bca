// UTS on one thread by plain depth-first recursion, with no task at all: the floor every
// task-parallel count is measured against. Its warm-up run also reports the tree's shape
// (nodes, leaves, depth) on stderr, the figures UTS publishes for its sample trees.
#include "uts/uts_tree.hpp"

#include <cstdint>
#include <cstdio>

namespace {

namespace ut = weft::bench::uts;

std::uint64_t count(const ut::tree& t, const ut::node& n) {
    const int children = ut::num_children(t, n);
    std::uint64_t nodes = 1;
    for (int i = 0; i < children; ++i) nodes += count(t, ut::derive_child(n, i));
    return nodes;
}

struct shape {
    std::uint64_t nodes = 0;
    std::uint64_t leaves = 0;
    std::int32_t depth = 0;
};

void survey(const ut::tree& t, const ut::node& n, shape& s) {
    const int children = ut::num_children(t, n);
    ++s.nodes;
    if (children == 0) ++s.leaves;
    if (n.height > s.depth) s.depth = n.height;
    for (int i = 0; i < children; ++i) survey(t, ut::derive_child(n, i), s);
}

}  // namespace

int main(int argc, char** argv) {
    namespace wb = weft::bench;
    const ut::options o = ut::parse_options(argc, argv);
    const ut::tree& t = *o.t;

    // The warm-up: the whole tree, surveyed.
    shape s;
    const double seconds = wb::time_seconds([&] { survey(t, ut::make_root(t), s); });
    std::fprintf(stderr, "bench_uts_serial: tree %s (UTS %s): %llu nodes, %llu leaves, depth %d (%.3f s)\n",
                 t.name, t.uts_args, static_cast<unsigned long long>(s.nodes),
                 static_cast<unsigned long long>(s.leaves), s.depth, seconds);
    if (s.nodes != t.nodes) wb::fail_check("uts", "serial", s.nodes, t.nodes);
    if (s.depth != t.depth) wb::fail_check("uts", "serial (depth)", static_cast<std::uint64_t>(s.depth),
                                           static_cast<std::uint64_t>(t.depth));

    ut::measure("serial", 1, o, [&] { return count(t, ut::make_root(t)); }, /*warm_up=*/false);
    return 0;
}
