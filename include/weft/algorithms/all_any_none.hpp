// weft::any_of, all_of and none_of with an execution policy: they stop at the first
// element that decides (see find_if).
#pragma once

#include <weft/algorithms/detail/ranges.hpp>
#include <weft/algorithms/find.hpp>

#include <functional>
#include <iterator>
#include <ranges>
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

/// any_of over a range.
template <execution::execution_policy P, std::ranges::forward_range R, class Pred>
    requires detail::algo::policy_range<R, P> && std::indirect_unary_predicate<Pred, std::ranges::iterator_t<R>>
auto any_of(P&& policy, R&& r, Pred pred) {
    return weft::any_of(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), std::move(pred));
}

/// none_of over a range.
template <execution::execution_policy P, std::ranges::forward_range R, class Pred>
    requires detail::algo::policy_range<R, P> && std::indirect_unary_predicate<Pred, std::ranges::iterator_t<R>>
auto none_of(P&& policy, R&& r, Pred pred) {
    return weft::none_of(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), std::move(pred));
}

/// all_of over a range.
template <execution::execution_policy P, std::ranges::forward_range R, class Pred>
    requires detail::algo::policy_range<R, P> && std::indirect_unary_predicate<Pred, std::ranges::iterator_t<R>>
auto all_of(P&& policy, R&& r, Pred pred) {
    return weft::all_of(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), std::move(pred));
}

}  // namespace weft
