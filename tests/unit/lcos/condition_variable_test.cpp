// weft::condition_variable and weft::condition_variable_any: wait, predicates, timed
// waits, notify_one/notify_all, no lost wake-ups, lock types, plain threads — on every
// policy.
#include "lcos_test_util.hpp"

#include <weft/lcos/condition_variable.hpp>
#include <weft/lcos/shared_mutex.hpp>
#include <weft/lcos/spinlock.hpp>

#include <atomic>
#include <chrono>
#include <deque>
#include <mutex>
#include <shared_mutex>
#include <thread>

namespace {

using namespace std::chrono_literals;
using weft::test::policy_test;

class condition_variable_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(condition_variable_test);

TEST_P(condition_variable_test, wait_with_a_predicate_sees_the_notified_state) {
    in_task([] {
        weft::mutex m;
        weft::condition_variable cv;
        bool ready = false;
        auto waiter = weft::async([&] {
            std::unique_lock lock(m);
            cv.wait(lock, [&] { return ready; });
            return 42;
        });
        {
            std::lock_guard lock(m);
            ready = true;
        }
        cv.notify_one();
        EXPECT_EQ(waiter.get(), 42);
    });
}

TEST_P(condition_variable_test, waiter_holds_the_lock_again_when_wait_returns) {
    in_task([] {
        weft::mutex m;
        weft::condition_variable cv;
        int stage = 0;
        auto waiter = weft::async([&] {
            std::unique_lock lock(m);
            stage = 1;
            cv.wait(lock, [&] { return stage == 2; });
            EXPECT_TRUE(lock.owns_lock());
            EXPECT_FALSE(m.try_lock());  // held by us (try_lock by the owner fails)
            stage = 3;
        });
        weft::test::yield_until([&] {
            std::lock_guard lock(m);
            return stage == 1;
        });
        {
            std::lock_guard lock(m);
            stage = 2;
            cv.notify_all();  // notifying under the lock is fine too
        }
        waiter.get();
        EXPECT_EQ(stage, 3);
    });
}

TEST_P(condition_variable_test, a_single_worker_runs_the_notifier_while_the_waiter_is_suspended) {
    // Ping-pong: each side waits for the other; on one worker this only terminates if
    // wait() suspends the task rather than blocking the worker.
    in_task([] {
        weft::mutex m;
        weft::condition_variable cv;
        int turn = 0;
        const int rounds = weft::test::scaled(2000);
        auto player = [&](int me) {
            for (int i = 0; i < rounds; ++i) {
                std::unique_lock lock(m);
                cv.wait(lock, [&] { return turn % 2 == me; });
                ++turn;
                cv.notify_one();
            }
        };
        auto a = weft::async(player, 0);
        auto b = weft::async(player, 1);
        a.get();
        b.get();
        EXPECT_EQ(turn, 2 * rounds);
    });
}

TEST_P(condition_variable_test, notify_one_wakes_one_and_notify_all_wakes_all) {
    in_task([] {
        weft::mutex m;
        weft::condition_variable cv;
        int tokens = 0, waiting = 0;
        std::atomic<int> done{0};
        weft::task_group g;
        for (int i = 0; i < 5; ++i)
            g.run([&] {
                std::unique_lock lock(m);
                ++waiting;
                cv.wait(lock, [&] { return tokens > 0; });
                --tokens;
                ++done;
            });
        weft::test::yield_until([&] {
            std::lock_guard lock(m);
            return waiting == 5;
        });
        for (int k = 1; k <= 2; ++k) {
            {
                std::lock_guard lock(m);
                ++tokens;
            }
            cv.notify_one();
            weft::test::yield_until([&] { return done.load() == k; });
        }
        {
            std::lock_guard lock(m);
            tokens += 3;
        }
        cv.notify_all();
        g.wait();
        EXPECT_EQ(done.load(), 5);
        EXPECT_EQ(tokens, 0);
    });
}

TEST_P(condition_variable_test, timed_waits_report_timeout_or_no_timeout) {
    in_task([] {
        weft::mutex m;
        weft::condition_variable cv;
        std::unique_lock lock(m);
        EXPECT_EQ(cv.wait_for(lock, 2ms), std::cv_status::timeout);
        EXPECT_TRUE(lock.owns_lock());
        EXPECT_EQ(cv.wait_until(lock, std::chrono::steady_clock::now() - 1s), std::cv_status::timeout);
        EXPECT_EQ(cv.wait_until(lock, std::chrono::system_clock::now() + 1ms), std::cv_status::timeout);
        EXPECT_FALSE(cv.wait_for(lock, 1ms, [] { return false; }));
        EXPECT_TRUE(cv.wait_for(lock, -1ms, [] { return true; }));
        EXPECT_FALSE(cv.wait_until(lock, std::chrono::steady_clock::now(), [] { return false; }));

        bool flag = false;
        auto setter = weft::async([&] {
            std::lock_guard l(m);
            flag = true;
            cv.notify_all();
        });
        EXPECT_TRUE(cv.wait_for(lock, 1h, [&] { return flag; }));  // releases m meanwhile
        lock.unlock();
        setter.get();

        std::atomic<bool> waiting{false};
        auto timed = weft::async([&] {
            std::unique_lock l(m);
            waiting = true;
            return cv.wait_until(l, std::chrono::system_clock::now() + 1h);
        });
        weft::test::yield_until([&] {
            std::lock_guard l(m);  // once we get m, the waiter has released it in wait
            return waiting.load();
        });
        cv.notify_one();
        EXPECT_EQ(timed.get(), std::cv_status::no_timeout);
    });
}

TEST_P(condition_variable_test, plain_threads_wait_for_tasks_and_tasks_for_plain_threads) {
    weft::mutex m;
    weft::condition_variable cv;
    int value = 0;
    std::thread t([&] {
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return value == 1; });
        value = 2;
        cv.notify_all();
        EXPECT_EQ(cv.wait_for(lock, 1ms), std::cv_status::timeout);
    });
    in_task([&] {
        {
            std::lock_guard lock(m);
            value = 1;
        }
        cv.notify_all();
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return value == 2; });
    });
    t.join();
    EXPECT_EQ(value, 2);
}

TEST_P(condition_variable_test, condition_variable_any_with_a_shared_lock) {
    in_task([] {
        weft::shared_mutex m;
        weft::condition_variable_any cv;
        int stage = 0;
        auto reader = weft::async([&] {
            std::shared_lock lock(m);
            cv.wait(lock, [&] { return stage == 1; });
        });
        {
            std::unique_lock lock(m);
            stage = 1;
        }
        cv.notify_all();
        reader.get();
    });
}

TEST_P(condition_variable_test, condition_variable_any_with_other_lockables) {
    in_task([] {
        weft::condition_variable_any cv;
        weft::spinlock sl;
        std::unique_lock sll(sl);
        EXPECT_EQ(cv.wait_for(sll, 1ms), std::cv_status::timeout);
        EXPECT_FALSE(cv.wait_until(sll, std::chrono::system_clock::now(), [] { return false; }));
        sll.unlock();

        weft::recursive_mutex rm;
        bool go = false;
        auto waiter = weft::async([&] {
            std::unique_lock lock(rm);
            return cv.wait_for(lock, 1h, [&] { return go; });
        });
        {
            std::lock_guard lock(rm);
            go = true;
        }
        cv.notify_all();
        EXPECT_TRUE(waiter.get());

        std::mutex sm;  // a std::mutex blocks the worker while held: only held briefly here
        int n = 0;
        auto bumper = weft::async([&] {
            std::lock_guard lock(sm);
            ++n;
            cv.notify_all();
        });
        std::unique_lock lock(sm);
        EXPECT_TRUE(cv.wait_for(lock, 1h, [&] { return n == 1; }));
        lock.unlock();
        bumper.get();
    });
}

TEST_P(condition_variable_test, stress_bounded_queue_loses_no_wake_up) {
    // A bounded queue built from a mutex and two condition variables; producers and
    // consumers yield at random, and some consumers poll with short timed waits. Every
    // item is consumed exactly once, and the test ends (a lost wake-up would hang it).
    const int producers = 4, consumers = 4, per_producer = weft::test::scaled(20000);
    weft::mutex m;
    weft::condition_variable not_full, not_empty;
    std::deque<long> q;
    const std::size_t capacity = 3;
    bool finished = false;
    std::atomic<long> consumed{0}, sum{0}, timeouts{0};
    auto consumer = [&](unsigned id) {
        weft::test::random_yield yield(id);
        for (;;) {
            std::unique_lock lock(m);
            if (yield.next(3) == 0) {
                if (!not_empty.wait_for(lock, std::chrono::microseconds(yield.next(100)),
                                        [&] { return !q.empty() || finished; })) {
                    ++timeouts;
                    continue;
                }
            } else {
                not_empty.wait(lock, [&] { return !q.empty() || finished; });
            }
            if (q.empty()) return;  // finished and drained
            sum += q.front();
            q.pop_front();
            ++consumed;
            lock.unlock();
            not_full.notify_one();
            yield();
        }
    };
    std::thread plain(consumer, 1000u);
    in_task([&] {
        weft::task_group g;
        for (unsigned c = 0; c < consumers; ++c) g.run([&consumer, c] { consumer(c); });
        weft::task_group p;
        for (int k = 0; k < producers; ++k)
            p.run([&, k] {
                weft::test::random_yield yield(static_cast<unsigned>(100 + k));
                for (int i = 1; i <= per_producer; ++i) {
                    std::unique_lock lock(m);
                    not_full.wait(lock, [&] { return q.size() < capacity; });
                    q.push_back(i);
                    lock.unlock();
                    not_empty.notify_one();
                    yield();
                }
            });
        p.wait();
        {
            std::lock_guard lock(m);
            finished = true;
        }
        not_empty.notify_all();
        g.wait();
    });
    plain.join();
    EXPECT_EQ(consumed.load(), long{producers} * per_producer);
    EXPECT_EQ(sum.load(), long{producers} * per_producer * (per_producer + 1) / 2);
}

TEST_P(condition_variable_test, stress_timeouts_racing_notifications) {
    // Waiters with tiny deadlines race notify_one/notify_all: exactly one of {notify,
    // timeout} ends each wait, so nothing is resumed twice or lost (the test ends, and
    // ASan/TSan see no access to a finished waiter).
    in_task([] {
        weft::mutex m;
        weft::condition_variable cv;
        std::atomic<bool> stop{false};
        std::atomic<long> woken{0}, timed_out{0};
        weft::task_group g;
        for (unsigned id = 0; id < 6; ++id)
            g.run([&, id] {
                weft::test::random_yield yield(id);
                for (int r = 0; r < weft::test::scaled(8000); ++r) {
                    std::unique_lock lock(m);
                    if (cv.wait_for(lock, std::chrono::microseconds(yield.next(50))) == std::cv_status::timeout)
                        ++timed_out;
                    else
                        ++woken;
                }
            });
        auto notifier = weft::async([&] {
            weft::test::random_yield yield(99);
            for (int i = 0; i < 6 * weft::test::scaled(8000) && !stop.load(); ++i) {
                if (yield.next(2) == 0)
                    cv.notify_one();
                else
                    cv.notify_all();
                yield(2);
            }
        });
        g.wait();
        stop = true;
        notifier.get();
        EXPECT_EQ(woken.load() + timed_out.load(), 6L * weft::test::scaled(8000));
    });
}

}  // namespace
