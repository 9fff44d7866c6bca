// weft::mutex and weft::recursive_mutex: mutual exclusion that suspends the waiting task,
// never its worker.
#pragma once

#include <weft/concurrency/spinlock.hpp>
#include <weft/lcos/detail/wait_queue.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace weft {

/// @brief A mutex for tasks: lock() on a held mutex suspends the calling task (its worker
/// runs other tasks meanwhile); on a thread that is not a weft worker it blocks the thread.
///
/// Meets Lockable and TimedLockable, so std::lock_guard, std::unique_lock,
/// std::scoped_lock and std::condition_variable_any work with it (weft::condition_variable
/// takes a std::unique_lock<weft::mutex>). An uncontended lock/unlock is one
/// compare-exchange each (plus a relaxed store of the owner, for the self-deadlock
/// check). Contended, a locker spins briefly, then queues; unlock() hands the mutex
/// directly to the longest waiter (FIFO), so no waiter starves.
///
/// Locking a mutex the calling task (or thread) already holds throws std::system_error
/// (resource_deadlock_would_occur) instead of deadlocking, as std::mutex may.
///
/// Example (from tests/unit/lcos/mutex_test.cpp):
/// @code
/// weft::mutex m;
/// int counter = 0;
/// weft::task_group g;
/// for (int i = 0; i < 8; ++i)
///     g.run([&] {
///         for (int k = 0; k < 100; ++k) {
///             std::lock_guard lock(m);
///             int v = counter;
///             weft::this_task::yield();  // another task may run here, but not enter
///             counter = v + 1;
///         }
///     });
/// g.wait();
/// EXPECT_EQ(counter, 800);
/// @endcode
class mutex {
public:
    mutex() = default;
    mutex(const mutex&) = delete;
    mutex& operator=(const mutex&) = delete;
    ~mutex() { WEFT_ASSERT(waiters_.empty()); }

    /// @brief Acquires the mutex, suspending the calling task until it is free.
    /// @throws std::system_error (resource_deadlock_would_occur) if the caller holds it.
    void lock() {
        std::uint32_t expected = unlocked;
        // acquire: the previous owner's critical section happens before ours.
        if (!state_.compare_exchange_strong(expected, locked, std::memory_order_acquire, std::memory_order_relaxed))
            lock_contended();
        // relaxed: only this agent's own store can make owner_ equal its identity.
        owner_.store(detail::current_agent(), std::memory_order_relaxed);
    }

    /// @brief Acquires the mutex if it is free right now (never waits).
    /// @return true if the caller now holds it.
    bool try_lock() noexcept {
        std::uint32_t expected = unlocked;
        // acquire: as in lock().
        if (!state_.compare_exchange_strong(expected, locked, std::memory_order_acquire, std::memory_order_relaxed))
            return false;
        owner_.store(detail::current_agent(), std::memory_order_relaxed);  // relaxed: as in lock()
        return true;
    }

    /// @brief As lock(), but gives up once `rel` has passed (a non-positive `rel` is
    /// try_lock()). A waiting task is suspended and a timer armed; no worker blocks.
    /// @return true if the caller now holds the mutex.
    template <class Rep, class Period>
    bool try_lock_for(const std::chrono::duration<Rep, Period>& rel) {
        if (try_lock()) return true;
        const auto d = detail::deadline_after(rel);
        return finish_timed(lock_slow(d ? &*d : nullptr));
    }

    /// @brief As lock(), but gives up at `abs` (of any clock).
    /// @return true if the caller now holds the mutex.
    template <class Clock, class Duration>
    bool try_lock_until(const std::chrono::time_point<Clock, Duration>& abs) {
        if (try_lock()) return true;
        return finish_timed(detail::until(abs, [this](const detail::steady_time* d) { return lock_slow(d); }));
    }

    /// @brief Releases the mutex (the caller must hold it); if tasks wait, the oldest
    /// becomes the owner and is resumed.
    void unlock() noexcept {
        owner_.store(nullptr, std::memory_order_relaxed);  // relaxed: as in lock()
        std::uint32_t expected = locked;
        // release: publishes our critical section to the next owner.
        if (!state_.compare_exchange_strong(expected, unlocked, std::memory_order_release, std::memory_order_relaxed))
            unlock_contended();
    }

private:
    static constexpr std::uint32_t unlocked = 0;
    static constexpr std::uint32_t locked = 1;
    static constexpr std::uint32_t contended = 2;  ///< locked; the queue may hold waiters

    void lock_contended();
    /// Spins, then queues; true once the caller owns the mutex, false at the deadline.
    bool lock_slow(const detail::steady_time* deadline);
    void unlock_contended() noexcept;
    bool finish_timed(bool acquired) noexcept {
        // relaxed: as in lock().
        if (acquired) owner_.store(detail::current_agent(), std::memory_order_relaxed);
        return acquired;
    }

    std::atomic<std::uint32_t> state_{unlocked};
    std::atomic<const void*> owner_{nullptr};
    ext::spinlock lock_;  ///< guards waiters_ and the locked <-> contended transitions
    detail::wait_queue waiters_;
};

/// @brief A mutex that its owner (task or thread) may lock again; unlock as many times
/// as locked. Meets Lockable and TimedLockable, like std::recursive_timed_mutex.
///
/// Example (from tests/unit/lcos/mutex_test.cpp):
/// @code
/// weft::recursive_mutex m;
/// std::lock_guard outer(m);
/// {
///     std::lock_guard inner(m);  // the same task: no deadlock
///     EXPECT_TRUE(m.try_lock());
///     m.unlock();
/// }
/// @endcode
class recursive_mutex {
public:
    recursive_mutex() = default;
    recursive_mutex(const recursive_mutex&) = delete;
    recursive_mutex& operator=(const recursive_mutex&) = delete;

    /// @brief Acquires the mutex (again, if the caller holds it already).
    void lock() {
        const void* me = detail::current_agent();
        // relaxed: only this agent's own store can make owner_ equal its identity.
        if (owner_.load(std::memory_order_relaxed) == me) {
            ++depth_;
            return;
        }
        m_.lock();
        adopt(me);
    }

    /// @brief As lock() if that needs no waiting. @return true if the caller holds it.
    bool try_lock() noexcept {
        const void* me = detail::current_agent();
        if (owner_.load(std::memory_order_relaxed) == me) {  // relaxed: as in lock()
            ++depth_;
            return true;
        }
        if (!m_.try_lock()) return false;
        adopt(me);
        return true;
    }

    /// @brief As lock(), giving up after `rel`. @return true if the caller holds it.
    template <class Rep, class Period>
    bool try_lock_for(const std::chrono::duration<Rep, Period>& rel) {
        const void* me = detail::current_agent();
        if (owner_.load(std::memory_order_relaxed) == me) {  // relaxed: as in lock()
            ++depth_;
            return true;
        }
        if (!m_.try_lock_for(rel)) return false;
        adopt(me);
        return true;
    }

    /// @brief As lock(), giving up at `abs`. @return true if the caller holds it.
    template <class Clock, class Duration>
    bool try_lock_until(const std::chrono::time_point<Clock, Duration>& abs) {
        const void* me = detail::current_agent();
        if (owner_.load(std::memory_order_relaxed) == me) {  // relaxed: as in lock()
            ++depth_;
            return true;
        }
        if (!m_.try_lock_until(abs)) return false;
        adopt(me);
        return true;
    }

    /// @brief Undoes one lock(); the last one releases the mutex.
    void unlock() noexcept {
        WEFT_ASSERT(depth_ > 0);
        if (--depth_ != 0) return;
        owner_.store(nullptr, std::memory_order_relaxed);  // relaxed: as in lock()
        m_.unlock();
    }

private:
    void adopt(const void* me) noexcept {
        owner_.store(me, std::memory_order_relaxed);  // relaxed: as in lock()
        depth_ = 1;
    }

    mutex m_;
    std::atomic<const void*> owner_{nullptr};
    std::size_t depth_ = 0;  ///< touched by the owner only
};

}  // namespace weft
