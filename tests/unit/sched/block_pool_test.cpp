// The task-block pool (src/threads/block_pool.cpp): blocks are distinct, aligned and
// writable; freed blocks are reused rather than taken anew from the system, whichever
// thread frees them; batches move between workers and the pool without losing blocks.
#include <weft/sched/detail/spawn.hpp>
#include <weft/weft.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <thread>
#include <vector>

namespace {

using weft::detail::allocate_task_block;
using weft::detail::free_task_block;

constexpr std::size_t sizes[] = {40, 64, 100, 200, 384, 512, 700, 1500, 3000};

struct owned {
    void* p;
    std::size_t size;
    std::uint64_t tag;
};

// Fills a block with its tag so that an overlap with another live block shows up.
void stamp(const owned& b) {
    auto* words = static_cast<std::uint64_t*>(b.p);
    for (std::size_t i = 0; i < b.size / sizeof(std::uint64_t); ++i) words[i] = b.tag;
}
bool intact(const owned& b) {
    const auto* words = static_cast<const std::uint64_t*>(b.p);
    for (std::size_t i = 0; i < b.size / sizeof(std::uint64_t); ++i)
        if (words[i] != b.tag) return false;
    return true;
}

weft::runtime_config two_workers() {
    weft::runtime_config cfg;
    cfg.threads = 2;
    cfg.bind = false;
    return cfg;
}

// More blocks than a worker keeps (4096), so that whole lists move to and from the pool.
constexpr std::size_t many = 20'000;

TEST(BlockPool, BlocksAreDistinctAlignedAndReusedAcrossRounds) {
    weft::runtime rt(two_workers());
    std::size_t bytes_after_first = 0;
    weft::async([&] {
        for (int round = 0; round < 3; ++round) {
            std::vector<owned> live;
            live.reserve(many);
            for (std::size_t i = 0; i < many; ++i) {
                owned b{allocate_task_block(384), 384, (static_cast<std::uint64_t>(round) << 32) | i};
                ASSERT_EQ(reinterpret_cast<std::uintptr_t>(b.p) % weft::cache_line_size, 0u);
                stamp(b);
                live.push_back(b);
            }
            std::set<void*> distinct;
            for (const owned& b : live) {
                EXPECT_TRUE(intact(b)) << "a live block was overwritten";
                distinct.insert(b.p);
            }
            EXPECT_EQ(distinct.size(), many);
            for (const owned& b : live) free_task_block(b.p, b.size);
            if (round == 0) bytes_after_first = weft::detail::task_block_pool_bytes();
        }
    }).get();
    // The later rounds were served from the blocks the first one returned.
    EXPECT_EQ(weft::detail::task_block_pool_bytes(), bytes_after_first);
}

TEST(BlockPool, BlocksFreedByPlainThreadsAreReused) {
    weft::runtime rt(two_workers());
    std::vector<owned> live;
    weft::async([&] {
        for (std::size_t i = 0; i < many; ++i) {
            live.push_back({allocate_task_block(200), 200, i});
            stamp(live.back());
        }
    }).get();
    // Freed from a thread that is not a worker: each goes back to the pool on its own.
    std::thread([&] {
        for (const owned& b : live) {
            EXPECT_TRUE(intact(b));
            free_task_block(b.p, b.size);
        }
    }).join();
    const std::size_t bytes = weft::detail::task_block_pool_bytes();
    live.clear();
    // Allocated by a plain thread (takes a batch, returns the rest) and by a worker.
    std::thread([&] {
        for (std::size_t i = 0; i < many / 2; ++i) {
            live.push_back({allocate_task_block(200), 200, ~i});
            stamp(live.back());
        }
    }).join();
    weft::async([&] {
        for (std::size_t i = 0; i < many / 2; ++i) {
            live.push_back({allocate_task_block(200), 200, i << 20});
            stamp(live.back());
        }
    }).get();
    std::set<void*> distinct;
    for (const owned& b : live) {
        EXPECT_TRUE(intact(b));
        distinct.insert(b.p);
    }
    EXPECT_EQ(distinct.size(), live.size());
    // Up to one chunk per class may be carved while batches of one are taken back.
    EXPECT_LE(weft::detail::task_block_pool_bytes(), bytes + 64 * 1024);
    for (const owned& b : live) free_task_block(b.p, b.size);
}

// Blocks above 512 bytes (closures capturing a few KiB) up to 32 KiB are pooled too, by
// power-of-two class: reused across rounds (no growth after the first), whoever frees
// them (regression: they came from operator new, and glibc trimmed and regrew its
// arenas at every few tasks, 13 times a floorplan run's time).
TEST(BlockPool, LargeBlocksArePooledAndReusedWhoeverFreesThem) {
    weft::runtime rt(two_workers());
    constexpr std::size_t large_sizes[] = {513, 1000, 2048, 4500, 9000, 20000, 32768};
    constexpr std::size_t count = 300;  // over the 64 a thread keeps per class
    const std::size_t bytes_before = weft::detail::task_block_pool_bytes();
    std::size_t bytes_after_first = 0;
    for (int round = 0; round < 4; ++round) {
        std::vector<owned> live;
        weft::async([&] {
            for (std::size_t i = 0; i < count; ++i)
                for (const std::size_t size : large_sizes) {
                    owned b{allocate_task_block(size), size, (static_cast<std::uint64_t>(round) << 40) | (i << 8) | size};
                    ASSERT_EQ(reinterpret_cast<std::uintptr_t>(b.p) % weft::cache_line_size, 0u);
                    stamp(b);
                    live.push_back(b);
                }
        }).get();
        std::set<void*> distinct;
        for (const owned& b : live) {
            EXPECT_TRUE(intact(b)) << "a live block was overwritten";
            distinct.insert(b.p);
        }
        EXPECT_EQ(distinct.size(), live.size());
        // Even rounds free on a plain thread, odd ones on a worker.
        auto free_all = [&live] {
            for (const owned& b : live) free_task_block(b.p, b.size);
        };
        if (round % 2 == 0) std::thread(free_all).join();
        else weft::async(free_all).get();
        if (round == 0) bytes_after_first = weft::detail::task_block_pool_bytes();
    }
    // Rounds 1-3 were served by what round 0 returned. What a worker keeps in its own
    // lists (up to 64 blocks a class) the other cannot reach, and a list that runs dry
    // carves a chunk (16 blocks): per worker, at most (64 + 16) blocks of each class
    // (1, 2, 8, 16 and 32 KiB here) beyond round 0's. Without pooling each round would
    // take 300 blocks of each size anew, 26 MiB.
    if constexpr (!WEFT_HAVE_ASAN) {  // (under ASan every block is its own allocation)
        std::size_t asked = 0;
        for (const std::size_t size : large_sizes) asked += count * size;
        EXPECT_GE(bytes_after_first - bytes_before, asked) << "large blocks do not come from the pool";
    }
    constexpr std::size_t slack = 2 * (64 + 16) * (1 + 2 + 8 + 16 + 32) * std::size_t{1024};
    EXPECT_LE(weft::detail::task_block_pool_bytes(), bytes_after_first + slack);
    // Beyond 32 KiB: a plain allocation, still aligned and usable.
    owned big{allocate_task_block(100'000), 100'000, 7};
    ASSERT_EQ(reinterpret_cast<std::uintptr_t>(big.p) % weft::cache_line_size, 0u);
    stamp(big);
    EXPECT_TRUE(intact(big));
    free_task_block(big.p, big.size);
}

// Workers and plain threads allocate and free random sizes at random, each freeing
// blocks others allocated; no block is ever handed out twice while live.
TEST(BlockPool, ConcurrentAllocateFreeStress) {
    weft::runtime rt(two_workers());
    constexpr int producers = 4;
    constexpr std::size_t per = WEFT_HAVE_TSAN ? 20'000 : 200'000;
    std::vector<std::vector<owned>> handed(producers);
    auto churn = [&](int id) {
        std::mt19937_64 rng(static_cast<std::uint64_t>(id) + 1);
        std::vector<owned> mine;
        for (std::size_t i = 0; i < per; ++i) {
            if (mine.empty() || rng() % 3 != 0) {
                const std::size_t size = sizes[rng() % std::size(sizes)];
                mine.push_back({allocate_task_block(size), size, (static_cast<std::uint64_t>(id) << 40) | i});
                stamp(mine.back());
            } else {
                const std::size_t k = rng() % mine.size();
                ASSERT_TRUE(intact(mine[k]));
                free_task_block(mine[k].p, mine[k].size);
                mine[k] = mine.back();
                mine.pop_back();
            }
        }
        handed[static_cast<std::size_t>(id)] = std::move(mine);
    };
    std::vector<weft::future<void>> tasks;
    for (int id = 0; id < producers / 2; ++id) tasks.push_back(weft::async(churn, id));
    std::vector<std::thread> threads;
    for (int id = producers / 2; id < producers; ++id) threads.emplace_back(churn, id);
    for (auto& t : tasks) t.get();
    for (auto& t : threads) t.join();
    // Whatever is left is freed by someone else than its allocator, half on a worker.
    std::set<void*> distinct;
    std::size_t total = 0;
    for (const auto& v : handed) {
        for (const owned& b : v) {
            EXPECT_TRUE(intact(b));
            distinct.insert(b.p);
        }
        total += v.size();
    }
    EXPECT_EQ(distinct.size(), total);
    weft::async([&] {
        for (std::size_t i = 0; i < handed.size(); i += 2)
            for (const owned& b : handed[i]) free_task_block(b.p, b.size);
    }).get();
    for (std::size_t i = 1; i < handed.size(); i += 2)
        for (const owned& b : handed[i]) free_task_block(b.p, b.size);
}

}  // namespace
