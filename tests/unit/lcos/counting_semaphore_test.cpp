// weft::counting_semaphore and weft::binary_semaphore: permits, FIFO wake-ups, timed
// acquires, plain threads, and conservation of permits under stress — on every policy.
#include "lcos_test_util.hpp"

#include <weft/lcos/counting_semaphore.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <limits>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using weft::test::policy_test;

class counting_semaphore_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(counting_semaphore_test);

TEST_P(counting_semaphore_test, limits_how_many_tasks_are_inside) {
    in_task([] {
        weft::counting_semaphore<2> slots(2);
        std::atomic<int> inside{0}, most{0};
        weft::task_group g;
        for (int i = 0; i < 8; ++i)
            g.run([&] {
                slots.acquire();
                int now = ++inside;
                int seen = most.load();
                while (now > seen && !most.compare_exchange_weak(seen, now)) {
                }
                weft::this_task::yield();
                --inside;
                slots.release();
            });
        g.wait();
        EXPECT_LE(most.load(), 2);
    });
}

TEST_P(counting_semaphore_test, max_and_try_acquire) {
    static_assert(weft::counting_semaphore<5>::max() == 5);
    static_assert(weft::binary_semaphore::max() == 1);
    static_assert(weft::counting_semaphore<>::max() == std::numeric_limits<std::ptrdiff_t>::max());
    weft::counting_semaphore<5> s(2);
    EXPECT_TRUE(s.try_acquire());
    EXPECT_TRUE(s.try_acquire());
    EXPECT_FALSE(s.try_acquire());
    s.release(3);
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(s.try_acquire());
    EXPECT_FALSE(s.try_acquire());
    s.release(0);
    EXPECT_FALSE(s.try_acquire());
}

TEST_P(counting_semaphore_test, a_binary_semaphore_signals_between_tasks_on_one_worker) {
    in_task([] {
        weft::binary_semaphore ping(0), pong(0);
        int hits = 0;
        auto other = weft::async([&] {
            for (int i = 0; i < 100; ++i) {
                ping.acquire();  // suspends: the worker runs the main task meanwhile
                ++hits;
                pong.release();
            }
        });
        for (int i = 0; i < 100; ++i) {
            ping.release();
            pong.acquire();
        }
        other.get();
        EXPECT_EQ(hits, 100);
    });
}

TEST_P(counting_semaphore_test, release_n_resumes_n_waiters) {
    in_task([] {
        weft::counting_semaphore<> s(0);
        std::atomic<int> waiting{0}, passed{0};
        weft::task_group g;
        for (int i = 0; i < 5; ++i)
            g.run([&] {
                ++waiting;
                s.acquire();
                ++passed;
            });
        weft::test::yield_until([&] { return waiting.load() == 5; });
        s.release(3);
        weft::test::yield_until([&] { return passed.load() == 3; });
        EXPECT_FALSE(s.try_acquire());
        s.release(2);
        g.wait();
        EXPECT_EQ(passed.load(), 5);
        EXPECT_FALSE(s.try_acquire());
    });
}

TEST_P(counting_semaphore_test, timed_acquire_times_out_or_gets_a_permit) {
    in_task([] {
        weft::counting_semaphore<> s(0);
        EXPECT_FALSE(s.try_acquire_for(2ms));
        EXPECT_FALSE(s.try_acquire_for(-2ms));
        EXPECT_FALSE(s.try_acquire_until(std::chrono::steady_clock::now() - 1h));
        EXPECT_FALSE(s.try_acquire_until(std::chrono::system_clock::now() + 1ms));
        std::atomic<bool> waiting{false};
        auto later = weft::async([&] {
            waiting = true;
            return s.try_acquire_for(1h);
        });
        weft::test::yield_until([&] { return waiting.load(); });
        s.release();
        EXPECT_TRUE(later.get());
        s.release();
        EXPECT_TRUE(s.try_acquire_until(std::chrono::system_clock::now() + 1h));
        EXPECT_FALSE(s.try_acquire());
    });
}

TEST_P(counting_semaphore_test, plain_threads_wait_for_tasks) {
    weft::counting_semaphore<> s(0);
    std::atomic<bool> timed_out{false};
    std::thread t([&] {
        s.acquire();  // the posted task's permit
        EXPECT_FALSE(s.try_acquire_for(1ms));  // nobody releases before we say so
        timed_out = true;
        EXPECT_TRUE(s.try_acquire_for(1h));
    });
    weft::post([&] { s.release(); });
    in_task([&] {
        weft::test::yield_until([&] { return timed_out.load(); });
        s.release();
    });
    t.join();
    EXPECT_FALSE(s.try_acquire());
}

TEST_P(counting_semaphore_test, stress_permits_are_conserved) {
    // Tasks and a plain thread take and give back permits at random (some with tiny
    // deadlines); never more than `permits` holders at once, and all permits are back
    // at the end (none lost to a timed-out waiter, none handed out twice).
    const int permits = 3, tasks = 12, rounds = weft::test::scaled(20000);
    weft::counting_semaphore<> s(permits);
    std::atomic<int> inside{0}, most{0};
    std::atomic<long> taken{0};
    auto body = [&](unsigned id) {
        weft::test::random_yield yield(id);
        for (int r = 0; r < rounds; ++r) {
            bool got = true;
            switch (yield.next(4)) {
                case 0: got = s.try_acquire(); break;
                case 1: got = s.try_acquire_for(std::chrono::microseconds(yield.next(100))); break;
                default: s.acquire(); break;
            }
            if (!got) continue;
            ++taken;
            int now = ++inside;
            int seen = most.load();
            while (now > seen && !most.compare_exchange_weak(seen, now)) {
            }
            yield(3);
            --inside;
            s.release();
            yield();
        }
    };
    weft::test::run_tasks_and_a_thread(tasks, body);
    EXPECT_LE(most.load(), permits);
    EXPECT_GT(taken.load(), 0);
    for (int i = 0; i < permits; ++i) EXPECT_TRUE(s.try_acquire());
    EXPECT_FALSE(s.try_acquire());
}

}  // namespace
