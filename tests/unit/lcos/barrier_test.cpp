// weft::barrier: phases, the completion step, arrive/wait split, arrive_and_drop, plain
// threads, and many rounds under stress — on every policy.
#include "lcos_test_util.hpp"

#include <weft/lcos/barrier.hpp>

#include <atomic>
#include <thread>

namespace {

using weft::test::policy_test;

class barrier_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(barrier_test);

TEST_P(barrier_test, completion_runs_once_per_phase) {
    in_task([] {
        int phases = 0;
        weft::barrier sync(3, [&]() noexcept { ++phases; });
        weft::task_group g;
        for (int i = 0; i < 3; ++i)
            g.run([&] {
                for (int round = 0; round < 5; ++round) sync.arrive_and_wait();
            });
        g.wait();
        EXPECT_EQ(phases, 5);
    });
}

TEST_P(barrier_test, completion_runs_after_all_arrivals_and_before_anyone_resumes) {
    in_task([] {
        const int parties = 4, rounds = 20;
        std::atomic<int> arrivals{0};
        int completed = 0;
        bool ok = true;
        weft::barrier sync(parties, [&]() noexcept {
            ok = ok && arrivals.load() == parties * (completed + 1);
            ++completed;
        });
        weft::task_group g;
        for (int i = 0; i < parties; ++i)
            g.run([&] {
                for (int round = 0; round < rounds; ++round) {
                    ++arrivals;
                    sync.arrive_and_wait();
                    EXPECT_GE(completed, round + 1);  // the completion of our phase is done
                }
            });
        g.wait();
        EXPECT_TRUE(ok);
        EXPECT_EQ(completed, rounds);
    });
}

TEST_P(barrier_test, arrive_then_wait_and_arrive_n) {
    in_task([] {
        weft::barrier<> b(3);
        static_assert(weft::barrier<>::max() > 1000);
        auto token = b.arrive(2);  // two arrivals at once
        auto last = weft::async([&] { b.arrive_and_wait(); });
        b.wait(std::move(token));
        last.get();
        auto t2 = b.arrive();
        auto t3 = b.arrive();
        auto t4 = b.arrive();  // completes phase 1
        b.wait(std::move(t2));  // already complete: returns at once
        b.wait(std::move(t3));
        b.wait(std::move(t4));
    });
}

TEST_P(barrier_test, arrive_and_drop_shrinks_later_phases) {
    in_task([] {
        int phases = 0;
        weft::barrier b(3, [&]() noexcept { ++phases; });
        auto leaver = weft::async([&] { b.arrive_and_drop(); });  // counts in phase 0 too
        auto stayer = weft::async([&] {
            for (int i = 0; i < 4; ++i) b.arrive_and_wait();
        });
        for (int i = 0; i < 4; ++i) b.arrive_and_wait();  // phases 1..3 need two parties
        leaver.get();
        stayer.get();
        EXPECT_EQ(phases, 4);
    });
}

TEST_P(barrier_test, plain_threads_and_tasks_share_a_barrier) {
    const int rounds = 50;
    std::atomic<int> phases{0};
    weft::barrier b(3, [&]() noexcept { ++phases; });
    std::thread t([&] {
        for (int i = 0; i < rounds; ++i) b.arrive_and_wait();
    });
    auto task = weft::async([&] {
        for (int i = 0; i < rounds; ++i) b.arrive_and_wait();
    });
    for (int i = 0; i < rounds; ++i) b.arrive_and_wait();  // this (plain) thread
    t.join();
    task.get();
    EXPECT_EQ(phases.load(), rounds);
}

TEST_P(barrier_test, stress_rounds_with_random_yields) {
    // Many parties, many rounds, random yields and the arrive/wait split: each round's
    // completion sees every arrival of that round and nothing of the next.
    const int parties = 8, rounds = weft::test::scaled(15000);
    in_task([&] {
        std::atomic<int> in_round{0};
        int round_no = 0;
        bool ok = true;
        weft::barrier b(parties, [&]() noexcept {
            ok = ok && in_round.exchange(0) == parties;
            ++round_no;
        });
        weft::task_group g;
        for (unsigned id = 0; id < parties; ++id)
            g.run([&, id] {
                weft::test::random_yield yield(id);
                for (int r = 0; r < rounds; ++r) {
                    yield();
                    ++in_round;
                    if (yield.next(2) == 0) {
                        b.arrive_and_wait();
                    } else {
                        auto token = b.arrive();
                        yield();
                        b.wait(std::move(token));
                    }
                }
            });
        g.wait();
        EXPECT_TRUE(ok);
        EXPECT_EQ(round_no, rounds);
    });
}

}  // namespace
