// Regression (issue #20 item 7): this_task::sleep_for(hours::max()) overflowed its
// deadline (now + hours::max(): undefined behaviour, which UBSan reports) and returned at
// once, from a task and from a plain thread. A duration too long for the clock (or an
// infinite one, or a deadline near time_point::max()) now means "sleep for good"; a
// duration that is not positive still returns at once.
#include <weft/weft.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <thread>

namespace {

using namespace std::chrono_literals;
using std::chrono::steady_clock;

weft::runtime_config two_workers() {
    weft::runtime_config cfg;
    cfg.threads = 2;
    cfg.bind = false;
    cfg.deadlock_timeout_ms = 0;  // sleeping tasks are the point here, not a deadlock
    return cfg;
}

// No duration is asserted: only that these return (a hang fails on the CTest timeout).
void sleeps_that_return_at_once() {
    weft::this_task::sleep_for(0s);
    weft::this_task::sleep_for(-1h);
    weft::this_task::sleep_for(std::chrono::hours::min());
    weft::this_task::sleep_for(std::chrono::duration<double>(std::numeric_limits<double>::quiet_NaN()));
    weft::this_task::sleep_for(std::chrono::duration<double>(-std::numeric_limits<double>::infinity()));
    weft::this_task::sleep_until(steady_clock::time_point::min());
    weft::this_task::sleep_until(steady_clock::now() - 1h);
    weft::this_task::sleep_for(1ms);
}

}  // namespace

TEST(sleep_for_huge_duration, non_positive_durations_return_at_once) {
    sleeps_that_return_at_once();  // a plain thread
    weft::runtime rt(two_workers());
    weft::async(sleeps_that_return_at_once).get();
    sleeps_that_return_at_once();  // a plain thread while a runtime runs
}

// Starts sleepers that should never wake, as tasks and on plain threads; after a while,
// exits with 0 if none has woken, else 1 (the sleepers never return, so this runs in a
// child process that ends itself).
[[noreturn]] static void run_sleepers_and_exit() {
    weft::runtime rt(two_workers());
    std::atomic<int> started{0}, woke{0};
    const auto sleeper = [&](auto sleep) {
        return [&started, &woke, sleep] {
            ++started;
            sleep();
            ++woke;
        };
    };
    const auto sleeps = {
        +[] { weft::this_task::sleep_for(std::chrono::hours::max()); },
        +[] { weft::this_task::sleep_for(std::chrono::nanoseconds::max()); },
        +[] { weft::this_task::sleep_for(std::chrono::hours(24 * 365 * 200)); },
        +[] { weft::this_task::sleep_for(std::chrono::duration<double>(std::numeric_limits<double>::infinity())); },
        +[] { weft::this_task::sleep_until(steady_clock::time_point::max()); },
    };
    int n = 0;
    for (auto sleep : sleeps) {
        weft::post(sleeper(sleep));            // a task
        std::thread(sleeper(sleep)).detach();  // a plain thread
        n += 2;
    }
    while (started.load() < n) std::this_thread::yield();
    // A sleep that returned at once has returned long before this (no timing
    // is asserted beyond "still asleep a while after starting").
    std::this_thread::sleep_for(200ms);
    const int awake = woke.load();
    if (awake == 0) std::fprintf(stderr, "all still asleep\n");
    else std::fprintf(stderr, "%d sleeper(s) woke up\n", awake);
    std::fflush(stderr);
    std::_Exit(awake == 0 ? 0 : 1);
}

TEST(sleep_for_huge_duration, a_duration_past_the_clock_sleeps_for_good) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(run_sleepers_and_exit(), ::testing::ExitedWithCode(0), "all still asleep");
}
