// weft::counting_semaphore and weft::binary_semaphore: std's semaphores for tasks, whose
// acquire suspends the task, never its worker.
#pragma once

#include <weft/concurrency/backoff_spinlock.hpp>
#include <weft/lcos/detail/misuse.hpp>
#include <weft/lcos/detail/wait_queue.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <limits>

namespace weft {
namespace detail {

/// The part of counting_semaphore that does not depend on its maximum.
///
/// count_ is the number of free permits; acquire takes one with a compare-exchange.
/// waiters_ (changed under lock_) counts queued nodes, so that release() takes lock_ only
/// when someone may wait: release adds to count_ then reads waiters_, a waiter adds to
/// waiters_ then re-reads count_ (all seq_cst, Dekker-style), so at least one of them sees
/// the other and no wake-up is lost. Released permits are handed to queued waiters in
/// FIFO order; a task that arrives meanwhile may take a free permit first (barging).
class semaphore_core {
public:
    explicit semaphore_core(std::ptrdiff_t desired) noexcept : count_(desired) {}
    semaphore_core(const semaphore_core&) = delete;
    semaphore_core& operator=(const semaphore_core&) = delete;
    /// Destroying it while a task or thread waits cannot throw: prints that and aborts.
    ~semaphore_core() {
        if (waiters_.load() != 0) lco_destroyed_in_use("counting_semaphore", "tasks or threads wait on it");
    }
    /// `desired`, if a semaphore with at most `max` permits can start with it.
    /// @throws weft::lco_error (invalid_argument) otherwise.
    static std::ptrdiff_t checked_initial(std::ptrdiff_t desired, std::ptrdiff_t max);

    bool try_acquire() noexcept {
        // relaxed: a first guess; the compare-exchange decides.
        std::ptrdiff_t c = count_.load(std::memory_order_relaxed);
        while (c > 0)
            // acquire: the release() that made this permit happens before our return;
            // relaxed on failure: a new guess.
            if (count_.compare_exchange_weak(c, c - 1, std::memory_order_acquire, std::memory_order_relaxed))
                return true;
        return false;
    }

    /// Queues the caller; true once it holds a permit, false at the deadline.
    bool acquire_slow(const steady_time* deadline);
    /// @throws weft::lco_error if n < 0 or the count would pass `max`.
    void release(std::ptrdiff_t n, std::ptrdiff_t max);

private:
    void hand_out(wake_list& woken) noexcept;

    std::atomic<std::ptrdiff_t> count_;
    std::atomic<std::ptrdiff_t> waiters_{0};
    ext::backoff_spinlock lock_;
    wait_queue queue_;
};

}  // namespace detail

/// @brief std::counting_semaphore for tasks: acquire() on a zero count suspends the task
/// (its worker runs other tasks), or blocks a thread that is not a weft worker.
///
/// release(n) adds n permits and resumes up to n waiters, oldest first. Timed acquires
/// arm a timer on the runtime's timer thread; they never block a worker. Where std's is
/// undefined, this one throws weft::lco_error: release() past max() (value_too_large),
/// release() of a negative count or a desired count outside 0..max() (invalid_argument).
/// Destroying it while tasks wait prints that and aborts.
///
/// Example (from tests/unit/lcos/counting_semaphore_test.cpp):
/// @code
/// weft::counting_semaphore<2> slots(2);
/// std::atomic<int> inside{0}, most{0};
/// weft::task_group g;
/// for (int i = 0; i < 8; ++i)
///     g.run([&] {
///         slots.acquire();
///         int now = ++inside;
///         int seen = most.load();
///         while (now > seen && !most.compare_exchange_weak(seen, now)) {
///         }
///         weft::this_task::yield();
///         --inside;
///         slots.release();
///     });
/// g.wait();
/// EXPECT_LE(most.load(), 2);
/// @endcode
template <std::ptrdiff_t LeastMaxValue = std::numeric_limits<std::ptrdiff_t>::max()>
class counting_semaphore {
    static_assert(LeastMaxValue >= 0, "a semaphore's maximum cannot be negative");

public:
    /// @brief The largest count this semaphore supports.
    static constexpr std::ptrdiff_t max() noexcept { return LeastMaxValue; }

    /// @brief A semaphore with `desired` free permits.
    /// @throws weft::lco_error (invalid_argument) unless 0 <= desired <= max().
    explicit counting_semaphore(std::ptrdiff_t desired)
        : core_(detail::semaphore_core::checked_initial(desired, max())) {}
    counting_semaphore(const counting_semaphore&) = delete;
    counting_semaphore& operator=(const counting_semaphore&) = delete;

    /// @brief Adds `update` permits, resuming as many waiting tasks.
    /// @throws weft::lco_error if update < 0 or the count would pass max().
    void release(std::ptrdiff_t update = 1) { core_.release(update, max()); }

    /// @brief Takes a permit, suspending the calling task until one is free.
    void acquire() {
        if (!core_.try_acquire()) (void)core_.acquire_slow(nullptr);
    }

    /// @brief Takes a permit if one is free right now. @return true if taken.
    bool try_acquire() noexcept { return core_.try_acquire(); }

    /// @brief As acquire(), giving up after `rel`. @return true if a permit was taken.
    template <class Rep, class Period>
    bool try_acquire_for(const std::chrono::duration<Rep, Period>& rel) {
        if (core_.try_acquire()) return true;
        const auto d = detail::deadline_after(rel);
        return core_.acquire_slow(d ? &*d : nullptr);
    }

    /// @brief As acquire(), giving up at `abs`. @return true if a permit was taken.
    template <class Clock, class Duration>
    bool try_acquire_until(const std::chrono::time_point<Clock, Duration>& abs) {
        if (core_.try_acquire()) return true;
        return detail::until(abs, [this](const detail::steady_time* d) { return core_.acquire_slow(d); });
    }

private:
    detail::semaphore_core core_;
};

/// @brief A semaphore with at most one permit.
using binary_semaphore = counting_semaphore<1>;

}  // namespace weft
