// The stack pool (include/weft/threads/detail/context_pool.hpp) on its own, without a
// runtime: the per-worker caches and the runtime-wide depot against a plain stack
// oracle, the trim step by step, and threads taking, putting and trimming at once.
#include <weft/threads/detail/context_pool.hpp>

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <system_error>
#include <thread>
#include <vector>

namespace {

using weft::detail::context;
using weft::detail::context_cache;
using weft::detail::context_pool;

constexpr std::size_t stack_bytes = 64 * 1024;
constexpr std::uint32_t batch = context_cache::batch;

// A word at the top of a context's stack (where a task's first frames would be): the
// test writes it while it holds the context and checks it is still there.
std::uint64_t& mark_of(const context* c) {
    return *(static_cast<std::uint64_t*>(c->stk.top()) - 1);
}

std::set<const context*> listed(const context_pool& pool) {
    std::set<const context*> s;
    pool.for_each([&s](const context& c) { s.insert(&c); });
    return s;
}

// The oracle for one cache in front of the pool: cache and depot together behave as one
// stack of free contexts (the cache's magazines on top, the depot's batches below, each
// newest first), so a take returns the newest free context and maps a new one only when
// there is none. A trim may unmap depot contexts, only from the bottom, and never
// touches the cache's.
TEST(ContextPool, OneCacheAndTheDepotAreOneStackOfFreeContexts) {
    std::mt19937_64 rng(22);
    std::uint64_t unmapped_by_trims = 0, trimmed = 0;
    for (int run = 0; run < (WEFT_HAVE_TSAN ? 5 : 20); ++run) {  // TSan: each make is a fiber
        context_pool pool(stack_bytes);
        context_cache cache;
        std::vector<context*> oracle;  // free contexts, newest at the back
        std::vector<context*> held;    // taken by the test
        std::uint64_t mapped = 0;
        for (int step = 0; step < 4000; ++step) {
            // Swings: phases of mostly takes and mostly puts, so that batches move and
            // the trims find idle ones; trims in between.
            const auto op = rng() % 100;
            const unsigned takes = (step / 400) % 2 == 0 ? 66 : 30;
            if (op < takes) {
                context* c = cache.take(pool);
                ASSERT_NE(c, nullptr);
                EXPECT_EQ(c->stk.size, pool.pooled_size());
                if (oracle.empty()) {
                    ++mapped;
                    EXPECT_EQ(std::find(held.begin(), held.end(), c), held.end());
                } else {
                    ASSERT_EQ(c, oracle.back()) << "run " << run << " step " << step;
                    oracle.pop_back();
                }
                mark_of(c) = reinterpret_cast<std::uintptr_t>(c);
                held.push_back(c);
            } else if (op < 96) {
                if (held.empty()) continue;
                const std::size_t i = rng() % held.size();
                context* c = held[i];
                held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
                EXPECT_EQ(mark_of(c), reinterpret_cast<std::uintptr_t>(c)) << "a held context was touched";
                cache.put(c, pool);
                oracle.push_back(c);
            } else {
                const std::size_t cached = cache.size();
                pool.trim();
                // What is no longer listed was unmapped: a bottom part of the depot.
                const std::set<const context*> still = listed(pool);
                std::size_t gone = 0;
                while (gone < oracle.size() && still.count(oracle[gone]) == 0) ++gone;
                for (std::size_t i = gone; i < oracle.size(); ++i)
                    ASSERT_EQ(still.count(oracle[i]), 1u) << "a context above the bottom was unmapped";
                EXPECT_LE(gone + cached, oracle.size()) << "a cached context was unmapped";
                for (const context* c : held) EXPECT_EQ(still.count(c), 1u) << "a held context was unmapped";
                oracle.erase(oracle.begin(), oracle.begin() + static_cast<std::ptrdiff_t>(gone));
            }
            ASSERT_EQ(pool.mapped_total(), mapped);
            ASSERT_EQ(pool.count(), held.size() + oracle.size());
            ASSERT_EQ(pool.count(), pool.mapped_total() - pool.unmapped_total());
            ASSERT_EQ(cache.size() + pool.pooled(), oracle.size());
            ASSERT_LE(cache.size(), context_cache::keep);
        }
        unmapped_by_trims += pool.unmapped_total();
        trimmed += pool.trimmed_total();
        for (context* c : held) cache.put(c, pool);
        cache.drain(pool);
        EXPECT_EQ(cache.size(), 0u);
        const std::size_t mapped_now = pool.count();
        EXPECT_EQ(pool.pooled(), mapped_now);
        EXPECT_EQ(pool.release_pooled(), mapped_now);
        EXPECT_EQ(pool.count(), 0u);
        EXPECT_EQ(pool.mapped_total(), pool.unmapped_total());
    }
    // The runs did exercise both steps of the trim.
    EXPECT_GT(unmapped_by_trims, 0u);
    EXPECT_GT(trimmed, 0u);
}

TEST(ContextPool, ACacheSwingingAcrossItsBoundaryLeavesTheDepotAlone) {
    // Around 64 cached contexts, the two magazines swap: no batch moves each time.
    context_pool pool(stack_bytes);
    context_cache cache;
    std::vector<context*> held;
    for (std::size_t i = 0; i < context_cache::keep; ++i) held.push_back(cache.take(pool));
    for (context* c : held) cache.put(c, pool);
    held.clear();
    EXPECT_EQ(pool.pooled(), 0u);
    for (int swing = 0; swing < 100; ++swing) {
        for (int i = 0; i < 5; ++i) held.push_back(cache.take(pool));
        for (context* c : held) cache.put(c, pool);
        held.clear();
    }
    EXPECT_EQ(pool.mapped_total(), context_cache::keep);
    EXPECT_EQ(pool.pooled(), 0u);
    cache.drain(pool);
    EXPECT_EQ(pool.pooled(), context_cache::keep);
}

TEST(ContextPool, ContextsOfAnotherSizeAreNeverPooled) {
    context_pool pool(stack_bytes);
    context* big = pool.make(4 * stack_bytes);
    EXPECT_EQ(big->stk.size, 4 * stack_bytes);
    EXPECT_EQ(pool.count(), 1u);
    EXPECT_EQ(pool.stack_bytes(), 4 * stack_bytes);
    pool.release(big);
    EXPECT_EQ(pool.count(), 0u);
    EXPECT_EQ(pool.stack_bytes(), 0u);
    EXPECT_EQ(pool.unmapped_total(), 1u);
}

// The trim step by step: a peak of 1,000 contexts, then only what the cache keeps.
TEST(ContextPool, TrimGivesPagesBackThenUnmapsBeyondTheDecayingPeak) {
    constexpr std::size_t peak = 1000;
    context_pool pool(stack_bytes);
    context_cache cache;
    std::vector<context*> held;
    for (std::size_t i = 0; i < peak; ++i) {
        held.push_back(cache.take(pool));
        mark_of(held.back()) = 0x5eed;
    }
    for (context* c : held) cache.put(c, pool);
    const std::size_t cached = cache.size();
    ASSERT_EQ(pool.count(), peak);
    ASSERT_EQ(pool.pooled(), peak - cached);

    // First trim: the batches arrived in this period; nothing is old enough yet.
    pool.trim();
    EXPECT_EQ(pool.trimmed_total(), 0u);
    EXPECT_EQ(pool.count(), peak);
    EXPECT_GE(pool.high_water(), peak);
    // Second: they stayed a whole period: their pages go back, the mappings stay.
    pool.trim();
    EXPECT_EQ(pool.trimmed_total(), peak - cached);
    EXPECT_EQ(pool.count(), peak);
    std::size_t zeroed = 0, kept = 0;
    for (const context* c : held) (mark_of(c) == 0 ? zeroed : kept) += 1;
    EXPECT_EQ(zeroed, peak - cached);
    EXPECT_EQ(kept, cached);  // the cache's own were not touched
    // Then the mark decays by an eighth per trim and the idle batches beyond it go,
    // oldest first, a batch at a time, never below the mark: in the end what is in use
    // (the cache's) and one batch to spare.
    for (int trim = 0; trim < 60; ++trim) {
        const std::size_t before = pool.count();
        pool.trim();
        EXPECT_LE(pool.count(), before);
        EXPECT_GE(pool.count(), std::min(before, pool.high_water())) << "unmapped below the mark";
        EXPECT_EQ((before - pool.count()) % batch, 0u);
    }
    EXPECT_GE(pool.count(), cached);
    EXPECT_LE(pool.count(), cached + batch);
    EXPECT_EQ(pool.unmapped_total(), peak - pool.count());
    // The cache's contexts are still there and still usable.
    for (std::size_t i = 0; i < cached; ++i) EXPECT_EQ(mark_of(cache.take(pool)), 0x5eedu);
}

TEST(ContextPool, ABatchTakenBackBeforeTheTrimKeepsItsPages) {
    context_pool pool(stack_bytes);
    context_cache a, b;
    std::vector<context*> held;
    for (std::size_t i = 0; i < 3 * batch; ++i) held.push_back(a.take(pool));
    for (context* c : held) a.put(c, pool);  // one batch to the depot
    ASSERT_EQ(pool.pooled(), batch);
    pool.trim();
    // Another worker takes it in the next period: in use again, it is not trimmed.
    std::vector<context*> taken;
    for (std::uint32_t i = 0; i < batch; ++i) {
        taken.push_back(b.take(pool));
        mark_of(taken.back()) = 7;
    }
    EXPECT_EQ(pool.pooled(), 0u);
    pool.trim();
    pool.trim();
    EXPECT_EQ(pool.trimmed_total(), 0u);
    for (const context* c : taken) EXPECT_EQ(mark_of(c), 7u);
    EXPECT_EQ(pool.mapped_total(), 3 * batch);
    for (context* c : taken) b.put(c, pool);
    a.drain(pool);
    b.drain(pool);
    EXPECT_EQ(pool.release_pooled(), 3 * batch);
}

// Threads with their own caches take and put contexts at random while another trims
// and a third walks the registry, as the deadlock report does. Every context a thread
// holds carries its owner's mark, checked before it goes back: a context handed to two
// owners, or trimmed while held, shows up.
TEST(ContextPool, ThreadsTakePutAndTrimAtOnce) {
    constexpr int threads = 4;
    constexpr int steps = WEFT_HAVE_TSAN ? 20'000 : 200'000;
    context_pool pool(stack_bytes);
    std::atomic<bool> stop{false};
    std::atomic<int> running{threads};
    // A trim every 100 us: far more often than the runtime's, so that trims meet every
    // state of the depot.
    std::thread trimmer([&] {
        while (!stop.load()) {
            pool.trim();
            std::this_thread::sleep_for(std::chrono::microseconds(100));
        }
    });
    std::thread reporter([&] {
        while (!stop.load()) {
            pool.for_each([](const context& c) { EXPECT_EQ(c.stk.size, stack_bytes); });
            std::this_thread::yield();
        }
    });
    std::vector<std::thread> workers;
    std::vector<context_cache> caches(threads);
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            std::mt19937_64 rng(static_cast<std::uint64_t>(t) + 1);
            std::vector<context*> held;
            std::uint64_t serial = 0;
            const auto give_back = [&](std::size_t i) {
                context* c = held[i];
                held[i] = held.back();
                held.pop_back();
                EXPECT_EQ(mark_of(c) >> 48, static_cast<std::uint64_t>(t) + 1) << "another owner wrote here";
                caches[t].put(c, pool);
            };
            for (int step = 0; step < steps; ++step) {
                // Swings: hold up to a few hundred contexts, then fall back.
                const std::size_t target = (step / 2000) % 2 == 0 ? 300 : 10;
                if (held.size() < target && rng() % 4 != 0) {
                    context* c = caches[t].take(pool);
                    mark_of(c) = ((static_cast<std::uint64_t>(t) + 1) << 48) | (++serial & 0xffff'ffff'ffff);
                    held.push_back(c);
                } else if (!held.empty()) {
                    give_back(rng() % held.size());
                }
            }
            while (!held.empty()) give_back(held.size() - 1);
            running.fetch_sub(1);
        });
    }
    for (auto& w : workers) w.join();
    stop.store(true);
    trimmer.join();
    reporter.join();
    EXPECT_EQ(running.load(), 0);
    for (auto& c : caches) c.drain(pool);
    EXPECT_EQ(pool.pooled(), pool.count());
    EXPECT_EQ(pool.count(), pool.mapped_total() - pool.unmapped_total());
    pool.release_pooled();
    EXPECT_EQ(pool.count(), 0u);
    EXPECT_EQ(pool.mapped_total(), pool.unmapped_total());
}

#if !WEFT_HAVE_ASAN && !WEFT_HAVE_TSAN  // the sanitizers reserve terabytes: no RLIMIT_AS under them
// Address space in use now, from /proc/self/statm (pages).
std::size_t virtual_bytes() {
    std::size_t pages = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%zu", &pages) != 1) pages = 0;
        std::fclose(f);
    }
    return pages * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

// Idle pooled stacks hold address space (and mappings: vm.max_map_count); when the kernel
// refuses a stack, the pool gives its depot back and tries once more.
[[noreturn]] void map_past_an_address_space_limit() {
    context_pool pool(stack_bytes);
    context_cache cache;
    std::vector<context*> held;
    for (int i = 0; i < 300; ++i) held.push_back(cache.take(pool));  // 300 x 320 KiB
    for (context* c : held) cache.put(c, pool);
    if (pool.pooled() < 200) std::_Exit(10);
    const rlim_t limit = virtual_bytes() + (rlim_t{32} << 20);
    const rlimit lim{limit, limit};
    if (::setrlimit(RLIMIT_AS, &lim) != 0) std::_Exit(11);
    try {
        context* big = pool.make(std::size_t{64} << 20);  // more than the limit leaves
        if (pool.pooled() != 0) std::_Exit(12);
        pool.release(big);
    } catch (const std::system_error& e) {
        std::fprintf(stderr, "refused: %s\n", e.what());
        std::_Exit(13);
    }
    std::_Exit(0);
}

TEST(ContextPoolDeathTest, ARefusedMappingFirstReleasesTheDepot) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(map_past_an_address_space_limit(), ::testing::ExitedWithCode(0), "");
}
#endif

TEST(ContextPool, AnEmptyPoolTrimsAndReleasesNothing) {
    context_pool pool(stack_bytes);
    for (int i = 0; i < 5; ++i) pool.trim();
    EXPECT_EQ(pool.release_pooled(), 0u);
    EXPECT_EQ(pool.count(), 0u);
    EXPECT_EQ(pool.trimmed_total(), 0u);
}

}  // namespace
