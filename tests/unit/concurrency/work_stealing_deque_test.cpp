// Tests of weft::ext::work_stealing_deque: a model-based check against a std::deque oracle
// on one thread, and multi-thread stress with one owner and three thieves.
#include <weft/concurrency/work_stealing_deque.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <random>
#include <thread>
#include <tuple>
#include <vector>

namespace {

using weft::ext::steal_status;
using weft::ext::work_stealing_deque;

TEST(work_stealing_deque, example_from_the_header) {
    weft::ext::work_stealing_deque<int> dq(2);
    int a = 1, b = 2, c = 3;
    dq.push(&a); dq.push(&b); dq.push(&c);   // grows from 2 to 4 slots
    int* stolen = nullptr;
    EXPECT_EQ(dq.steal(stolen), weft::ext::steal_status::success);
    EXPECT_EQ(stolen, &a);                   // thieves take the oldest
    EXPECT_EQ(dq.pop(), &c);                 // the owner takes the newest
    EXPECT_EQ(dq.pop(), &b);
    EXPECT_TRUE(dq.empty());
}

TEST(work_stealing_deque, empty_deque_reports_nothing) {
    for (std::size_t capacity : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{256}}) {
        work_stealing_deque<int> dq(capacity);
        EXPECT_TRUE(dq.empty());
        EXPECT_EQ(dq.size_approx(), 0u);
        EXPECT_EQ(dq.pop(), nullptr);
        EXPECT_EQ(dq.peek_bottom(), nullptr);
        int* out = nullptr;
        EXPECT_EQ(dq.steal(out), steal_status::empty);
        EXPECT_EQ(out, nullptr);
        // pop() on an empty deque must leave it usable (bottom is restored).
        int x = 0;
        dq.push(&x);
        EXPECT_EQ(dq.size_approx(), 1u);
        EXPECT_EQ(dq.peek_bottom(), &x);
        EXPECT_EQ(dq.pop(), &x);
        EXPECT_EQ(dq.pop(), nullptr);
        EXPECT_TRUE(dq.empty());
    }
}

TEST(work_stealing_deque, growth_keeps_order_across_wraparound) {
    work_stealing_deque<int> dq(4);
    std::vector<int> values(100);
    // Advance top so that the live range wraps around the ring before it grows.
    for (int round = 0; round < 3; ++round) {
        dq.push(&values[0]);
        int* out = nullptr;
        ASSERT_EQ(dq.steal(out), steal_status::success);
    }
    for (int& v : values) dq.push(&v);
    for (int& v : values) {
        int* out = nullptr;
        ASSERT_EQ(dq.steal(out), steal_status::success);
        ASSERT_EQ(out, &v);
    }
    EXPECT_TRUE(dq.empty());
}

// --- model-based test -------------------------------------------------------------------

class work_stealing_deque_model
    : public ::testing::TestWithParam<std::tuple<std::uint32_t, std::size_t>> {};

// Random push / pop / steal / peek_bottom on one thread, each checked against std::deque
// (pop = back, steal = front). The push share changes every phase, so the size sweeps from
// empty to thousands and back, which makes a tiny initial ring grow many times.
TEST_P(work_stealing_deque_model, random_operations_match_std_deque) {
    const auto [seed, initial_capacity] = GetParam();
    constexpr std::size_t steps = 100'000;
    constexpr std::size_t phase_length = 2048;

    std::mt19937 rng(seed);
    std::vector<int> pool(steps);
    work_stealing_deque<int> dq(initial_capacity);
    std::deque<int*> oracle;
    std::size_t next = 0;
    unsigned push_percent = 50;

    for (std::size_t step = 0; step < steps; ++step) {
        if (step % phase_length == 0) push_percent = 10 + rng() % 81;  // 10..90
        const unsigned roll = rng() % 100;
        if (roll < push_percent) {
            int* item = &pool[next++];
            dq.push(item);
            oracle.push_back(item);
        } else {
            switch (rng() % 3) {
            case 0: {
                int* got = dq.pop();
                int* want = nullptr;
                if (!oracle.empty()) {
                    want = oracle.back();
                    oracle.pop_back();
                }
                ASSERT_EQ(got, want) << "pop, seed " << seed << " step " << step;
                break;
            }
            case 1: {
                int* got = nullptr;
                const steal_status status = dq.steal(got);
                if (oracle.empty()) {
                    ASSERT_EQ(status, steal_status::empty) << "seed " << seed << " step " << step;
                } else {
                    ASSERT_EQ(status, steal_status::success) << "seed " << seed << " step " << step;
                    ASSERT_EQ(got, oracle.front()) << "steal, seed " << seed << " step " << step;
                    oracle.pop_front();
                }
                break;
            }
            default: {
                int* want = oracle.empty() ? nullptr : oracle.back();
                ASSERT_EQ(dq.peek_bottom(), want) << "peek, seed " << seed << " step " << step;
                break;
            }
            }
        }
        ASSERT_EQ(dq.size_approx(), oracle.size()) << "seed " << seed << " step " << step;
        ASSERT_EQ(dq.empty(), oracle.empty()) << "seed " << seed << " step " << step;
    }
    while (!oracle.empty()) {
        ASSERT_EQ(dq.pop(), oracle.back());
        oracle.pop_back();
    }
    EXPECT_EQ(dq.pop(), nullptr);
    EXPECT_TRUE(dq.empty());
}

INSTANTIATE_TEST_SUITE_P(seeds_and_capacities, work_stealing_deque_model,
                         ::testing::Combine(::testing::Values(1u, 2u, 3u, 20130223u),
                                            ::testing::Values(std::size_t{1}, std::size_t{3},
                                                              std::size_t{256})));

// --- multi-thread stress ----------------------------------------------------------------

struct stress_item {
    std::size_t id = 0;  // written by the owner just before push, read by whoever takes it
};

enum class owner_mode { mixed, push_then_drain };

// One owner, three thieves; every item must be taken exactly once. Each thread logs the ids
// it took; the logs are merged into per-item counters after the threads are joined.
void run_stress(owner_mode mode, std::size_t n, std::size_t initial_capacity, std::uint32_t seed) {
    constexpr std::size_t thieves = 3;
    work_stealing_deque<stress_item> dq(initial_capacity);
    std::vector<stress_item> items(n);
    std::vector<std::vector<std::size_t>> taken(thieves + 1);  // [thieves] is the owner
    std::atomic<bool> done{false};
    std::vector<std::size_t> lost_races(thieves, 0);

    auto take = [&](std::vector<std::size_t>& log, stress_item* p) {
        // The payload must be visible: push() publishes it to the taker.
        ASSERT_LT(p->id, n);
        ASSERT_EQ(p, &items[p->id]);
        log.push_back(p->id);
    };

    std::vector<std::thread> threads;
    for (std::size_t k = 0; k < thieves; ++k) {
        threads.emplace_back([&, k] {
            for (;;) {
                stress_item* p = nullptr;
                switch (dq.steal(p)) {
                case steal_status::success:
                    take(taken[k], p);
                    break;
                case steal_status::lost_race:
                    ++lost_races[k];
                    break;
                case steal_status::empty:
                    // acquire: the owner drained the deque before setting done, and pushes
                    // nothing afterwards, so an empty deque after done stays empty.
                    if (done.load(std::memory_order_acquire)) return;
                    std::this_thread::yield();
                    break;
                }
            }
        });
    }

    std::vector<std::size_t>& own = taken[thieves];
    std::mt19937 rng(seed);
    std::size_t next = 0;
    auto push_one = [&] {
        items[next].id = next;
        dq.push(&items[next]);
        ++next;
    };
    if (mode == owner_mode::mixed) {
        while (next < n) {
            for (std::size_t burst = 1 + rng() % 64; burst > 0 && next < n; --burst) push_one();
            for (std::size_t burst = 1 + rng() % 64; burst > 0; --burst) {
                if (rng() % 8 == 0) {
                    stress_item* p = nullptr;  // the owner may steal from itself too
                    if (dq.steal(p) == steal_status::success) take(own, p);
                } else if (stress_item* p = dq.pop()) {
                    take(own, p);
                }
            }
        }
    } else {
        while (next < n) push_one();
    }
    // pop() returns nullptr only when the deque is empty afterwards (even when it lost the
    // last item to a thief), and nothing is pushed from here on.
    while (stress_item* p = dq.pop()) take(own, p);
    done.store(true, std::memory_order_release);  // release: pairs with the thieves' acquire
    for (auto& t : threads) t.join();

    std::vector<std::uint8_t> count(n, 0);
    std::size_t total = 0;
    for (const auto& log : taken) {
        total += log.size();
        for (std::size_t id : log) {
            ASSERT_LT(id, n);
            ++count[id];
        }
    }
    for (std::size_t id = 0; id < n; ++id) {
        ASSERT_EQ(count[id], 1u) << "item " << id << (count[id] == 0 ? " lost" : " duplicated");
    }
    EXPECT_EQ(total, n);
    EXPECT_TRUE(dq.empty());

    std::size_t stolen = 0, races = 0;
    for (std::size_t k = 0; k < thieves; ++k) {
        stolen += taken[k].size();
        races += lost_races[k];
    }
    // Informational only: how much the thieves took depends on the scheduling.
    ::testing::Test::RecordProperty("stolen", static_cast<int>(stolen));
    ::testing::Test::RecordProperty("lost_races", static_cast<int>(races));
}

constexpr std::size_t stress_items = 2'000'000;

TEST(work_stealing_deque_stress, owner_pushes_and_pops_while_three_thieves_steal) {
    run_stress(owner_mode::mixed, stress_items, 8, 7u);
}

TEST(work_stealing_deque_stress, owner_pushes_all_then_drains_while_three_thieves_steal) {
    run_stress(owner_mode::push_then_drain, stress_items, 2, 11u);
}

}  // namespace
