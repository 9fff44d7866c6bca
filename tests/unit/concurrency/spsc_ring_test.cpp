// Tests of weft::ext::spsc_ring: a model-based check against a bounded std::deque oracle
// on one thread, and multi-thread stress with one producer and one consumer (run under
// TSan by the tsan preset).
#include <weft/concurrency/spsc_ring.hpp>

#include <gtest/gtest.h>

#include <algorithm>
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

// Bulk operations mixed with single ones, against the same bounded-deque oracle: a bulk
// push takes the longest prefix that fits, a bulk pop the oldest values up to its count.
TEST_P(spsc_ring_model, bulk_operations_match_a_bounded_deque) {
    const std::size_t capacity = GetParam();
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        spsc_ring<std::uint64_t> ring(capacity);
        std::deque<std::uint64_t> oracle;
        std::mt19937_64 rng(seed);
        std::uint64_t next = 0;
        std::uint64_t buf[80];
        for (int step = 0; step < 4000; ++step) {
            const bool push_bias = (step / 100) % 2 == 0;
            const bool push = rng() % 10 < (push_bias ? 7u : 3u);
            const std::size_t n = rng() % 70;  // 0 included
            if (push) {
                for (std::size_t i = 0; i < n; ++i) buf[i] = next + i;
                const std::size_t got = ring.try_push_bulk(buf, n);
                const std::size_t want = std::min(n, ring.capacity() - oracle.size());
                ASSERT_EQ(got, want) << "seed " << seed << " step " << step;
                for (std::size_t i = 0; i < got; ++i) oracle.push_back(next + i);
                next += got;
            } else if (rng() % 2 == 0) {
                const std::size_t got = ring.try_pop_bulk(buf, n);
                ASSERT_EQ(got, std::min(n, oracle.size())) << "seed " << seed << " step " << step;
                for (std::size_t i = 0; i < got; ++i) {
                    ASSERT_EQ(buf[i], oracle.front());
                    oracle.pop_front();
                }
            } else {
                std::uint64_t v = ~0ull;
                ASSERT_EQ(ring.try_pop(v), !oracle.empty());
                if (!oracle.empty()) {
                    ASSERT_EQ(v, oracle.front());
                    oracle.pop_front();
                }
            }
            ASSERT_EQ(ring.size_approx(), oracle.size());
            ASSERT_EQ(ring.empty_for_consumer(), oracle.empty());
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

// The same with bulk operations of varying sizes on both sides.
void producer_consumer_bulk(std::size_t capacity, std::uint64_t n) {
    spsc_ring<std::uint64_t> ring(capacity);
    std::thread producer([&] {
        std::uint64_t buf[32];
        std::mt19937 rng(3);
        for (std::uint64_t i = 0; i < n;) {
            const std::size_t want = std::min<std::uint64_t>(1 + rng() % 32, n - i);
            for (std::size_t k = 0; k < want; ++k) buf[k] = i + k;
            const std::size_t got = ring.try_push_bulk(buf, want);
            if (got == 0) std::this_thread::yield();
            i += got;
        }
    });
    std::uint64_t expected = 0, sum = 0, buf[32];
    std::mt19937 rng(5);
    while (expected < n) {
        const std::size_t got = ring.try_pop_bulk(buf, 1 + rng() % 32);
        if (got == 0) std::this_thread::yield();
        for (std::size_t k = 0; k < got; ++k) {
            ASSERT_EQ(buf[k], expected);
            sum += buf[k];
            ++expected;
        }
    }
    producer.join();
    EXPECT_EQ(ring.try_pop_bulk(buf, 32), 0u);
    EXPECT_EQ(sum, n * (n - 1) / 2);
}

TEST(spsc_ring_stress, bulk_producer_bulk_consumer) {
    producer_consumer_bulk(8, 200'000);
    producer_consumer_bulk(1024, 1'000'000);
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
