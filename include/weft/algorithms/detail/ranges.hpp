// What the algorithms' range overloads accept: the concepts they share.
#pragma once

#include <weft/execution/policy.hpp>

#include <ranges>

namespace weft::detail::algo {

/// A range a range overload takes with policy P: forward and common (its begin and end
/// become the iterator form's first and last). With a task policy the work runs after
/// the call has returned, so the range must also be borrowed (an lvalue or a view such
/// as std::span): a temporary container would be destroyed under the running task.
template <class R, class P>
concept policy_range = std::ranges::forward_range<R> && std::ranges::common_range<R> &&
                       (!execution::is_task_policy_v<P> || std::ranges::borrowed_range<R>);

/// A policy_range into which the algorithm returns an iterator: always borrowed, so the
/// result cannot dangle (std::ranges would return std::ranges::dangling instead).
template <class R, class P>
concept policy_borrowed_range = policy_range<R, P> && std::ranges::borrowed_range<R>;

}  // namespace weft::detail::algo
