// weft::replace and weft::replace_if with an execution policy.
#pragma once

#include <weft/algorithms/detail/loop.hpp>

#include <functional>
#include <iterator>
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

}  // namespace weft
