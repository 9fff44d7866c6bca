// weft::spinlock: a busy-waiting lock for very short critical sections that, when it
// must wait long, yields the task to others instead of burning its worker.
#pragma once

#include <weft/config/config.hpp>
#include <weft/sched/this_task.hpp>

#include <atomic>
#include <cstdint>

namespace weft {

/// @brief A test-and-test-and-set spinlock for tasks; meets Lockable.
///
/// A waiter probes with plain loads and exponential backoff (cpu_relax), and past a
/// bound calls weft::this_task::yield(), which lets other tasks on its worker run (the
/// holder among them, if it was suspended there) — on a thread that is not a weft worker,
/// std::this_thread::yield(). It never queues, so it is not fair: use weft::mutex unless
/// the critical section is a few instructions and contention is rare.
///
/// Example (from tests/unit/lcos/spinlock_test.cpp):
/// @code
/// weft::spinlock lock;
/// long sum = 0;
/// weft::task_group g;
/// for (int i = 0; i < 4; ++i)
///     g.run([&] {
///         for (int k = 0; k < 1000; ++k) {
///             std::lock_guard guard(lock);
///             ++sum;
///         }
///     });
/// g.wait();
/// EXPECT_EQ(sum, 4000);
/// @endcode
class spinlock {
public:
    spinlock() = default;
    spinlock(const spinlock&) = delete;
    spinlock& operator=(const spinlock&) = delete;

    /// @brief Acquires the lock, spinning, then yielding the task, until it is free.
    void lock() {
        std::uint32_t pauses = 1;
        // acquire: pairs with unlock()'s release; the previous critical section happens
        // before ours.
        while (locked_.exchange(true, std::memory_order_acquire)) {
            do {
                if (pauses <= max_pauses) {
                    for (std::uint32_t i = 0; i < pauses; ++i) detail::cpu_relax();
                    pauses *= 2;
                } else {
                    this_task::yield();
                }
                // relaxed: only a probe; the acquire exchange decides ownership.
            } while (locked_.load(std::memory_order_relaxed));
        }
    }

    /// @brief Acquires the lock if it is free right now. @return true if acquired.
    bool try_lock() noexcept {
        // relaxed: a probe that keeps the line shared while the lock is held; acquire on
        // the exchange: as in lock().
        return !locked_.load(std::memory_order_relaxed) && !locked_.exchange(true, std::memory_order_acquire);
    }

    /// @brief Releases the lock; the caller must hold it.
    void unlock() noexcept {
        // release: publishes the critical section to the next acquirer.
        locked_.store(false, std::memory_order_release);
    }

private:
    /// Pause bursts 1 + 2 + ... + 64 before the waiter starts yielding its task.
    static constexpr std::uint32_t max_pauses = 64;

    std::atomic<bool> locked_{false};
};

}  // namespace weft
