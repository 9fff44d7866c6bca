// weft::mutex and weft::recursive_mutex: mutual exclusion that suspends the waiting task,
// never its worker.
#pragma once

#include <weft/concurrency/backoff_spinlock.hpp>
#include <weft/lcos/detail/misuse.hpp>
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
/// compare-exchange each (plus relaxed stores of the owner, for the misuse checks and
/// the deadlock report). Contended, a locker spins briefly, then queues; unlock() hands
/// the mutex directly to the longest waiter (FIFO), so no waiter starves.
///
/// Misuse that std leaves undefined throws weft::lco_error instead: lock() by the task
/// (or thread) that holds the mutex (resource_deadlock_would_occur, where std::mutex may
/// deadlock; a timed lock by the owner just times out, try_lock() returns false), and
/// unlock() by one that does not (operation_not_permitted). Destroying a locked mutex
/// prints which task holds it and aborts. A waiting task tells the deadlock report
/// which task holds the mutex.
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
    /// Destroying a locked mutex cannot throw: it prints which task holds it and aborts.
    ~mutex() {
        // relaxed: whoever destroys the mutex is ordered after its last unlock (std's
        // precondition); a misused one is reported, not synchronized with.
        if (state_.load(std::memory_order_relaxed) != unlocked) destroyed_locked("mutex");
    }

    /// @brief Acquires the mutex, suspending the calling task until it is free.
    /// @throws weft::lco_error (resource_deadlock_would_occur) if the caller holds it.
    void lock() { lock_as(detail::wait_kind::mutex, this); }

    /// @brief Acquires the mutex if it is free right now (never waits).
    /// @return true if the caller now holds it (false if the caller holds it already).
    bool try_lock() noexcept {
        std::uint32_t expected = unlocked;
        // acquire: as in lock(); relaxed on failure: we return false and read nothing.
        if (!state_.compare_exchange_strong(expected, locked, std::memory_order_acquire, std::memory_order_relaxed))
            return false;
        adopt();
        return true;
    }

    /// @brief As lock(), but gives up once `rel` has passed (a non-positive `rel` is
    /// try_lock()). A waiting task is suspended and a timer armed; no worker blocks.
    /// @return true if the caller now holds the mutex.
    /// @throws weft::lco_error if the caller holds it and `rel` is too long to time out.
    template <class Rep, class Period>
    bool try_lock_for(const std::chrono::duration<Rep, Period>& rel) {
        return try_lock_for_as(rel, detail::wait_kind::mutex, this);
    }

    /// @brief As lock(), but gives up at `abs` (of any clock).
    /// @return true if the caller now holds the mutex.
    /// @throws weft::lco_error if the caller holds it and `abs` is too far to time out.
    template <class Clock, class Duration>
    bool try_lock_until(const std::chrono::time_point<Clock, Duration>& abs) {
        return try_lock_until_as(abs, detail::wait_kind::mutex, this);
    }

    /// @brief Releases the mutex; if tasks wait, the oldest becomes the owner and is
    /// resumed.
    /// @throws weft::lco_error (operation_not_permitted) if the caller does not hold it.
    void unlock() {
        // relaxed: only this agent's own store can make owner_ equal its identity.
        if (owner_.load(std::memory_order_relaxed) != detail::current_agent()) unlock_not_owner("mutex::unlock");
        release();
    }

private:
    friend class recursive_mutex;
    static constexpr std::uint32_t unlocked = 0;
    static constexpr std::uint32_t locked = 1;
    static constexpr std::uint32_t contended = 2;  ///< locked; the queue may hold waiters

    /// lock(), waiting as `kind` on `object` in the deadlock report (recursive_mutex
    /// locks through here).
    void lock_as(detail::wait_kind kind, const void* object) {
        std::uint32_t expected = unlocked;
        // acquire: the previous owner's critical section happens before ours; relaxed on
        // failure: lock_slow() reads the state again itself.
        if (!state_.compare_exchange_strong(expected, locked, std::memory_order_acquire, std::memory_order_relaxed))
            (void)lock_slow(nullptr, kind, object);
        adopt();
    }
    template <class Rep, class Period>
    bool try_lock_for_as(const std::chrono::duration<Rep, Period>& rel, detail::wait_kind kind, const void* object) {
        if (try_lock()) return true;
        const auto d = detail::deadline_after(rel);
        return finish_timed(lock_slow(d ? &*d : nullptr, kind, object));
    }
    template <class Clock, class Duration>
    bool try_lock_until_as(const std::chrono::time_point<Clock, Duration>& abs, detail::wait_kind kind,
                           const void* object) {
        if (try_lock()) return true;
        return finish_timed(detail::until(
            abs, [this, kind, object](const detail::steady_time* d) { return lock_slow(d, kind, object); }));
    }

    /// Spins, then queues; true once the caller owns the mutex, false at the deadline.
    /// @throws weft::lco_error if the caller holds the mutex and there is no deadline.
    bool lock_slow(const detail::steady_time* deadline, detail::wait_kind kind, const void* object);
    /// unlock() once the caller is known to be the owner.
    void release() noexcept {
        // relaxed (both): only the owner's own stores make them name it; waiters read
        // holder_ for diagnostics only (see lock_slow).
        owner_.store(nullptr, std::memory_order_relaxed);
        holder_.store(0, std::memory_order_relaxed);
        std::uint32_t expected = locked;
        // release: publishes our critical section to the next owner; relaxed on failure:
        // unlock_contended() reads the state again under lock_.
        if (!state_.compare_exchange_strong(expected, unlocked, std::memory_order_release, std::memory_order_relaxed))
            unlock_contended();
    }
    void unlock_contended() noexcept;
    /// Records the caller as the owner, once it holds the mutex.
    void adopt() noexcept {
        const detail::agent_id me = detail::current_agent_id();
        // relaxed (both): only this agent's own store can make owner_ equal its identity;
        // holder_ is read for diagnostics only.
        owner_.store(me.agent, std::memory_order_relaxed);
        holder_.store(me.holder, std::memory_order_relaxed);
    }
    bool finish_timed(bool acquired) noexcept {
        if (acquired) adopt();
        return acquired;
    }
    [[noreturn]] void unlock_not_owner(const char* where) const;
    [[noreturn]] void destroyed_locked(const char* type) const noexcept;

    std::atomic<std::uint32_t> state_{unlocked};
    std::atomic<const void*> owner_{nullptr};
    /// The owner's id for the deadlock report and misuse messages (wait_reason::holder).
    std::atomic<std::uint64_t> holder_{0};
    ext::backoff_spinlock lock_;  ///< guards waiters_ and the locked <-> contended transitions
    detail::wait_queue waiters_;
};

/// @brief A mutex that its owner (task or thread) may lock again; unlock as many times
/// as locked. Meets Lockable and TimedLockable, like std::recursive_timed_mutex.
///
/// unlock() by a task or thread that does not hold it throws weft::lco_error
/// (operation_not_permitted), as weft::mutex's does; destroying it locked aborts with a
/// message naming the owner.
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
    /// Destroying a locked mutex cannot throw: it prints which task holds it and aborts.
    ~recursive_mutex() {
        // relaxed: as in ~mutex().
        if (m_.state_.load(std::memory_order_relaxed) != mutex::unlocked) m_.destroyed_locked("recursive_mutex");
    }

    /// @brief Acquires the mutex (again, if the caller holds it already).
    void lock() {
        if (relock()) return;
        m_.lock_as(detail::wait_kind::recursive_mutex, this);
        depth_ = 1;
    }

    /// @brief As lock() if that needs no waiting. @return true if the caller holds it.
    bool try_lock() noexcept {
        if (relock()) return true;
        if (!m_.try_lock()) return false;
        depth_ = 1;
        return true;
    }

    /// @brief As lock(), giving up after `rel`. @return true if the caller holds it.
    template <class Rep, class Period>
    bool try_lock_for(const std::chrono::duration<Rep, Period>& rel) {
        if (relock()) return true;
        if (!m_.try_lock_for_as(rel, detail::wait_kind::recursive_mutex, this)) return false;
        depth_ = 1;
        return true;
    }

    /// @brief As lock(), giving up at `abs`. @return true if the caller holds it.
    template <class Clock, class Duration>
    bool try_lock_until(const std::chrono::time_point<Clock, Duration>& abs) {
        if (relock()) return true;
        if (!m_.try_lock_until_as(abs, detail::wait_kind::recursive_mutex, this)) return false;
        depth_ = 1;
        return true;
    }

    /// @brief Undoes one lock(); the last one releases the mutex.
    /// @throws weft::lco_error (operation_not_permitted) if the caller does not hold it.
    void unlock() {
        // relaxed: as in mutex::unlock().
        if (m_.owner_.load(std::memory_order_relaxed) != detail::current_agent())
            m_.unlock_not_owner("recursive_mutex::unlock");
        if (--depth_ == 0) m_.release();
    }

private:
    /// One more level if the caller holds the mutex already.
    bool relock() noexcept {
        // relaxed: only this agent's own store can make owner_ equal its identity.
        if (m_.owner_.load(std::memory_order_relaxed) != detail::current_agent()) return false;
        ++depth_;
        return true;
    }

    mutex m_;  ///< its owner_ and holder_ are ours
    std::size_t depth_ = 0;  ///< touched by the owner only
};

}  // namespace weft
