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
    /// A block to spawn (or to run now, launch::sync).
    template <class F2, class... A2>
    explicit async_block(F2&& f, A2&&... a)
        : shared_state<R>(&destroy, 2), call_(std::in_place, std::forward<F2>(f), std::forward<A2>(a)...) {
        invoke = &run;
        this->producer_ = this;
    }
    /// A launch::deferred block: the first waiter starts it (start_deferred).
    template <class F2, class... A2>
    explicit async_block(launch::deferred_policy, F2&& f, A2&&... a)
        : shared_state<R>(&destroy, 1), call_(std::in_place, std::forward<F2>(f), std::forward<A2>(a)...) {
        invoke = &run;
        this->deferred_ = &start_deferred;
    }

    static void run(task* self) noexcept {
        auto* b = static_cast<async_block*>(self);
        fulfil(
            static_cast<shared_state<R>&>(*b), [b]() -> decltype(auto) { return (*b->call_)(); },
            [b]() noexcept { b->call_.reset(); });
        b->release();
    }

private:
    // The first get() or wait() (or a combinator) starts it: in the waiter, within the
    // inline stack bound, else as a task. It has no inputs to start first.
    static void start_deferred(shared_state_base* s, deferred_starts&) noexcept {
        auto* b = static_cast<async_block*>(static_cast<shared_state<R>*>(s));
        s->add_ref();  // the run's, dropped by run()
        launch_ready<launch::deferred_policy, &run>(b);
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

namespace detail {

template <class R, class F, class... Args>
future<R> async_deferred(F&& f, Args&&... args) {
    using block = async_block<R, F, Args...>;
    block* b = make_block_on<block>(current_worker_hot(), launch::deferred, std::forward<F>(f), std::forward<Args>(args)...);
    return future<R>(static_cast<shared_state<R>*>(b));
}

template <class R, class F, class... Args>
future<R> async_sync(F&& f, Args&&... args) {
    using block = async_block<R, F, Args...>;
    block* b = make_block_on<block>(current_worker_hot(), std::forward<F>(f), std::forward<Args>(args)...);
    future<R> result(static_cast<shared_state<R>*>(b));
    block::run(b);  // here and now: the future is ready when this returns
    return result;
}

template <class R, class F, class... Args>
future<R> async_fork(const task_attributes& attributes, F&& f, Args&&... args) {
    using block = async_block<R, F, Args...>;
    worker_hot* w = current_worker_hot();
    block* b = make_block_on<block>(w, std::forward<F>(f), std::forward<Args>(args)...);
    apply_attributes(*b, attributes);
    future<R> result(static_cast<shared_state<R>*>(b));
    if (!fork_to(b)) spawn_block(w, b);
    return result;
}

}  // namespace detail

/// Runs `f(args...)` as `policy` says and returns the future of its result (or
/// exception); the drop-in for std::async(policy, f, args...). The policy is one of
/// launch::async (a new task; the same as async(f, args...)), launch::deferred (run by
/// the first get() or wait() of the future, in the waiter; never if nobody waits),
/// launch::sync (run now, in the caller: the future is ready on return), launch::fork (a
/// new task that runs at once on this worker while the caller's continuation may be
/// stolen: continuation stealing, seed 000 ch.6; as async outside a task, from a pinned
/// task, for a pinned or prioritised new task, or under a policy without a stealing
/// deque), or a launch value: a single policy as above, or a set (launch::optional =
/// async | deferred, or any `|` of policies) from which weft chooses per call: a new
/// task while the calling worker has fewer than detail::optional_queue_cutoff tasks
/// queued, else in place (deferred, or sync). Attributes given with launch::async(a) or
/// launch(...)(a) name and prioritise the task async or fork make.
/// @code
/// std::uint64_t fib(unsigned n, const weft::launch l) {
///     if (n < 2) return n;
///     weft::future<std::uint64_t> a = weft::async(l, fib, n - 1, l);
///     return fib(n - 2, l) + a.get();
/// }
/// @endcode
/// @throws weft::error for an empty launch set; weft::runtime_state_error when a new
///         task is needed and no weft runtime is running.
template <async_launch P, class F, class... Args>
    requires std::is_invocable_v<std::decay_t<F>, std::decay_t<Args>...>
future<detail::async_result_t<F, Args...>> async(const P& policy, F&& f, Args&&... args) {
    using R = detail::async_result_t<F, Args...>;
    using Pol = std::remove_cvref_t<P>;
    if constexpr (std::is_same_v<Pol, launch::async_policy>) {
        return async(policy.attributes, std::forward<F>(f), std::forward<Args>(args)...);
    } else if constexpr (std::is_same_v<Pol, launch::deferred_policy>) {
        return detail::async_deferred<R>(std::forward<F>(f), std::forward<Args>(args)...);
    } else if constexpr (std::is_same_v<Pol, launch::sync_policy>) {
        return detail::async_sync<R>(std::forward<F>(f), std::forward<Args>(args)...);
    } else if constexpr (std::is_same_v<Pol, launch::fork_policy>) {
        return detail::async_fork<R>(task_attributes{}, std::forward<F>(f), std::forward<Args>(args)...);
    } else {
        switch (policy.single() ? static_cast<launch::bits>(policy.to_bits()) : detail::choose_launch(policy)) {
            case launch::deferred_bit:
                return detail::async_deferred<R>(std::forward<F>(f), std::forward<Args>(args)...);
            case launch::sync_bit: return detail::async_sync<R>(std::forward<F>(f), std::forward<Args>(args)...);
            case launch::fork_bit:
                return detail::async_fork<R>(policy.attributes(), std::forward<F>(f), std::forward<Args>(args)...);
            default: return async(policy.attributes(), std::forward<F>(f), std::forward<Args>(args)...);
        }
    }
}

}  // namespace weft
