// Stress: 10^7 tasks, deep recursion, random spawn trees with verified sums, 10^5
// simultaneously suspended tasks, exceptions through long chains; on every policy.
#include "support/policy_test.hpp"

#include <atomic>
#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

using weft::test::policy_test;

// TSan gives every task stack a fiber of its own and dies past 8128 threads and fibers
// together ("Thread limit (8128 threads) exceeded"); and each of its synchronizing
// operations costs time in proportion to the fibers alive (vector clocks), so that
// 5,000 suspended tasks took over a minute per policy. Tests that keep one stack per
// waiting task therefore use this many under TSan, and a fifth of the full size under
// ASan (whose shadow of 10^5 stacks took minutes: the stress test was two thirds of the
// ASan suite's time). The release build runs the full size.
constexpr long tsan_stack_limit = 1'000;
constexpr long scaled_for_sanitizers(long n) { return WEFT_HAVE_TSAN ? tsan_stack_limit : WEFT_HAVE_ASAN ? n / 5 : n; }

class stress_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(stress_test);

TEST_P(stress_test, ten_million_tasks) {
    // Under TSan 10^6 and under ASan 2*10^6: every access is checked there, and 10^7
    // tasks on every policy took most of the sanitizer suites' time without checking
    // anything new. The release build runs the full 10^7.
    constexpr long n = WEFT_HAVE_TSAN ? 1'000'000 : WEFT_HAVE_ASAN ? 2'000'000 : 10'000'000;
    std::atomic<long> count{0};
    // Spawned from tasks in parallel chunks, as a real program would.
    in_task([&count] {
        weft::task_group g;
        for (int chunk = 0; chunk < 100; ++chunk)
            g.run([&count] {
                weft::task_group inner;
                for (long i = 0; i < n / 100; ++i) inner.run([&count] { count.fetch_add(1, std::memory_order_relaxed); });
                inner.wait();
            });
        g.wait();
    });
    EXPECT_EQ(count.load(), n);
}

long chain(long depth) { return depth == 0 ? 0 : 1 + weft::async(chain, depth - 1).get(); }

TEST_P(stress_test, deep_recursion_through_futures) {
    // Each level waits for the next: inline execution stops when a stack runs low and
    // the rest continues on fresh stacks, so depth is bounded by memory, not stack size.
    // Under `static`, a child usually lands on another worker, so every level keeps a
    // suspended stack: the depth is also the number of stacks (see scaled_for_sanitizers).
    constexpr long depth = scaled_for_sanitizers(100'000);
    EXPECT_EQ(in_task([] { return chain(depth); }), depth);
}

std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

std::uint64_t tree_serial(std::uint64_t id, unsigned level, std::uint64_t& nodes) {
    ++nodes;
    std::uint64_t s = id;
    const unsigned k = level < 3 ? 4 : (level < 40 ? static_cast<unsigned>(mix(id) % 3) : 0);
    for (unsigned i = 0; i < k; ++i) s += tree_serial(mix(id * 4 + i + 1), level + 1, nodes);
    return s;
}

std::uint64_t tree_async(std::uint64_t id, unsigned level) {
    const unsigned k = level < 3 ? 4 : (level < 40 ? static_cast<unsigned>(mix(id) % 3) : 0);
    std::vector<weft::future<std::uint64_t>> kids;
    for (unsigned i = 0; i < k; ++i) kids.push_back(weft::async(tree_async, mix(id * 4 + i + 1), level + 1));
    std::uint64_t s = id;
    for (auto& f : kids) s += f.get();
    return s;
}

std::uint64_t tree_group(std::uint64_t id, unsigned level) {
    const unsigned k = level < 3 ? 4 : (level < 40 ? static_cast<unsigned>(mix(id) % 3) : 0);
    std::uint64_t sums[3 + 1] = {};
    weft::task_group g;
    for (unsigned i = 0; i < k; ++i) g.run([&sums, i, id, level] { sums[i] = tree_group(mix(id * 4 + i + 1), level + 1); });
    g.wait();
    return id + sums[0] + sums[1] + sums[2] + sums[3];
}

TEST_P(stress_test, random_spawn_trees_have_verified_sums) {
    // One tree under TSan (the oversubscribed policies took 15-20 s for the three).
    for (std::uint64_t seed : {1ULL, 7ULL, 12345ULL}) {
        if (WEFT_HAVE_TSAN && seed != 1) break;
        std::uint64_t nodes = 0;
        const std::uint64_t expected = tree_serial(seed, 0, nodes);
        EXPECT_GT(nodes, 1000u) << "seed " << seed;
        EXPECT_EQ(in_task([seed] { return tree_async(seed, 0); }), expected) << "seed " << seed;
        EXPECT_EQ(in_task([seed] { return tree_group(seed, 0); }), expected) << "seed " << seed;
    }
}

TEST_P(stress_test, exceptions_through_long_chains_are_never_lost) {
    std::atomic<int> thrown{0};
    std::vector<weft::future<int>> fs;
    for (int i = 0; i < 1000; ++i)
        fs.push_back(weft::async([i, &thrown] {
            return weft::async([i, &thrown] {
                       if (i % 3 == 0) {
                           thrown.fetch_add(1);
                           throw std::runtime_error("x");
                       }
                       return i;
                   }).get();
        }));
    int caught = 0;
    for (auto& f : fs) {
        try {
            f.get();
        } catch (const std::runtime_error&) {
            ++caught;
        }
    }
    EXPECT_EQ(caught, thrown.load());
    EXPECT_EQ(caught, 334);
}

// 10^5 tasks suspended at the same time: each needs its own stack (two memory
// mappings with the guard page), more than Linux's default vm.max_map_count allows.
class suspended_stress_test : public policy_test {
protected:
    weft::runtime_config config() const override {
        auto cfg = policy_test::config();
        cfg.stack_size = 32 * 1024;  // resident cost is what a task touches, ~2 pages
        return cfg;
    }
};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(suspended_stress_test);

long max_map_count() {
    std::ifstream in("/proc/sys/vm/max_map_count");
    long v = 0;
    in >> v;
    return v;
}

TEST_P(suspended_stress_test, a_hundred_thousand_suspended_tasks) {
    constexpr int n = static_cast<int>(scaled_for_sanitizers(100'000));
    if (max_map_count() < 3 * n) {
        std::ofstream("/proc/sys/vm/max_map_count") << 4 * n;  // works as root (CI runs as root)
        if (max_map_count() < 3 * n)
            GTEST_FAIL() << "vm.max_map_count is " << max_map_count() << "; this test needs " << 3 * n
                         << " (scripts/bootstrap raises it: sysctl -w vm.max_map_count=262144)";
    }
    weft::promise<void> release;
    auto gate = std::make_shared<std::atomic<int>>(0);
    weft::future<long> all = weft::async([&release, gate] {
        // All waiters wait on one event: a plain flag they recheck after each wake-up is
        // not enough (no LCOs yet), so each waits on its own promise, set in bulk.
        std::vector<weft::promise<int>> ps(n);
        std::vector<weft::future<int>> results;
        results.reserve(n);
        for (int i = 0; i < n; ++i)
            results.push_back(weft::async([gate, f = ps[i].get_future()]() mutable {
                gate->fetch_add(1);
                return f.get();
            }));
        // Wait until every waiter has started (and so will suspend), then release them.
        while (gate->load() < n) weft::this_task::yield();
        release.get_future().get();
        for (int i = 0; i < n; ++i) ps[i].set_value(1);
        long s = 0;
        for (auto& f : results) s += f.get();
        return s;
    });
    while (gate->load() < n) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    release.set_value();
    EXPECT_EQ(all.get(), n);
}

}  // namespace
