// weft::replace and weft::replace_if with an execution policy.
#pragma once

#include <weft/algorithms/detail/loop.hpp>
#include <weft/algorithms/detail/ranges.hpp>

#include <functional>
#include <iterator>
#include <ranges>
#include <utility>

namespace weft {

/// Assigns new_value to every element of [first, last) that satisfies pred.
/// @throws weft::exception_list.
template <execution::execution_policy P, std::forward_iterator It, class Pred, class T>
    requires std::indirect_unary_predicate<Pred, It> && std::indirectly_writable<It, const T&>
auto replace_if(P&& policy, It first, It last, Pred pred, const T& new_value) {
    return detail::algo::dispatch(policy, [first, last, pred, new_value](const auto& p) mutable {
        const std::size_t n = detail::algo::count_of(first, last);
        const auto at = detail::algo::index_of<decltype(p)>(first, n);
        detail::algo::run_loop(p, n, [&](std::size_t b, std::size_t e) {
            for (It it = at(b); b != e; ++b, ++it)
                if (std::invoke(pred, *it)) *it = new_value;
        }, "weft::replace_if");
    });
}

/// Assigns new_value to every element of [first, last) equal to old_value.
template <execution::execution_policy P, std::forward_iterator It, class T>
    requires std::indirectly_writable<It, const T&>
auto replace(P&& policy, It first, It last, const T& old_value, const T& new_value) {
    return weft::replace_if(std::forward<P>(policy), first, last,
                            [old_value](const auto& x) { return x == old_value; }, new_value);
}

/// replace_if over a range.
template <execution::execution_policy P, std::ranges::forward_range R, class Pred, class T>
    requires detail::algo::policy_range<R, P> && std::indirect_unary_predicate<Pred, std::ranges::iterator_t<R>> &&
             std::indirectly_writable<std::ranges::iterator_t<R>, const T&>
auto replace_if(P&& policy, R&& r, Pred pred, const T& new_value) {
    return weft::replace_if(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), std::move(pred),
                            new_value);
}

/// replace over a range.
template <execution::execution_policy P, std::ranges::forward_range R, class T>
    requires detail::algo::policy_range<R, P> && std::indirectly_writable<std::ranges::iterator_t<R>, const T&>
auto replace(P&& policy, R&& r, const T& old_value, const T& new_value) {
    return weft::replace(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), old_value, new_value);
}

}  // namespace weft
