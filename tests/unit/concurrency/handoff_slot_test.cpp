// Tests of weft::ext::handoff_slot: the header's example, random operations on one thread
// against a three-state oracle, and givers racing an owner that opens, polls and closes:
// every item ends with exactly one side.
#include <weft/concurrency/handoff_slot.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

namespace {

struct item {
    int value = 0;
};

TEST(handoff_slot, example_from_the_header) {
    weft::ext::handoff_slot<item> slot;
    item a{1}, b{2};
    EXPECT_FALSE(slot.offer(&a));      // closed: the giver keeps the item
    slot.open();
    EXPECT_EQ(slot.poll(), nullptr);   // open, nothing yet
    EXPECT_TRUE(slot.offer(&a));
    EXPECT_FALSE(slot.offer(&b));      // one item per opening
    EXPECT_EQ(slot.poll(), &a);        // taken; the slot is closed again
    EXPECT_EQ(slot.close(), nullptr);  // nothing was given since
}

TEST(handoff_slot, close_returns_an_item_given_meanwhile_and_reopening_accepts_again) {
    weft::ext::handoff_slot<item> slot;
    item a{1}, b{2};
    EXPECT_EQ(slot.close(), nullptr);  // closing a closed slot is a no-op
    slot.open();
    slot.open();  // and so is opening an open one
    EXPECT_TRUE(slot.accepts());
    EXPECT_TRUE(slot.offer(&a));
    EXPECT_FALSE(slot.accepts());
    EXPECT_EQ(slot.close(), &a);
    EXPECT_FALSE(slot.is_open());
    EXPECT_FALSE(slot.offer(&b));
    slot.open();
    EXPECT_TRUE(slot.offer(&b));
    EXPECT_EQ(slot.poll(), &b);
    EXPECT_FALSE(slot.is_open());
    EXPECT_FALSE(slot.offer(&a));  // the taken item's address turns givers away
    EXPECT_EQ(slot.poll(), nullptr);
}

// Random open / offer / poll / close on one thread against the oracle: closed, open, or
// holding one item.
TEST(handoff_slot, model_against_a_three_state_oracle) {
    for (std::uint32_t seed : {1u, 2u, 3u, 4u}) {
        std::mt19937 rng(seed);
        constexpr std::size_t steps = 200'000;
        std::vector<item> pool(steps);
        weft::ext::handoff_slot<item> slot;
        enum class state { closed, open, holding } want = state::closed;
        item* held = nullptr;
        for (std::size_t step = 0; step < steps; ++step) {
            switch (rng() % 4) {
                case 0:
                    slot.open();
                    if (want == state::closed) want = state::open;
                    break;
                case 1: {
                    item* it = &pool[step];
                    const bool took = slot.offer(it);
                    ASSERT_EQ(took, want == state::open) << "seed " << seed << " step " << step;
                    if (took) {
                        want = state::holding;
                        held = it;
                    }
                    break;
                }
                case 2: {
                    item* got = slot.poll();
                    ASSERT_EQ(got, want == state::holding ? held : nullptr) << "seed " << seed << " step " << step;
                    if (want == state::holding) want = state::closed;
                    break;
                }
                default: {
                    item* got = slot.close();
                    ASSERT_EQ(got, want == state::holding ? held : nullptr) << "seed " << seed << " step " << step;
                    want = state::closed;
                    break;
                }
            }
            ASSERT_EQ(slot.is_open(), want != state::closed) << "seed " << seed << " step " << step;
            ASSERT_EQ(slot.accepts(), want == state::open) << "seed " << seed << " step " << step;
        }
    }
}

// Three givers offer items while the owner opens, polls and closes at random. An item is
// either accepted (and then received by the owner, by poll or close, exactly once) or
// refused (and kept by its giver); the item's payload, written before the offer, is seen.
TEST(handoff_slot, givers_race_the_owner_and_no_item_is_lost_or_duplicated) {
    constexpr int givers = 3;
    constexpr int per_giver = 20'000;
    struct payload {
        int giver = -1;
        int seq = -1;
    };
    std::vector<std::vector<payload>> items(givers, std::vector<payload>(per_giver));
    std::vector<std::vector<std::uint8_t>> refused(givers, std::vector<std::uint8_t>(per_giver, 0));
    std::vector<std::vector<std::uint8_t>> received(givers, std::vector<std::uint8_t>(per_giver, 0));
    weft::ext::handoff_slot<payload> slot;
    std::atomic<int> givers_done{0};

    std::vector<std::thread> threads;
    for (int g = 0; g < givers; ++g) {
        threads.emplace_back([&, g] {
            for (int i = 0; i < per_giver; ++i) {
                payload* p = &items[g][i];
                p->giver = g;  // plain writes, published by the offer's release
                p->seq = i;
                while (!slot.accepts() && (i % 8 != 0)) std::this_thread::yield();  // offer mostly when open
                if (!slot.offer(p)) refused[g][i] = 1;
            }
            givers_done.fetch_add(1);
        });
    }
    bool bad_payload = false;
    auto take = [&](payload* p) {
        if (p == nullptr) return;
        if (p->giver < 0 || p->giver >= givers || p->seq < 0 || p->seq >= per_giver ||
            p != &items[p->giver][p->seq]) {
            bad_payload = true;
            return;
        }
        ++received[p->giver][p->seq];
    };
    std::mt19937 rng(7);
    while (givers_done.load() < givers) {
        slot.open();
        for (int spins = static_cast<int>(rng() % 64); spins > 0; --spins) take(slot.poll());
        if (rng() % 2 == 0) take(slot.close());
    }
    take(slot.close());
    for (auto& t : threads) t.join();

    ASSERT_FALSE(bad_payload);
    std::size_t accepted = 0;
    for (int g = 0; g < givers; ++g) {
        for (int i = 0; i < per_giver; ++i) {
            ASSERT_EQ(received[g][i] + refused[g][i], 1) << "giver " << g << " item " << i;
            accepted += received[g][i];
        }
    }
    EXPECT_GT(accepted, 0u);  // the race was exercised
}

}  // namespace
