// UTS, the Unbalanced Tree Search benchmark (Olivier et al., "UTS: An Unbalanced Tree
// Search Benchmark", LCPC 2006), for weft's fine-grained comparisons (seed 002 §2.2, seed
// 001 §5.11): count the nodes of a tree that exists only implicitly. Shared by
// bench/uts/{serial,weft,omp,tbb}.cpp: the options, the check and the result line, on top
// of common/uts_gen.hpp, the tree generator and the named trees with their node counts (shared
// with tools/schedsim; its comment gives the UTS reference definition it follows, with
// SHA-1 from nettle).
//
// A deep tree (T3L is 17,844 levels deep) nests as many task frames on one thread in the
// OpenMP and oneTBB versions, more than their default stacks hold: they run on stacks
// sized by stack_bytes() (weft moves a child to a fresh task stack when its own runs low).
//
// Options: --tree=NAME (default T1; see `trees` in uts_gen.hpp or --help), --workers=N,
// --reps=N; --weft:* is left to the weft runtime.
//
// Result line: bench_common.hpp's format with problem=uts, n=<nodes in the tree>,
// calls=<nodes> (ns_per_call is ns per node: one task per node in the parallel versions)
// and result=<nodes counted>, then tree=<name>. A count other than the tree's known one
// fails the run (exit 1).
#pragma once

#include "common/bench_common.hpp"
#include "common/uts_gen.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <pthread.h>
#include <string_view>

namespace weft::bench::uts {

/// Result slots for one node's children: each child's task writes its own, the parent
/// sums them after the join (no shared counter). On the stack up to 16 children.
class child_slots {
public:
    explicit child_slots(int n) : n_(n) {
        if (n > inline_slots) {
            heap_ = std::make_unique<std::uint64_t[]>(static_cast<std::size_t>(n));
            data_ = heap_.get();
        }
    }
    child_slots(const child_slots&) = delete;
    child_slots& operator=(const child_slots&) = delete;

    std::uint64_t& operator[](int i) noexcept { return data_[i]; }

    std::uint64_t sum() const noexcept {
        std::uint64_t s = 0;
        for (int i = 0; i < n_; ++i) s += data_[i];
        return s;
    }

private:
    static constexpr int inline_slots = 16;
    std::uint64_t local_[inline_slots] = {};
    std::unique_ptr<std::uint64_t[]> heap_;
    std::uint64_t* data_ = local_;
    int n_;
};

/// Stack bytes for a thread that may run a whole root-to-leaf chain of nested tasks: 4 KiB
/// per level (the task runtimes' frames included) and 1 MiB to spare; 0 when the default
/// stacks (2 MiB at least) are enough.
inline std::size_t stack_bytes(const tree& t) noexcept {
    const std::size_t bytes = static_cast<std::size_t>(t.depth) * 4096 + (std::size_t{1} << 20);
    return bytes <= (std::size_t{2} << 20) ? 0 : bytes;
}

/// Runs f() on a new thread with a stack of `bytes` (or runs it here if `bytes` is 0) and
/// waits for it.
template <class F>
void run_with_stack(std::size_t bytes, F f) {
    if (bytes == 0) {
        f();
        return;
    }
    pthread_attr_t attr;
    pthread_t thread;
    const auto body = [](void* arg) -> void* {
        (*static_cast<F*>(arg))();
        return nullptr;
    };
    if (pthread_attr_init(&attr) != 0 || pthread_attr_setstacksize(&attr, bytes) != 0 ||
        pthread_create(&thread, &attr, body, &f) != 0) {
        std::fprintf(stderr, "uts: cannot start a thread with a %zu-byte stack\n", bytes);
        std::exit(1);
    }
    pthread_join(thread, nullptr);
    pthread_attr_destroy(&attr);
}

/// UTS's compute granularity (its -g option; seed 001 L861-L880 sweeps it): a node
/// derives each child's state this many times (the same state every time), so the work
/// per node grows while the tree stays the same. Set once by parse_options.
inline unsigned granularity = 1;

/// make_child, repeated `granularity` times (SHA-1 in nettle: the compiler cannot drop
/// the repeats).
inline node derive_child(const node& parent, int i) noexcept {
    node c = make_child(parent, i);
    for (unsigned g = 1; g < granularity; ++g) c = make_child(parent, i);
    return c;
}

struct options {
    const tree* t = nullptr;
    unsigned workers = 0;
    unsigned reps = 3;
};

[[noreturn]] inline void usage(const char* program, int status) {
    std::FILE* out = status == 0 ? stdout : stderr;
    std::fprintf(out,
                 "usage: %s [--tree=NAME] [--granularity=G] [--workers=N] [--reps=N] [--weft:...]\n"
                 "  --tree=NAME  the tree to count (default T1):\n",
                 program);
    for (const tree& t : trees) {
        std::fprintf(out, "               %-5s UTS %-36s %11llu nodes%s\n", t.name, t.uts_args,
                     static_cast<unsigned long long>(t.nodes), t.published ? "" : " (measured here)");
    }
    std::fprintf(out,
                 "  --granularity=G  derive each child's state G times (UTS -g; 1 to 1000, default 1)\n"
                 "  --workers=N  worker threads (default: hardware concurrency)\n"
                 "  --reps=N     measured repetitions after one warm-up (default 3)\n"
                 "  --weft:*     runtime options, ignored by the anchors\n");
    std::exit(status);
}

inline options parse_options(int argc, char** argv) {
    options o;
    o.t = find_tree("T1");
    parse_command_line(argc, argv, usage, [&](std::string_view name, std::string_view v) {
        using weft::bench::detail::parse_number;
        if (name == "--tree") return (o.t = find_tree(v)) != nullptr;
        if (name == "--workers") return parse_number(v, o.workers) && o.workers >= 1;
        if (name == "--granularity") return parse_number(v, granularity) && granularity >= 1 && granularity <= 1000;
        if (name == "--reps") return parse_number(v, o.reps) && o.reps >= 1;
        return false;
    });
    o.workers = default_workers(o.workers);
    return o;
}

inline void print_result(const char* impl, unsigned workers, const tree& t, double seconds,
                         std::uint64_t counted) {
    std::printf("weft-bench problem=uts impl=%s workers=%u n=%llu calls=%llu seconds=%.6f "
                "ns_per_call=%.3f result=%llu tree=%s granularity=%u\n",
                impl, workers, static_cast<unsigned long long>(t.nodes),
                static_cast<unsigned long long>(t.nodes), seconds,
                seconds * 1e9 / static_cast<double>(t.nodes), static_cast<unsigned long long>(counted),
                t.name, granularity);
    std::fflush(stdout);
}

/// One warm-up run (unless the caller had one), then o.reps timed ones, each checked
/// against the tree's node count and reported. `count()` returns the nodes it counted.
/// One task per node with a fork-join task group (weft::task_group, tbb::task_group: run
/// and wait): a node spawns one child per child node, whose state it derives before the
/// spawn, joins them and adds up the counts they leave in their own slots.
template <class TaskGroup>
std::uint64_t count_fork_join(const tree& t, const node& n) {
    const int children = num_children(t, n);
    if (children == 0) return 1;
    child_slots counts(children);
    TaskGroup g;
    for (int i = 0; i < children; ++i) {
        g.run([&t, &counts, i, child = derive_child(n, i)] { counts[i] = count_fork_join<TaskGroup>(t, child); });
    }
    g.wait();
    return 1 + counts.sum();
}

template <class Count>
void measure(const char* impl, unsigned workers, const options& o, Count count, bool warm_up = true) {
    std::uint64_t counted = 0;
    if (warm_up) {
        (void)time_seconds([&] { counted = count(); });
        if (counted != o.t->nodes) fail_check("uts", impl, counted, o.t->nodes);
    }
    for (unsigned rep = 0; rep < o.reps; ++rep) {
        counted = 0;
        const double seconds = time_seconds([&] { counted = count(); });
        if (counted != o.t->nodes) fail_check("uts", impl, counted, o.t->nodes);
        print_result(impl, workers, *o.t, seconds, counted);
    }
}

}  // namespace weft::bench::uts
