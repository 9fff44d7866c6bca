// weft::barrier: std::barrier for tasks, a reusable phase barrier whose waiters suspend
// (never blocking their worker), with a completion step run once per phase.
#pragma once

#include <weft/concurrency/backoff_spinlock.hpp>
#include <weft/lcos/detail/misuse.hpp>
#include <weft/lcos/detail/wait_queue.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>

namespace weft {
namespace detail {

/// The completion step of a barrier<> without one.
struct no_completion {
    void operator()() const noexcept {}
};

}  // namespace detail

/// @brief A reusable barrier for a set of tasks, with std::barrier's API: each phase
/// completes when `expected` arrivals have been counted; then the completion function
/// runs once (on the task or thread that arrived last), then every waiter of that
/// phase resumes, and the next phase begins.
///
/// wait() suspends the calling task (its worker runs other tasks); a thread that is not
/// a weft worker blocks. The completion function runs with no internal lock held, so it
/// may itself use weft's synchronization; it must not throw (std requires
/// is_nothrow_invocable). Where std::barrier's behaviour is undefined, this one throws
/// weft::lco_error (invalid_argument) and counts nothing: arriving more often than
/// expected in one phase, arrive(n) with n < 1, a negative expected count. Destroying
/// it while tasks wait prints that and aborts.
///
/// Example (from tests/unit/lcos/barrier_test.cpp):
/// @code
/// int phases = 0;
/// weft::barrier sync(3, [&]() noexcept { ++phases; });
/// weft::task_group g;
/// for (int i = 0; i < 3; ++i)
///     g.run([&] {
///         for (int round = 0; round < 5; ++round) sync.arrive_and_wait();
///     });
/// g.wait();
/// EXPECT_EQ(phases, 5);
/// @endcode
template <class CompletionFunction = detail::no_completion>
class barrier {
    static_assert(std::is_nothrow_invocable_v<CompletionFunction&>,
                  "a barrier's completion function must be invocable without arguments and noexcept");

public:
    /// @brief Names the phase an arrival belongs to; pass it to wait().
    class arrival_token {
    public:
        arrival_token(arrival_token&&) noexcept = default;
        arrival_token& operator=(arrival_token&&) noexcept = default;

    private:
        friend class barrier;
        explicit arrival_token(std::uint64_t phase) noexcept : phase_(phase) {}
        std::uint64_t phase_;
    };

    /// @brief The largest expected count.
    static constexpr std::ptrdiff_t max() noexcept { return std::numeric_limits<std::ptrdiff_t>::max(); }

    /// @brief A barrier for `expected` participants.
    /// @throws weft::lco_error (invalid_argument) unless 0 <= expected <= max().
    explicit barrier(std::ptrdiff_t expected, CompletionFunction f = CompletionFunction())
        : completion_(std::move(f)), expected_(expected), remaining_(expected) {
        if (expected < 0)
            detail::throw_lco_error(std::errc::invalid_argument, "barrier",
                                    "the expected count " + std::to_string(expected) + " is negative");
    }
    barrier(const barrier&) = delete;
    barrier& operator=(const barrier&) = delete;
    /// Destroying it while a task or thread waits cannot throw: prints that and aborts.
    ~barrier() {
        if (!waiters_.empty()) detail::lco_destroyed_in_use("barrier", "tasks or threads wait on it");
    }

    /// @brief Counts `n` arrivals in the current phase (never waits). The last one runs
    /// the phase's completion step.
    /// @return a token for wait().
    /// @throws weft::lco_error (invalid_argument) if n < 1 or more than the arrivals
    /// the phase still expects.
    [[nodiscard]] arrival_token arrive(std::ptrdiff_t n = 1) { return arrive_impl(n, false); }

    /// @brief Suspends the calling task until the phase of `token` has completed
    /// (returns at once if it has).
    void wait(arrival_token&& token) const {
        detail::wait_node node;
        {
            std::lock_guard g(lock_);
            if (phase_ != token.phase_) return;
            node.reason = {detail::wait_kind::barrier, this, 0};
            waiters_.push_back(node);
        }
        (void)node.block();
    }

    /// @brief wait(arrive()).
    void arrive_and_wait() { wait(arrive()); }

    /// @brief Leaves the barrier: one fewer participant from the next phase on, and one
    /// arrival in the current phase.
    /// @throws weft::lco_error (invalid_argument) if the phase expects no more arrivals.
    void arrive_and_drop() { (void)arrive_impl(1, true); }

private:
    arrival_token arrive_impl(std::ptrdiff_t n, bool drop) {
        std::uint64_t phase = 0;
        bool last = false;
        std::ptrdiff_t left = 0;
        {
            std::lock_guard g(lock_);
            left = remaining_;
            if (n > 0 && n <= left) {
                if (drop) --expected_;
                remaining_ -= n;
                phase = phase_;
                last = remaining_ == 0;
            }
        }
        if (n <= 0 || n > left) over_arrival(n, left, drop);
        if (last) complete_phase();
        return arrival_token(phase);
    }

    [[noreturn]] static void over_arrival(std::ptrdiff_t n, std::ptrdiff_t left, bool drop) {
        const char* where = drop ? "barrier::arrive_and_drop" : "barrier::arrive";
        if (n <= 0)
            detail::throw_lco_error(std::errc::invalid_argument, where,
                                    "arrive(" + std::to_string(n) + "): the count of arrivals must be at least 1");
        detail::throw_lco_error(std::errc::invalid_argument, where,
                                std::to_string(n) + " more arrival(s) in a phase that expects " +
                                    std::to_string(left) + " more: a participant arrived more often than expected");
    }

    /// The completion step: everyone of this phase has arrived, nobody can arrive again
    /// before we open the next phase, so the completion runs without the lock.
    void complete_phase() noexcept {
        completion_();
        detail::wake_list woken;
        std::lock_guard g(lock_);
        ++phase_;
        remaining_ = expected_;
        woken.claim_all(waiters_);
    }

    CompletionFunction completion_;
    mutable ext::backoff_spinlock lock_;  ///< guards everything below
    std::ptrdiff_t expected_;
    std::ptrdiff_t remaining_;
    std::uint64_t phase_ = 0;
    mutable detail::wait_queue waiters_;
};

}  // namespace weft
