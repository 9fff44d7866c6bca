// weft::launch and weft::async(policy, f, args...): the bitmask type a mechanical port
// from std::async needs (seed 000 Table 4), each policy against std::async's behaviour
// where std has it, and weft's own (sync, fork, the runtime's choice in a set).
#include "support/policy_test.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace {

using weft::launch;

// The bitmask type, at compile time: what a port from std::launch writes.
static_assert((launch::async | launch::deferred) == launch::optional);
static_assert((launch::optional & launch::deferred) == launch::deferred);
static_assert(!(launch::async & launch::deferred));
static_assert(static_cast<bool>(launch::optional & launch::async));
static_assert((launch::all ^ launch::sync) == (launch::async | launch::deferred | launch::fork));
static_assert((~launch(launch::async) & launch::all) == (launch::deferred | launch::sync | launch::fork));
static_assert(launch{} == launch::async);  // as std::async without a policy
static_assert(launch::optional.has(launch::deferred) && !launch::optional.has(launch::sync));
static_assert(launch(launch::fork).single() && !launch::optional.single());
static_assert((launch::async & launch::sync).empty());
static_assert(std::is_trivially_copyable_v<launch>);
constexpr launch compound_assignments() {
    launch l = launch::async;
    l |= launch::deferred;
    l &= launch::optional;
    l ^= launch::async;
    return l;
}
static_assert(compound_assignments() == launch::deferred);

// The same program against std:: and weft:: (what the port changes is the namespace).
struct std_api {
    using policy = std::launch;
    using status = std::future_status;
    template <class... A>
    static auto async(A&&... a) {
        return std::async(std::forward<A>(a)...);
    }
    static constexpr policy async_policy = std::launch::async;
    static constexpr policy deferred_policy = std::launch::deferred;
    static constexpr policy both = std::launch::async | std::launch::deferred;
    static std::thread::id who() { return std::this_thread::get_id(); }
};
struct weft_api {
    using policy = weft::launch;
    using status = weft::future_status;
    template <class... A>
    static auto async(A&&... a) {
        return weft::async(std::forward<A>(a)...);
    }
    static constexpr policy async_policy = weft::launch::async;
    static constexpr policy deferred_policy = weft::launch::deferred;
    static constexpr policy both = weft::launch::async | weft::launch::deferred;
    static weft::task_id who() { return weft::this_task::get_id(); }
};

template <class Api>
std::uint64_t fib(unsigned n, const typename Api::policy l) {
    if (n < 2) return n;
    auto a = Api::async(l, fib<Api>, n - 1, l);
    const std::uint64_t b = fib<Api>(n - 2, l);
    return a.get() + b;
}

// What std::async promises for each policy, checked on either implementation.
template <class Api>
void behaves_as_std_async() {
    // async: elsewhere, at once (the caller does not wait for it to start).
    {
        const auto me = Api::who();
        auto f = Api::async(Api::async_policy, [] { return Api::who(); });
        EXPECT_NE(f.get(), me);
    }
    // deferred: not before the first wait; then in the waiter; never if nobody waits.
    {
        std::atomic<int> runs{0};
        const auto me = Api::who();
        auto f = Api::async(Api::deferred_policy, [&runs] {
            runs.fetch_add(1);
            return Api::who();
        });
        EXPECT_EQ(f.wait_for(std::chrono::seconds(0)), Api::status::deferred);
        EXPECT_EQ(runs.load(), 0);
        EXPECT_EQ(f.get(), me);
        EXPECT_EQ(runs.load(), 1);
        {
            auto never = Api::async(Api::deferred_policy, [&runs] { runs.fetch_add(1); });
        }
        EXPECT_EQ(runs.load(), 1);
        auto g = Api::async(Api::deferred_policy, [] { return 5; });
        g.wait();
        EXPECT_EQ(g.wait_for(std::chrono::seconds(0)), Api::status::ready);
        EXPECT_EQ(g.get(), 5);
    }
    // Exceptions reach get(), for both.
    EXPECT_THROW(Api::async(Api::async_policy, []() -> int { throw std::runtime_error("a"); }).get(), std::runtime_error);
    EXPECT_THROW(Api::async(Api::deferred_policy, []() -> int { throw std::runtime_error("d"); }).get(),
                 std::runtime_error);
    // A policy parameter passed down a recursion, and the implementation's choice.
    EXPECT_EQ(fib<Api>(12, Api::async_policy), 144u);
    EXPECT_EQ(fib<Api>(12, Api::deferred_policy), 144u);
    EXPECT_EQ(fib<Api>(12, Api::both), 144u);
}

TEST(launch_std, std_async_behaves_as_the_checks_say) { behaves_as_std_async<std_api>(); }

using weft::test::policy_test;
class launch_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(launch_test);

TEST_P(launch_test, weft_async_behaves_as_std_async_in_a_task) {
    in_task([] { behaves_as_std_async<weft_api>(); });
}

TEST_P(launch_test, weft_async_behaves_as_std_async_from_a_plain_thread) {
    // From outside the runtime the waiter is a thread, not a task: deferred work runs on
    // it all the same. (who() is then task_id{} for the thread; async runs in a task.)
    behaves_as_std_async<weft_api>();
}

TEST_P(launch_test, every_policy_and_set_computes_fib) {
    const std::vector<launch> sets = {launch::async,  launch::deferred, launch::sync,
                                      launch::fork,   launch::optional, launch::all,
                                      launch::sync | launch::fork, launch::deferred | launch::sync,
                                      launch::async | launch::fork};
    for (const launch l : sets) {
        EXPECT_EQ(in_task([l] { return fib<weft_api>(18, l); }), 2584u) << "bits " << l.to_bits();
        EXPECT_EQ(fib<weft_api>(10, l), 55u) << "bits " << l.to_bits();  // from a plain thread
    }
}

TEST_P(launch_test, sync_runs_in_the_caller_before_async_returns) {
    in_task([] {
        const weft::task_id me = weft::this_task::get_id();
        bool ran = false;
        auto f = weft::async(launch::sync, [&ran] {
            ran = true;
            return weft::this_task::get_id();
        });
        EXPECT_TRUE(ran);
        EXPECT_TRUE(f.is_ready());
        EXPECT_EQ(f.get(), me);
        auto e = weft::async(launch::sync, []() -> int { throw std::logic_error("s"); });
        EXPECT_TRUE(e.is_ready());
        EXPECT_THROW(e.get(), std::logic_error);
    });
}

TEST_P(launch_test, fork_runs_the_child_and_returns_its_result) {
    in_task([] {
        const weft::task_id me = weft::this_task::get_id();
        auto f = weft::async(launch::fork, [](int x) { return std::make_pair(x * 2, weft::this_task::get_id()); }, 21);
        const auto [value, child] = f.get();
        EXPECT_EQ(value, 42);
        EXPECT_NE(child, me);  // a task of its own
        EXPECT_EQ(weft::this_task::get_id(), me);  // and the caller is itself again
        EXPECT_THROW(weft::async(launch::fork, []() -> int { throw std::runtime_error("f"); }).get(),
                     std::runtime_error);
    });
    // Outside a task: as async.
    EXPECT_EQ(weft::async(launch::fork, [] { return 7; }).get(), 7);
}

TEST_P(launch_test, fork_runs_the_child_before_the_continuation_on_one_worker) {
    if (GetParam().threads != 1 || std::string(GetParam().scheduler) != "local-priority") GTEST_SKIP();
    in_task([] {
        std::vector<int> order;
        auto f = weft::async(launch::fork, [&order] { order.push_back(1); });
        order.push_back(2);
        f.get();
        EXPECT_EQ(order, (std::vector<int>{1, 2}));
    });
}

TEST_P(launch_test, forks_continuation_is_stolen_while_the_child_runs) {
    if (GetParam().threads < 2 || std::string(GetParam().scheduler) != "local-priority") GTEST_SKIP();
    in_task([] {
        std::atomic<bool> parent_went_on{false};
        std::atomic<bool> child_saw_it{false};
        auto f = weft::async(launch::fork, [&] {
            // The child holds this worker until another worker has taken the caller's
            // continuation (bounded: a lost steal fails the check instead of hanging).
            const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
            while (!parent_went_on.load() && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
            child_saw_it = parent_went_on.load();
        });
        parent_went_on = true;
        f.get();
        EXPECT_TRUE(child_saw_it.load());
    });
}

TEST_P(launch_test, fork_from_a_pinned_task_runs_as_async) {
    weft::task_attributes pinned;
    pinned.worker = 0;
    auto outer = weft::async(pinned, [] {
        const unsigned before = static_cast<unsigned>(weft::this_task::worker_index());
        const int v = weft::async(launch::fork, [] { return 3; }).get();
        return std::make_pair(v, before == static_cast<unsigned>(weft::this_task::worker_index()));
    });
    const auto [v, stayed] = outer.get();
    EXPECT_EQ(v, 3);
    EXPECT_TRUE(stayed);
}

TEST_P(launch_test, optional_runs_in_place_once_the_workers_queue_is_long) {
    if (GetParam().threads != 1 || std::string(GetParam().scheduler) != "local-priority") GTEST_SKIP();
    in_task([] {
        // One worker, busy here: nothing leaves its queue while this loop runs.
        std::vector<weft::future<int>> fs;
        for (int i = 0; i < 20; ++i) fs.push_back(weft::async(launch::optional, [i] { return i; }));
        for (std::size_t i = 0; i < fs.size(); ++i) {
            const bool deferred = fs[i].wait_for(std::chrono::seconds(0)) == weft::future_status::deferred;
            EXPECT_EQ(deferred, i >= weft::detail::optional_queue_cutoff) << "call " << i;
        }
        int sum = 0;
        for (auto& f : fs) sum += f.get();
        EXPECT_EQ(sum, 190);
    });
}

TEST_P(launch_test, attributes_travel_with_the_policy) {
    weft::task_attributes named;
    named.name = "launched";
    auto a = weft::async(launch::async(named), [] { return std::string(weft::this_task::get_name()); });
    EXPECT_EQ(a.get(), "launched");
    const launch l = launch(launch::async)(named);
    auto b = weft::async(l, [] { return std::string(weft::this_task::get_name()); });
    EXPECT_EQ(b.get(), "launched");
    // | keeps the attributes of the side that has them.
    EXPECT_EQ((launch::deferred | l).attributes().name, named.name);
}

TEST_P(launch_test, then_and_dataflow_take_a_launch_set) {
    const std::vector<launch> sets = {launch::async, launch::deferred, launch::sync, launch::fork, launch::optional};
    for (const launch l : sets) {
        auto f = weft::async([] { return 2; }).then(l, [](weft::future<int> x) { return x.get() * 3; });
        EXPECT_EQ(f.get(), 6) << "bits " << l.to_bits();
        weft::shared_future<int> s = weft::make_ready_future(4).share();
        EXPECT_EQ(s.then(l, [](weft::shared_future<int> x) { return x.get() + 1; }).get(), 5);
        auto d = weft::dataflow(
            l, [](weft::future<int> a, weft::shared_future<int> b) { return a.get() + b.get(); },
            weft::make_ready_future(1), s);
        EXPECT_EQ(d.get(), 5);
    }
    // A deferred continuation of a ready input still waits for its first wait.
    auto lazy = weft::make_ready_future(1).then(launch(launch::deferred), [](weft::future<int> x) { return x.get(); });
    EXPECT_EQ(lazy.wait_for(std::chrono::seconds(0)), weft::future_status::deferred);
    EXPECT_EQ(lazy.get(), 1);
    EXPECT_THROW((void)weft::make_ready_future(1).then(launch::async & launch::sync, [](weft::future<int>) {}),
                 weft::error);
}

TEST_P(launch_test, an_empty_set_is_refused) {
    const launch none = launch::async & launch::deferred;
    try {
        (void)weft::async(none, [] { return 1; });
        ADD_FAILURE() << "no exception";
    } catch (const weft::error& e) {
        EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos) << e.what();
    }
}

TEST_P(launch_test, a_deferred_call_never_waited_for_frees_its_closure) {
    auto token = std::make_shared<int>(1);
    {
        auto f = weft::async(launch::deferred, [token] { return *token; });
        EXPECT_EQ(token.use_count(), 2);
    }
    EXPECT_EQ(token.use_count(), 1);
    // Waited for through a continuation and a combinator, it runs once.
    std::atomic<int> runs{0};
    auto g = weft::async(launch::deferred, [&runs] { return runs.fetch_add(1) + 1; });
    auto h = weft::when_all(g.then([](weft::future<int> x) { return x.get() * 10; })).get();
    EXPECT_EQ(std::get<0>(h).get(), 10);
    EXPECT_EQ(runs.load(), 1);
}

}  // namespace
