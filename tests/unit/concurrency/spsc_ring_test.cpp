// Tests of weft::ext::spsc_ring: a model-based check against a bounded std::deque oracle
// on one thread, and multi-thread stress with one producer and one consumer (run under
// TSan by the tsan preset).
#include <weft/concurrency/spsc_ring.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <random>
#include <thread>
#include <vector>

namespace {

using weft::ext::spsc_ring;

TEST(spsc_ring, example_from_the_header) {
    weft::ext::spsc_ring<int> ring(3);  // rounded up to 4 slots
    EXPECT_EQ(ring.capacity(), 4u);
    EXPECT_TRUE(ring.try_push(1));
    EXPECT_TRUE(ring.try_push(2));
    int v = 0;
    EXPECT_TRUE(ring.try_pop(v));  // FIFO: 1, then 2
    EXPECT_EQ(v, 1);
    EXPECT_TRUE(ring.try_pop(v));
    EXPECT_EQ(v, 2);
    EXPECT_FALSE(ring.try_pop(v));
}

TEST(spsc_ring, capacity_bounds_and_bad_capacity) {
    for (std::size_t c : {std::size_t{1}, std::size_t{2}, std::size_t{5}, std::size_t{64}}) {
        spsc_ring<std::uint32_t> ring(c);
        EXPECT_EQ(ring.capacity(), std::bit_ceil(c));
        EXPECT_TRUE(ring.empty_for_consumer());
        for (std::uint32_t i = 0; i < ring.capacity(); ++i) EXPECT_TRUE(ring.try_push(i));
        EXPECT_TRUE(ring.full_for_producer());
        EXPECT_FALSE(ring.try_push(99));  // full: refused, nothing overwritten
        EXPECT_EQ(ring.size_approx(), ring.capacity());
        std::uint32_t v = 0;
        for (std::uint32_t i = 0; i < ring.capacity(); ++i) {
            ASSERT_TRUE(ring.try_pop(v));
            EXPECT_EQ(v, i);
        }
        EXPECT_FALSE(ring.try_pop(v));
        EXPECT_TRUE(ring.empty_approx());
    }
    EXPECT_THROW(spsc_ring<int>(0), weft::error);
    EXPECT_THROW(spsc_ring<int>((std::size_t{1} << 32) + 1), weft::error);
}

// The model: random pushes and pops on one thread, against a std::deque bounded to the
// same capacity; every result, the size and the emptiness/fullness reports must agree.
class spsc_ring_model : public ::testing::TestWithParam<std::size_t> {};

TEST_P(spsc_ring_model, random_operations_match_a_bounded_deque) {
    const std::size_t capacity = GetParam();
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        spsc_ring<std::uint64_t> ring(capacity);
        std::deque<std::uint64_t> oracle;
        std::mt19937_64 rng(seed);
        std::uint64_t next = 0;
        // Phases biased towards pushing, then popping, so the ring fills and drains often.
        for (int step = 0; step < 4000; ++step) {
            const bool push_bias = (step / 100) % 2 == 0;
            const bool push = rng() % 10 < (push_bias ? 7u : 3u);
            if (push) {
                const bool ok = ring.try_push(next);
                const bool oracle_ok = oracle.size() < ring.capacity();
                ASSERT_EQ(ok, oracle_ok) << "seed " << seed << " step " << step;
                if (oracle_ok) oracle.push_back(next);
                ++next;
            } else {
                std::uint64_t v = ~0ull;
                const bool ok = ring.try_pop(v);
                ASSERT_EQ(ok, !oracle.empty()) << "seed " << seed << " step " << step;
                if (ok) {
                    ASSERT_EQ(v, oracle.front());
                    oracle.pop_front();
                }
            }
            ASSERT_EQ(ring.size_approx(), oracle.size());
            ASSERT_EQ(ring.empty_for_consumer(), oracle.empty());
            ASSERT_EQ(ring.full_for_producer(), oracle.size() == ring.capacity());
        }
    }
}

INSTANTIATE_TEST_SUITE_P(capacities, spsc_ring_model, ::testing::Values(1, 2, 3, 8, 64));

// Stress: a producer pushes 0..n-1 (spinning while full), a consumer pops until it has n
// values; FIFO order means each value is the previous plus one: none lost, none duplicated.
void producer_consumer(std::size_t capacity, std::uint64_t n) {
    spsc_ring<std::uint64_t> ring(capacity);
    std::thread producer([&] {
        for (std::uint64_t i = 0; i < n; ++i)
            while (!ring.try_push(i)) std::this_thread::yield();
    });
    std::uint64_t expected = 0, sum = 0;
    std::uint64_t v = 0;
    while (expected < n) {
        if (ring.try_pop(v)) {
            ASSERT_EQ(v, expected);
            sum += v;
            ++expected;
        } else {
            std::this_thread::yield();
        }
    }
    producer.join();
    EXPECT_FALSE(ring.try_pop(v));
    EXPECT_EQ(sum, n * (n - 1) / 2);
}

TEST(spsc_ring_stress, one_producer_one_consumer_small_ring) { producer_consumer(2, 200'000); }
TEST(spsc_ring_stress, one_producer_one_consumer_large_ring) { producer_consumer(1024, 1'000'000); }

// Pointers to objects written before the push are read intact after the pop (the release
// store of tail_ publishes them; TSan checks the pairing).
TEST(spsc_ring_stress, published_objects_are_seen_whole) {
    struct item {
        std::uint64_t a, b;
    };
    constexpr std::uint64_t n = 100'000;
    std::vector<item> items(n);
    spsc_ring<item*> ring(16);
    std::thread producer([&] {
        for (std::uint64_t i = 0; i < n; ++i) {
            items[i] = {i, ~i};
            while (!ring.try_push(&items[i])) std::this_thread::yield();
        }
    });
    for (std::uint64_t i = 0; i < n;) {
        item* p = nullptr;
        if (!ring.try_pop(p)) {
            std::this_thread::yield();
            continue;
        }
        ASSERT_EQ(p, &items[i]);
        ASSERT_EQ(p->a, i);
        ASSERT_EQ(p->b, ~i);
        ++i;
    }
    producer.join();
}

}  // namespace
