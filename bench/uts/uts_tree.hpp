// UTS, the Unbalanced Tree Search benchmark (Olivier et al., "UTS: An Unbalanced Tree
// Search Benchmark", LCPC 2006), for weft's fine-grained comparisons (seed 002 §2.2, seed
// 001 §5.11): count the nodes of a tree that exists only implicitly. Shared by
// bench/uts/{serial,weft,omp,tbb}.cpp: the tree generator, the named trees with their
// node counts, the options, the check and the result line.
//
// The generator follows the UTS reference definition, so that the node counts are the
// published ones:
//   - a node is a 20-byte SHA-1 digest (its "state") and its depth;
//   - the root's state is SHA-1 of 20 bytes: 16 zero bytes, then the seed (-r) as 4 bytes
//     big-endian;
//   - child i's state is SHA-1 of 24 bytes: the parent's state, then i as 4 bytes
//     big-endian;
//   - a node's random number is its state's last 4 bytes, big-endian, masked to 31 bits;
//     divided by 2^31 it is a uniform u in [0, 1);
//   - binomial trees (-t 0): the root has floor(b) children (-b); any other node has m
//     children (-m) if u < q (-q), else none;
//   - geometric trees (-t 1): a node at depth h draws from a geometric distribution of
//     mean b_h, floor(log(1 - u) / log(1 - p)) children with p = 1 / (1 + b_h); shape
//     `fixed` (-a 3): b_h = b for h < d (-d), 0 below; shape `cyclic` (-a 2):
//     b_h = b^sin(2 pi h / d) for h <= 5 d, 0 below (the root uses b);
//   - no node but a binomial root has more than 100 children.
// A deep tree (T3L is 17,844 levels deep) nests as many task frames on one thread in the
// OpenMP and oneTBB versions, more than their default stacks hold: they run on stacks
// sized by stack_bytes() (weft moves a child to a fresh task stack when its own runs low).
// The SHA-1 is our own (sha1.hpp); a state is kept as the digest's five words, whose
// big-endian bytes are the digest, so "the last 4 bytes" is the fifth word.
//
// Options: --tree=NAME (default T1; see `trees` below or --help), --workers=N, --reps=N;
// --weft:* is left to the weft runtime.
//
// Result line: bench_common.hpp's format with problem=uts, n=<nodes in the tree>,
// calls=<nodes> (ns_per_call is ns per node: one task per node in the parallel versions)
// and result=<nodes counted>, then tree=<name>. A count other than the tree's known one
// fails the run (exit 1).
#pragma once

#include "common/bench_common.hpp"
#include "uts/sha1.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <numbers>
#include <pthread.h>
#include <string_view>

namespace weft::bench::uts {

enum class tree_type { binomial, geometric };
enum class geo_shape { fixed, cyclic };

/// One named tree: the reference generator's parameters and its node count.
struct tree {
    const char* name;
    const char* uts_args;  ///< the same tree in the UTS reference's options
    tree_type type;
    geo_shape shape;       ///< geometric only
    double b;              ///< -b: root children (binomial), mean branching (geometric)
    int d;                 ///< -d: depth limit / period (geometric)
    double q;              ///< -q: probability that a non-root node has children (binomial)
    int m;                 ///< -m: children of a non-root node that has any (binomial)
    std::int32_t seed;     ///< -r
    std::uint64_t nodes;   ///< nodes in the tree
    int depth;             ///< the deepest node's depth, as bench_uts_serial measures it
    bool published;        ///< `nodes` is UTS's published count (else measured by bench_uts_serial)
};

// T1, T1L, T2L, T3, T3L: UTS's sample trees, with their published node counts (T1L, T2L
// and T3L are the trees of seed 002's Table 1, whose published depths 13, 67 and 17,844
// and leaf counts bench_uts_serial reproduces too). T1XS and T3XS: small trees of the
// same two kinds for quick runs and tests, counted by bench_uts_serial (and by every
// parallel version, which must agree).
inline constexpr tree trees[] = {
    {"T1XS", "-t 1 -a 3 -d 8 -b 4 -r 19", tree_type::geometric, geo_shape::fixed, 4.0, 8, 0.0, 0, 19, 257042, 8, false},
    {"T3XS", "-t 0 -b 2000 -q 0.198 -m 5 -r 7", tree_type::binomial, geo_shape::fixed, 2000.0, 0, 0.198, 5, 7, 295641,
     424, false},
    {"T1", "-t 1 -a 3 -d 10 -b 4 -r 19", tree_type::geometric, geo_shape::fixed, 4.0, 10, 0.0, 0, 19, 4130071, 10,
     true},
    {"T1L", "-t 1 -a 3 -d 13 -b 4 -r 29", tree_type::geometric, geo_shape::fixed, 4.0, 13, 0.0, 0, 29, 102181082,
     13, true},
    {"T2L", "-t 1 -a 2 -d 23 -b 7 -r 220", tree_type::geometric, geo_shape::cyclic, 7.0, 23, 0.0, 0, 220, 96793510,
     67, true},
    {"T3", "-t 0 -b 2000 -q 0.124875 -m 8 -r 42", tree_type::binomial, geo_shape::fixed, 2000.0, 0, 0.124875, 8, 42,
     4112897, 1572, true},
    {"T3L", "-t 0 -b 2000 -q 0.200014 -m 5 -r 7", tree_type::binomial, geo_shape::fixed, 2000.0, 0, 0.200014, 5, 7,
     111345631, 17844, true},
};

inline constexpr int max_children = 100;  ///< for every node but a binomial root

/// A node: its SHA-1 state and its depth (the root's is 0).
struct node {
    sha1_words state;
    std::int32_t height;
};

inline node make_root(const tree& t) noexcept {
    std::array<std::uint8_t, 20> bytes{};
    const auto seed = static_cast<std::uint32_t>(t.seed);
    for (std::size_t i = 0; i < 4; ++i) bytes[16 + i] = static_cast<std::uint8_t>(seed >> (24 - 8 * i));
    return node{sha1(bytes.data(), bytes.size()), 0};
}

inline node make_child(const node& parent, int i) noexcept {
    return node{sha1_words_then_u32(parent.state, static_cast<std::uint32_t>(i)), parent.height + 1};
}

/// The node's uniform random number in [0, 1).
inline double uniform(const node& n) noexcept {
    return static_cast<double>(n.state[4] & 0x7FFFFFFFu) / 2147483648.0;
}

/// The mean branching factor of a geometric tree at depth h.
inline double geometric_mean(const tree& t, int h) noexcept {
    if (h == 0) return t.b;
    switch (t.shape) {
        case geo_shape::fixed:
            return h < t.d ? t.b : 0.0;
        case geo_shape::cyclic:
            if (h > 5 * t.d) return 0.0;
            return std::pow(t.b, std::sin(2.0 * std::numbers::pi * static_cast<double>(h) / static_cast<double>(t.d)));
    }
    return 0.0;
}

inline int num_children(const tree& t, const node& n) noexcept {
    if (t.type == tree_type::binomial) {
        if (n.height == 0) return static_cast<int>(std::floor(t.b));
        const int c = uniform(n) < t.q ? t.m : 0;
        return c > max_children ? max_children : c;
    }
    const double mean = geometric_mean(t, n.height);
    // A mean of 0 gives p = 1 and log(1 - p) = -inf: the formula's answer is 0 as well.
    if (mean == 0.0) return 0;
    const double p = 1.0 / (1.0 + mean);
    const double c = std::floor(std::log(1.0 - uniform(n)) / std::log(1.0 - p));
    return c > max_children ? max_children : static_cast<int>(c);
}

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

struct options {
    const tree* t = nullptr;
    unsigned workers = 0;
    unsigned reps = 3;
};

[[noreturn]] inline void usage(const char* program, int status) {
    std::FILE* out = status == 0 ? stdout : stderr;
    std::fprintf(out,
                 "usage: %s [--tree=NAME] [--workers=N] [--reps=N] [--weft:...]\n"
                 "  --tree=NAME  the tree to count (default T1):\n",
                 program);
    for (const tree& t : trees) {
        std::fprintf(out, "               %-5s UTS %-36s %11llu nodes%s\n", t.name, t.uts_args,
                     static_cast<unsigned long long>(t.nodes), t.published ? "" : " (measured here)");
    }
    std::fprintf(out,
                 "  --workers=N  worker threads (default: hardware concurrency)\n"
                 "  --reps=N     measured repetitions after one warm-up (default 3)\n"
                 "  --weft:*     runtime options, ignored by the anchors\n");
    std::exit(status);
}

inline const tree* find_tree(std::string_view name) noexcept {
    for (const tree& t : trees)
        if (name == t.name) return &t;
    return nullptr;
}

inline options parse_options(int argc, char** argv) {
    options o;
    o.t = find_tree("T1");
    parse_command_line(argc, argv, usage, [&](std::string_view name, std::string_view v) {
        using weft::bench::detail::parse_number;
        if (name == "--tree") return (o.t = find_tree(v)) != nullptr;
        if (name == "--workers") return parse_number(v, o.workers) && o.workers >= 1;
        if (name == "--reps") return parse_number(v, o.reps) && o.reps >= 1;
        return false;
    });
    o.workers = default_workers(o.workers);
    return o;
}

inline void print_result(const char* impl, unsigned workers, const tree& t, double seconds,
                         std::uint64_t counted) {
    std::printf("weft-bench problem=uts impl=%s workers=%u n=%llu calls=%llu seconds=%.6f "
                "ns_per_call=%.3f result=%llu tree=%s\n",
                impl, workers, static_cast<unsigned long long>(t.nodes),
                static_cast<unsigned long long>(t.nodes), seconds,
                seconds * 1e9 / static_cast<double>(t.nodes), static_cast<unsigned long long>(counted),
                t.name);
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
        g.run([&t, &counts, i, child = make_child(n, i)] { counts[i] = count_fork_join<TaskGroup>(t, child); });
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
