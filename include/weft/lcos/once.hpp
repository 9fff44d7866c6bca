// weft::once_flag and weft::call_once: run a function exactly once, with concurrent
// callers suspending (never blocking their worker) until it has run.
#pragma once

#include <weft/concurrency/backoff_spinlock.hpp>
#include <weft/lcos/detail/wait_queue.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <utility>

namespace weft {

class once_flag;

namespace detail {
/// True if the caller must run the function (the flag is now "running"); false once it
/// has run. Meanwhile, suspends the caller while another runs it.
bool once_begin(once_flag& flag);
/// Ends the caller's run: done if `succeeded`, else back to "never run"; resumes waiters.
void once_end(once_flag& flag, bool succeeded) noexcept;
}  // namespace detail

/// @brief The state of a call_once: never run, running, or done.
class once_flag {
public:
    once_flag() noexcept = default;
    once_flag(const once_flag&) = delete;
    once_flag& operator=(const once_flag&) = delete;

private:
    friend bool detail::once_begin(once_flag&);
    friend void detail::once_end(once_flag&, bool) noexcept;
    template <class F, class... Args>
    friend void call_once(once_flag& flag, F&& f, Args&&... args);

    static constexpr std::uint8_t idle = 0;
    static constexpr std::uint8_t running = 1;
    static constexpr std::uint8_t done = 2;

    std::atomic<std::uint8_t> state_{idle};
    ext::backoff_spinlock lock_;
    detail::wait_queue waiters_;
};

/// @brief Calls `f(args...)` if no call through `flag` has completed yet, as
/// std::call_once does: exactly one caller runs it; concurrent callers suspend (their
/// workers run other tasks) until it has returned. If it throws, the exception reaches
/// that caller, the flag stays unset, and one of the waiting callers (or a later one)
/// runs it instead.
///
/// Example (from tests/unit/lcos/once_test.cpp):
/// @code
/// weft::once_flag flag;
/// std::atomic<int> calls{0};
/// weft::task_group g;
/// for (int i = 0; i < 8; ++i)
///     g.run([&] {
///         weft::call_once(flag, [&] {
///             weft::this_task::yield();  // the others suspend meanwhile
///             ++calls;
///         });
///         EXPECT_EQ(calls.load(), 1);  // it has completed for everyone who returns
///     });
/// g.wait();
/// EXPECT_EQ(calls.load(), 1);
/// @endcode
template <class F, class... Args>
void call_once(once_flag& flag, F&& f, Args&&... args) {
    // acquire: the completed call happens before our return.
    if (flag.state_.load(std::memory_order_acquire) == once_flag::done) return;
    if (!detail::once_begin(flag)) return;
    try {
        std::invoke(std::forward<F>(f), std::forward<Args>(args)...);
    } catch (...) {
        detail::once_end(flag, false);
        throw;
    }
    detail::once_end(flag, true);
}

}  // namespace weft
