// Tests of weft::ext::backoff_spinlock: Lockable behaviour on one thread, and mutual exclusion
// under four contending threads.
#include <weft/concurrency/backoff_spinlock.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

namespace {

TEST(spinlock, example_from_the_header) {
    weft::ext::backoff_spinlock lock;
    {
        std::lock_guard guard(lock);
        EXPECT_FALSE(lock.try_lock());
    }
    EXPECT_TRUE(lock.try_lock());
    lock.unlock();
}

TEST(spinlock, works_with_standard_lock_types) {
    weft::ext::backoff_spinlock a, b;
    {
        std::scoped_lock both(a, b);  // needs try_lock (Lockable)
        EXPECT_FALSE(a.try_lock());
        EXPECT_FALSE(b.try_lock());
    }
    std::unique_lock guard(a, std::try_to_lock);
    EXPECT_TRUE(guard.owns_lock());
    guard.unlock();
    EXPECT_TRUE(b.try_lock());
    b.unlock();
}

// Four threads increment plain (non-atomic) counters under the lock; a lost update or a data
// race (under TSan) means the lock failed to exclude. Half the acquisitions use try_lock.
TEST(spinlock_stress, four_threads_increment_a_counter) {
    constexpr std::size_t threads_count = 4;
    constexpr std::size_t per_thread = 100'000;
    weft::ext::backoff_spinlock lock;
    std::size_t counter = 0;
    std::vector<std::size_t> history;  // a non-trivial critical section
    history.reserve(threads_count * per_thread);

    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < threads_count; ++t) {
        threads.emplace_back([&, t] {
            for (std::size_t i = 0; i < per_thread; ++i) {
                if ((i + t) % 2 == 0) {
                    std::lock_guard guard(lock);
                    history.push_back(counter++);
                } else {
                    while (!lock.try_lock()) std::this_thread::yield();
                    history.push_back(counter++);
                    lock.unlock();
                }
            }
        });
    }
    for (auto& th : threads) th.join();

    EXPECT_EQ(counter, threads_count * per_thread);
    ASSERT_EQ(history.size(), threads_count * per_thread);
    for (std::size_t i = 0; i < history.size(); ++i) ASSERT_EQ(history[i], i);
}

}  // namespace
