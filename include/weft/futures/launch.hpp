// Launch policies: how a continuation (then, dataflow) runs once its inputs are ready.
#pragma once

#include <weft/threads/task.hpp>

#include <concepts>
#include <type_traits>

namespace weft::launch {

/// As a new task (the default). Carries optional attributes for that task.
struct async_policy {
    task_attributes attributes{};
    /// The same policy with a priority / name for the continuation's task.
    constexpr async_policy operator()(task_attributes a) const noexcept { return async_policy{a}; }
};
/// Inline, in whatever completes the input (the completing task, or the caller of then()
/// if the input is ready). Long chains fall back to a new task before the stack runs low.
struct sync_policy {};
/// Started by the first get() or wait() of the result (or by a continuation or combinator
/// attached to it); from then on as sync: it runs once its input is ready, inline in the
/// waiter if it already is. A chain of deferred steps starts in constant stack.
struct deferred_policy {};

inline constexpr async_policy async{};
inline constexpr sync_policy sync{};
inline constexpr deferred_policy deferred{};

}  // namespace weft::launch

namespace weft {
/// True for weft's launch policy types.
template <class P>
concept launch_policy = std::is_same_v<std::remove_cvref_t<P>, launch::async_policy> ||
                        std::is_same_v<std::remove_cvref_t<P>, launch::sync_policy> ||
                        std::is_same_v<std::remove_cvref_t<P>, launch::deferred_policy>;

namespace detail {
struct executor_probe {
    void operator()() const noexcept {}
};
}  // namespace detail

/// What then(), dataflow() and async() accept in place of a launch policy: an object with
/// async_execute(f) (every weft::execution::executor is one). Stated here, below the
/// execution layer, by what it needs rather than by that layer's concept.
template <class E>
concept executor_like = !launch_policy<E> && std::copy_constructible<std::remove_cvref_t<E>> &&
                        requires(const std::remove_cvref_t<E>& e) { e.async_execute(detail::executor_probe{}); };
}  // namespace weft
