// Tests of weft::ext::owner_deque: a model-based check against a std::deque oracle
// (random pushes and pops at both ends, through several growths), and a reader thread
// sampling size_approx() while the owner works (the one cross-thread access).
#include <weft/concurrency/owner_deque.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <deque>
#include <random>
#include <thread>
#include <vector>

namespace {

using weft::ext::owner_deque;

TEST(owner_deque, empty_deque_reports_nothing) {
    owner_deque<int> dq;
    EXPECT_TRUE(dq.empty());
    EXPECT_EQ(dq.size(), 0u);
    EXPECT_EQ(dq.size_approx(), 0u);
    EXPECT_EQ(dq.back(), nullptr);
    EXPECT_EQ(dq.pop_back(), nullptr);
    EXPECT_EQ(dq.pop_front(), nullptr);
    int x = 0;
    dq.push_back(&x);
    EXPECT_EQ(dq.back(), &x);
    EXPECT_EQ(dq.size_approx(), 1u);
    EXPECT_EQ(dq.pop_front(), &x);
    EXPECT_TRUE(dq.empty());
}

TEST(owner_deque, newest_at_the_back_oldest_at_the_front) {
    owner_deque<int> dq;
    int v[3] = {};
    for (int& x : v) dq.push_back(&x);
    EXPECT_EQ(dq.back(), &v[2]);
    EXPECT_EQ(dq.pop_back(), &v[2]);
    EXPECT_EQ(dq.pop_front(), &v[0]);
    EXPECT_EQ(dq.pop_back(), &v[1]);
    EXPECT_EQ(dq.pop_back(), nullptr);
}

TEST(owner_deque, matches_a_std_deque_oracle) {
    // Random operations with a drift towards growth, so that the ring grows (64, 128, ...
    // slots) while items wrap around its end; every result is compared with the oracle.
    std::vector<int> items(5000);
    for (unsigned seed = 1; seed <= 20; ++seed) {
        std::mt19937 rng(seed);
        owner_deque<int> dq;
        std::deque<int*> oracle;
        std::size_t next = 0;
        for (int step = 0; step < 20000; ++step) {
            const unsigned op = rng() % 10;
            if (op < 5 && next < items.size()) {
                dq.push_back(&items[next]);
                oracle.push_back(&items[next]);
                ++next;
            } else if (op < 8) {
                int* got = dq.pop_back();
                int* want = oracle.empty() ? nullptr : oracle.back();
                if (!oracle.empty()) oracle.pop_back();
                ASSERT_EQ(got, want) << "seed " << seed << " step " << step;
            } else {
                int* got = dq.pop_front();
                int* want = oracle.empty() ? nullptr : oracle.front();
                if (!oracle.empty()) oracle.pop_front();
                ASSERT_EQ(got, want) << "seed " << seed << " step " << step;
            }
            if (next == items.size() && oracle.empty()) next = 0;
            ASSERT_EQ(dq.size(), oracle.size());
            ASSERT_EQ(dq.size_approx(), oracle.size());
            ASSERT_EQ(dq.back(), oracle.empty() ? nullptr : oracle.back());
        }
    }
}

TEST(owner_deque, size_approx_is_readable_from_another_thread) {
    // The owner fills and drains in waves of up to 1000; a reader samples the size and
    // must only ever see values the deque has had.
    owner_deque<int> dq;
    std::vector<int> items(1000);
    std::atomic<bool> done{false};
    std::size_t worst = 0;
    std::thread reader([&] {
        while (!done.load(std::memory_order_acquire)) worst = std::max(worst, dq.size_approx());
    });
    std::mt19937 rng(7);
    for (int wave = 0; wave < 2000; ++wave) {
        const std::size_t n = 1 + rng() % items.size();
        for (std::size_t i = 0; i < n; ++i) dq.push_back(&items[i]);
        for (std::size_t i = 0; i < n; ++i) ASSERT_NE(wave % 2 ? dq.pop_front() : dq.pop_back(), nullptr);
        ASSERT_TRUE(dq.empty());
    }
    done.store(true, std::memory_order_release);
    reader.join();
    EXPECT_LE(worst, items.size());
    EXPECT_EQ(dq.size_approx(), 0u);
}

}  // namespace
