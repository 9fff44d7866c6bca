// weft::shared_mutex: a readers-writer lock for tasks that suspends waiters (never their
// worker) and lets neither readers nor writers starve.
#pragma once

#include <weft/concurrency/spinlock.hpp>
#include <weft/lcos/detail/wait_queue.hpp>

#include <chrono>
#include <cstddef>

namespace weft {

/// @brief A readers-writer lock: many tasks may hold it shared, or one task exclusively.
/// Waiting suspends the task (its worker runs other tasks); on a thread that is not a
/// weft worker it blocks the thread.
///
/// Meets Lockable, SharedLockable and their timed variants (the API of
/// std::shared_timed_mutex), so std::unique_lock, std::shared_lock and std::scoped_lock
/// work with it. Admission is FIFO, as in the fair reader-writer queue lock of
/// Mellor-Crummey & Scott ("Scalable reader-writer synchronization for shared-memory
/// multiprocessors", PPoPP 1991, §3): a new reader does not overtake a queued writer, and
/// when the lock frees, the waiter at the front enters together with every reader queued
/// behind it up to the next writer. So neither side starves.
///
/// Example (from tests/unit/lcos/shared_mutex_test.cpp):
/// @code
/// weft::shared_mutex m;
/// {
///     std::shared_lock r1(m);
///     std::shared_lock r2(m);  // readers share
///     EXPECT_FALSE(m.try_lock());
/// }
/// std::unique_lock w(m);
/// EXPECT_FALSE(m.try_lock_shared());
/// @endcode
class shared_mutex {
public:
    shared_mutex() = default;
    shared_mutex(const shared_mutex&) = delete;
    shared_mutex& operator=(const shared_mutex&) = delete;
    ~shared_mutex() { WEFT_ASSERT(waiters_.empty()); }

    /// @brief Acquires exclusive ownership, suspending until no one holds the lock.
    void lock() { (void)acquire(exclusive, nullptr); }
    /// @brief Acquires exclusive ownership if nobody holds the lock and nobody waits.
    bool try_lock() noexcept;
    /// @brief As lock(), giving up after `rel`. @return true if acquired.
    template <class Rep, class Period>
    bool try_lock_for(const std::chrono::duration<Rep, Period>& rel) {
        return acquire_for(exclusive, rel);
    }
    /// @brief As lock(), giving up at `abs`. @return true if acquired.
    template <class Clock, class Duration>
    bool try_lock_until(const std::chrono::time_point<Clock, Duration>& abs) {
        return acquire_until(exclusive, abs);
    }
    /// @brief Releases exclusive ownership and admits the next waiter(s).
    void unlock() noexcept;

    /// @brief Acquires shared ownership, suspending while a writer holds or awaits it.
    void lock_shared() { (void)acquire(shared, nullptr); }
    /// @brief Acquires shared ownership if no writer holds it and nobody waits.
    bool try_lock_shared() noexcept;
    /// @brief As lock_shared(), giving up after `rel`. @return true if acquired.
    template <class Rep, class Period>
    bool try_lock_shared_for(const std::chrono::duration<Rep, Period>& rel) {
        return acquire_for(shared, rel);
    }
    /// @brief As lock_shared(), giving up at `abs`. @return true if acquired.
    template <class Clock, class Duration>
    bool try_lock_shared_until(const std::chrono::time_point<Clock, Duration>& abs) {
        return acquire_until(shared, abs);
    }
    /// @brief Releases one shared ownership; the last reader admits a waiting writer.
    void unlock_shared() noexcept;

private:
    static constexpr std::uintptr_t shared = 0;
    static constexpr std::uintptr_t exclusive = 1;

    template <class Rep, class Period>
    bool acquire_for(std::uintptr_t kind, const std::chrono::duration<Rep, Period>& rel) {
        const auto d = detail::deadline_after(rel);
        return acquire(kind, d ? &*d : nullptr);
    }
    template <class Clock, class Duration>
    bool acquire_until(std::uintptr_t kind, const std::chrono::time_point<Clock, Duration>& abs) {
        return detail::until(abs, [this, kind](const detail::steady_time* d) { return acquire(kind, d); });
    }
    /// True once acquired in `kind` mode, false at the deadline (null: none).
    bool acquire(std::uintptr_t kind, const detail::steady_time* deadline);
    bool admissible(std::uintptr_t kind) const noexcept {
        return !writer_ && (kind == shared || readers_ == 0);
    }
    /// Admits waiters from the front while they fit (under lock_).
    void admit(detail::wake_list& woken) noexcept;

    ext::spinlock lock_;  ///< guards everything below
    std::size_t readers_ = 0;
    bool writer_ = false;
    detail::wait_queue waiters_;  ///< tag: shared or exclusive
};

}  // namespace weft
