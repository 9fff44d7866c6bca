// The runtime's stack pool (issue #22; include/weft/threads/detail/context_pool.hpp): a
// program whose number of suspended tasks swings by thousands maps about its peak once,
// not a stack per suspension; a pool trimmed every millisecond while tasks suspend keeps
// every result right and gives its stacks back once the program is idle; a stopped
// runtime has unmapped every stack. On every scheduler policy.
#include "support/policy_test.hpp"

#include <weft/counters/counters.hpp>
#include <weft/lcos/lcos.hpp>
#include <weft/threads/detail/context_pool.hpp>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using weft::test::policy_test;
namespace wc = weft::counters;

// A stack size no other mapping of this process has, so that its stacks can be counted
// in /proc/self/maps.
constexpr std::size_t pool_stack = 200 * 1024;
// Tasks suspended at once per round. TSan gives every stack a fiber and slows down with
// each one alive; ASan shadows each stack (see tests/stress/stress_test.cpp).
constexpr int waiters = WEFT_HAVE_TSAN ? 500 : WEFT_HAVE_ASAN ? 1000 : 5000;
constexpr int rounds = 10;
constexpr std::size_t per_worker_slack = weft::detail::context_cache::keep + 2;

/// Task stacks of `bytes` usable bytes mapped now, counted in /proc/self/maps: a
/// read-write region of exactly that size directly above an inaccessible one of exactly
/// the guard's size.
std::size_t stacks_in_maps(std::size_t bytes) {
    std::ifstream maps("/proc/self/maps");
    std::string line;
    std::size_t n = 0;
    unsigned long long prev_end = 0;
    bool prev_guard = false;
    while (std::getline(maps, line)) {
        unsigned long long lo = 0, hi = 0;
        char perms[5] = {};
        if (std::sscanf(line.c_str(), "%llx-%llx %4s", &lo, &hi, perms) != 3) continue;
        const std::string p(perms);
        if (p.starts_with("rw") && hi - lo == bytes && prev_guard && prev_end == lo) ++n;
        // Exactly a guard's size: an inaccessible region of another size (a malloc
        // arena's reserved tail, say) may precede some read-write region of our stacks'
        // size by chance.
        prev_guard = p.starts_with("---") && hi - lo == weft::detail::stack_guard_size;
        prev_end = hi;
    }
    return n;
}

/// For a failure message: every read-write region of `bytes` and the region below it.
std::string regions_of(std::size_t bytes) {
    std::ifstream maps("/proc/self/maps");
    std::string line, below, out;
    while (std::getline(maps, line)) {
        unsigned long long lo = 0, hi = 0;
        const bool read_write = line.find(" rw") != std::string::npos;
        if (std::sscanf(line.c_str(), "%llx-%llx", &lo, &hi) == 2 && hi - lo == bytes && read_write)
            out += "  " + below + "\n  " + line + "\n";
        below = line;
    }
    return out;
}

double value_of(wc::counter_set& s) { return s.evaluate().at(0).value; }

/// One swing: `n` tasks suspend on one event at once, then all resume and finish.
/// Returns the sum of their results (n when all is well).
int swing(int n, wc::counter_set& suspended) {
    weft::event go;
    std::vector<weft::future<int>> results;
    results.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) results.push_back(weft::async([&go] {
        go.wait();
        return 1;
    }));
    // Every one of them suspended (each holds a stack), then they all go on.
    while (value_of(suspended) < n) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    go.set();
    int sum = 0;
    for (auto& f : results) sum += f.get();
    return sum;
}

class stack_pool_test : public policy_test {
protected:
    weft::runtime_config config() const override {
        weft::runtime_config cfg = policy_test::config();
        cfg.stack_size = pool_stack;
        return cfg;
    }
};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(stack_pool_test);

TEST_P(stack_pool_test, swinging_suspensions_map_about_the_peak_once) {
    wc::counter_set mapped = wc::query("/threads/count/stacks-mapped");  // counts from here on
    wc::counter_set stacks = wc::query("/threads/count/stacks");
    wc::counter_set suspended = wc::query("/threads/count/instantaneous/suspended");
    const double workers = GetParam().threads;
    for (int round = 0; round < rounds; ++round) EXPECT_EQ(swing(waiters, suspended), waiters) << "round " << round;
    // rounds * waiters suspensions; the first round's peak was mapped, later rounds
    // reused it. Slack: what the workers' caches hold and a batch in flight.
    const double maps = value_of(mapped);
    EXPECT_GE(maps + workers, waiters);
    EXPECT_LE(maps, waiters + workers * per_worker_slack + weft::detail::context_cache::batch);
    EXPECT_LT(maps * 5, double(rounds) * waiters);
    // The pool's count is what the kernel has mapped (read again if a trim unmapped
    // stacks meanwhile: nothing else maps or unmaps while no task runs).
    double counted = 0, in_maps = 0;
    for (int attempt = 0; attempt < 100; ++attempt) {
        counted = value_of(stacks);
        in_maps = double(stacks_in_maps(pool_stack));
        if (value_of(stacks) == counted) break;
    }
    EXPECT_EQ(counted, in_maps) << regions_of(pool_stack);
}

// A trim every millisecond: pages go back and stacks are unmapped while tasks suspend
// and resume around them; results stay right, and once the program is idle the pool
// shrinks to what the workers keep.
class stack_pool_trim_test : public stack_pool_test {
protected:
    weft::runtime_config config() const override {
        weft::runtime_config cfg = stack_pool_test::config();
        cfg.stack_trim_ms = 1;
        return cfg;
    }
};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(stack_pool_trim_test);

TEST_P(stack_pool_trim_test, trimming_under_suspensions_keeps_results_and_gives_stacks_back) {
    wc::counter_set stacks = wc::query("/threads/count/stacks");
    wc::counter_set trimmed = wc::query("/threads/count/stacks-trimmed");
    wc::counter_set unmapped = wc::query("/threads/count/stacks-unmapped");
    wc::counter_set suspended = wc::query("/threads/count/instantaneous/suspended");
    for (int round = 0; round < 4; ++round) EXPECT_EQ(swing(waiters, suspended), waiters) << "round " << round;
    const double workers = GetParam().threads;
    // Idle: the peak decays by an eighth per millisecond, so within some hundred trims
    // only the workers' own stacks and a batch are left. (A bounded wait: no timing is
    // asserted, the test's timeout is the limit.)
    const double floor = workers * per_worker_slack + weft::detail::context_cache::batch;
    for (int i = 0; i < 20'000 && value_of(stacks) > floor; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_LE(value_of(stacks), floor);
    EXPECT_GT(value_of(trimmed), 0);
    EXPECT_GE(value_of(unmapped), waiters - floor);
    // And the pool still serves: one more swing maps the peak again.
    EXPECT_EQ(swing(waiters, suspended), waiters);
}

TEST(stack_pool, a_stopped_runtime_has_unmapped_every_stack) {
    ASSERT_EQ(stacks_in_maps(pool_stack), 0u);
    weft::runtime_config cfg;
    cfg.threads = 2;
    cfg.bind = false;
    cfg.stack_size = pool_stack;
    weft::runtime rt(cfg);
    {
        wc::counter_set suspended = wc::query("/threads/count/instantaneous/suspended");
        EXPECT_EQ(swing(waiters, suspended), waiters);
    }
    EXPECT_GE(stacks_in_maps(pool_stack), 1u);  // pooled while it runs
    rt.stop();
    EXPECT_EQ(stacks_in_maps(pool_stack), 0u);
}

}  // namespace
