// weft::condition_variable and weft::condition_variable_any: waiting for a condition
// under a lock by suspending the task, never its worker.
#pragma once

#include <weft/concurrency/backoff_spinlock.hpp>
#include <weft/lcos/detail/misuse.hpp>
#include <weft/lcos/detail/wait_queue.hpp>
#include <weft/lcos/mutex.hpp>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <utility>

namespace weft {
namespace detail {

/// The waiters of a condition variable. A waiter links its node before it releases the
/// user's lock, so a notify that follows the release always finds it: no lost wake-up.
class cv_queue {
public:
    /// The queue of a condition_variable (or, if `any`, a condition_variable_any); its
    /// first member, so that the queue's address is the variable's (the object a waiter
    /// names in the deadlock report).
    explicit cv_queue(bool any) noexcept : any_(any) {}
    cv_queue(const cv_queue&) = delete;
    cv_queue& operator=(const cv_queue&) = delete;
    /// Destroying it while a task or thread waits cannot throw: prints that and aborts
    /// (as std's, it may be destroyed once every waiter has been notified).
    ~cv_queue() {
        if (!waiters_.empty())
            lco_destroyed_in_use(any_ ? "condition_variable_any" : "condition_variable", "tasks or threads wait on it");
    }

    void enqueue(wait_node& n) noexcept;
    /// Unlinks a node that timed out (or whose wait was abandoned), if still linked.
    void cancel(wait_node& n) noexcept;
    void notify_one() noexcept;
    void notify_all() noexcept;

    /// Releases `lk`, waits for a notification or the deadline, and re-acquires `lk`
    /// (std::terminate if that throws, as for std::condition_variable).
    template <class Lock>
    wait_status wait(Lock& lk, const steady_time* deadline) {
        wait_node node(deadline);
        node.reason = {wait_kind::condition_variable, this, 0};
        enqueue(node);
        try {
            lk.unlock();
        } catch (...) {
            cancel(node);
            throw;
        }
        const wait_status s = node.block();
        if (s == wait_status::timed_out) cancel(node);
        relock(lk);
        return s;
    }

private:
    template <class Lock>
    static void relock(Lock& lk) noexcept {
        lk.lock();
    }

    ext::backoff_spinlock lock_;
    bool any_;
    wait_queue waiters_;
};

/// The shared body of both condition variables' waits.
template <class Self, class Lock>
class cv_waits {
public:
    /// @brief Releases `lk`, suspends until notified, and re-acquires `lk` before returning
    /// (even if the notification came first: wake-ups are never lost). May wake
    /// spuriously, as std's; prefer the predicate overload.
    void wait(Lock& lk) { (void)queue().wait(lk, nullptr); }

    /// @brief Waits until `pred()` holds (checked under `lk`).
    template <class Predicate>
    void wait(Lock& lk, Predicate pred) {
        while (!pred()) wait(lk);
    }

    /// @brief As wait(lk), giving up after `rel` (the task is suspended and a timer armed).
    /// @return std::cv_status::timeout if the time passed without a notification.
    template <class Rep, class Period>
    std::cv_status wait_for(Lock& lk, const std::chrono::duration<Rep, Period>& rel) {
        const auto d = deadline_after(rel);
        return queue().wait(lk, d ? &*d : nullptr) == wait_status::notified ? std::cv_status::no_timeout
                                                                              : std::cv_status::timeout;
    }

    /// @brief Waits until `pred()` holds or `rel` has passed. @return pred() at the end.
    template <class Rep, class Period, class Predicate>
    bool wait_for(Lock& lk, const std::chrono::duration<Rep, Period>& rel, Predicate pred) {
        const auto d = deadline_after(rel);
        if (!d) {
            wait(lk, std::move(pred));
            return true;
        }
        return wait_until(lk, *d, std::move(pred));
    }

    /// @brief As wait(lk), giving up at `abs` (of any clock).
    /// @return std::cv_status::timeout if `abs` passed without a notification.
    template <class Clock, class Duration>
    std::cv_status wait_until(Lock& lk, const std::chrono::time_point<Clock, Duration>& abs) {
        return until(abs, [&](const steady_time* d) { return queue().wait(lk, d) == wait_status::notified; })
                   ? std::cv_status::no_timeout
                   : std::cv_status::timeout;
    }

    /// @brief Waits until `pred()` holds or `abs` has passed. @return pred() at the end.
    template <class Clock, class Duration, class Predicate>
    bool wait_until(Lock& lk, const std::chrono::time_point<Clock, Duration>& abs, Predicate pred) {
        while (!pred())
            if (wait_until(lk, abs) == std::cv_status::timeout) return pred();
        return true;
    }

private:
    cv_queue& queue() noexcept { return static_cast<Self*>(this)->queue_; }
};

/// The waits of condition_variable_any, for any BasicLockable.
template <class Self>
class cv_any_waits {
public:
    /// @brief As condition_variable::wait(lk), for any BasicLockable `lk`.
    template <class Lock>
    void wait(Lock& lk) {
        (void)queue().wait(lk, nullptr);
    }
    /// @brief Waits until `pred()` holds (checked under `lk`).
    template <class Lock, class Predicate>
    void wait(Lock& lk, Predicate pred) {
        while (!pred()) wait(lk);
    }
    /// @brief As wait(lk), giving up after `rel`. @return std::cv_status::timeout if it did.
    template <class Lock, class Rep, class Period>
    std::cv_status wait_for(Lock& lk, const std::chrono::duration<Rep, Period>& rel) {
        const auto d = deadline_after(rel);
        return queue().wait(lk, d ? &*d : nullptr) == wait_status::notified ? std::cv_status::no_timeout
                                                                              : std::cv_status::timeout;
    }
    /// @brief Waits until `pred()` holds or `rel` has passed. @return pred() at the end.
    template <class Lock, class Rep, class Period, class Predicate>
    bool wait_for(Lock& lk, const std::chrono::duration<Rep, Period>& rel, Predicate pred) {
        const auto d = deadline_after(rel);
        if (!d) {
            wait(lk, std::move(pred));
            return true;
        }
        return wait_until(lk, *d, std::move(pred));
    }
    /// @brief As wait(lk), giving up at `abs`. @return std::cv_status::timeout if it did.
    template <class Lock, class Clock, class Duration>
    std::cv_status wait_until(Lock& lk, const std::chrono::time_point<Clock, Duration>& abs) {
        return until(abs, [&](const steady_time* d) { return queue().wait(lk, d) == wait_status::notified; })
                   ? std::cv_status::no_timeout
                   : std::cv_status::timeout;
    }
    /// @brief Waits until `pred()` holds or `abs` has passed. @return pred() at the end.
    template <class Lock, class Clock, class Duration, class Predicate>
    bool wait_until(Lock& lk, const std::chrono::time_point<Clock, Duration>& abs, Predicate pred) {
        while (!pred())
            if (wait_until(lk, abs) == std::cv_status::timeout) return pred();
        return true;
    }

private:
    cv_queue& queue() noexcept { return static_cast<Self*>(this)->queue_; }
};

}  // namespace detail

/// @brief A condition variable for tasks, used with std::unique_lock<weft::mutex>: wait()
/// suspends the calling task (its worker runs other tasks), or blocks a thread that is
/// not a weft worker.
///
/// The API is std::condition_variable's: wait, wait with a predicate, wait_for and
/// wait_until (returning std::cv_status, or the predicate with one), notify_one,
/// notify_all. A waiter is queued before it releases the lock, so a notification sent
/// after that is never lost; notify_one wakes the longest waiter. Timed waits arm a timer
/// on the runtime's timer thread and never block a worker. As with std's, it may be
/// destroyed once every waiter has been notified, even before they have returned.
///
/// Example (from tests/unit/lcos/condition_variable_test.cpp):
/// @code
/// weft::mutex m;
/// weft::condition_variable cv;
/// bool ready = false;
/// auto waiter = weft::async([&] {
///     std::unique_lock lock(m);
///     cv.wait(lock, [&] { return ready; });
///     return 42;
/// });
/// {
///     std::lock_guard lock(m);
///     ready = true;
/// }
/// cv.notify_one();
/// EXPECT_EQ(waiter.get(), 42);
/// @endcode
class condition_variable : public detail::cv_waits<condition_variable, std::unique_lock<mutex>> {
public:
    condition_variable() = default;
    condition_variable(const condition_variable&) = delete;
    condition_variable& operator=(const condition_variable&) = delete;

    /// @brief Wakes the longest-waiting task or thread, if any.
    void notify_one() noexcept { queue_.notify_one(); }
    /// @brief Wakes every waiting task and thread.
    void notify_all() noexcept { queue_.notify_all(); }

private:
    friend class detail::cv_waits<condition_variable, std::unique_lock<mutex>>;
    detail::cv_queue queue_{false};
};

/// @brief As weft::condition_variable, with any BasicLockable: a weft::mutex,
/// weft::shared_mutex through std::shared_lock, weft::spinlock, or a std::mutex.
///
/// Example (from tests/unit/lcos/condition_variable_test.cpp):
/// @code
/// weft::shared_mutex m;
/// weft::condition_variable_any cv;
/// int stage = 0;
/// auto reader = weft::async([&] {
///     std::shared_lock lock(m);
///     cv.wait(lock, [&] { return stage == 1; });
/// });
/// {
///     std::unique_lock lock(m);
///     stage = 1;
/// }
/// cv.notify_all();
/// reader.get();
/// @endcode
class condition_variable_any : public detail::cv_any_waits<condition_variable_any> {
public:
    condition_variable_any() = default;
    condition_variable_any(const condition_variable_any&) = delete;
    condition_variable_any& operator=(const condition_variable_any&) = delete;

    /// @brief Wakes the longest-waiting task or thread, if any.
    void notify_one() noexcept { queue_.notify_one(); }
    /// @brief Wakes every waiting task and thread.
    void notify_all() noexcept { queue_.notify_all(); }

private:
    friend class detail::cv_any_waits<condition_variable_any>;
    detail::cv_queue queue_{true};
};

}  // namespace weft
