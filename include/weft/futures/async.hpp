// weft::async: runs a function as a new task (or on an executor) and returns the future
// of its result; the task, the closure and the result share one block.
#pragma once

#include <weft/futures/detail/future_core.hpp>
#include <weft/futures/launch.hpp>
#include <weft/sched/detail/task_block.hpp>

#include <optional>
#include <type_traits>
#include <utility>

namespace weft {

namespace detail {

/// One block: the task, the closure and the future's shared state. The closure is
/// destroyed as soon as it has run, before the result is published.
template <class R, class F, class... Args>
class async_block final : public task, public shared_state<R> {
public:
    template <class F2, class... A2>
    explicit async_block(F2&& f, A2&&... a)
        : shared_state<R>(&destroy, 2), call_(std::in_place, std::forward<F2>(f), std::forward<A2>(a)...) {
        invoke = &run;
        this->producer_ = this;
    }

private:
    static void run(task* self) noexcept {
        auto* b = static_cast<async_block*>(self);
        fulfil(
            static_cast<shared_state<R>&>(*b), [b]() -> decltype(auto) { return (*b->call_)(); },
            [b]() noexcept { b->call_.reset(); });
        b->release();
    }
    static void destroy(shared_state_base* s) noexcept {
        auto* b = static_cast<async_block*>(s);
        // The closure is still there only if the task never ran.
        shared_state_base::dispose(s, &destroy_now, b->call_.has_value() || b->result_may_hold_states());
    }
    static void destroy_now(shared_state_base* s) noexcept { destroy_block(static_cast<async_block*>(s)); }

    std::optional<bound_call<F, Args...>> call_;
};

template <class F, class... Args>
using async_result_t = std::invoke_result_t<std::decay_t<F>, std::decay_t<Args>...>;

}  // namespace detail

/// Runs `f(args...)` as a new task and returns a future for its result (or exception).
/// Arguments are decay-copied (use std::ref for references). One allocation from the
/// worker's block pool holds the task, the closure and the result. The closure (f and
/// the arguments) is destroyed as soon as f has returned or thrown, before the result is
/// published: a ready future keeps nothing f captured alive, and a reference result must
/// not refer into it.
/// @throws weft::runtime_state_error when no weft runtime is running.
template <class F, class... Args>
    requires std::is_invocable_v<std::decay_t<F>, std::decay_t<Args>...>
future<detail::async_result_t<F, Args...>> async(F&& f, Args&&... args) {
    return async(task_attributes{}, std::forward<F>(f), std::forward<Args>(args)...);
}

/// As async(f, args...), with a priority and a name for the task.
template <class F, class... Args>
    requires std::is_invocable_v<std::decay_t<F>, std::decay_t<Args>...>
future<detail::async_result_t<F, Args...>> async(const task_attributes& attributes, F&& f, Args&&... args) {
    using R = detail::async_result_t<F, Args...>;
    using block = detail::async_block<R, F, Args...>;
    detail::worker_hot* w = detail::current_worker_hot();
    block* b = detail::make_block_on<block>(w, std::forward<F>(f), std::forward<Args>(args)...);
    detail::apply_attributes(*b, attributes);
    detail::spawn_block(w, b);
    return future<R>(static_cast<detail::shared_state<R>*>(b));
}

/// Runs `f(args...)` on `executor` (its async_execute) and returns the future of the
/// result: weft::async with an executor in place of a launch policy.
template <executor_like E, class F, class... Args>
    requires std::is_invocable_v<std::decay_t<F>, std::decay_t<Args>...>
auto async(const E& executor, F&& f, Args&&... args) {
    return executor.async_execute(std::forward<F>(f), std::forward<Args>(args)...);
}

}  // namespace weft
