// Regression (issue #20, item 7): weft::future had no wait_for / wait_until, so code
// ported from std::future (a progress report while a result is pending, a bounded wait)
// did not compile. They now return weft::future_status, suspend a task (not its worker)
// or block a plain thread with a deadline, and take hours::max() to mean "forever".
#include "support/policy_test.hpp"

#include <chrono>
#include <thread>

namespace {

using namespace std::chrono_literals;
using weft::test::policy_test;
class future_wait_for : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(future_wait_for);

/// A result that is late, then arrives: timeout first, then ready, from whatever calls it.
void timeout_then_ready() {
    weft::promise<int> p;
    weft::future<int> f = p.get_future();
    weft::shared_future<int> s = f.share();
    EXPECT_EQ(s.wait_for(2ms), weft::future_status::timeout);
    EXPECT_EQ(s.wait_until(std::chrono::steady_clock::now() + 2ms), weft::future_status::timeout);
    EXPECT_EQ(s.wait_until(std::chrono::system_clock::now() + 2ms), weft::future_status::timeout);
    std::thread setter([&p] { p.set_value(42); });
    EXPECT_EQ(s.wait_for(std::chrono::hours::max()), weft::future_status::ready);
    setter.join();
    EXPECT_EQ(s.wait_for(0s), weft::future_status::ready);
    EXPECT_EQ(s.get(), 42);

    weft::future<int> g = weft::async([] { return 7; });
    EXPECT_EQ(g.wait_for(std::chrono::hours::max()), weft::future_status::ready);
    EXPECT_EQ(g.wait_until(std::chrono::steady_clock::time_point::max()), weft::future_status::ready);
    EXPECT_EQ(g.get(), 7);

    weft::future<int> d = weft::make_ready_future(1).then(weft::launch::deferred, [](weft::future<int> r) { return r.get(); });
    EXPECT_EQ(d.wait_for(1h), weft::future_status::deferred);
    EXPECT_EQ(d.get(), 1);
}

TEST_P(future_wait_for, from_a_task) { in_task(timeout_then_ready); }

TEST_P(future_wait_for, from_a_plain_thread) { timeout_then_ready(); }

TEST_P(future_wait_for, the_waiting_task_lets_its_worker_run_the_producer) {
    // At one worker the producer, queued behind the waiter, runs only if the waiter
    // suspended instead of blocking the worker until its deadline.
    const bool ready_in_time = in_task([] {
        weft::promise<void> go;
        weft::shared_future<void> f = go.get_future().share();
        weft::future<void> producer = weft::async([&go] { go.set_value(); });
        const auto status = f.wait_for(1h);
        producer.get();
        return status == weft::future_status::ready;
    });
    EXPECT_TRUE(ready_in_time);
}

}  // namespace
