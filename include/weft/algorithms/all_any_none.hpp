// weft::any_of, all_of and none_of with an execution policy: they stop at the first
// element that decides (see find_if).
#pragma once

#include <weft/algorithms/find.hpp>

#include <functional>
#include <iterator>
#include <utility>

namespace weft {

/// True if some element satisfies pred (false for an empty range).
template <execution::execution_policy P, std::forward_iterator It, class Pred>
    requires std::indirect_unary_predicate<Pred, It>
auto any_of(P&& policy, It first, It last, Pred pred) {
    return detail::algo::dispatch(policy, [first, last, pred](const auto& p) mutable {
        return detail::algo::find_if_impl(p, first, last, pred, "weft::any_of") != last;
    });
}

/// True if no element satisfies pred (true for an empty range).
template <execution::execution_policy P, std::forward_iterator It, class Pred>
    requires std::indirect_unary_predicate<Pred, It>
auto none_of(P&& policy, It first, It last, Pred pred) {
    return detail::algo::dispatch(policy, [first, last, pred](const auto& p) mutable {
        return detail::algo::find_if_impl(p, first, last, pred, "weft::none_of") == last;
    });
}

/// True if every element satisfies pred (true for an empty range).
template <execution::execution_policy P, std::forward_iterator It, class Pred>
    requires std::indirect_unary_predicate<Pred, It>
auto all_of(P&& policy, It first, It last, Pred pred) {
    return detail::algo::dispatch(policy, [first, last, pred](const auto& p) mutable {
        auto negated = [&pred](auto&& x) { return !std::invoke(pred, std::forward<decltype(x)>(x)); };
        return detail::algo::find_if_impl(p, first, last, negated, "weft::all_of") == last;
    });
}

}  // namespace weft
