// weft::spinlock: exclusion, try_lock, and that a spinning task yields so that the holder
// can run on the same worker — on every policy.
#include "lcos_test_util.hpp"

#include <weft/lcos/spinlock.hpp>

#include <atomic>
#include <future>
#include <mutex>
#include <thread>

namespace {

using weft::test::policy_test;

class spinlock_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(spinlock_test);

TEST_P(spinlock_test, excludes_tasks) {
    in_task([] {
        weft::spinlock lock;
        long sum = 0;
        weft::task_group g;
        for (int i = 0; i < 4; ++i)
            g.run([&] {
                for (int k = 0; k < 1000; ++k) {
                    std::lock_guard guard(lock);
                    ++sum;
                }
            });
        g.wait();
        EXPECT_EQ(sum, 4000);
    });
}

TEST_P(spinlock_test, try_lock_and_unlock) {
    weft::spinlock lock;
    EXPECT_TRUE(lock.try_lock());
    EXPECT_FALSE(lock.try_lock());
    EXPECT_FALSE(std::async(std::launch::async, [&] { return lock.try_lock(); }).get());
    lock.unlock();
    std::unique_lock ul(lock);
    EXPECT_TRUE(ul.owns_lock());
}

TEST_P(spinlock_test, a_spinning_task_yields_to_the_holder_on_its_worker) {
    // The holder suspends (yields) while holding the lock. On one worker the spinner
    // must yield its task for the holder to run again and unlock: else this never ends.
    in_task([] {
        weft::spinlock lock;
        std::atomic<bool> held{false}, spinner_started{false};
        auto holder = weft::async([&] {
            std::lock_guard guard(lock);
            held = true;
            weft::test::yield_until([&] { return spinner_started.load(); });
            for (int i = 0; i < 50; ++i) weft::this_task::yield();
        });
        weft::test::yield_until([&] { return held.load(); });
        spinner_started = true;
        lock.lock();
        lock.unlock();
        holder.get();
    });
}

TEST_P(spinlock_test, stress_tasks_and_a_plain_thread) {
    const int tasks = 8, rounds = weft::test::scaled(30000);
    weft::spinlock lock;
    long count = 0;
    std::atomic<long> acquired{0};
    auto body = [&](unsigned id) {
        weft::test::random_yield yield(id);
        for (int r = 0; r < rounds; ++r) {
            if (yield.next(4) == 0) {
                if (!lock.try_lock()) continue;
            } else {
                lock.lock();
            }
            ++acquired;
            long v = count;
            yield(16);  // rarely: holding a spinlock across a yield is legal but slow
            count = v + 1;
            lock.unlock();
            yield();
        }
    };
    std::thread plain([&] {
        for (int r = 0; r < rounds; ++r) {
            std::lock_guard guard(lock);
            ++count;
            ++acquired;
        }
    });
    in_task([&] {
        weft::task_group g;
        for (unsigned id = 0; id < tasks; ++id) g.run([&body, id] { body(id); });
        g.wait();
    });
    plain.join();
    EXPECT_EQ(count, acquired.load());
    EXPECT_GE(count, long{rounds});
    EXPECT_TRUE(lock.try_lock());
}

}  // namespace
