// Per-task stack sizes (task_attributes::stack_size and parallel_executor's
// with_stack_size): a task that asks for more than the runtime's stack gets a stack of its
// own, keeps it across suspensions, is never run inline on a smaller one, and its stack
// is unmapped once the worker leaves it; on every scheduler policy.
#include "support/policy_test.hpp"

#include <weft/algorithms.hpp>
#include <weft/counters/counters.hpp>

#include <atomic>
#include <cstddef>
#include <numeric>
#include <string>
#include <vector>

namespace {

namespace ex = weft::execution;
using weft::test::policy_test;

constexpr std::size_t runtime_stack = 64 * 1024;
constexpr std::size_t big_stack = 4 * 1024 * 1024;

class stack_size_test : public policy_test {
protected:
    weft::runtime_config config() const override {
        weft::runtime_config cfg = policy_test::config();
        cfg.stack_size = runtime_stack;
        return cfg;
    }
};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(stack_size_test);

/// Recurses `depth` frames of at least 4 KiB each (16 times the runtime's 64 KiB stack at
/// depth 256): only a big stack survives it. Returns the sum of the depths.
[[gnu::noinline]] std::size_t deep(std::size_t depth) {
    volatile char frame[4096];
    frame[0] = static_cast<char>(depth);
    frame[sizeof frame - 1] = frame[0];
    const std::size_t below = depth == 0 ? 0 : deep(depth - 1);
    return below + static_cast<unsigned char>(frame[sizeof frame - 1]) % 1 + depth;
}
constexpr std::size_t deep_depth = 256;
constexpr std::size_t deep_sum = deep_depth * (deep_depth + 1) / 2;

weft::task_attributes big() {
    weft::task_attributes a;
    a.stack_size = big_stack;
    a.name = "big-stack";
    return a;
}

TEST_P(stack_size_test, a_task_gets_the_stack_it_asks_for) {
    EXPECT_EQ(in_task([] { return weft::this_task::stack_size(); }), runtime_stack);
    auto f = weft::async(big(), [] {
        EXPECT_GE(weft::this_task::stack_size(), big_stack);
        return deep(deep_depth);
    });
    EXPECT_EQ(f.get(), deep_sum);
    EXPECT_EQ(weft::this_task::stack_size(), 0u);  // the test's thread is not a worker
}

TEST_P(stack_size_test, the_stack_survives_suspensions_and_resumes_elsewhere) {
    const std::size_t r = in_task([] {
        weft::promise<int> p;
        auto ready = p.get_future().share();
        auto f = weft::async(big(), [ready] {
            std::size_t sum = deep(deep_depth / 2);
            sum += static_cast<std::size_t>(ready.get());  // suspends: p is set later
            weft::this_task::yield();
            EXPECT_GE(weft::this_task::stack_size(), big_stack);
            return sum + deep(deep_depth);
        });
        weft::this_task::yield();
        p.set_value(1);
        return f.get();
    });
    EXPECT_EQ(r, (deep_depth / 2) * (deep_depth / 2 + 1) / 2 + 1 + deep_sum);
}

TEST_P(stack_size_test, waiting_owners_never_run_a_big_child_inline_on_a_small_stack) {
    // A waiting get() and task_group::wait() would run an untaken child inline, on the
    // waiter's 64 KiB stack: a child that asked for more must run on its own.
    const std::size_t r = in_task([] {
        std::atomic<std::size_t> sum{0};
        weft::task_group g;
        for (int i = 0; i < 8; ++i) g.run(big(), [&sum] { sum.fetch_add(deep(deep_depth)); });
        g.wait();
        auto f = weft::async(big(), [] { return deep(deep_depth); });
        return sum.load() + f.get();
    });
    EXPECT_EQ(r, 9 * deep_sum);
}

TEST_P(stack_size_test, a_size_the_runtime_already_gives_changes_nothing) {
    weft::task_attributes a;
    a.stack_size = 1000;  // below the runtime's 64 KiB
    EXPECT_EQ(weft::async(a, [] { return weft::this_task::stack_size(); }).get(), runtime_stack);
}

TEST_P(stack_size_test, too_large_a_size_is_refused_at_spawn) {
    weft::task_attributes a;
    a.stack_size = weft::task_attributes::max_stack_size + 1;
    try {
        (void)weft::async(a, [] {});
        ADD_FAILURE() << "no exception";
    } catch (const weft::error& e) {
        EXPECT_NE(std::string(e.what()).find("max_stack_size"), std::string::npos) << e.what();
    }
    EXPECT_THROW((void)ex::parallel_executor{}.with_stack_size(weft::task_attributes::max_stack_size + 1),
                 weft::error);
}

TEST_P(stack_size_test, own_stacks_are_unmapped_when_left) {
    // Many big tasks, one after another: the stacks mapped stay bounded (each is unmapped
    // when its worker moves on), instead of growing with every task.
    weft::counters::counter_set stacks = weft::counters::query("/threads/count/stacks");
    weft::counters::counter_set bytes = weft::counters::query("/threads/memory/stacks");
    for (int round = 0; round < 200; ++round) EXPECT_EQ(weft::async(big(), [] { return deep(8); }).get(), 36u);
    const double mapped = stacks.evaluate().at(0).value;
    const double mapped_bytes = bytes.evaluate().at(0).value;
    // Each worker may still run on the last big stack it started, and keeps up to 64
    // small ones cached; a suspended task of the harness may hold one more.
    const double workers = GetParam().threads;
    EXPECT_LE(mapped, workers * (64 + 2) + 2);
    EXPECT_LE(mapped_bytes, workers * (double(big_stack) + 64 * double(runtime_stack) + 3 * 65536.0) + 2 * double(big_stack));
}

TEST_P(stack_size_test, parallel_executor_with_stack_size_runs_every_agent_on_it) {
    const auto e = ex::parallel_executor{}.with_stack_size(big_stack);
    EXPECT_EQ(e.attributes().stack_size, big_stack);
    EXPECT_EQ(e.with_priority(weft::task_priority::high).attributes().stack_size, big_stack);
    // From the test's thread and from a task: every agent has the stack.
    for (int from_task = 0; from_task < 2; ++from_task) {
        auto body = [&e] {
            std::vector<std::atomic<std::size_t>> got(64);
            ex::bulk_sync_execute(e, [&got](std::size_t i) {
                got[i].store(weft::this_task::stack_size() >= big_stack ? deep(deep_depth) : 0);
            }, got.size());
            std::size_t ok = 0;
            for (auto& g : got) ok += g.load() == deep_sum ? 1 : 0;
            return ok;
        };
        EXPECT_EQ(from_task ? in_task(body) : body(), 64u);
    }
    // One agent, and results.
    auto one = ex::bulk_sync_execute(e, [](std::size_t) { return deep(deep_depth); }, std::size_t{1});
    EXPECT_EQ(one, std::vector<std::size_t>{deep_sum});
    EXPECT_EQ(ex::sync_execute(e, [] { return deep(deep_depth); }), deep_sum);
}

TEST_P(stack_size_test, algorithms_on_a_big_stack_executor) {
    const auto policy = ex::par.on(ex::parallel_executor{}.with_stack_size(big_stack));
    std::vector<std::size_t> v(300);
    std::iota(v.begin(), v.end(), std::size_t{0});
    auto run = [&] {
        weft::for_each(policy, v.begin(), v.end(), [](std::size_t& x) { x = deep(deep_depth) + x; });
        return weft::transform_reduce(policy.with(ex::static_chunk_size(7)), v.begin(), v.end(), std::size_t{0},
                                      std::plus<>{}, [](std::size_t x) { return x - deep(deep_depth); });
    };
    const std::size_t expected = 299 * 300 / 2;
    EXPECT_EQ(run(), expected);          // from the test's thread
    std::iota(v.begin(), v.end(), std::size_t{0});
    EXPECT_EQ(in_task(run), expected);   // from a task on a 64 KiB stack
    std::iota(v.begin(), v.end(), std::size_t{0});
    auto f = weft::for_each(ex::par(ex::task).on(ex::parallel_executor{}.with_stack_size(big_stack)), v.begin(), v.end(),
                            [](std::size_t& x) { x += deep(deep_depth); });
    f.get();
    EXPECT_EQ(v[299], 299 + deep_sum);
}

}  // namespace

namespace {

TEST(stack_size_death_test, an_overflow_names_the_tasks_own_stack) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        {
            weft::runtime_config cfg;
            cfg.threads = 2;
            cfg.bind = false;
            cfg.stack_size = runtime_stack;
            weft::runtime rt(cfg);
            weft::task_attributes a;
            a.stack_size = 256 * 1024;
            a.name = "too-deep";
            weft::async(a, [] { return deep(100'000); }).get();
        },
        "stack overflow in task 'too-deep' \\(stack size [0-9]+ bytes\\); raise its task_attributes::stack_size");
}

}  // namespace
