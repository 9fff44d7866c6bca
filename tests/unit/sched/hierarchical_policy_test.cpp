// The `hierarchical` policy (seed 002, HotSLAW): HVS and HCS as the policy applies them
// (driven directly, deterministically), bounded queues that switch to work-first, and
// whole programs on synthetic machines with tiny bounds. (It also runs the typed suite:
// tests/support/policy_test.hpp.)
#include "sched/policies/hierarchical.hpp"
#include "sched/policies/policies.hpp"
#include "sched/scheduler.hpp"

#include <weft/weft.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <set>
#include <vector>

namespace {

using weft::detail::task;

struct driven_policy {
    std::unique_ptr<weft::ext::scheduler_policy> p = weft::detail::make_hierarchical_policy();
    std::vector<weft::ext::worker_context> ctx;

    driven_policy(unsigned workers, weft::ext::policy_options o) : ctx(workers) {
        p->configure(o);
        std::vector<weft::ext::worker_info> infos;
        for (unsigned i = 0; i < workers; ++i) {
            infos.push_back({i, i, 0});
            ctx[i].index = i;
            ctx[i].rng = 0x9e3779b97f4a7c15ULL * (i + 1);
        }
        p->attach(infos);
    }
    weft::detail::hierarchical_stats stats() const { return weft::detail::hierarchical_statistics(*p); }
    /// next_task for `w` until it finds something (a few HVS rounds at most).
    task* take(unsigned w) {
        for (int round = 0; round < 100; ++round)
            if (task* t = p->next_task(ctx[w])) return t;
        return nullptr;
    }
};

weft::ext::policy_options machine(const char* topology, const char* bound, const char* pub) {
    return {{{"topology", topology}, {"queue-bound", bound}, {"queue-public", pub}}};
}

TEST(hierarchical_policy, a_near_thief_takes_one_task_a_thief_across_sockets_takes_two) {
    driven_policy d(8, machine("sockets:2,cores:4", "8", "4"));
    std::vector<task> tasks(8);
    for (auto& t : tasks) EXPECT_FALSE(d.p->schedule(&d.ctx[0], t).run_inline);
    // Each time the private part filled up (4), its older half went public: tasks 0-3.
    task* near = d.take(1);  // worker 1 shares worker 0's socket: chunk 1
    ASSERT_EQ(near, &tasks[0]);
    EXPECT_EQ(d.ctx[1].last_victim, 0u);
    auto s = d.stats();
    EXPECT_EQ(s.hierarchy, "socket(4) < node(8)");
    EXPECT_EQ(s.steals, (std::vector<std::uint64_t>{1, 0}));
    EXPECT_EQ(s.moved, (std::vector<std::uint64_t>{1, 0}));
    // The owner runs its newest.
    EXPECT_EQ(d.p->next_task(d.ctx[0]), &tasks[7]);
    task* far = d.take(6);  // another socket: chunk 2, the oldest runs, one is queued
    ASSERT_EQ(far, &tasks[1]);
    s = d.stats();
    EXPECT_EQ(s.steals[1], 1u);
    EXPECT_EQ(s.moved[1], 2u);
    EXPECT_GT(s.failed[0], 0u);  // it tried its own socket first
    EXPECT_EQ(d.p->next_task(d.ctx[6]), &tasks[2]);  // the second task of its chunk
    // Everything left is worker 0's, newest first, each exactly once.
    std::set<task*> rest;
    while (task* t = d.p->next_task(d.ctx[0])) rest.insert(t);
    EXPECT_EQ(rest.size(), 4u);
    for (int i = 3; i < 7; ++i) EXPECT_TRUE(rest.count(&tasks[static_cast<std::size_t>(i)]));
}

TEST(hierarchical_policy, a_full_queue_runs_spawns_inline_when_allowed_else_sets_them_aside) {
    driven_policy d(2, machine("cores:2", "4", "2"));
    std::vector<task> tasks(10);
    d.ctx[0].may_run_inline = true;
    unsigned inline_runs = 0;
    for (int i = 0; i < 6; ++i) inline_runs += d.p->schedule(&d.ctx[0], tasks[static_cast<std::size_t>(i)]).run_inline;
    EXPECT_EQ(inline_runs, 2u);  // 4 queued, then work-first
    d.ctx[0].may_run_inline = false;
    for (int i = 6; i < 10; ++i) EXPECT_FALSE(d.p->schedule(&d.ctx[0], tasks[static_cast<std::size_t>(i)]).run_inline);
    auto s = d.stats();
    EXPECT_EQ(s.serialized, 2u);
    EXPECT_EQ(s.overflowed, 4u);
    EXPECT_LE(s.max_queued, 4u);
    EXPECT_EQ(d.p->queue_state_of(0).length, 8u);
    std::set<task*> got;
    while (task* t = d.p->next_task(d.ctx[0])) EXPECT_TRUE(got.insert(t).second);
    EXPECT_EQ(got.size(), 8u);  // tasks 0-3 and 6-9: none lost, none twice
    EXPECT_FALSE(got.count(&tasks[4]) + got.count(&tasks[5]));
    EXPECT_LE(d.stats().max_queued, 4u);
}

TEST(hierarchical_policy, configuration_errors_name_the_option) {
    auto configure_attach = [](weft::ext::policy_options o, unsigned workers) {
        driven_policy d(workers, std::move(o));
    };
    EXPECT_THROW(configure_attach(machine("sockets:2,cores:4", "40", "20"), 4), weft::bad_option);
    EXPECT_THROW(configure_attach(machine("", "10", "20"), 2), weft::bad_option);
    EXPECT_THROW(configure_attach(machine("", "0", "0"), 2), weft::bad_option);
    EXPECT_THROW(configure_attach({{{"hierarchy", "3,4"}}}, 8), weft::bad_option);
    EXPECT_THROW(configure_attach({{{"hierarchy", "x"}}}, 8), weft::bad_option);
    EXPECT_THROW(configure_attach({{{"hierarchy", "flat"}, {"steal-attempts", "1,2"}}}, 8), weft::bad_option);
    try {
        configure_attach(machine("sockets:2,cores:4", "40", "20"), 4);
    } catch (const weft::bad_option& e) {
        EXPECT_NE(std::string(e.what()).find("--weft:topology"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("8 workers"), std::string::npos) << e.what();
    }
}

TEST(hierarchical_policy, command_line_options_are_checked_and_reach_the_policy) {
    auto parse = [](std::vector<std::string> args) {
        std::vector<char*> argv{const_cast<char*>("prog")};
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        int argc = static_cast<int>(argv.size()) - 1;
        return weft::parse_runtime_options(argc, argv.data(), [](const char*) -> const char* { return nullptr; });
    };
    const auto cfg = parse({"--weft:scheduler=hierarchical", "--weft:topology=nodes:2,sockets:2,cores:2",
                            "--weft:steal-chunk=1,2,half", "--weft:steal-attempts=auto,4,0",
                            "--weft:queue-bound=8", "--weft:queue-public=2"});
    EXPECT_EQ(cfg.synthetic_topology, "nodes:2,sockets:2,cores:2");
    EXPECT_EQ(cfg.steal_chunk, "1,2,half");
    EXPECT_EQ(cfg.queue_bound, 8u);
    for (const char* bad : {"--weft:topology=sockets:2", "--weft:hierarchy=4,x", "--weft:steal-chunk=quarter",
                            "--weft:steal-attempts=-1", "--weft:queue-bound=0", "--weft:queue-public=many"}) {
        try {
            (void)parse({bad});
            ADD_FAILURE() << bad;
        } catch (const weft::bad_option& e) {
            const std::string name = std::string(bad).substr(0, std::string(bad).find('='));
            EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
        }
    }
    // With threads left out, one worker per described core.
    weft::runtime rt(cfg);
    EXPECT_EQ(weft::num_workers(), 8u);
    const auto s = weft::detail::hierarchical_statistics(weft::detail::scheduler::active()->policy());
    EXPECT_EQ(s.hierarchy, "socket(2) < node(4) < cluster(8)");
    EXPECT_EQ(s.attempts, (std::vector<unsigned>{2, 4, 0}));
    EXPECT_EQ(s.queue_bound, 8u);
    EXPECT_EQ(s.public_bound, 2u);
}

std::uint64_t fib(unsigned n) {
    if (n < 2) return n;
    std::uint64_t a = 0;
    weft::task_group g;
    g.run([&] { a = fib(n - 1); });
    const std::uint64_t b = fib(n - 2);
    g.wait();
    return a + b;
}

// A chain as deep as UTS T3L's 17,844 levels: work-first nests frames on one stack until
// the floor, then tasks wait aside; nothing overflows, nothing is lost.
std::uint64_t chain(unsigned depth) {
    if (depth == 0) return 1;
    std::uint64_t below = 0;
    weft::task_group g;
    g.run([&] { below = chain(depth - 1); });
    g.wait();
    return below + 1;
}

class hierarchical_runs : public ::testing::TestWithParam<const char*> {};

TEST_P(hierarchical_runs, fib_and_a_deep_chain_are_exact_with_tiny_queues_on_a_pretended_machine) {
    weft::runtime_config cfg;
    cfg.scheduler = "hierarchical";
    cfg.synthetic_topology = GetParam();
    cfg.queue_bound = 2;
    cfg.queue_public = 1;
    cfg.bind = false;
    weft::runtime rt(cfg);
    constexpr bool instrumented = WEFT_HAVE_ASAN || WEFT_HAVE_TSAN;
    EXPECT_EQ(weft::async([] { return fib(instrumented ? 18 : 24); }).get(), instrumented ? 2584u : 46368u);
    unsigned depth = instrumented ? 3000 : 20000;  // not const: captured below (clang)
    EXPECT_EQ(weft::async([depth] { return chain(depth); }).get(), depth + 1u);
    rt.wait();
    const auto s = weft::detail::hierarchical_statistics(weft::detail::scheduler::active()->policy());
    EXPECT_GT(s.serialized, 0u);  // the bound made spawns run at once
    EXPECT_LE(s.max_queued, 2u);
    std::uint64_t steals = 0, moved = 0;
    for (auto v : s.steals) steals += v;
    for (auto v : s.moved) moved += v;
    EXPECT_GE(moved, steals);
}

INSTANTIATE_TEST_SUITE_P(machines, hierarchical_runs, ::testing::Values("cores:2", "sockets:2,cores:2", "nodes:2,sockets:2,cores:1"),
                         [](const auto& param_info) { return "machine_" + std::to_string(param_info.index); });

}  // namespace
