// INNCABS UTS (seed 000 Table 7: recursive, unbalanced, no synchronisation but the joins,
// very fine): Unbalanced Tree Search (Olivier et al., LCPC 2006) counts the nodes of a
// tree that exists only implicitly, as BOTS's uts does and INNCABS ports to std::async. A
// node derives each child's state (one SHA-1 each, --granularity times over, the UTS
// "compute granularity"), starts one async per child that counts the child's subtree,
// and adds up their futures' values.
//
// The trees are common/uts_gen.hpp's (the UTS reference generator, SHA-1 from nettle:
// link -lnettle) and its named trees, plus T3XXS below for quick runs. INNCABS's default
// input is BOTS's test.input, the binomial tree T3 (-t 0 -b 2000 -q 0.124875 -m 8 -r 42,
// 4,112,897 nodes, 1,572 levels; granularity 1): the default here.
//
// The check: every run's count must equal the tree's known node count (uts_gen.hpp's:
// UTS's published count, or counted by bench_uts_serial). Exit 1 if not.
//
// Tasks: one per node but the root.
//
// Options: --tree=NAME (default T3), --granularity=G (SHA-1 evaluations per child, 1..100,
// default 1), plus inncabs's --launch, --reps. Small input: --tree=T3XXS.
#include "inncabs/inncabs.hpp"
#include "common/uts_gen.hpp"

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace ut = weft::bench::uts;

/// A binomial tree of T3's kind small enough for a std::async run at one core (421 nodes,
/// 16 levels): counted by bench_uts_serial's method, plain depth-first recursion over
/// uts_gen.hpp's generator.
constexpr ut::tree t3xxs{"T3XXS", "-t 0 -b 20 -q 0.124875 -m 8 -r 2", ut::tree_type::binomial, ut::geo_shape::fixed,
                         20.0, 0, 0.124875, 8, 2, 421, 16, false};

const ut::tree* find_tree(std::string_view name) {
    if (name == t3xxs.name) return &t3xxs;
    return ut::find_tree(name);
}

/// The nodes of the subtree under `n`.
std::uint64_t count(const ut::tree& t, const ut::node& n, int granularity, const inncabs::launch l) {
    const int children = ut::num_children(t, n);
    std::vector<inncabs::future<std::uint64_t>> subtrees;
    subtrees.reserve(static_cast<std::size_t>(children));
    for (int i = 0; i < children; ++i) {
        ut::node child = ut::make_child(n, i);
        for (int g = 1; g < granularity; ++g) child = ut::make_child(n, i);  // the same state, G SHA-1s
        subtrees.push_back(inncabs::async(l, count, std::cref(t), child, granularity, l));
    }
    std::uint64_t nodes = 1;
    for (auto& f : subtrees) nodes += f.get();
    return nodes;
}

}  // namespace

int main(int argc, char** argv) {
    const ut::tree* t = ut::find_tree("T3");
    int granularity = 1;
    std::string trees = "a tree (default T3): " + std::string(t3xxs.name);
    for (const ut::tree& x : ut::trees) trees += std::string(", ") + x.name;
    const inncabs::common_options o = inncabs::parse(
        argc, argv, "inncabs uts: unbalanced tree search, an async per child node",
        {{"tree", trees.c_str(), [&t](std::string_view v) { return (t = find_tree(v)) != nullptr; }},
         {"granularity", "a number of SHA-1 evaluations per child node from 1 to 100 (default 1)",
          [&granularity](std::string_view v) { return inncabs::parse_number(v, granularity, 1, 100); }}});
    const ut::tree& tree = *t;
    const std::uint64_t expected = tree.nodes;
    return inncabs::run(
        "uts", o, std::string(tree.name) + (granularity > 1 ? "-g" + std::to_string(granularity) : ""),
        expected - 1, [&] { return count(tree, ut::make_root(tree), granularity, o.policy); },
        [expected](std::uint64_t r) {
            return inncabs::verdict{r == expected, r == expected ? std::to_string(r)
                                                                 : std::to_string(r) + " != " + std::to_string(expected)};
        });
}
