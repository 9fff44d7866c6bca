// limiting_executor: another executor with a cap on the tasks it has in flight.
#pragma once

#include <weft/config/errors.hpp>
#include <weft/execution/executor_traits.hpp>
#include <weft/lcos/counting_semaphore.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

namespace weft::execution {

/// Runs agents on `Base`, never more than `max_in_flight` at once: a submission
/// (async_execute, post, each agent of a bulk call) waits while the cap is reached — a
/// task suspends, a thread that is not a worker blocks — until one of the executor's
/// agents finishes. Copies share the cap. Use it to bound the memory of a producer
/// that spawns faster than the workers drain, or the tasks that may touch a limited
/// resource at once.
///
/// An agent that submits to the same limiting executor and waits for the result can
/// deadlock once the cap is reached (as with any bounded pool); give nested work its
/// own executor.
template <executor Base>
class limiting_executor {
public:
    /// @throws weft::error if max_in_flight is 0.
    limiting_executor(Base base, std::size_t max_in_flight)
        : base_(std::move(base)), state_(std::make_shared<state>(checked(max_in_flight))) {}

    /// The wrapped executor.
    const Base& base() const noexcept { return base_; }
    /// The cap.
    std::size_t max_in_flight() const noexcept { return state_->cap; }
    /// Agents submitted and not finished yet (a statistic: it may change at once).
    std::size_t in_flight() const noexcept {
        return state_->in_flight.load(std::memory_order_relaxed);  // relaxed: a statistic
    }

    template <class F, class... Args>
        requires std::is_invocable_v<std::decay_t<F>, std::decay_t<Args>...>
    auto async_execute(F&& f, Args&&... args) const {
        admit();
        try {
            return execution::async_execute(base_, wrap(std::forward<F>(f)), std::forward<Args>(args)...);
        } catch (...) {
            leave(*state_);
            throw;
        }
    }
    template <class F, class... Args>
        requires std::is_invocable_v<std::decay_t<F>, std::decay_t<Args>...>
    void post(F&& f, Args&&... args) const {
        admit();
        try {
            execution::post(base_, wrap(std::forward<F>(f)), std::forward<Args>(args)...);
        } catch (...) {
            leave(*state_);
            throw;
        }
    }
    std::size_t processing_units_count() const {
        return std::min(execution::processing_units_count(base_), state_->cap);
    }

    bool operator==(const limiting_executor& o) const noexcept { return base_ == o.base_ && state_ == o.state_; }

private:
    struct state {
        explicit state(std::size_t c)
            : cap(c), permits(static_cast<std::ptrdiff_t>(std::min<std::size_t>(c, weft::counting_semaphore<>::max()))) {}
        std::size_t cap;
        weft::counting_semaphore<> permits;
        std::atomic<std::size_t> in_flight{0};
    };
    static std::size_t checked(std::size_t n) {
        if (n == 0) throw weft::error("weft::execution::limiting_executor: max_in_flight must be at least 1");
        return n;
    }
    void admit() const {
        state_->permits.acquire();
        state_->in_flight.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
    }
    static void leave(state& s) noexcept {
        s.in_flight.fetch_sub(1, std::memory_order_relaxed);  // relaxed: a statistic
        s.permits.release();
    }
    /// f, releasing its permit when it ends, however it ends. The wrapper holds the
    /// state, so the cap outlives an executor destroyed while its agents run.
    template <class F>
    auto wrap(F&& f) const {
        return [s = state_, fn = std::forward<F>(f)](auto&&... a) mutable -> decltype(auto) {
            struct release_on_exit {
                state& st;
                ~release_on_exit() { leave(st); }
            } guard{*s};
            return std::invoke(std::move(fn), std::forward<decltype(a)>(a)...);
        };
    }

    Base base_;
    std::shared_ptr<state> state_;
};

}  // namespace weft::execution
