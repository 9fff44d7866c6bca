// weft::latch: a single-use countdown that tasks wait on by suspending, never blocking
// their worker (std::latch for tasks).
#pragma once

#include <weft/concurrency/backoff_spinlock.hpp>
#include <weft/lcos/detail/misuse.hpp>
#include <weft/lcos/detail/wait_queue.hpp>

#include <atomic>
#include <cstddef>
#include <limits>

namespace weft {

/// @brief A downward counter: count_down() decrements it, wait() suspends the calling
/// task until it reaches zero (a thread that is not a weft worker blocks). Single use.
///
/// The API is std::latch's. The counter and a "somebody waits" bit share one atomic
/// word, so the count_down() that reaches zero takes the internal lock only when a
/// waiter is queued, and touches nothing once the last waiter can have returned (the
/// latch may then be destroyed).
///
/// Where std's is undefined, this one throws weft::lco_error (invalid_argument): an
/// expected count outside 0..max(), a negative count_down(), and a count_down() past
/// zero (the counter is left unchanged). Destroying it while tasks wait prints that and
/// aborts.
///
/// Example (from tests/unit/lcos/latch_test.cpp):
/// @code
/// weft::latch done(3);
/// std::atomic<int> work{0};
/// for (int i = 0; i < 3; ++i)
///     weft::post([&] {
///         ++work;
///         done.count_down();
///     });
/// done.wait();
/// EXPECT_EQ(work.load(), 3);
/// @endcode
class latch {
public:
    /// @brief The largest initial count.
    static constexpr std::ptrdiff_t max() noexcept { return std::numeric_limits<std::ptrdiff_t>::max() / 2; }

    /// @brief A latch that opens after `expected` count-downs.
    /// @throws weft::lco_error (invalid_argument) unless 0 <= expected <= max().
    explicit latch(std::ptrdiff_t expected) : state_(checked_initial(expected) * 2) {}
    latch(const latch&) = delete;
    latch& operator=(const latch&) = delete;
    /// Destroying it while a task or thread waits cannot throw: prints that and aborts.
    ~latch() {
        if (!waiters_.empty()) detail::lco_destroyed_in_use("latch", "tasks or threads wait on it");
    }

    /// @brief Decrements the counter by `n`; at zero, resumes every waiter.
    /// @throws weft::lco_error (invalid_argument) if n < 0 or n is more than the count
    /// left (the counter is then unchanged).
    void count_down(std::ptrdiff_t n = 1);

    /// @brief True if the counter has reached zero (never waits).
    bool try_wait() const noexcept {
        // acquire: the count_down()s that brought it to zero happen before our return.
        return state_.load(std::memory_order_acquire) < 2;
    }

    /// @brief Suspends the calling task until the counter reaches zero.
    void wait() const;

    /// @brief count_down(n), then wait().
    void arrive_and_wait(std::ptrdiff_t n = 1) {
        count_down(n);
        wait();
    }

private:
    static constexpr std::ptrdiff_t waiting_bit = 1;

    static std::ptrdiff_t checked_initial(std::ptrdiff_t expected);
    [[noreturn]] static void count_down_past_zero(std::ptrdiff_t n, std::ptrdiff_t left);

    mutable std::atomic<std::ptrdiff_t> state_;  ///< count * 2 + waiting_bit
    mutable ext::backoff_spinlock lock_;
    mutable detail::wait_queue waiters_;
};

}  // namespace weft
