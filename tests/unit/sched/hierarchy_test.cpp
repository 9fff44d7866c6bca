// Locality hierarchies, HVS order and HCS chunks (seed 002 §3.2) on synthetic machines:
// what the `hierarchical` policy and tools/schedsim decide, checked without a runtime.
#include <weft/config/errors.hpp>
#include <weft/ext/hierarchy.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

namespace {

using weft::ext::chunk_rule;
using weft::ext::hierarchy;
using weft::ext::level_kind;
using weft::ext::steal_plan;
using weft::ext::victim_selector;

struct xorshift {
    std::uint64_t s = 0x2545f4914f6cdd1dULL;
    std::uint64_t operator()() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return s;
    }
};

std::vector<unsigned> range(unsigned from, unsigned to) {
    std::vector<unsigned> v;
    for (unsigned i = from; i < to; ++i) v.push_back(i);
    return v;
}

TEST(hierarchy, the_seeds_eight_core_machine_has_a_socket_and_a_node_level) {
    const hierarchy h = hierarchy::parse_machine("sockets:2,cores:4");
    ASSERT_EQ(h.workers(), 8u);
    ASSERT_EQ(h.num_levels(), 2u);
    EXPECT_EQ(h.at(0).kind, level_kind::socket);
    EXPECT_EQ(h.at(1).kind, level_kind::node);
    EXPECT_EQ(h.domain(0, 5), range(4, 8));
    EXPECT_EQ(h.domain(1, 5), range(0, 8));
    EXPECT_EQ(h.common_level(0, 3), 0u);
    EXPECT_EQ(h.common_level(0, 4), 1u);
    EXPECT_EQ(h.describe(), "socket(4) < node(8)");
}

TEST(hierarchy, a_cluster_of_nodes_adds_a_cluster_level) {
    const hierarchy h = hierarchy::parse_machine("nodes:32,sockets:2,cores:4");
    ASSERT_EQ(h.workers(), 256u);
    ASSERT_EQ(h.num_levels(), 3u);
    EXPECT_EQ(h.at(0).kind, level_kind::socket);
    EXPECT_EQ(h.at(1).kind, level_kind::node);
    EXPECT_EQ(h.at(2).kind, level_kind::cluster);
    EXPECT_EQ(h.domain(1, 9), range(8, 16));
    EXPECT_EQ(h.common_level(9, 12), 1u);
    EXPECT_EQ(h.common_level(9, 200), 2u);
}

TEST(hierarchy, machine_specs_are_validated) {
    EXPECT_EQ(hierarchy::machine_workers("nodes:2,sockets:2,numa:2,caches:2,cores:2"), 32u);
    EXPECT_EQ(hierarchy::machine_workers("cores:3"), 3u);
    for (const char* bad : {"", "sockets:2", "cores:0", "cores:4,sockets:2", "sockets:2,sockets:2,cores:1",
                            "socket:2,cores:4", "sockets:x,cores:4", "sockets:2;cores:4", "nodes:1024,cores:2048"}) {
        EXPECT_EQ(hierarchy::machine_workers(bad), 0u) << bad;
        EXPECT_THROW((void)hierarchy::parse_machine(bad), weft::bad_option) << bad;
    }
    try {
        (void)hierarchy::parse_machine("cores:4,sockets:2", "--weft:topology");
        FAIL();
    } catch (const weft::bad_option& e) {
        EXPECT_NE(std::string(e.what()).find("--weft:topology"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("sockets:2,cores:4"), std::string::npos);  // an example
    }
}

TEST(hierarchy, a_level_without_sharing_or_repeating_the_one_below_is_dropped) {
    // One core per cache, one NUMA node per socket: only sockets and the node remain.
    const hierarchy h = hierarchy::parse_machine("sockets:2,numa:1,caches:4,cores:1");
    ASSERT_EQ(h.num_levels(), 2u);
    EXPECT_EQ(h.at(0).kind, level_kind::socket);
    EXPECT_EQ(h.domain(0, 1), range(0, 4));
}

TEST(hierarchy, placement_groups_workers_on_one_core_first) {
    // 4 workers on 2 cores of one socket sharing a cache: workers 0 and 2 share core 0.
    std::vector<hierarchy::placement> ps;
    for (unsigned i = 0; i < 4; ++i) ps.push_back({i % 2, 0, 0, 0});
    const hierarchy h = hierarchy::from_placement(ps);
    ASSERT_EQ(h.num_levels(), 2u);
    EXPECT_EQ(h.at(0).kind, level_kind::core);
    EXPECT_EQ(h.at(1).kind, level_kind::socket);  // cache, NUMA node and socket: one domain
    EXPECT_EQ(h.domain(0, 2), (std::vector<unsigned>{0, 2}));
    EXPECT_EQ(h.domain(1, 2), range(0, 4));
}

TEST(hierarchy, user_groups_must_nest) {
    const hierarchy h = hierarchy::groups(8, {2, 4});
    ASSERT_EQ(h.num_levels(), 3u);
    EXPECT_EQ(h.domain(0, 5), (std::vector<unsigned>{4, 5}));
    EXPECT_EQ(h.domain(1, 5), range(4, 8));
    EXPECT_THROW((void)hierarchy::groups(8, {3, 4}), weft::bad_option);
    EXPECT_THROW((void)hierarchy::groups(8, {0}), weft::bad_option);
}

TEST(steal_plan, seed_defaults_per_level) {
    // 8 cores: 4 attempts in the socket, ceil(4 log2 8) = 12 machine-wide; chunk 1 in
    // the socket, 2 across sockets.
    const steal_plan p8 = steal_plan::defaults(hierarchy::parse_machine("sockets:2,cores:4"));
    EXPECT_EQ(p8.attempts, (std::vector<unsigned>{4, 12}));
    EXPECT_EQ(p8.chunks, (std::vector<chunk_rule>{{1, false}, {2, false}}));
    // 256 cores: StealHalf across nodes (HCS), 4·log2(256) = 32 attempts at the top.
    const steal_plan p256 = steal_plan::defaults(hierarchy::parse_machine("nodes:32,sockets:2,cores:4"));
    EXPECT_EQ(p256.attempts, (std::vector<unsigned>{4, 8, 32}));
    EXPECT_EQ(p256.chunks[0], (chunk_rule{1, false}));
    EXPECT_EQ(p256.chunks[1], (chunk_rule{2, false}));
    EXPECT_TRUE(p256.chunks[2].half);
    // Random victim selection: one level, chunk 1.
    const steal_plan flat = steal_plan::defaults(hierarchy::flat(8));
    EXPECT_EQ(flat.attempts, (std::vector<unsigned>{12}));
    EXPECT_EQ(flat.chunks, (std::vector<chunk_rule>{{1, false}}));
    // User-defined levels: chunk 1 inside, StealHalf at the top.
    const steal_plan g = steal_plan::defaults(hierarchy::groups(8, {2, 4}));
    EXPECT_EQ(g.attempts, (std::vector<unsigned>{2, 4, 12}));
    EXPECT_EQ(g.chunks[0], (chunk_rule{1, false}));
    EXPECT_TRUE(g.chunks[2].half);
}

TEST(steal_plan, options_override_levels_innermost_first) {
    const hierarchy h = hierarchy::parse_machine("nodes:2,sockets:2,cores:4");
    const steal_plan p = steal_plan::parse(h, "auto,0", "3,half");
    EXPECT_EQ(p.attempts, (std::vector<unsigned>{4, 0, 16}));
    EXPECT_EQ(p.chunks[0], (chunk_rule{3, false}));
    EXPECT_TRUE(p.chunks[1].half);
    EXPECT_TRUE(p.chunks[2].half);  // left at its default
    for (const char* bad : {"0,0,0", "1,2,3,4", "x", "-1", "1,,2"})
        EXPECT_THROW((void)steal_plan::parse(h, bad, "auto"), weft::bad_option) << bad;
    for (const char* bad : {"0", "1,2,3,4", "quarter", "1,,half"})
        EXPECT_THROW((void)steal_plan::parse(h, "auto", bad), weft::bad_option) << bad;
}

TEST(chunk_rule, fixed_chunks_and_steal_half_never_take_more_than_is_there) {
    EXPECT_EQ((chunk_rule{2, false}).chunk(0), 0u);
    EXPECT_EQ((chunk_rule{2, false}).chunk(1), 1u);
    EXPECT_EQ((chunk_rule{2, false}).chunk(9), 2u);
    EXPECT_EQ((chunk_rule{1, true}).chunk(1), 1u);
    EXPECT_EQ((chunk_rule{1, true}).chunk(5), 3u);
    EXPECT_EQ((chunk_rule{1, true}).chunk(20), 10u);
}

TEST(victim_selector, hvs_tries_its_socket_first_then_the_machine_then_starts_over) {
    const hierarchy h = hierarchy::parse_machine("sockets:2,cores:4");
    const steal_plan p = steal_plan::defaults(h);
    victim_selector s(h, p, 5);
    ASSERT_EQ(s.round_length(), 16u);
    xorshift rng;
    std::set<unsigned> seen_top;
    for (int round = 0; round < 50; ++round) {
        for (int i = 0; i < 4; ++i) {
            const auto c = s.next(rng);
            EXPECT_EQ(c.level, 0u);
            EXPECT_TRUE(c.victim >= 4 && c.victim < 8 && c.victim != 5) << c.victim;
        }
        for (int i = 0; i < 12; ++i) {
            const auto c = s.next(rng);
            EXPECT_EQ(c.level, 1u);
            EXPECT_NE(c.victim, 5u);
            EXPECT_LT(c.victim, 8u);
            seen_top.insert(c.victim);
        }
    }
    EXPECT_EQ(seen_top.size(), 7u);  // every other worker is drawn at the top level
    // After a success the thief starts at the bottom again.
    (void)s.next(rng);
    (void)s.next(rng);
    s.reset();
    for (int i = 0; i < 4; ++i) EXPECT_EQ(s.next(rng).level, 0u);
}

TEST(victim_selector, levels_with_no_attempts_or_no_other_worker_are_skipped) {
    const hierarchy h = hierarchy::parse_machine("sockets:2,cores:4");
    // Intra-socket only (the seed's Fig. 9 "Intra-Socket"): never leaves the socket.
    victim_selector intra(h, steal_plan::parse(h, "auto,0", "auto"), 2);
    ASSERT_EQ(intra.round_length(), 4u);
    xorshift rng;
    for (int i = 0; i < 100; ++i) {
        const auto c = intra.next(rng);
        EXPECT_LT(c.victim, 4u);
        EXPECT_NE(c.victim, 2u);
    }
    // One worker: nobody to steal from.
    EXPECT_EQ(victim_selector(hierarchy::flat(1), steal_plan::defaults(hierarchy::flat(1)), 0).round_length(), 0u);
    // A socket of one core: straight to the top level.
    const hierarchy h2 = hierarchy::parse_machine("sockets:4,cores:1");
    victim_selector top(h2, steal_plan::defaults(h2), 0);
    EXPECT_EQ(top.round_length(), 8u);
    EXPECT_EQ(top.next(rng).level, h2.num_levels() - 1);
}

}  // namespace
