// weft::event: manual-reset and auto-reset semantics, timed waits, plain threads, and
// stress for both modes — on every policy.
#include "lcos_test_util.hpp"

#include <weft/lcos/event.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using weft::test::policy_test;

class event_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(event_test);

TEST_P(event_test, a_manual_event_releases_every_waiter_and_stays_set) {
    in_task([] {
        weft::event go{weft::event::mode::manual};
        std::atomic<int> started{0};
        weft::task_group g;
        for (int i = 0; i < 4; ++i)
            g.run([&] {
                go.wait();
                ++started;
            });
        go.set();
        g.wait();
        EXPECT_EQ(started.load(), 4);
        EXPECT_TRUE(go.is_set());
    });
}

TEST_P(event_test, manual_set_reset_is_set_and_try_wait) {
    weft::event e;  // manual, clear
    EXPECT_EQ(e.get_mode(), weft::event::mode::manual);
    EXPECT_FALSE(e.is_set());
    EXPECT_FALSE(e.try_wait());
    e.set();
    EXPECT_TRUE(e.try_wait());
    EXPECT_TRUE(e.try_wait());  // not consumed
    e.wait();
    e.reset();
    EXPECT_FALSE(e.is_set());
    weft::event pre{weft::event::mode::manual, true};
    EXPECT_TRUE(pre.is_set());
    pre.wait();
}

TEST_P(event_test, an_automatic_event_releases_one_waiter_per_set) {
    in_task([] {
        weft::event e{weft::event::mode::automatic};
        EXPECT_EQ(e.get_mode(), weft::event::mode::automatic);
        std::atomic<int> waiting{0}, passed{0};
        weft::task_group g;
        for (int i = 0; i < 3; ++i)
            g.run([&] {
                ++waiting;
                e.wait();
                ++passed;
            });
        weft::test::yield_until([&] { return waiting.load() == 3; });
        for (int k = 1; k <= 3; ++k) {
            e.set();
            weft::test::yield_until([&] { return passed.load() == k; });
            for (int i = 0; i < 5; ++i) weft::this_task::yield();
            EXPECT_EQ(passed.load(), k);  // one set, one waiter
            EXPECT_FALSE(e.is_set());     // handed over: the event stays clear
        }
        g.wait();
    });
}

TEST_P(event_test, an_automatic_event_set_without_waiters_lets_one_wait_pass) {
    weft::event e{weft::event::mode::automatic};
    e.set();
    e.set();  // sets do not accumulate
    EXPECT_TRUE(e.is_set());  // observing does not consume
    EXPECT_TRUE(e.try_wait());
    EXPECT_FALSE(e.try_wait());
    EXPECT_FALSE(e.is_set());
    e.set();
    e.wait();  // passes at once and consumes
    EXPECT_FALSE(e.is_set());
    e.set();
    e.reset();
    EXPECT_FALSE(e.try_wait());
    weft::event pre{weft::event::mode::automatic, true};
    EXPECT_TRUE(pre.wait_for(0s));
    EXPECT_FALSE(pre.wait_for(0s));
}

TEST_P(event_test, timed_waits_time_out_or_see_the_set) {
    in_task([] {
        for (auto m : {weft::event::mode::manual, weft::event::mode::automatic}) {
            weft::event e{m};
            EXPECT_FALSE(e.wait_for(2ms));
            EXPECT_FALSE(e.wait_for(-1s));
            EXPECT_FALSE(e.wait_until(std::chrono::steady_clock::now() - 1h));
            EXPECT_FALSE(e.wait_until(std::chrono::system_clock::now() + 1ms));
            std::atomic<bool> waiting{false};
            auto later = weft::async([&] {
                waiting = true;
                return e.wait_for(1h);
            });
            weft::test::yield_until([&] { return waiting.load(); });
            e.set();
            EXPECT_TRUE(later.get());
            EXPECT_EQ(e.is_set(), m == weft::event::mode::manual);
            e.set();
            EXPECT_TRUE(e.wait_until(std::chrono::system_clock::now() + 1h));
        }
    });
}

TEST_P(event_test, plain_threads_wait_for_tasks) {
    weft::event manual, automatic{weft::event::mode::automatic};
    std::atomic<bool> timed_out{false};
    std::thread t([&] {
        manual.wait();
        automatic.wait();
        EXPECT_FALSE(automatic.wait_for(1ms));  // nobody sets it before we say so
        timed_out = true;
        EXPECT_TRUE(automatic.wait_for(1h));
    });
    in_task([&] {
        manual.set();
        automatic.set();
        weft::test::yield_until([&] { return timed_out.load(); });
        automatic.set();
    });
    t.join();
}

TEST_P(event_test, stress_an_automatic_event_as_a_lock) {
    // An automatic event, initially set, used as a binary lock: wait takes it, set gives it
    // back. Exclusion holds, every successful wait is counted once, and the test ends.
    const int tasks = 10, rounds = weft::test::scaled(12000);
    weft::event token{weft::event::mode::automatic, true};
    long count = 0;
    std::atomic<long> entered{0};
    auto body = [&](unsigned id) {
        weft::test::random_yield yield(id);
        for (int r = 0; r < rounds; ++r) {
            switch (yield.next(4)) {
                case 0:
                    if (!token.try_wait()) continue;
                    break;
                case 1:
                    if (!token.wait_for(std::chrono::microseconds(yield.next(100)))) continue;
                    break;
                default: token.wait(); break;
            }
            ++entered;
            long v = count;
            yield(3);
            count = v + 1;
            token.set();
            yield();
        }
    };
    weft::test::run_tasks_and_a_thread(tasks, body);
    EXPECT_EQ(count, entered.load());
    EXPECT_TRUE(token.try_wait());  // the token is back
    EXPECT_FALSE(token.try_wait());
}

TEST_P(event_test, stress_manual_events_release_everyone) {
    const int rounds = weft::test::scaled(5000), waiters = 6;
    in_task([&] {
        std::atomic<long> passed{0};
        for (int r = 0; r < rounds; ++r) {
            auto e = std::make_unique<weft::event>();
            weft::task_group g;
            for (int w = 0; w < waiters; ++w)
                g.run([&, w] {
                    weft::test::random_yield yield(static_cast<unsigned>(r * 8 + w));
                    yield();
                    if (w == 0) {
                        while (!e->wait_for(std::chrono::microseconds(yield.next(50)))) {
                        }
                    } else {
                        e->wait();
                    }
                    ++passed;
                });
            g.run([&, r] {
                weft::test::random_yield yield(static_cast<unsigned>(r * 8 + 7));
                yield();
                e->set();
            });
            g.wait();
        }
        EXPECT_EQ(passed.load(), long{rounds} * waiters);
    });
}

}  // namespace
