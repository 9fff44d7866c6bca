// Seed 002's Fig. 7 on this machine: an application's tree-depth cutoff against
// HotSLAW's bounded queues, on weft's `hierarchical` policy, for Fib and UTS.
//   TreeDepth: queues unbounded (2^20 tasks, half public), tasks spawned down to depth D
//              of the tree, everything below a task at depth D run serially inside it.
//   BoundedQ:  no cutoff, a task per call or node; the queue bound Q (public Q/2,
//              at least 1) switches spawns to work-first when a worker's queue is full.
// One runtime per setting (the bound is a runtime option); other --weft:* options
// (--weft:threads, --weft:topology, ...) apply to every setting.
//
//   bench_hotslaw_fig7 --problem=fib|uts [--n=35] [--tree=T3L] [--reps=1]
//                      [--depths=4,8,...] [--bounds=2,4,...] --weft:threads=W
//
// Result lines: bench_common.hpp's format with impl=weft-depth-D or weft-boundedq-Q.
#include "common/bench_common.hpp"
#include "uts/uts_tree.hpp"

#include <weft/weft.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace wb = weft::bench;
namespace ut = weft::bench::uts;

std::uint64_t fib_serial(unsigned n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

std::uint64_t fib(unsigned n, unsigned depth, unsigned cutoff) {
    if (n < 2) return n;
    if (depth >= cutoff) return fib_serial(n);
    std::uint64_t a = 0;
    weft::task_group g;
    g.run([&a, n, depth, cutoff] { a = fib(n - 1, depth + 1, cutoff); });
    const std::uint64_t b = fib(n - 2, depth + 1, cutoff);
    g.wait();
    return a + b;
}

// Below the cutoff: an explicit stack, since T3L is 17,844 levels deep.
std::uint64_t uts_serial(const ut::tree& t, const ut::node& root) {
    std::vector<ut::node> stack{root};
    std::uint64_t count = 0;
    while (!stack.empty()) {
        const ut::node n = stack.back();
        stack.pop_back();
        ++count;
        const int children = ut::num_children(t, n);
        for (int i = 0; i < children; ++i) stack.push_back(ut::make_child(n, i));
    }
    return count;
}

std::uint64_t uts(const ut::tree& t, const ut::node& n, int cutoff) {
    if (n.height >= cutoff) return uts_serial(t, n);
    const int children = ut::num_children(t, n);
    if (children == 0) return 1;
    ut::child_slots counts(children);  // as bench/uts's count_fork_join: no allocation below 17 children
    weft::task_group g;
    for (int i = 0; i < children; ++i)
        g.run([&t, &counts, i, cutoff, child = ut::make_child(n, i)] { counts[i] = uts(t, child, cutoff); });
    g.wait();
    return 1 + counts.sum();
}

std::vector<unsigned> parse_list(std::string_view v) {
    std::vector<unsigned> out;
    while (!v.empty()) {
        const auto comma = v.find(',');
        unsigned x = 0;
        if (!wb::detail::parse_number(v.substr(0, comma), x)) return {};
        out.push_back(x);
        if (comma == std::string_view::npos) break;
        v.remove_prefix(comma + 1);
    }
    return out;
}

[[noreturn]] void usage(const char* program, int status) {
    std::fprintf(status == 0 ? stdout : stderr,
                 "usage: %s --problem=fib|uts [--n=N] [--tree=NAME] [--reps=N] [--depths=LIST] [--bounds=LIST] "
                 "[--weft:...]\n",
                 program);
    std::exit(status);
}

}  // namespace

int main(int argc, char** argv) {
    weft::runtime_config base = weft::parse_runtime_options(argc, argv);
    std::string problem = "fib";
    unsigned n = 35, reps = 1;
    const ut::tree* tree = ut::find_tree("T3L");
    std::vector<unsigned> depths{2, 4, 6, 8, 12, 16, 20, 24}, bounds{2, 4, 8, 12, 20, 40, 80};
    wb::parse_command_line(argc, argv, usage, [&](std::string_view name, std::string_view v) {
        if (name == "--problem") return (problem = std::string(v)) == "fib" || problem == "uts";
        if (name == "--n") return wb::detail::parse_number(v, n) && n <= 60;
        if (name == "--reps") return wb::detail::parse_number(v, reps) && reps >= 1;
        if (name == "--tree") return (tree = ut::find_tree(v)) != nullptr;
        if (name == "--depths") return !(depths = parse_list(v)).empty();
        if (name == "--bounds") return !(bounds = parse_list(v)).empty();
        return false;
    });
    base.scheduler = "hierarchical";
    const bool is_fib = problem == "fib";
    const std::uint64_t expected = is_fib ? wb::fib_expected(n) : tree->nodes;
    const std::uint64_t size = is_fib ? n : tree->nodes;
    const std::uint64_t calls = is_fib ? wb::fib_calls(n) : tree->nodes;

    auto run_setting = [&](const std::string& impl, unsigned bound, unsigned cutoff) {
        weft::runtime_config cfg = base;
        cfg.queue_bound = bound;
        cfg.queue_public = bound / 2 == 0 ? 1 : bound / 2;
        weft::runtime rt(cfg);
        for (unsigned rep = 0; rep <= reps; ++rep) {  // rep 0: warm-up, not reported
            std::uint64_t result = 0;
            const double seconds = wb::time_seconds([&] {
                result = is_fib ? weft::async([&] { return fib(n, 0, cutoff); }).get()
                                : weft::async([&] { return uts(*tree, ut::make_root(*tree), static_cast<int>(cutoff)); }).get();
            });
            if (result != expected) wb::fail_check(problem.c_str(), impl.c_str(), result, expected);
            if (rep > 0) {
                wb::print_result(problem.c_str(), impl.c_str(), rt.num_workers(), size, calls, seconds, result);
            }
        }
    };
    for (unsigned d : depths) run_setting("weft-depth-" + std::to_string(d), 1u << 20, d);
    for (unsigned q : bounds) run_setting("weft-boundedq-" + std::to_string(q), q, ~0u);
    return 0;
}
