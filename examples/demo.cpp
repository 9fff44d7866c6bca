// weft's demo: a parallel Fibonacci (futures and fork-join) and a random spawn tree,
// each printing its result, time, tasks per second and how work spread over workers.
//
//   weft_demo [--fib=N] [--tree-depth=D] [--weft:threads=N] [--weft:scheduler=NAME] ...
//
// Exits 1 when a result is wrong, 2 on a bad option.
#include "example_options.hpp"

#include <weft/weft.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

std::uint64_t fib_async(unsigned n) {
    if (n < 2) return n;
    weft::future<std::uint64_t> a = weft::async(fib_async, n - 1);
    const std::uint64_t b = fib_async(n - 2);
    return a.get() + b;
}

std::uint64_t fib_fork_join(unsigned n) {
    if (n < 2) return n;
    std::uint64_t a = 0;
    weft::task_group g;
    g.run([&a, n] { a = fib_fork_join(n - 1); });
    const std::uint64_t b = fib_fork_join(n - 2);
    g.wait();
    return a + b;
}

std::uint64_t fib_serial(unsigned n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

// A random spawn tree: each node has 0..max_children children drawn from a hash of its
// id; the sum of node ids is checked against a serial walk of the same tree.
struct tree_params {
    unsigned depth;
    unsigned max_children;
};

std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

// The first levels always branch fully, so the tree is never trivially small; below
// them 0..max_children children each (1.5 on average for max_children = 3).
unsigned children_of(std::uint64_t id, unsigned level, const tree_params& p) {
    if (level >= p.depth) return 0;
    if (level < 4) return p.max_children;
    return static_cast<unsigned>(mix(id) % (p.max_children + 1));
}

std::uint64_t tree_serial(std::uint64_t id, unsigned level, const tree_params& p, std::uint64_t& nodes) {
    ++nodes;
    std::uint64_t sum = id;
    const unsigned k = children_of(id, level, p);
    for (unsigned i = 0; i < k; ++i) sum += tree_serial(mix(id + i + 1), level + 1, p, nodes);
    return sum;
}

std::uint64_t tree_parallel(std::uint64_t id, unsigned level, const tree_params& p) {
    const unsigned k = children_of(id, level, p);
    std::vector<weft::future<std::uint64_t>> kids;
    kids.reserve(k);
    for (unsigned i = 0; i < k; ++i) kids.push_back(weft::async(tree_parallel, mix(id + i + 1), level + 1, p));
    std::uint64_t sum = id;
    for (auto& f : kids) sum += f.get();
    return sum;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void print_spread(const std::vector<std::uint64_t>& before, const std::vector<std::uint64_t>& after) {
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < after.size(); ++i) total += after[i] - before[i];
    std::printf("    tasks per worker:");
    for (std::size_t i = 0; i < after.size(); ++i) {
        const std::uint64_t d = after[i] - before[i];
        std::printf(" w%zu=%llu (%.0f%%)", i, static_cast<unsigned long long>(d),
                    total ? 100.0 * static_cast<double>(d) / static_cast<double>(total) : 0.0);
    }
    std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
    unsigned n = 30;
    tree_params tree{28, 3};
    weft::examples::options opts("weft_demo", "a parallel Fibonacci (futures and fork-join) and a random spawn tree");
    opts.number("--fib", n, 0u, 92u, "fib(N) to compute, the last that fits 64 bits is fib(92)")
        .number("--tree-depth", tree.depth, 0u, 40u, "levels of the random spawn tree");
    opts.parse(argc, argv);
    weft::runtime rt(argc, argv);  // takes the --weft:* options out of argv
    std::printf("weft demo: %u worker(s), scheduler %s\n", rt.num_workers(), std::string(rt.scheduler_name()).c_str());

    const std::uint64_t expected = fib_serial(n);
    const double calls = 2.0 * static_cast<double>(fib_serial(n + 1)) - 1.0;
    int failures = 0;

    struct variant {
        const char* name;
        std::uint64_t (*fn)(unsigned);
    } variants[] = {{"async + get", fib_async}, {"task_group fork-join", fib_fork_join}};
    for (const auto& v : variants) {
        const auto before = rt.tasks_per_worker();
        const auto t0 = std::chrono::steady_clock::now();
        const std::uint64_t r = weft::async(v.fn, n).get();
        const double s = seconds_since(t0);
        rt.wait();
        std::printf("fib(%u) with %s = %llu (%s) in %.3f s: %.1f ns per call, %.2f M tasks/s\n", n, v.name,
                    static_cast<unsigned long long>(r), r == expected ? "correct" : "WRONG", s, s * 1e9 / calls,
                    calls / 2 / s / 1e6);
        print_spread(before, rt.tasks_per_worker());
        failures += r != expected;
    }

    std::uint64_t nodes = 0;
    const std::uint64_t tree_expected = tree_serial(1, 0, tree, nodes);
    const auto before = rt.tasks_per_worker();
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t tree_sum = weft::async(tree_parallel, std::uint64_t{1}, 0u, tree).get();
    const double s = seconds_since(t0);
    rt.wait();
    std::printf("random spawn tree (depth %u, up to %u children): %llu tasks, checksum %s, in %.3f s: %.2f M tasks/s\n",
                tree.depth, tree.max_children, static_cast<unsigned long long>(nodes),
                tree_sum == tree_expected ? "correct" : "WRONG", s, static_cast<double>(nodes) / s / 1e6);
    print_spread(before, rt.tasks_per_worker());
    failures += tree_sum != tree_expected;
    return failures == 0 ? 0 : 1;
}
