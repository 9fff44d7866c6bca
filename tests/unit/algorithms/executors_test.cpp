// The execution layer: executor operations (members and the defaults built from
// async_execute), sequenced_executor and parallel_executor, executor parameters, and the
// policies' on()/with()/task rebinding; on every scheduler policy.
#include "support/policy_test.hpp"

#include <weft/algorithms.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <list>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace ex = weft::execution;
using namespace std::chrono_literals;
using weft::test::policy_test;
class executors_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(executors_test);

/// A user executor with only what the concept requires: every other operation must be
/// built from its async_execute. It counts the agents it creates.
struct minimal_executor {
    std::shared_ptr<std::atomic<int>> agents = std::make_shared<std::atomic<int>>(0);
    template <class F, class... Args>
    auto async_execute(F&& f, Args&&... args) const {
        agents->fetch_add(1);
        return weft::async(std::forward<F>(f), std::forward<Args>(args)...);
    }
    bool operator==(const minimal_executor& o) const noexcept { return agents == o.agents; }
};

// The concepts accept the executors and parameters above and reject other types.
static_assert(ex::executor<ex::sequenced_executor>);
static_assert(ex::executor<ex::parallel_executor>);
static_assert(ex::executor<minimal_executor>);
static_assert(!ex::executor<int>);
static_assert(!ex::executor<std::vector<int>>);
static_assert(ex::chunk_parameter<ex::static_chunk_size>);
static_assert(ex::chunk_parameter<ex::dynamic_chunk_size>);
static_assert(ex::chunk_parameter<ex::guided_chunk_size>);
static_assert(ex::chunk_parameter<ex::auto_chunk_size>);
static_assert(ex::cores_parameter<ex::num_cores> && !ex::chunk_parameter<ex::num_cores>);
static_assert(!ex::executor_parameter<int>);
static_assert(ex::execution_policy<decltype(ex::par)> && ex::execution_policy<decltype(ex::seq(ex::task))>);
static_assert(!ex::execution_policy<int> && !ex::execution_policy<ex::parallel_executor>);
static_assert(ex::is_task_policy_v<decltype(ex::par(ex::task))> && !ex::is_task_policy_v<decltype(ex::par)>);
template <class P, class A>
concept can_with = requires(const P& p, A a) { p.with(a); };
template <class P, class A>
concept can_on = requires(const P& p, A a) { p.on(a); };
template <class P>
concept has_task_variant = requires(const P& p) { p(ex::task); };
static_assert(!can_with<ex::parallel_policy, int> && can_with<ex::parallel_policy, ex::num_cores>,
              "with() takes executor parameters only");
static_assert(!can_on<ex::parallel_policy, int> && can_on<ex::parallel_policy, ex::sequenced_executor>,
              "on() takes executors only");
static_assert(!has_task_variant<ex::parallel_unsequenced_policy> && has_task_variant<ex::sequenced_policy>,
              "par_unseq has no task variant");

template <class E>
void check_operations(const E& e) {
    EXPECT_EQ(ex::async_execute(e, [](int a, int b) { return a * b; }, 6, 7).get(), 42);
    EXPECT_EQ(ex::sync_execute(e, [](int a) { return a + 1; }, 41), 42);
    // post and post_after count down; the latch suspends a task (or blocks a thread)
    // until both ran, so this works on one worker too.
    weft::latch posted(2);
    ex::post(e, [&posted] { posted.count_down(); });
    // then_execute: f receives the ready predecessor.
    auto t = ex::then_execute(e, [](weft::future<int> p, int k) { return p.get() * k; }, weft::make_ready_future(21), 2);
    EXPECT_EQ(t.get(), 42);
    // bulk: results in shape order, for an integer shape and a range shape.
    auto futures = ex::bulk_async_execute(e, [](std::size_t i, int k) { return static_cast<int>(i) * k; }, 100, 3);
    ASSERT_EQ(futures.size(), 100u);
    for (std::size_t i = 0; i < futures.size(); ++i) EXPECT_EQ(futures[i].get(), static_cast<int>(i) * 3);
    const std::vector<std::string> words{"a", "bb", "ccc"};
    auto lengths = ex::bulk_sync_execute(e, [](const std::string& w) { return w.size(); }, words);
    EXPECT_EQ(lengths, (std::vector<std::size_t>{1, 2, 3}));
    std::vector<std::atomic<int>> hits(1000);
    ex::bulk_sync_execute(e, [&hits](std::size_t i) { hits[i].fetch_add(1); }, std::size_t{1000});
    for (auto& h : hits) EXPECT_EQ(h.load(), 1);
    const std::list<int> listed{5, 6, 7};  // not random access
    auto doubled = ex::bulk_sync_execute(e, [](int v) { return 2 * v; }, listed);
    EXPECT_EQ(doubled, (std::vector<int>{10, 12, 14}));
    EXPECT_GE(ex::processing_units_count(e), 1u);
    // Timed: not before the delay.
    const auto start = std::chrono::steady_clock::now();
    auto late = ex::async_execute_after(e, 2ms, [start] { return std::chrono::steady_clock::now() - start; });
    EXPECT_GE(late.get(), 2ms);
    const auto posted_at = std::chrono::steady_clock::now();
    std::chrono::steady_clock::duration fired_after{};
    ex::post_after(e, 1ms, [&] {
        fired_after = std::chrono::steady_clock::now() - posted_at;
        posted.count_down();
    });
    posted.wait();
    EXPECT_GE(fired_after, 1ms);
}

TEST_P(executors_test, every_operation_on_every_executor) {
    { SCOPED_TRACE("plain"); check_operations(ex::parallel_executor{}); }
    { SCOPED_TRACE("high"); check_operations(ex::parallel_executor{weft::task_priority::high, "high"}); }
    { SCOPED_TRACE("minimal"); check_operations(minimal_executor{}); }
    {
        SCOPED_TRACE("in task");  // on the test thread: gtest keeps traces per OS thread
        in_task([] { check_operations(ex::parallel_executor{}); });
    }
    EXPECT_EQ(ex::processing_units_count(ex::parallel_executor{}), weft::num_workers());
    EXPECT_EQ(ex::processing_units_count(ex::sequenced_executor{}), 1u);
}

TEST_P(executors_test, sequenced_executor_runs_on_the_caller_in_order) {
    const ex::sequenced_executor e;
    const auto caller = std::this_thread::get_id();
    std::vector<int> order;
    ex::bulk_sync_execute(e, [&](int i) {
        EXPECT_EQ(std::this_thread::get_id(), caller);
        order.push_back(i);
    }, 5);
    EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
    auto f = ex::async_execute(e, [&] { return std::this_thread::get_id(); });
    EXPECT_TRUE(f.is_ready());
    EXPECT_EQ(f.get(), caller);
    int x = 1;
    weft::future<int&> r = ex::async_execute(e, [&x]() -> int& { return x; });
    EXPECT_EQ(&r.get(), &x);
    auto failed = ex::async_execute(e, []() -> int { throw std::runtime_error("seq"); });
    EXPECT_THROW(failed.get(), std::runtime_error);
    EXPECT_THROW(ex::post(e, [] { throw std::runtime_error("to the caller"); }), std::runtime_error);
}

TEST_P(executors_test, bulk_exceptions_are_all_kept) {
    for (const auto& e : {ex::parallel_executor{}}) {
        // One agent throws: rethrown as is.
        EXPECT_THROW(ex::bulk_sync_execute(e, [](std::size_t i) { if (i == 3) throw std::out_of_range("3"); }, 10),
                     std::out_of_range);
        // Several: an exception_list with each, and every agent ran.
        std::atomic<int> ran{0};
        try {
            ex::bulk_sync_execute(e, [&ran](std::size_t i) {
                ran.fetch_add(1);
                if (i % 10 == 0) throw std::runtime_error(std::to_string(i));
            }, 100);
            ADD_FAILURE() << "no exception";
        } catch (const weft::exception_list& l) {
            EXPECT_EQ(l.size(), 10u);
        }
        EXPECT_EQ(ran.load(), 100);
    }
    minimal_executor m;
    try {
        (void)ex::bulk_sync_execute(m, [](int i) -> int { if (i < 2) throw std::runtime_error("x"); return i; }, 5);
        ADD_FAILURE() << "no exception";
    } catch (const weft::exception_list& l) {
        EXPECT_EQ(l.size(), 2u);
    }
    EXPECT_EQ(m.agents->load(), 5);
}

TEST_P(executors_test, policies_rebind_executors_and_parameters) {
    const auto p = ex::par.on(minimal_executor{}).with(ex::static_chunk_size(10), ex::num_cores(2));
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(p.executor())>, minimal_executor>);
    EXPECT_EQ(std::get<0>(p.parameters().get()).chunks(ex::loop_shape{100, 2, {}}).chunk, 10u);
    const auto t = ex::par(ex::task).on(ex::parallel_executor{weft::task_priority::low});
    static_assert(ex::is_task_policy_v<decltype(t)>);
    EXPECT_EQ(t.executor().attributes().priority, weft::task_priority::low);
    static_assert(!ex::is_task_policy_v<decltype(t.sync())>);
    // with() replaces the parameters; on() keeps them.
    const auto q = ex::par.with(ex::dynamic_chunk_size(3)).on(ex::parallel_executor{});
    EXPECT_EQ(std::get<0>(q.parameters().get()).chunks(ex::loop_shape{}).schedule, ex::chunk_schedule::dynamic);
}

TEST(executor_parameters, chunk_sizes_and_bad_values) {
    EXPECT_THROW(ex::static_chunk_size(0), weft::error);
    EXPECT_THROW(ex::dynamic_chunk_size(0), weft::error);
    EXPECT_THROW(ex::guided_chunk_size(0), weft::error);
    EXPECT_THROW(ex::num_cores(0), weft::error);
    EXPECT_THROW(ex::auto_chunk_size(0ns), weft::error);
    // static: one chunk per core by default, else the given size.
    EXPECT_EQ(ex::static_chunk_size().chunks(ex::loop_shape{10, 3, {}}).chunk, 4u);
    EXPECT_EQ(ex::static_chunk_size(7).chunks(ex::loop_shape{10, 3, {}}).chunk, 7u);
    EXPECT_EQ(ex::guided_chunk_size(5).chunks(ex::loop_shape{}).chunk, 5u);
    EXPECT_EQ(ex::num_cores(2).processing_units_count(8, 100), 2u);
    EXPECT_EQ(ex::num_cores(16).processing_units_count(8, 100), 8u);
}

TEST(executor_parameters, auto_chunk_size_times_few_iterations_and_targets_a_chunk_time) {
    // A loop of 1,000,000 iterations of 10 ns each on 2 cores: auto times runs of 1, 2,
    // 4, ... iterations until one run takes 2 us (at most 1 % of the loop), then chunks
    // of 50 us / 10 ns.
    std::size_t timed = 0;
    ex::loop_shape s{1'000'000, 2, [&timed](std::size_t k) {
                         timed += k;
                         return std::chrono::nanoseconds(10 * k);
                     }};
    const ex::chunking c = ex::auto_chunk_size().chunks(s);
    EXPECT_EQ(c.schedule, ex::chunk_schedule::dynamic);
    EXPECT_EQ(timed, 511u);  // 1+2+...+256 = 511 iterations: the run of 256 took 2.56 us
    EXPECT_EQ(s.count, 1'000'000u - 511u);
    EXPECT_EQ(c.chunk, 5000u);
    // A short loop (total below one target) runs on the caller, through measure, to the end.
    std::size_t small_timed = 0;
    ex::loop_shape small{1000, 2, [&small_timed](std::size_t k) {
                             small_timed += k;
                             return std::chrono::nanoseconds(10 * k);
                         }};
    (void)ex::auto_chunk_size().chunks(small);
    EXPECT_EQ(small.count, 0u);
    EXPECT_EQ(small_timed, 1000u);
    // A loop skewed to the end: its first half costs 1 ns an iteration, its second 2 us.
    // The front's estimate says "short"; running on proves it wrong once the target is
    // spent, and the rest goes parallel in chunks sized from the expensive part, after
    // at most a quarter of an equal share of the expensive part ran on the caller.
    std::size_t pos = 0;
    auto cost = [](std::size_t i) { return i < 2000 ? 1 : 2000; };
    ex::loop_shape skewed{4000, 2, [&pos, &cost](std::size_t k) {
                              std::int64_t ns = 0;
                              for (std::size_t i = pos; i < pos + k; ++i) ns += cost(i);
                              pos += k;
                              return std::chrono::nanoseconds(ns);
                          }};
    const ex::chunking sk = ex::auto_chunk_size().chunks(skewed);
    EXPECT_GT(skewed.count, 0u);
    EXPECT_EQ(skewed.count, 4000u - pos);
    EXPECT_LE(pos, 2000u + 2000u / 8 + 64);
    EXPECT_EQ(sk.schedule, ex::chunk_schedule::dynamic);
    // 50 us / 2 us = 25, or a little more when the latest run also held cheap iterations.
    EXPECT_GE(sk.chunk, 25u);
    EXPECT_LE(sk.chunk, 50u);
    // Slow iterations: 1 ms each; the 1 % budget stops the timing at 10 of 1000; chunks
    // are one iteration (50 us target), handed out dynamically.
    std::size_t timed_slow = 0;
    ex::loop_shape slow{1000, 2, [&timed_slow](std::size_t k) {
                            timed_slow += k;
                            return std::chrono::nanoseconds(1'000'000 * k);
                        }};
    const ex::chunking c2 = ex::auto_chunk_size().chunks(slow);
    EXPECT_EQ(timed_slow, 3u);  // runs of 1 and 2: never the first run alone
    EXPECT_EQ(c2.chunk, 1u);
    EXPECT_EQ(c2.schedule, ex::chunk_schedule::dynamic);
    // A first run slowed by what happens once (a page fault: 2.5 us for one iteration of
    // 1 ns) must not size the chunks: the longest run does, at 1 ns per iteration.
    std::vector<std::size_t> runs;
    ex::loop_shape faulted{100'000'000, 2, [&runs](std::size_t k) {
                               runs.push_back(k);
                               return std::chrono::nanoseconds(runs.size() == 1 ? 2500 : k);
                           }};
    const ex::chunking c3 = ex::auto_chunk_size().chunks(faulted);
    EXPECT_EQ(runs.back(), 2048u);  // the first run of at least 2 us
    EXPECT_EQ(c3.chunk, 50'000u);
    EXPECT_EQ(c3.schedule, ex::chunk_schedule::dynamic);
    // Without a way to time, one static chunk per core.
    ex::loop_shape blind{100, 4, {}};
    EXPECT_EQ(ex::auto_chunk_size().chunks(blind).chunk, 25u);
}

}  // namespace
