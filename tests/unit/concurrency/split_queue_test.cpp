// ext::split_queue (seed 002 §3.1): a model-based test against a plain deque that
// follows the same rules, and a stress test of one owner against thieves (each task is
// taken exactly once; the bounds hold throughout).
#include <weft/concurrency/split_queue.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <random>
#include <thread>
#include <vector>

namespace {

using weft::ext::split_queue;

TEST(split_queue, example) {
    split_queue<int> q(4, 2);
    int a = 1, b = 2, c = 3;
    EXPECT_TRUE(q.push(&a));
    EXPECT_TRUE(q.push(&b));
    EXPECT_TRUE(q.push(&c));  // a, b released to the public part
    int* got[2];
    EXPECT_EQ(q.steal(got, 2, [](std::size_t n) { return n; }), 2u);  // a, b: oldest first
    EXPECT_EQ(got[0], &a);
    EXPECT_EQ(got[1], &b);
    EXPECT_EQ(q.pop(), &c);  // newest first
    EXPECT_EQ(q.pop(), nullptr);
}

TEST(split_queue, rejects_bad_bounds) {
    EXPECT_THROW(split_queue<int>(0, 0), std::invalid_argument);
    EXPECT_THROW(split_queue<int>(4, 5), std::invalid_argument);
    EXPECT_THROW(split_queue<int>(4, 0), std::invalid_argument);
    EXPECT_NO_THROW(split_queue<int>(1, 1));
}

TEST(split_queue, a_full_queue_refuses_and_a_lone_owner_never_releases_below_the_private_bound) {
    split_queue<int> q(6, 2);
    int v[7];
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(q.push(&v[i]));
    EXPECT_EQ(q.public_size_approx(), 0u);  // private part (4) not full, no thief asked
    ASSERT_TRUE(q.push(&v[3]));             // private full: the older half goes public
    EXPECT_EQ(q.public_size_approx(), 2u);
    ASSERT_TRUE(q.push(&v[4]));
    ASSERT_TRUE(q.push(&v[5]));
    EXPECT_FALSE(q.push(&v[6]));  // 6 queued: the caller runs it (work-first)
    EXPECT_EQ(q.size(), 6u);
    EXPECT_LE(q.public_size_approx(), 2u);
}

TEST(split_queue, a_thief_finding_nothing_public_asks_the_owner_to_release) {
    split_queue<int> q(40, 20);
    int v[4];
    ASSERT_TRUE(q.push(&v[0]));
    ASSERT_TRUE(q.push(&v[1]));
    ASSERT_TRUE(q.push(&v[2]));
    int* got[4];
    EXPECT_EQ(q.steal(got, 4, [](std::size_t) { return 1; }), 0u);  // nothing public yet
    ASSERT_TRUE(q.push(&v[3]));  // the owner's next operation releases the older half
    EXPECT_EQ(q.public_size_approx(), 2u);
    EXPECT_EQ(q.steal(got, 4, [](std::size_t) { return 1; }), 1u);
    EXPECT_EQ(got[0], &v[0]);
    // take_back: the newest private task, or the newest public one once the private part is empty.
    EXPECT_FALSE(q.take_back(&v[2]));
    EXPECT_TRUE(q.take_back(&v[3]));
    EXPECT_TRUE(q.take_back(&v[2]));
    EXPECT_TRUE(q.take_back(&v[1]));  // public, reclaimed
    EXPECT_EQ(q.size(), 0u);
}

// The oracle: a deque, oldest first, whose first `pub` items are public.
struct oracle {
    std::size_t cap, pubcap;
    std::deque<int> items;
    std::size_t pub = 0;
    bool hungry = false;

    void maybe_release() {
        const std::size_t priv = items.size() - pub;
        if (priv < 2) return;
        if (!(priv >= cap - pubcap || (pub == 0 && hungry))) return;
        hungry = false;
        if (pub >= pubcap) return;
        pub += std::min(priv / 2, pubcap - pub);
    }
    bool push(int v) {
        if (items.size() >= cap) return false;
        items.push_back(v);
        maybe_release();
        return true;
    }
    int pop() {
        if (items.size() > pub) {
            const int v = items.back();
            items.pop_back();
            maybe_release();
            return v;
        }
        if (pub == 0) return -1;
        const int v = items.back();
        items.pop_back();
        --pub;
        return v;
    }
    bool take_back(int v) {
        if (items.empty() || items.back() != v) return false;
        if (items.size() == pub) --pub;
        items.pop_back();
        return true;
    }
    std::vector<int> steal(std::size_t k) {
        if (pub == 0) {
            hungry = true;
            return {};
        }
        k = std::min(k, pub);
        std::vector<int> out(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(k));
        items.erase(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(k));
        pub -= k;
        return out;
    }
};

TEST(split_queue, matches_the_model_on_random_operation_sequences) {
    for (std::uint32_t seed = 1; seed <= 60; ++seed) {
        std::mt19937 rng(seed);
        const std::size_t cap = 1 + rng() % 12, pubcap = 1 + rng() % cap;
        split_queue<int> q(cap, pubcap);
        oracle m{cap, pubcap, {}, 0, false};
        std::vector<int> values(4000);
        for (int i = 0; i < 4000; ++i) values[static_cast<std::size_t>(i)] = i;
        int next = 0;
        for (int step = 0; step < 3000; ++step) {
            const unsigned op = rng() % 10;
            if (op < 4) {
                const bool ok = q.push(&values[static_cast<std::size_t>(next)]);
                ASSERT_EQ(ok, m.push(next)) << "seed " << seed << " step " << step;
                ++next;
            } else if (op < 6) {
                int* p = q.pop();
                ASSERT_EQ(p == nullptr ? -1 : *p, m.pop()) << "seed " << seed << " step " << step;
            } else if (op < 7) {
                const int want = m.items.empty() ? 0 : m.items.back() - static_cast<int>(rng() % 2);
                if (want < 0) continue;
                ASSERT_EQ(q.take_back(&values[static_cast<std::size_t>(want)]), m.take_back(want))
                    << "seed " << seed << " step " << step;
            } else {
                const std::size_t k = 1 + rng() % 4;
                const bool half = rng() % 2 == 0;
                int* got[8];
                const std::size_t n = q.steal(got, 8, [&](std::size_t avail) { return half ? (avail + 1) / 2 : k; });
                const auto expect = m.steal(half ? (m.pub + 1) / 2 : k);
                ASSERT_EQ(n, expect.size()) << "seed " << seed << " step " << step;
                for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(*got[i], expect[i]);
            }
            ASSERT_EQ(q.size(), m.items.size());
            ASSERT_EQ(q.public_size_approx(), m.pub);
            ASSERT_LE(q.size(), cap);
            ASSERT_LE(q.public_size_approx(), pubcap);
            if (next >= 3990) break;
        }
    }
}

TEST(split_queue, one_owner_and_thieves_take_every_task_exactly_once) {
#if WEFT_HAVE_TSAN || WEFT_HAVE_ASAN
    constexpr int tasks = 60'000;
#else
    constexpr int tasks = 600'000;
#endif
    constexpr std::size_t cap = 40, pubcap = 20;
    split_queue<int> q(cap, pubcap);
    std::vector<int> values(tasks);
    std::vector<std::atomic<int>> taken(tasks);
    for (int i = 0; i < tasks; ++i) values[static_cast<std::size_t>(i)] = i;
    std::atomic<bool> done{false};
    std::atomic<std::size_t> max_public{0};
    auto take = [&](int* p) { taken[static_cast<std::size_t>(*p)].fetch_add(1, std::memory_order_relaxed); };
    std::vector<std::thread> thieves;
    for (int t = 0; t < 2; ++t) {
        thieves.emplace_back([&, t] {
            int* got[20];
            while (!done.load(std::memory_order_acquire)) {
                const std::size_t pub = q.public_size_approx();
                if (pub > max_public.load(std::memory_order_relaxed)) max_public.store(pub, std::memory_order_relaxed);
                const std::size_t n = q.steal(got, 20, [t](std::size_t avail) { return t == 0 ? 1 : (avail + 1) / 2; });
                for (std::size_t i = 0; i < n; ++i) take(got[i]);
                if (n == 0) std::this_thread::yield();
            }
        });
    }
    std::mt19937 rng(7);
    for (int i = 0; i < tasks; ++i) {
        if (!q.push(&values[static_cast<std::size_t>(i)])) take(&values[static_cast<std::size_t>(i)]);  // work-first
        EXPECT_LE(q.size(), cap);
        if (rng() % 3 == 0)
            if (int* p = q.pop()) take(p);
    }
    while (int* p = q.pop()) take(p);
    done.store(true, std::memory_order_release);
    for (auto& t : thieves) t.join();
    // Whatever a thief took is counted; nothing may be left or twice taken.
    for (int i = 0; i < tasks; ++i) ASSERT_EQ(taken[static_cast<std::size_t>(i)].load(), 1) << "task " << i;
    EXPECT_LE(max_public.load(), pubcap);
}

}  // namespace
