// weft::find, find_if and find_if_not with an execution policy: the first match in range
// order; chunks past a match already found are skipped.
#pragma once

#include <weft/algorithms/detail/loop.hpp>
#include <weft/algorithms/detail/ranges.hpp>

#include <functional>
#include <iterator>
#include <ranges>
#include <utility>

namespace weft {
namespace detail::algo {
template <class P, class It, class Pred>
auto find_if_impl(const P& p, It first, It last, Pred& pred, const char* algorithm) {
    const std::size_t n = count_of(first, last);
    const auto at = index_of<P>(first, n);
    const std::size_t i = find_first(p, n, [&](std::size_t b, std::size_t e) {
        for (It it = at(b); b != e; ++b, ++it)
            if (std::invoke(pred, *it)) return b;
        return e;
    }, algorithm);
    return std::next(first, static_cast<std::iter_difference_t<It>>(i));
}
}  // namespace detail::algo

/// The first iterator in [first, last) whose element satisfies pred, or last (a future
/// of it for a task policy). @throws weft::exception_list of pred's exceptions.
template <execution::execution_policy P, std::forward_iterator It, class Pred>
    requires std::indirect_unary_predicate<Pred, It>
auto find_if(P&& policy, It first, It last, Pred pred) {
    return detail::algo::dispatch(policy, [first, last, pred](const auto& p) mutable {
        return detail::algo::find_if_impl(p, first, last, pred, "weft::find_if");
    });
}

/// The first iterator whose element does not satisfy pred, or last.
template <execution::execution_policy P, std::forward_iterator It, class Pred>
    requires std::indirect_unary_predicate<Pred, It>
auto find_if_not(P&& policy, It first, It last, Pred pred) {
    return detail::algo::dispatch(policy, [first, last, pred](const auto& p) mutable {
        auto negated = [&pred](auto&& x) { return !std::invoke(pred, std::forward<decltype(x)>(x)); };
        return detail::algo::find_if_impl(p, first, last, negated, "weft::find_if_not");
    });
}

/// The first iterator whose element equals value, or last.
template <execution::execution_policy P, std::forward_iterator It, class T>
auto find(P&& policy, It first, It last, const T& value) {
    return detail::algo::dispatch(policy, [first, last, value](const auto& p) {
        auto equal = [&value](const auto& x) { return x == value; };
        return detail::algo::find_if_impl(p, first, last, equal, "weft::find");
    });
}

/// find_if over a range.
template <execution::execution_policy P, std::ranges::forward_range R, class Pred>
    requires detail::algo::policy_borrowed_range<R, P> &&
             std::indirect_unary_predicate<Pred, std::ranges::iterator_t<R>>
auto find_if(P&& policy, R&& r, Pred pred) {
    return weft::find_if(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), std::move(pred));
}

/// find_if_not over a range.
template <execution::execution_policy P, std::ranges::forward_range R, class Pred>
    requires detail::algo::policy_borrowed_range<R, P> &&
             std::indirect_unary_predicate<Pred, std::ranges::iterator_t<R>>
auto find_if_not(P&& policy, R&& r, Pred pred) {
    return weft::find_if_not(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), std::move(pred));
}

/// find over a range.
template <execution::execution_policy P, std::ranges::forward_range R, class T>
    requires detail::algo::policy_borrowed_range<R, P>
auto find(P&& policy, R&& r, const T& value) {
    return weft::find(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), value);
}

}  // namespace weft
