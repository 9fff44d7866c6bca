// weft::event: a flag that tasks wait on by suspending (never blocking their worker),
// in manual-reset (stays set, releases everyone) or auto-reset (releases one) mode.
#pragma once

#include <weft/concurrency/backoff_spinlock.hpp>
#include <weft/lcos/detail/misuse.hpp>
#include <weft/lcos/detail/wait_queue.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>

namespace weft {

/// @brief An event flag, in the two modes of Win32 events.
///
/// - mode::manual (the default): set() releases every waiter, and later waits pass at
///   once until reset().
/// - mode::automatic: set() releases exactly one waiter (the longest waiting), or, if
///   none waits, leaves the event set so that the next wait passes and resets it.
///
/// wait() suspends the calling task (its worker runs other tasks); a thread that is not a
/// weft worker blocks. Timed waits arm a timer and never block a worker. The flag and a
/// "somebody waits" bit share one atomic word, so set() and an uncontended wait() take
/// no lock.
///
/// Example (from tests/unit/lcos/event_test.cpp):
/// @code
/// weft::event go{weft::event::mode::manual};
/// std::atomic<int> started{0};
/// weft::task_group g;
/// for (int i = 0; i < 4; ++i)
///     g.run([&] {
///         go.wait();
///         ++started;
///     });
/// go.set();
/// g.wait();
/// EXPECT_EQ(started.load(), 4);
/// EXPECT_TRUE(go.is_set());
/// @endcode
class event {
public:
    enum class mode : std::uint8_t { manual, automatic };

    /// @brief An event in `m` mode, set if `initially_set`.
    explicit event(mode m = mode::manual, bool initially_set = false) noexcept
        : state_(initially_set ? set_bit : 0), mode_(m) {}
    event(const event&) = delete;
    event& operator=(const event&) = delete;
    /// Destroying it while a task or thread waits cannot throw: prints that and aborts.
    ~event() {
        if (!waiters_.empty()) detail::lco_destroyed_in_use("event", "tasks or threads wait on it");
    }

    /// @brief Sets the event: resumes every waiter (manual), or one waiter (automatic).
    void set() noexcept;
    /// @brief Clears the event.
    void reset() noexcept {
        // release: orders what the caller did before reset() with a later set's waiters.
        state_.fetch_and(~set_bit, std::memory_order_release);
    }
    /// @brief True if the event is set (never waits, never consumes an automatic event).
    bool is_set() const noexcept {
        // acquire: the set() we observe happens before our return.
        return (state_.load(std::memory_order_acquire) & set_bit) != 0;
    }
    /// @brief Passes if the event is set (consuming it in automatic mode), never waits.
    /// @return true if it passed.
    bool try_wait() noexcept;

    /// @brief Suspends the calling task until the event is set (consuming it in
    /// automatic mode).
    void wait() {
        if (!try_wait()) (void)wait_slow(nullptr);
    }
    /// @brief As wait(), giving up after `rel`. @return true if the event was set.
    template <class Rep, class Period>
    bool wait_for(const std::chrono::duration<Rep, Period>& rel) {
        if (try_wait()) return true;
        const auto d = detail::deadline_after(rel);
        return wait_slow(d ? &*d : nullptr);
    }
    /// @brief As wait(), giving up at `abs`. @return true if the event was set.
    template <class Clock, class Duration>
    bool wait_until(const std::chrono::time_point<Clock, Duration>& abs) {
        if (try_wait()) return true;
        return detail::until(abs, [this](const detail::steady_time* d) { return wait_slow(d); });
    }

    /// @brief The mode given at construction.
    mode get_mode() const noexcept { return mode_; }

private:
    static constexpr std::uint32_t set_bit = 1;
    static constexpr std::uint32_t waiting_bit = 2;  ///< changed under lock_ only

    bool wait_slow(const detail::steady_time* deadline);

    std::atomic<std::uint32_t> state_;
    const mode mode_;
    ext::backoff_spinlock lock_;
    detail::wait_queue waiters_;
};

}  // namespace weft
