// weft::shared_mutex: a readers-writer lock for tasks that suspends waiters (never their
// worker) and lets neither readers nor writers starve.
#pragma once

#include <weft/concurrency/backoff_spinlock.hpp>
#include <weft/lcos/detail/misuse.hpp>
#include <weft/lcos/detail/wait_queue.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>

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
/// Misuse that std leaves undefined throws weft::lco_error instead: unlock() or
/// unlock_shared() by a task (or thread) that does not hold the lock in that mode
/// (operation_not_permitted), and a lock that could only be granted once the caller
/// released what it holds (resource_deadlock_would_occur): lock() while holding it
/// shared or exclusively, lock_shared() while holding it exclusively, or while holding
/// it shared when a writer waits (a reader may take it again while nobody waits). A
/// timed lock in those cases just times out and try_lock()/try_lock_shared() return
/// false, as for weft::mutex. To know who holds it, the lock records the writer and the
/// first four readers by identity (with a count each, under the internal lock that
/// every call takes anyway); readers beyond four at a time are only counted, so their
/// misuse is not detected. Destroying a locked shared_mutex aborts with a message.
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
    /// Destroying a locked shared_mutex cannot throw: it prints who holds it and aborts.
    ~shared_mutex() {
        if (writer_ || readers_ != 0 || !waiters_.empty()) destroyed_in_use();
    }

    /// @brief Acquires exclusive ownership, suspending until no one holds the lock.
    /// @throws weft::lco_error (resource_deadlock_would_occur) if the caller holds it.
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
    /// @throws weft::lco_error (operation_not_permitted) if the caller does not hold it.
    void unlock();

    /// @brief Acquires shared ownership, suspending while a writer holds or awaits it.
    /// @throws weft::lco_error (resource_deadlock_would_occur) if the caller holds it
    /// exclusively, or shared while a writer waits.
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
    /// @throws weft::lco_error (operation_not_permitted) if the caller does not hold it
    /// shared.
    void unlock_shared();

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
    /// Records `who` as holding the lock in `kind` mode (under lock_).
    void enter(std::uintptr_t kind, const detail::agent_id& who) noexcept;
    /// The tracked reader record of `agent`, or nullptr (under lock_).
    struct reader_record;
    reader_record* find_reader(const void* agent) noexcept;
    /// For a request that must wait (under lock_): nullptr if the caller holds nothing
    /// that keeps it waiting, else why it would wait for itself.
    const char* conflict(std::uintptr_t kind, const void* me) noexcept;
    /// The holder a new waiter names in the deadlock report (under lock_).
    std::uint64_t holder_for_report() const noexcept;
    /// Admits waiters from the front while they fit (under lock_).
    void admit(detail::wake_list& woken) noexcept;
    [[noreturn]] void destroyed_in_use() const noexcept;

    struct reader_record {
        const void* agent = nullptr;  ///< null: a free record
        std::uint64_t holder = 0;     ///< its wait_reason::holder
        std::size_t count = 0;        ///< how often it holds the lock shared
    };
    static constexpr std::size_t tracked_readers = 4;

    ext::backoff_spinlock lock_;  ///< guards everything below
    std::size_t readers_ = 0;  ///< shared holds, tracked or not
    bool writer_ = false;
    const void* writer_agent_ = nullptr;
    std::uint64_t writer_holder_ = 0;
    reader_record tracked_[tracked_readers];
    std::size_t untracked_ = 0;  ///< shared holds of readers without a record
    detail::wait_queue waiters_;  ///< tag: shared or exclusive; slot: the waiter's agent_id
};

}  // namespace weft
