// future::then and shared_future::then with every launch policy, implicit unwrapping,
// make_ready_future / make_exceptional_future, error propagation; on every policy.
#include "support/policy_test.hpp"

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

namespace {

using weft::test::policy_test;
class then_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(then_test);

TEST_P(then_test, continuation_receives_the_ready_future) {
    auto f = weft::async([] { return 20; }).then([](weft::future<int> r) {
        EXPECT_TRUE(r.is_ready());
        return std::to_string(r.get() + 1);
    });
    EXPECT_EQ(f.get(), "21");
}

TEST_P(then_test, every_launch_policy_runs_the_continuation_once) {
    std::atomic<int> runs{0};
    auto body = [&runs](weft::future<int> r) {
        runs.fetch_add(1);
        return r.get() * 2;
    };
    EXPECT_EQ(weft::async([] { return 1; }).then(weft::launch::async, body).get(), 2);
    EXPECT_EQ(weft::async([] { return 2; }).then(weft::launch::sync, body).get(), 4);
    auto deferred = weft::async([] { return 3; }).then(weft::launch::deferred, body);
    rt().wait();
    EXPECT_EQ(runs.load(), 2);  // deferred has not run: nobody waited yet
    EXPECT_FALSE(deferred.is_ready());
    EXPECT_EQ(deferred.get(), 6);
    EXPECT_EQ(runs.load(), 3);
    EXPECT_EQ(weft::make_ready_future(4).then(weft::launch::sync, body).get(), 8);
    EXPECT_EQ(weft::make_ready_future(5).then(weft::launch::async(weft::task_attributes{weft::task_priority::high, "hi"}), body).get(), 10);
}

TEST_P(then_test, sync_continuation_on_a_ready_future_runs_in_the_caller) {
    const int caller = in_task([] { return weft::this_task::worker_index(); });
    (void)caller;
    std::thread::id ran_on;
    weft::make_ready_future(1).then(weft::launch::sync, [&ran_on](weft::future<int>) { ran_on = std::this_thread::get_id(); }).get();
    EXPECT_EQ(ran_on, std::this_thread::get_id());
}

TEST_P(then_test, exceptions_travel_through_chains) {
    auto f = weft::async([]() -> int { throw std::runtime_error("first"); })
                 .then([](weft::future<int> r) { return r.get() + 1; })  // rethrows inside
                 .then([](weft::future<int> r) { return r.get() * 2; });
    EXPECT_THROW(f.get(), std::runtime_error);
    auto g = weft::make_ready_future(1).then([](weft::future<int>) -> int { throw std::logic_error("in then"); });
    EXPECT_THROW(g.get(), std::logic_error);
    auto h = weft::make_exceptional_future<int>(std::out_of_range("made"));
    EXPECT_TRUE(h.has_exception());
    EXPECT_THROW(h.get(), std::out_of_range);
    auto k = weft::make_exceptional_future<void>(std::make_exception_ptr(std::domain_error("ptr")));
    EXPECT_THROW(k.get(), std::domain_error);
}

TEST_P(then_test, implicit_unwrapping) {
    // A continuation that returns a future gives the future of the inner result.
    weft::future<int> f = weft::make_ready_future(2).then([](weft::future<int> r) {
        int v = r.get();
        return weft::async([v] { return v * 21; });
    });
    EXPECT_EQ(f.get(), 42);
    // future<future<T>> converts to future<T>.
    weft::future<weft::future<std::string>> nested = weft::async([] { return weft::async([] { return std::string("in"); }); });
    weft::future<std::string> flat = std::move(nested);
    EXPECT_EQ(flat.get(), "in");
    weft::future<int> failing = weft::async([]() -> weft::future<int> { throw std::runtime_error("outer"); });
    EXPECT_THROW(failing.get(), std::runtime_error);
}

TEST_P(then_test, shared_future_then_keeps_the_source_valid) {
    weft::shared_future<int> s = weft::async([] { return 7; }).share();
    auto a = s.then([](weft::shared_future<int> x) { return x.get() + 1; });
    auto b = s.then(weft::launch::sync, [](weft::shared_future<int> x) { return x.get() + 2; });
    EXPECT_TRUE(s.valid());
    EXPECT_EQ(a.get() + b.get(), 17);
    EXPECT_EQ(s.get(), 7);
    weft::shared_future<int> copy = s;
    EXPECT_EQ(copy.get(), 7);
}

TEST_P(then_test, make_ready_future_forms) {
    EXPECT_EQ(weft::make_ready_future(std::string("s")).get(), "s");
    int x = 3;
    weft::future<int&> r = weft::make_ready_future(std::ref(x));
    EXPECT_EQ(&r.get(), &x);
    weft::make_ready_future().get();
    auto u = weft::make_ready_future(std::make_unique<int>(5));
    EXPECT_EQ(*u.get(), 5);
}

TEST_P(then_test, misuse_throws_future_error_with_a_message) {
    weft::future<int> none;
    try {
        (void)none.then([](weft::future<int>) { return 0; });
        ADD_FAILURE();
    } catch (const weft::future_error& e) {
        EXPECT_EQ(e.code(), std::future_errc::no_state);
        EXPECT_NE(std::string(e.what()).find("no shared state"), std::string::npos);
    }
    weft::shared_future<int> empty;
    EXPECT_THROW(empty.get(), std::future_error);
    auto f = weft::make_ready_future(1);
    auto g = f.then([](weft::future<int> v) { return v.get(); });
    EXPECT_FALSE(f.valid());  // then consumed it
    EXPECT_EQ(g.get(), 1);
}

TEST_P(then_test, long_ready_chains_do_not_overflow_the_stack) {
    // Attach 100'000 sync continuations to an unready future, then make it ready: the
    // completion would recurse 100'000 deep if inline runs were not bounded.
    const long r = in_task([] {
        weft::promise<long> p;
        weft::future<long> f = p.get_future();
        for (int i = 0; i < 100'000; ++i) f = f.then(weft::launch::sync, [](weft::future<long> x) { return x.get() + 1; });
        p.set_value(0);
        return f.get();
    });
    EXPECT_EQ(r, 100'000);
}

TEST_P(then_test, a_million_long_chain_of_async_continuations) {
    constexpr long n = WEFT_HAVE_TSAN || WEFT_HAVE_ASAN ? 100'000 : 1'000'000;
    weft::future<long> f = weft::make_ready_future(0L);
    for (long i = 0; i < n; ++i) f = f.then([](weft::future<long> x) { return x.get() + 1; });
    EXPECT_EQ(f.get(), n);
}

TEST_P(then_test, concurrent_set_then_get_and_destroy) {
    // Races between the producer setting, a continuation being attached, a getter and
    // futures dropped before they are ready (run under TSan in CI).
    for (int round = 0; round < 500; ++round) {
        weft::promise<int> p;
        weft::shared_future<int> s = p.get_future().share();
        std::atomic<int> seen{0};
        auto c1 = s.then([&seen](weft::shared_future<int> v) { seen.fetch_add(v.get()); });
        std::thread setter([&p] { p.set_value(1); });
        auto c2 = s.then(weft::launch::sync, [&seen](weft::shared_future<int> v) { seen.fetch_add(v.get()); });
        { auto dropped = s.then([](weft::shared_future<int> v) { return v.get(); }); }
        EXPECT_EQ(s.get(), 1);
        c1.get();
        c2.get();
        setter.join();
        EXPECT_EQ(seen.load(), 2);
    }
    rt().wait();
}

}  // namespace
