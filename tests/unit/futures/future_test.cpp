// weft::future and weft::promise: values, references, void, errors, and waiting from
// tasks and from plain threads, on every policy.
#include "support/policy_test.hpp"

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using weft::test::policy_test;

class future_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(future_test);

std::future_errc code_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::future_error& e) {
        return static_cast<std::future_errc>(e.code().value());
    }
    return std::future_errc{};
}

TEST_P(future_test, value_reference_void_and_move_only_results) {
    EXPECT_EQ(weft::async([] { return std::string("text"); }).get(), "text");
    auto p = weft::async([] { return std::make_unique<int>(9); }).get();
    EXPECT_EQ(*p, 9);
    int x = 1;
    int& r = weft::async([&x]() -> int& { return x; }).get();
    EXPECT_EQ(&r, &x);
    weft::async([] {}).get();
}

// Regression (found writing bench/rdp): `a = a` on a shared_future cleared it (and leaked
// a reference), so a later get() threw no_state.
TEST_P(future_test, shared_future_self_assignment_keeps_the_state) {
    weft::shared_future<int> a = weft::make_ready_future(3).share();
    weft::shared_future<int>& alias = a;
    a = alias;
    ASSERT_TRUE(a.valid());
    EXPECT_EQ(a.get(), 3);
    weft::shared_future<int> b = a;
    a = weft::shared_future<int>();
    weft::shared_future<int>& b_alias = b;
    b = b_alias;  // the last reference assigned to itself
    ASSERT_TRUE(b.valid());
    EXPECT_EQ(b.get(), 3);
}

// A deferred result waited for from a task runs in the waiter, with no suspension.
TEST_P(future_test, waiting_for_a_deferred_result_does_not_suspend) {
    in_task([] {
        auto phases = weft::counters::query("/threads/count/cumulative-phases");
        const double before = phases.evaluate().at(0).value;
        for (int i = 0; i < 100; ++i) EXPECT_EQ(weft::async(weft::launch::deferred, [i] { return i; }).get(), i);
        // Other workers' phases count too; 100 suspensions would add 100 resumptions.
        EXPECT_LT(phases.evaluate().at(0).value - before, 50.0);
    });
}

TEST_P(future_test, valid_is_ready_and_wait) {
    weft::future<int> empty;
    EXPECT_FALSE(empty.valid());
    auto f = weft::async([] { return 3; });
    EXPECT_TRUE(f.valid());
    f.wait();
    EXPECT_TRUE(f.is_ready());
    EXPECT_EQ(f.get(), 3);
    EXPECT_FALSE(f.valid());
}

TEST_P(future_test, errors_name_what_went_wrong) {
    EXPECT_EQ(code_of([] { weft::future<int>{}.get(); }), std::future_errc::no_state);
    EXPECT_EQ(code_of([] { (void)weft::future<int>{}.is_ready(); }), std::future_errc::no_state);
    EXPECT_EQ(code_of([] {
                  weft::promise<int> p;
                  auto a = p.get_future();
                  auto b = p.get_future();
              }),
              std::future_errc::future_already_retrieved);
    EXPECT_EQ(code_of([] {
                  weft::promise<int> p;
                  p.set_value(1);
                  p.set_value(2);
              }),
              std::future_errc::promise_already_satisfied);
    EXPECT_EQ(code_of([] {
                  weft::future<int> f;
                  {
                      weft::promise<int> p;
                      f = p.get_future();
                  }
                  f.get();
              }),
              std::future_errc::broken_promise);
}

TEST_P(future_test, broken_promise_wakes_a_suspended_task) {
    auto p = std::make_unique<weft::promise<int>>();
    auto waiter = weft::async([f = p->get_future()]() mutable {
        try {
            f.get();
        } catch (const std::future_error& e) {
            return e.code() == std::future_errc::broken_promise;
        }
        return false;
    });
    weft::async([&p] { p.reset(); }).get();
    EXPECT_TRUE(waiter.get());
}

TEST_P(future_test, set_exception_reaches_the_waiter) {
    weft::promise<void> p;
    auto f = p.get_future();
    std::thread t([&p] { p.set_exception(std::make_exception_ptr(std::invalid_argument("bad"))); });
    EXPECT_THROW(weft::async([&f] { f.get(); }).get(), std::invalid_argument);
    t.join();
}

TEST_P(future_test, a_future_may_outlive_its_task_and_the_task_its_future) {
    std::atomic<int> ran{0};
    {
        auto dropped = weft::async([&ran] { ran.fetch_add(1); return 1; });  // never read
    }
    auto kept = weft::async([] { return 2; });
    rt().wait();
    EXPECT_EQ(ran.load(), 1);
    EXPECT_EQ(kept.get(), 2);
}

using namespace std::chrono_literals;

/// What a timed wait on a future nobody has set yet reports, then once it is set; the
/// same from a task and from a plain thread.
void timed_waits_see_timeout_then_ready() {
    weft::promise<int> p;
    weft::future<int> f = p.get_future();
    weft::shared_future<int> s = weft::promise<int>().get_future().share();  // broken at once: ready
    EXPECT_EQ(f.wait_for(1ms), weft::future_status::timeout);
    EXPECT_EQ(f.wait_for(0s), weft::future_status::timeout);
    EXPECT_EQ(f.wait_for(-5s), weft::future_status::timeout);
    EXPECT_EQ(f.wait_until(std::chrono::steady_clock::now() + 1ms), weft::future_status::timeout);
    EXPECT_EQ(f.wait_until(std::chrono::system_clock::now() + 1ms), weft::future_status::timeout);
    EXPECT_EQ(f.wait_until(std::chrono::steady_clock::time_point{}), weft::future_status::timeout);
    EXPECT_EQ(s.wait_for(1ms), weft::future_status::ready);
    p.set_value(7);
    EXPECT_EQ(f.wait_for(0s), weft::future_status::ready);
    EXPECT_EQ(f.wait_for(1ms), weft::future_status::ready);
    EXPECT_EQ(f.wait_until(std::chrono::system_clock::time_point::max()), weft::future_status::ready);
    EXPECT_EQ(f.get(), 7);
    EXPECT_EQ(code_of([&f] { (void)f.wait_for(1ms); }), std::future_errc::no_state);
}

TEST_P(future_test, wait_for_and_wait_until_report_timeout_then_ready) {
    in_task([] { timed_waits_see_timeout_then_ready(); });
    timed_waits_see_timeout_then_ready();
}

TEST_P(future_test, wait_for_a_deferred_future_does_not_start_it) {
    std::atomic<int> runs{0};
    auto f = weft::make_ready_future(1).then(weft::launch::deferred, [&runs](weft::future<int> r) {
        runs.fetch_add(1);
        return r.get() + 1;
    });
    EXPECT_EQ(f.wait_for(1s), weft::future_status::deferred);
    EXPECT_EQ(f.wait_until(std::chrono::steady_clock::now() + 1s), weft::future_status::deferred);
    EXPECT_EQ(f.wait_for(std::chrono::hours::max()), weft::future_status::deferred);
    EXPECT_EQ(runs.load(), 0);
    f.wait();  // starts it
    EXPECT_EQ(f.wait_for(0s), weft::future_status::ready);
    EXPECT_EQ(f.get(), 2);
    EXPECT_EQ(runs.load(), 1);
}

TEST_P(future_test, a_timed_wait_suspends_the_task_not_its_worker) {
    // The producer is queued behind the waiting task; at one worker it can only run if
    // the waiter gave its worker up. hours::max() is "forever", not an overflow into the past.
    in_task([] {
        weft::promise<int> p;
        weft::shared_future<int> f = p.get_future().share();
        auto producer = weft::async([&p] { p.set_value(3); });
        EXPECT_EQ(f.wait_for(std::chrono::hours(1)), weft::future_status::ready);
        EXPECT_EQ(f.get(), 3);
        auto g = weft::async([] { return 4; });
        EXPECT_EQ(g.wait_for(std::chrono::hours::max()), weft::future_status::ready);
        auto h = weft::async([] { return 5; });
        EXPECT_EQ(h.wait_until(std::chrono::steady_clock::time_point::max()), weft::future_status::ready);
        auto k = weft::async([] { return 6; });
        EXPECT_EQ(k.wait_until(std::chrono::time_point<std::chrono::steady_clock, std::chrono::hours>::max()),
                  weft::future_status::ready);
        producer.get();
        EXPECT_EQ(g.get() + h.get() + k.get(), 15);
    });
}

TEST_P(future_test, timed_waiters_that_gave_up_are_left_harmlessly_behind) {
    // Many waiters time out on one state and leave; the state is set later and dropped,
    // while others still wait on it without a deadline (ASan/TSan check the leftovers).
    for (int round = 0; round < 20; ++round) {
        weft::promise<int> p;
        weft::shared_future<int> f = p.get_future().share();
        std::vector<weft::future<bool>> waiters;
        for (int i = 0; i < 8; ++i)
            waiters.push_back(weft::async([f, i] {
                const auto status = f.wait_for(std::chrono::microseconds(50 * i));
                return status == weft::future_status::timeout || f.get() == 1;
            }));
        std::thread thread_waiter([f] {
            const auto status = f.wait_for(100us);
            EXPECT_TRUE(status == weft::future_status::timeout || f.get() == 1);
        });
        auto late = weft::async([f] { return f.get(); });
        p.set_value(1);
        for (auto& w : waiters) EXPECT_TRUE(w.get());
        EXPECT_EQ(late.get(), 1);
        thread_waiter.join();
    }
}

TEST_P(future_test, async_releases_its_callable_once_it_has_run) {
    // Issue #20: a ready state kept what its function captured until it died.
    auto token = std::make_shared<int>(1);
    std::weak_ptr<int> watch = token;
    auto f = weft::async([t = std::move(token)] { return *t; });
    EXPECT_EQ(f.wait_for(std::chrono::hours::max()), weft::future_status::ready);
    EXPECT_TRUE(watch.expired());  // released before the result was published
    EXPECT_EQ(f.get(), 1);
    auto arg = std::make_shared<int>(2);
    watch = arg;
    auto g = weft::async([](const std::shared_ptr<int>& a) { return *a; }, std::move(arg));
    g.wait();
    EXPECT_TRUE(watch.expired());
    EXPECT_EQ(g.get(), 2);
}

TEST(future, a_future_outlives_the_runtime) {
    weft::future<std::string> f;
    {
        weft::runtime_config cfg;
        cfg.threads = 1;
        weft::runtime rt(cfg);
        f = weft::async([] { return std::string(100, 'x'); });
    }
    EXPECT_EQ(f.get().size(), 100u);
}

}  // namespace
