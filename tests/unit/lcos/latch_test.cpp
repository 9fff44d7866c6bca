// weft::latch: count_down, try_wait, wait, arrive_and_wait, many waiters, plain threads —
// on every policy.
#include "lcos_test_util.hpp"

#include <weft/lcos/latch.hpp>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace {

using weft::test::policy_test;

class latch_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(latch_test);

TEST_P(latch_test, wait_returns_after_all_count_downs) {
    weft::latch done(3);
    std::atomic<int> work{0};
    for (int i = 0; i < 3; ++i)
        weft::post([&] {
            ++work;
            done.count_down();
        });
    done.wait();
    EXPECT_EQ(work.load(), 3);
}

TEST_P(latch_test, try_wait_count_down_n_and_zero) {
    static_assert(weft::latch::max() > 1'000'000);
    weft::latch l(5);
    EXPECT_FALSE(l.try_wait());
    l.count_down(2);
    EXPECT_FALSE(l.try_wait());
    l.count_down(0);
    l.count_down(3);
    EXPECT_TRUE(l.try_wait());
    l.wait();  // at once
    weft::latch open(0);
    EXPECT_TRUE(open.try_wait());
    open.wait();
}

TEST_P(latch_test, tasks_suspend_until_it_opens_and_the_opener_is_on_the_same_worker) {
    in_task([] {
        weft::latch gate(1);
        std::atomic<int> through{0};
        weft::task_group g;
        for (int i = 0; i < 6; ++i)
            g.run([&] {
                gate.wait();
                ++through;
            });
        for (int i = 0; i < 10; ++i) weft::this_task::yield();  // let them suspend
        EXPECT_EQ(through.load(), 0);
        gate.count_down();
        g.wait();
        EXPECT_EQ(through.load(), 6);
    });
}

TEST_P(latch_test, arrive_and_wait_synchronizes_a_group) {
    in_task([] {
        weft::latch all_here(4);
        std::atomic<int> arrived{0};
        weft::task_group g;
        for (int i = 0; i < 4; ++i)
            g.run([&] {
                ++arrived;
                all_here.arrive_and_wait();
                EXPECT_EQ(arrived.load(), 4);  // nobody passes before everyone arrived
            });
        g.wait();
    });
}

TEST_P(latch_test, plain_threads_and_tasks_wait_together) {
    weft::latch l(2);
    std::thread t([&] { l.wait(); });
    auto task_waiter = weft::async([&] { l.wait(); });
    std::thread opener([&] { l.count_down(); });
    in_task([&] { l.count_down(); });
    t.join();
    opener.join();
    task_waiter.get();
    EXPECT_TRUE(l.try_wait());
}

TEST_P(latch_test, stress_many_latches_many_waiters) {
    // Rounds of one-shot latches, each counted down by tasks that yield at random while
    // other tasks wait; a waiter resumed early or never would fail or hang the test.
    const int rounds = weft::test::scaled(8000), counters = 4, waiters = 4;
    in_task([&] {
        std::atomic<long> passed{0};
        for (int r = 0; r < rounds; ++r) {
            auto l = std::make_unique<weft::latch>(counters);
            std::atomic<int> counted{0};
            weft::task_group g;
            for (int w = 0; w < waiters; ++w)
                g.run([&, w] {
                    weft::test::random_yield yield(static_cast<unsigned>(r * 16 + w));
                    yield();
                    // Some poll a little first (spinning longer would only burn the CPU
                    // that an oversubscribed counter needs).
                    for (int i = 0; i < 4 * (w % 2) && !l->try_wait(); ++i) weft::this_task::yield();
                    l->wait();
                    EXPECT_EQ(counted.load(), counters);
                    ++passed;
                });
            for (int c = 0; c < counters; ++c)
                g.run([&, c] {
                    weft::test::random_yield yield(static_cast<unsigned>(r * 16 + 8 + c));
                    yield();
                    ++counted;
                    l->count_down();
                });
            g.wait();
        }
        EXPECT_EQ(passed.load(), long{rounds} * waiters);
    });
}

}  // namespace
