// tools/schedsim: the simulator runs every task once in every queue mode, keeps its queue
// bounds, counts the trees exactly, is deterministic for a seed, steals in HVS order
// (through weft::ext::victim_selector) and has speedup 1 on one worker.
#include "sim.hpp"

#include <weft/config/config.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace weft::schedsim;

constexpr bool sanitized = WEFT_HAVE_ASAN || WEFT_HAVE_TSAN;

config make(std::string machine, std::string workload) {
    config c;
    c.machine = std::move(machine);
    c.workload = std::move(workload);
    c.checked = true;
    return c;
}

std::uint64_t fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

/// Legal partial placements of n queens (the empty board included), by plain recursion
/// over a column array: an independent count of the nqueens workload's tasks.
std::uint64_t queens_nodes(unsigned n, std::vector<int>& cols) {
    std::uint64_t nodes = 1;
    const int row = static_cast<int>(cols.size());
    if (cols.size() == n) return nodes;
    for (int c = 0; c < static_cast<int>(n); ++c) {
        bool ok = true;
        for (int r = 0; r < row && ok; ++r) ok = cols[r] != c && cols[r] - c != row - r && c - cols[r] != row - r;
        if (!ok) continue;
        cols.push_back(c);
        nodes += queens_nodes(n, cols);
        cols.pop_back();
    }
    return nodes;
}

/// Every spawn accounted for and the bounds kept.
void expect_consistent(const config& c, const result& r) {
    EXPECT_EQ(r.tasks, r.queued + r.serialized + r.roots) << c.workload;
    if (c.mode == queue_mode::bounded) {
        EXPECT_LE(r.max_queue, c.queue_bound) << c.workload;
    }
    EXPECT_LE(r.max_public, c.queue_public) << c.workload;
    EXPECT_GT(r.makespan_ps, 0u);
    EXPECT_GE(r.idle_fraction, 0.0);
    EXPECT_LE(r.idle_fraction, 1.0);
}

TEST(schedsim, same_seed_same_run_other_seed_other_steals) {
    config c = make("sockets:2,cores:4", "uts:T3XS");
    c.seed = 7;
    const result a = simulate_once(c), b = simulate_once(c);
    EXPECT_EQ(a.makespan_ps, b.makespan_ps);
    EXPECT_EQ(a.steals, b.steals);
    EXPECT_EQ(a.failed, b.failed);
    EXPECT_EQ(a.moved, b.moved);
    EXPECT_EQ(a.serialized, b.serialized);
    EXPECT_EQ(a.occ_mean, b.occ_mean);
    EXPECT_EQ(a.events, b.events);
    ASSERT_EQ(a.levels.size(), b.levels.size());
    for (std::size_t l = 0; l < a.levels.size(); ++l) {
        EXPECT_EQ(a.levels[l].steals, b.levels[l].steals);
        EXPECT_EQ(a.levels[l].failed, b.levels[l].failed);
    }
    c.seed = 8;
    const result d = simulate_once(c);
    EXPECT_EQ(d.tasks, a.tasks);
    EXPECT_TRUE(d.steals != a.steals || d.failed != a.failed || d.makespan_ps != a.makespan_ps);
}

TEST(schedsim, counts_fib_nqueens_and_small_uts_trees) {
    for (unsigned n : {0u, 1u, 2u, 10u, 20u}) {
        const config c = make("sockets:2,cores:4", "fib:" + std::to_string(n));
        const result r = simulate_once(c);
        EXPECT_EQ(r.tasks, 2 * fib(n + 1) - 1) << n;
        expect_consistent(c, r);
    }
    for (unsigned n : {1u, 4u, 6u, 8u}) {
        std::vector<int> cols;
        const config c = make("sockets:2,cores:4", "nqueens:" + std::to_string(n));
        const result r = simulate_once(c);
        EXPECT_EQ(r.tasks, queens_nodes(n, cols)) << n;
        expect_consistent(c, r);
    }
    // UTS's published and bench/uts's measured counts.
    const char* machine = sanitized ? "cores:2" : "sockets:2,cores:4";
    for (auto [tree, nodes] : {std::pair{"T1XS", 257042ull}, {"T3XS", 295641ull}, {"T1", 4130071ull}, {"T3", 4112897ull}}) {
        const config c = make(machine, std::string("uts:") + tree);
        const result r = simulate_once(c);
        EXPECT_EQ(r.tasks, nodes) << tree;
        expect_consistent(c, r);
    }
}

TEST(schedsim, every_task_runs_once_in_every_mode_within_the_bounds) {
    const char* workloads[] = {"fib:16", "nqueens:7", "uts:T1XS", "uts:T3XS", "sparselu:20"};
    const char* machines[] = {"cores:1", "sockets:2,cores:4", "nodes:4,sockets:2,cores:2"};
    std::vector<config> modes;
    {
        config c;
        modes.push_back(c);  // bounded 40/20
        c.queue_bound = 4;
        c.queue_public = 2;
        modes.push_back(c);  // tiny bounds: most spawns serialized
        c.queue_bound = 1;
        c.queue_public = 1;
        modes.push_back(c);
        c = config{};
        c.mode = queue_mode::unbounded;
        modes.push_back(c);
        c.mode = queue_mode::depth;
        c.depth_cutoff = 3;
        modes.push_back(c);
        c = config{};
        c.release_on_demand = true;  // split_queue's release rule
        modes.push_back(c);
        c.queue_bound = 4;
        c.queue_public = 2;
        modes.push_back(c);
    }
    std::uint64_t expected[std::size(workloads)] = {};
    for (const config& m : modes) {
        for (const char* machine : machines) {
            for (std::size_t w = 0; w < std::size(workloads); ++w) {
                config c = m;
                c.machine = machine;
                c.workload = workloads[w];
                c.checked = true;
                c.chunks = w % 2 ? "half" : "auto";
                const result r = simulate_once(c);
                expect_consistent(c, r);
                if (expected[w] == 0) expected[w] = r.tasks;
                EXPECT_EQ(r.tasks, expected[w]) << workloads[w] << " on " << machine;
                if (c.mode == queue_mode::unbounded) {
                    EXPECT_EQ(r.serialized, 0u);
                }
                if (c.mode == queue_mode::bounded && c.queue_bound == 1 && c.workload == "fib:16") {
                    EXPECT_GT(r.serialized, 0u);
                }
            }
        }
    }
    EXPECT_EQ(expected[0], 2 * fib(17) - 1);
    EXPECT_EQ(expected[2], 257042u);
    EXPECT_EQ(expected[3], 295641u);
}

TEST(schedsim, sparselu_phases_are_released_by_one_worker_each) {
    config c = make("sockets:2,cores:4", "sparselu:30");
    const result r = simulate_once(c);
    EXPECT_EQ(r.roots, 60u);  // a producer per phase, two phases per step
    expect_consistent(c, r);
    // Barriers leave workers idle: the DAG scales worse than the trees.
    EXPECT_GT(r.idle_fraction, 0.05);
}

TEST(schedsim, hvs_tries_its_own_socket_first) {
    config c = make("sockets:2,cores:4", "fib:18");
    c.trace_attempts = 4;  // HVS's first level: 4 attempts (the socket's cores) among the other 3
    const result r = simulate_once(c);
    ASSERT_EQ(r.first_attempts.size(), 8u);
    unsigned traced = 0;
    for (unsigned w = 0; w < 8; ++w) {
        for (const attempt_record& a : r.first_attempts[w]) {
            EXPECT_EQ(a.machine_level, 0u) << "worker " << w << " tried " << a.victim;
            EXPECT_EQ(a.victim / 4, w / 4) << "worker " << w << " tried " << a.victim;
            EXPECT_NE(a.victim, w);
            ++traced;
        }
    }
    EXPECT_GE(traced, 7u * 4u);  // every thief made its first round (worker 0 may never steal)
    // Random victims: some first attempts cross the sockets.
    c.victims = "random";
    const result q = simulate_once(c);
    unsigned across = 0;
    for (const auto& w : q.first_attempts)
        for (const attempt_record& a : w) across += a.machine_level != 0;
    EXPECT_GT(across, 0u);
}

TEST(schedsim, intra_node_and_intra_socket_never_leave_their_domain) {
    config c = make("nodes:4,sockets:2,cores:2", "uts:T1XS");
    c.victims = "intra-node";
    const result r = simulate_once(c);
    ASSERT_EQ(r.levels.size(), 3u);  // socket < node < cluster
    EXPECT_EQ(r.levels[2].steals + r.levels[2].failed, 0u);
    EXPECT_GT(r.levels[0].steals + r.levels[1].steals, 0u);
    c.victims = "intra-socket";
    const result s = simulate_once(c);
    EXPECT_EQ(s.levels[1].steals + s.levels[1].failed + s.levels[2].steals + s.levels[2].failed, 0u);
    EXPECT_GT(s.levels[0].steals, 0u);
    // StealHalf at the top level moves more than one task per steal there.
    c.victims = "random";
    c.chunks = "half";
    const result h = simulate_once(c);
    EXPECT_GT(h.moved, h.steals);
}

TEST(schedsim, one_worker_has_speedup_one_and_is_the_t1_of_larger_runs) {
    for (const char* w : {"fib:15", "uts:T3XS", "sparselu:12"}) {
        config c = make("cores:1", w);
        const result one = simulate(c);
        EXPECT_EQ(one.speedup, 1.0) << w;
        EXPECT_EQ(one.steals + one.failed, 0u);
        c.machine = "sockets:2,cores:4";
        const result eight = simulate(c);
        EXPECT_EQ(eight.t1_us, one.makespan_us()) << w;
        EXPECT_GT(eight.speedup, 1.0) << w;
    }
}

TEST(schedsim, bad_options_name_the_option) {
    const auto message = [](config c) -> std::string {
        try {
            simulate_once(c);
        } catch (const bad_option_error& e) {
            return e.message;
        }
        return "";
    };
    config c = make("sockets:2,cores:4", "fib:10");
    c.machine = "cores:0";
    EXPECT_NE(message(c).find("--machine"), std::string::npos);
    c = make("sockets:2,cores:4", "fob:10");
    EXPECT_NE(message(c).find("--workload"), std::string::npos);
    c = make("sockets:2,cores:4", "uts:T9");
    EXPECT_NE(message(c).find("--workload"), std::string::npos);
    c = make("sockets:2,cores:4", "fib:10");
    c.victims = "nearest";
    EXPECT_NE(message(c).find("--victims"), std::string::npos);
    c.victims = "hvs";
    c.chunks = "1,2,3,4";
    EXPECT_NE(message(c).find("--chunks"), std::string::npos);
    c.chunks = "zero";
    EXPECT_NE(message(c).find("--chunks"), std::string::npos);
    c.chunks = "auto";
    c.attempts = "0,0";
    EXPECT_NE(message(c).find("--attempts"), std::string::npos);
    c.attempts = "auto";
    c.queue_public = 50;
    EXPECT_NE(message(c).find("--queue-public"), std::string::npos);
}

}  // namespace
