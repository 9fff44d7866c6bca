// What the runtime reports about tasks blocked forever on a local control object (the
// deadlock report naming the task; exit code 3 when certain, or with on-deadlock=exit), and that a runtime stops cleanly while
// timers of already-satisfied timed waits are still pending.
#include <weft/lcos/lcos.hpp>
#include <weft/weft.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>

namespace {

using namespace std::chrono_literals;

weft::runtime_config one_worker() {
    weft::runtime_config cfg;
    cfg.threads = 1;
    cfg.bind = false;
    return cfg;
}

/// Lets the other task run until it reaches `n` and (most likely) suspends there.
void yield_until_stage(const std::atomic<int>& stage, int n) {
    while (stage.load() < n) weft::this_task::yield();
    weft::this_task::sleep_for(1ms);
}

weft::task_attributes named(const char* name) { return weft::task_attributes{weft::task_priority::normal, name}; }

TEST(lcos_shutdown_death_test, a_task_waiting_for_a_mutex_nobody_releases_is_reported) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            weft::runtime rt(one_worker());
            auto* m = new weft::mutex;  // leaked on purpose: locked forever
            weft::post(named("holder"), [m] {
                m->lock();  // and ends without unlocking
                weft::post(named("stuck-locker"), [m] { std::lock_guard lock(*m); });
            });
            rt.wait();
        },
        ::testing::ExitedWithCode(3), "deadlock: .*task 'stuck-locker'");
}

TEST(lcos_shutdown_death_test, a_task_waiting_for_an_event_never_set_is_reported) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            weft::runtime_config cfg = one_worker();
            cfg.on_deadlock = "exit";  // an outside thread could set it: `auto` would keep waiting
            weft::runtime rt(cfg);
            auto* e = new weft::event;  // leaked on purpose: never set
            weft::post(named("stuck-on-event"), [e] { e->wait(); });
            rt.wait();
        },
        ::testing::ExitedWithCode(3), "deadlock: .*task 'stuck-on-event'");
}

TEST(lcos_shutdown_death_test, receivers_of_a_channel_nobody_sends_on_are_reported) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            weft::runtime_config cfg = one_worker();
            cfg.threads = 2;
            cfg.on_deadlock = "exit";  // possible deadlocks only: `auto` would keep waiting
            weft::runtime rt(cfg);
            auto* ch = new weft::channel<int>;  // leaked on purpose: never sent on or closed
            auto* cv = new weft::condition_variable;
            auto* m = new weft::mutex;
            weft::post(named("stuck-receiver"), [ch] { (void)ch->receive(); });
            weft::post(named("stuck-on-cv"), [cv, m] {
                std::unique_lock lock(*m);
                cv->wait(lock);
            });
            rt.wait();
        },
        ::testing::ExitedWithCode(3), "deadlock: .*2 task\\(s\\).*task 'stuck-");
}

TEST(lcos_shutdown, a_runtime_stops_while_timers_of_satisfied_waits_are_pending) {
    // Each wait below is satisfied long before its one-hour deadline: its timer stays
    // armed when the runtime stops. That must neither hang nor leak (ASan checks leaks),
    // and a later runtime must work normally.
    for (int round = 0; round < 2; ++round) {
        weft::runtime rt(one_worker());
        weft::mutex m;
        weft::event e;
        weft::counting_semaphore<> s(0);
        std::atomic<int> stage{0};
        auto all_satisfied = weft::async([&] {
            m.lock();
            auto waiter = weft::async([&] {
                stage = 1;
                const bool a = m.try_lock_for(1h);
                if (a) m.unlock();
                stage = 2;
                const bool b = e.wait_for(1h);
                stage = 3;
                const bool c = s.try_acquire_for(1h);
                return a && b && c;
            });
            yield_until_stage(stage, 1);
            m.unlock();
            yield_until_stage(stage, 2);
            e.set();
            yield_until_stage(stage, 3);
            s.release();
            return waiter.get();
        });
        EXPECT_TRUE(all_satisfied.get());
        rt.wait();
    }
}

}  // namespace
