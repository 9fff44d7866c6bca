// weft::post: fire-and-forget tasks.
#pragma once

#include <weft/sched/detail/task_block.hpp>

#include <type_traits>

namespace weft {

namespace detail {
template <class F, class... Args>
struct post_block : task {
    bound_call<F, Args...> call;

    template <class F2, class... A2>
    explicit post_block(F2&& f, A2&&... a) : call(std::forward<F2>(f), std::forward<A2>(a)...) {
        invoke = &run;
    }

    static void run(task* self) noexcept {
        auto* b = static_cast<post_block*>(self);
        try {
            b->call();
        } catch (...) {
            terminate_on_unhandled_exception(b);
        }
        destroy_block(b);
    }
};
}  // namespace detail

/// Runs `f(args...)` as a new task and returns at once. Arguments are decay-copied
/// (use std::ref to pass a reference). An exception escaping `f` terminates the program
/// with a message naming it: nobody could receive it. Use weft::async to get a result
/// or an exception back.
/// @throws weft::runtime_state_error when no weft runtime is running.
template <class F, class... Args>
    requires std::is_invocable_v<std::decay_t<F>, std::decay_t<Args>...>
void post(F&& f, Args&&... args) {
    using block = detail::post_block<F, Args...>;
    detail::worker_hot* w = detail::current_worker_hot();
    detail::spawn_block(w, detail::make_block_on<block>(w, std::forward<F>(f), std::forward<Args>(args)...));
}

/// As post(f, args...), with a priority and a name for the task.
template <class F, class... Args>
    requires std::is_invocable_v<std::decay_t<F>, std::decay_t<Args>...>
void post(const task_attributes& attributes, F&& f, Args&&... args) {
    using block = detail::post_block<F, Args...>;
    detail::worker_hot* w = detail::current_worker_hot();
    block* b = detail::make_block_on<block>(w, std::forward<F>(f), std::forward<Args>(args)...);
    detail::apply_attributes(*b, attributes);
    detail::spawn_block(w, b);
}

namespace detail {
/// post() for the runtime's own helper tasks: flagged task_flag_internal, so that the
/// counters keep them out of the application's task count and time (seed 000 §5.3).
template <class F>
    requires std::is_invocable_v<std::decay_t<F>>
void post_internal(const char* name, F&& f) {
    // The task counts itself as internal as its last act, before the loop publishes its
    // finish, so that no reading ever sees it as an application task.
    auto body = [fn = std::forward<F>(f)]() mutable {
        fn();
        count_internal_task_finished();
    };
    using block = post_block<decltype(body)>;
    worker_hot* w = current_worker_hot();
    block* b = make_block_on<block>(w, std::move(body));
    b->name = name;
    b->flags = static_cast<std::uint8_t>(b->flags | task_flag_internal);
    spawn_block(w, b);
}
}  // namespace detail

}  // namespace weft
