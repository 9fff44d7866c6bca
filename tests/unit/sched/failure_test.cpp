// What must never be silent: an exception nobody can receive, a stack overflow, and
// tasks that can never be woken (deadlock). Each runs in a child process (death tests).
#include <weft/weft.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

namespace {

weft::runtime_config one_worker() {
    weft::runtime_config cfg;
    cfg.threads = 1;
    cfg.bind = false;
    return cfg;
}

struct custom_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

TEST(failure_death_test, exception_escaping_a_posted_task_terminates_naming_it) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        {
            weft::runtime rt(one_worker());
            weft::post(weft::task_attributes{weft::task_priority::normal, "thrower"},
                       [] { throw custom_error("lost?"); });
            rt.wait();
        },
        "unhandled exception in task 'thrower': .*custom_error: lost\\?");
}

int recurse(int n) {
    volatile char pad[512];
    pad[0] = static_cast<char>(n);
    return n == 0 ? pad[0] : recurse(n + 1) + pad[0];
}

TEST(failure_death_test, stack_overflow_in_a_task_is_reported) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        {
            weft::runtime rt(one_worker());
            auto f = weft::async(weft::task_attributes{weft::task_priority::normal, "deep"}, [] { return recurse(1); });
            (void)f.get();
        },
        "weft: stack overflow in task 'deep' \\(stack size [0-9]+ bytes\\); raise --weft:stack-size");
}

TEST(failure_death_test, tasks_suspended_forever_are_reported_instead_of_hanging) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            weft::runtime_config cfg = one_worker();
            cfg.on_deadlock = "exit";  // a promise could be set by a thread outside weft: `auto` would wait
            weft::runtime rt(cfg);
            auto* never = new weft::promise<int>();  // leaked on purpose: nobody will ever set it
            weft::post(weft::task_attributes{weft::task_priority::normal, "stuck-waiter"},
                       [f = never->get_future()]() mutable { (void)f.get(); });
            rt.wait();
        },
        ::testing::ExitedWithCode(3), "deadlock: .*1 task\\(s\\) .*task 'stuck-waiter'");
}

TEST(failure, a_task_woken_by_an_outside_thread_after_a_while_is_no_deadlock) {
    // Outside threads may legitimately wake tasks later: below the timeout, no report.
    weft::runtime_config cfg = one_worker();
    cfg.deadlock_timeout_ms = 0;  // never report: the wait must simply last
    weft::runtime rt(cfg);
    weft::promise<int> p;
    auto f = weft::async([g = p.get_future()]() mutable { return g.get(); });
    std::thread late([&p] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        p.set_value(5);
    });
    rt.wait();
    late.join();
    EXPECT_EQ(f.get(), 5);
}

}  // namespace
