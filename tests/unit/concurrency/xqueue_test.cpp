// Tests of weft::ext::xqueue: a model-based check against a sequential oracle (one FIFO
// per ring, the placement rule as the spec states it), and multi-thread stress in which
// every worker produces and consumes (run under TSan by the tsan preset): no item lost,
// none duplicated, checked by counting.
#include <weft/concurrency/xqueue.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <random>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using weft::ext::xqueue;
using weft::ext::xqueue_placement;
using weft::ext::xqueue_topology;

TEST(xqueue, example_from_the_header) {
    weft::ext::xqueue<int> q(weft::ext::xqueue_topology::full_mesh(3), 8);
    q.attach_all();                   // each consumer's thread calls attach(itself)
    EXPECT_EQ(q.enqueue(0, 10), 1u);  // round-robin: worker 0's first item goes to 1,
    EXPECT_EQ(q.enqueue(0, 11), 2u);  // its second to 2,
    EXPECT_EQ(q.enqueue(0, 12), 1u);  // skipping itself
    int v = 0;
    EXPECT_TRUE(q.pop(1, v));  // worker 1 consumes its rings
    EXPECT_EQ(v, 10);
}

TEST(xqueue, round_robin_skips_self_for_every_worker_including_the_last) {
    // The seed's Algorithm 1 steps past the last worker when it skips itself (digest 001
    // §4.4); every producer, the last one included, must visit each other worker once per
    // round and never itself.
    for (unsigned n : {1u, 2u, 3u, 5u}) {
        xqueue<unsigned> q(xqueue_topology::full_mesh(n), 64);
        q.attach_all();
        for (unsigned from = 0; from < n; ++from) {
            std::map<unsigned, unsigned> hits;
            for (unsigned k = 0; k < 3 * (n - 1 + (n == 1)); ++k) {
                const unsigned to = q.enqueue(from, k);
                ASSERT_LT(to, n);
                ++hits[to];
            }
            if (n == 1) {
                EXPECT_EQ(hits[0], 3u);  // no other worker: the local ring
            } else {
                EXPECT_EQ(hits.count(from), 0u) << "worker " << from << " of " << n << " pushed to itself";
                EXPECT_EQ(hits.size(), n - 1);
                for (auto& [to, c] : hits) EXPECT_EQ(c, 3u) << "worker " << from << " -> " << to;
            }
            unsigned v = 0;
            for (unsigned w = 0; w < n; ++w)
                while (q.pop(w, v)) {
                }
        }
    }
}

TEST(xqueue, domains_confine_rings_and_bad_input_is_refused) {
    xqueue<int> q(xqueue_topology::groups(5, 2), 4);  // {0,1} {2,3} {4}
    q.attach_all();
    EXPECT_TRUE(q.connected(0, 1));
    EXPECT_TRUE(q.connected(3, 2));
    EXPECT_TRUE(q.connected(4, 4));
    EXPECT_FALSE(q.connected(1, 2));
    EXPECT_FALSE(q.connected(4, 0));
    EXPECT_FALSE(q.connected(0, 9));
    EXPECT_FALSE(q.push(1, 2, 7));  // across domains: no ring
    EXPECT_FALSE(q.push(9, 0, 7));
    for (int i = 0; i < 4; ++i) EXPECT_EQ(q.enqueue(2, i), 3u);  // its only partner, 4 slots
    for (int i = 0; i < 4; ++i) EXPECT_EQ(q.enqueue(2, 10 + i), 2u);  // then its local ring
    EXPECT_EQ(q.enqueue(2, 99), xqueue<int>::none);                 // then the caller's problem
    EXPECT_EQ(q.size_approx(3), 4u);
    EXPECT_EQ(q.size_approx(2), 4u);
    EXPECT_EQ(q.enqueue(4, 1), 4u);  // a domain of one: local
    EXPECT_THROW(xqueue<int>(xqueue_topology{}, 4), weft::error);
    EXPECT_THROW(xqueue<int>(xqueue_topology::full_mesh(2), 0), weft::error);
    EXPECT_THROW(xqueue_topology::groups(4, 0), weft::error);
    EXPECT_THROW(q.attach(5), weft::error);
}

TEST(xqueue, hinted_placement_goes_to_the_hint_while_it_has_room) {
    xqueue<int> q(xqueue_topology::groups(4, 2), 2);  // {0,1} {2,3}
    q.attach_all();
    EXPECT_EQ(q.enqueue_hinted(0, 1, 1), 1u);
    EXPECT_EQ(q.enqueue_hinted(0, 0, 2), 0u);  // the producer itself: its local ring
    EXPECT_EQ(q.enqueue_hinted(0, 1, 3), 1u);
    EXPECT_EQ(q.enqueue_hinted(0, 1, 4), 0u);  // 1's ring from 0 is full: round-robin has no
                                               // other member, so the local ring
    EXPECT_EQ(q.enqueue_hinted(0, 1, 5), xqueue<int>::none);  // all full
    int v = 0;
    EXPECT_TRUE(q.pop(0, v));  // the local ring frees a slot
    EXPECT_EQ(v, 2);
    EXPECT_EQ(q.enqueue_hinted(0, 3, 6), 0u);  // 3 is in another domain: not reachable
    EXPECT_TRUE(q.pop(1, v));
    EXPECT_EQ(v, 1);
}

TEST(xqueue, rings_count_as_full_until_their_consumer_attaches) {
    xqueue<int> q(xqueue_topology::full_mesh(3), 4);
    q.attach(0);
    EXPECT_FALSE(q.push(0, 1, 1));       // worker 1 has no rings yet
    EXPECT_EQ(q.enqueue(0, 1), 0u);      // so round-robin falls back to the local ring
    q.attach(2);
    EXPECT_EQ(q.enqueue(0, 2), 2u);
    int v = 0;
    EXPECT_FALSE(q.pop(1, v));
}

// The oracle: a FIFO per ring (consumer, producer); enqueue tries the targets in the
// order the spec gives (round-robin over the other members from a cursor, or local
// first), a pop must return the front of the consumer's local ring if it is non-empty,
// else the front of one of its non-empty inbound rings, and must fail only when all of
// them are empty.
struct oracle {
    unsigned n;
    std::vector<unsigned> domain;
    std::size_t capacity;
    xqueue_placement placement;
    std::map<std::pair<unsigned, unsigned>, std::deque<std::uint64_t>> rings;  // (to, from)
    std::vector<unsigned> cursor;  // per producer: index into members(from)

    std::vector<unsigned> members(unsigned w) const {
        std::vector<unsigned> m;
        for (unsigned v = 0; v < n; ++v)
            if (domain[v] == domain[w]) m.push_back(v);
        return m;
    }
    bool room(unsigned to, unsigned from) { return rings[{to, from}].size() < capacity; }
    unsigned enqueue(unsigned from, std::uint64_t v) {
        const auto m = members(from);
        const auto self = static_cast<unsigned>(std::find(m.begin(), m.end(), from) - m.begin());
        auto put = [&](unsigned to) {
            if (!room(to, from)) return false;
            rings[{to, from}].push_back(v);
            return true;
        };
        if (placement == xqueue_placement::local_first && put(from)) return from;
        // The other members in turn from the cursor, which moves past each one tried.
        for (std::size_t k = 0; k + 1 < m.size(); ++k) {
            const unsigned to = m[cursor[from]];
            cursor[from] = (cursor[from] + 1) % static_cast<unsigned>(m.size());
            if (cursor[from] == self) cursor[from] = (cursor[from] + 1) % static_cast<unsigned>(m.size());
            if (put(to)) return to;
        }
        if (placement == xqueue_placement::round_robin && put(from)) return from;
        return xqueue<std::uint64_t>::none;
    }
};

class xqueue_model : public ::testing::TestWithParam<std::tuple<unsigned, unsigned, std::size_t, xqueue_placement>> {};

TEST_P(xqueue_model, random_operations_match_the_oracle) {
    const auto [n, group, capacity, placement] = GetParam();
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
        const xqueue_topology topo = xqueue_topology::groups(n, group);
        xqueue<std::uint64_t> q(topo, capacity, placement);
        q.attach_all();
        oracle o{n, topo.domain_of, std::bit_ceil(capacity), placement, {}, {}};
        for (unsigned w = 0; w < n; ++w) {
            const auto m = o.members(w);
            const auto self = static_cast<unsigned>(std::find(m.begin(), m.end(), w) - m.begin());
            o.cursor.push_back((self + 1) % static_cast<unsigned>(m.size()));
        }
        std::mt19937_64 rng(seed);
        std::uint64_t next = 0;
        for (int step = 0; step < 3000; ++step) {
            const auto w = static_cast<unsigned>(rng() % n);
            const bool produce = rng() % 100 < ((step / 200) % 2 ? 35u : 65u);
            if (produce) {
                const unsigned expect = o.enqueue(w, next);
                ASSERT_EQ(q.enqueue(w, next), expect) << "seed " << seed << " step " << step;
                ++next;
                continue;
            }
            std::uint64_t v = ~0ull;
            const bool ok = q.pop(w, v);
            auto& local = o.rings[{w, w}];
            bool any = !local.empty();
            for (unsigned from : o.members(w))
                if (from != w && !o.rings[{w, from}].empty()) any = true;
            ASSERT_EQ(ok, any) << "seed " << seed << " step " << step << ": pop on worker " << w;
            if (!ok) continue;
            if (!local.empty()) {
                ASSERT_EQ(v, local.front()) << "the local ring comes first";
                local.pop_front();
                continue;
            }
            bool found = false;
            for (unsigned from : o.members(w)) {
                auto& r = o.rings[{w, from}];
                if (from != w && !r.empty() && r.front() == v) {
                    r.pop_front();
                    found = true;
                    break;
                }
            }
            ASSERT_TRUE(found) << "popped " << v << ", not the front of any ring of worker " << w;
        }
        for (unsigned w = 0; w < n; ++w) {
            std::size_t queued = 0;
            for (unsigned from : o.members(w)) queued += o.rings[{w, from}].size();
            EXPECT_EQ(q.size_approx(w), queued);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
    shapes, xqueue_model,
    ::testing::Values(std::make_tuple(1u, 1u, std::size_t{4}, xqueue_placement::round_robin),
                      std::make_tuple(2u, 2u, std::size_t{2}, xqueue_placement::round_robin),
                      std::make_tuple(4u, 4u, std::size_t{3}, xqueue_placement::round_robin),
                      std::make_tuple(4u, 4u, std::size_t{4}, xqueue_placement::local_first),
                      std::make_tuple(6u, 3u, std::size_t{8}, xqueue_placement::round_robin),
                      std::make_tuple(70u, 70u, std::size_t{2}, xqueue_placement::round_robin),  // 2 bell words
                      std::make_tuple(5u, 2u, std::size_t{1}, xqueue_placement::local_first)));

// Stress: every worker thread is producer and consumer. Each item is a node of a binary
// tree of given depth; popping a node enqueues its two children (an item the rings cannot
// take stays on the thread's private overflow list and is offered again later). Each
// node id is counted once through an atomic flag: a duplicate or a lost node fails.
void tree_stress(unsigned n, unsigned group, std::size_t capacity, xqueue_placement placement, unsigned depth) {
    xqueue<std::uint64_t> q(xqueue_topology::groups(n, group), capacity, placement);
    const std::uint64_t nodes = (std::uint64_t{1} << (depth + 1)) - 1;  // ids 1..nodes (heap order)
    std::vector<std::atomic<std::uint8_t>> seen(nodes + 1);
    std::atomic<std::uint64_t> done{0};
    std::atomic<unsigned> attached{0};
    std::vector<std::thread> threads;
    for (unsigned w = 0; w < n; ++w) {
        threads.emplace_back([&, w] {
            q.attach(w);  // on the consumer's own thread, as the scheduler does
            attached.fetch_add(1);
            while (attached.load() < n) std::this_thread::yield();
            std::vector<std::uint64_t> overflow;
            if (w == 0) overflow.push_back(1);  // the root
            for (;;) {
                while (!overflow.empty() && q.enqueue(w, overflow.back()) != xqueue<std::uint64_t>::none)
                    overflow.pop_back();
                std::uint64_t id = 0;
                bool got = q.pop(w, id);
                if (!got && !overflow.empty()) {
                    id = overflow.back();
                    overflow.pop_back();
                    got = true;
                }
                if (!got) {
                    if (done.load() == nodes) break;
                    std::this_thread::yield();
                    continue;
                }
                ASSERT_GE(id, 1u);
                ASSERT_LE(id, nodes);
                ASSERT_EQ(seen[id].exchange(1), 0) << "node " << id << " came out twice";
                done.fetch_add(1);
                if (2 * id + 1 <= nodes) {
                    for (std::uint64_t child : {2 * id, 2 * id + 1})
                        if (q.enqueue(w, child) == xqueue<std::uint64_t>::none) overflow.push_back(child);
                }
            }
        });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(done.load(), nodes);
    for (std::uint64_t id = 1; id <= nodes; ++id) ASSERT_EQ(seen[id].load(), 1) << "node " << id << " lost";
    for (unsigned w = 0; w < n; ++w) EXPECT_EQ(q.size_approx(w), 0u);
}

TEST(xqueue_stress, four_workers_full_mesh_small_rings) { tree_stress(4, 4, 2, xqueue_placement::round_robin, 15); }
TEST(xqueue_stress, four_workers_full_mesh_local_first) { tree_stress(4, 4, 64, xqueue_placement::local_first, 15); }
TEST(xqueue_stress, two_workers_large_rings) { tree_stress(2, 2, 1024, xqueue_placement::round_robin, 16); }
TEST(xqueue_stress, oversubscribed_eight_workers) { tree_stress(8, 8, 4, xqueue_placement::round_robin, 14); }

}  // namespace
