// A small test-and-test-and-set spinlock with exponential backoff, for rarely taken slow
// paths where a std::mutex would be overkill.
#pragma once

#include <weft/config/config.hpp>

#include <atomic>
#include <cstdint>
#include <thread>

namespace weft::ext {

/// @brief Test-and-test-and-set spinlock; meets Lockable (lock, try_lock, unlock).
///
/// Waiters spin on a plain load (so the cache line stays shared while the lock is held) and
/// back off exponentially between probes with cpu_relax(); past a bound they call
/// std::this_thread::yield() so a preempted holder can run. Use it for short, rarely
/// contended critical sections only: it is not fair and never sleeps in the kernel. It is
/// one byte; give it its own cache line (alignas(weft::cache_line_size)) if it is contended.
///
/// Example (from tests/unit/concurrency/spinlock_test.cpp):
/// @code
/// weft::ext::backoff_spinlock lock;
/// {
///     std::lock_guard guard(lock);
///     EXPECT_FALSE(lock.try_lock());
/// }
/// EXPECT_TRUE(lock.try_lock());
/// lock.unlock();
/// @endcode
class backoff_spinlock {
public:
    backoff_spinlock() = default;
    backoff_spinlock(const backoff_spinlock&) = delete;
    backoff_spinlock& operator=(const backoff_spinlock&) = delete;

    /// @brief Acquires the lock, spinning (then yielding) until it is free.
    void lock() noexcept {
        std::uint32_t pauses = 1;
        // acquire: pairs with unlock()'s release, so the previous critical section
        // happens before ours.
        while (locked_.exchange(true, std::memory_order_acquire)) {
            do {
                if (pauses <= max_pauses) {
                    for (std::uint32_t i = 0; i < pauses; ++i) {
                        detail::cpu_relax();
                    }
                    pauses *= 2;
                } else {
                    std::this_thread::yield();
                }
                // relaxed: only a probe; the acquire exchange above decides ownership.
            } while (locked_.load(std::memory_order_relaxed));
        }
    }

    /// @brief Acquires the lock if it is free right now.
    /// @return true if the lock is now held by the caller.
    bool try_lock() noexcept {
        // relaxed: a probe that avoids taking the line exclusive when the lock is held;
        // acquire on the exchange: as in lock().
        return !locked_.load(std::memory_order_relaxed) &&
               !locked_.exchange(true, std::memory_order_acquire);
    }

    /// @brief Releases the lock; the caller must hold it.
    void unlock() noexcept {
        // release: publishes the critical section to the next acquirer.
        locked_.store(false, std::memory_order_release);
    }

private:
    /// Longest pause burst before waiters switch to yielding: 1 + 2 + ... + 128 = 255 pauses.
    static constexpr std::uint32_t max_pauses = 128;

    std::atomic<bool> locked_{false};
};

}  // namespace weft::ext
