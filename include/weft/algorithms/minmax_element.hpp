// weft::min_element, max_element and minmax_element with an execution policy: each chunk
// finds its own extremes, then the chunks' are compared in range order, which keeps
// std's tie rules (the first smallest; the first largest for max_element, the last for
// minmax_element).
#pragma once

#include <weft/algorithms/detail/ranges.hpp>
#include <weft/algorithms/reduce.hpp>

#include <functional>
#include <iterator>
#include <ranges>
#include <utility>

namespace weft {
namespace detail::algo {

/// The index of the extreme element of a non-empty range: scanning in range order, an
/// element a replaces the current best b when better(a, b) (strictly smaller: the first
/// smallest; not smaller: the last largest).
template <class P, class It, class Better>
std::size_t extreme_index(const P& p, It first, std::size_t n, Better& better, const char* algorithm) {
    if (n == 0) return 0;
    const auto at = index_of<P>(first, n);
    auto partials = chunk_results<std::pair<std::size_t, It>>(p, n, [&](std::size_t b, std::size_t e) {
        It it = at(b);
        std::pair<std::size_t, It> best{b, it};
        for (++b, ++it; b != e; ++b, ++it)
            if (better(*it, *best.second)) best = {b, it};
        return best;
    }, algorithm);
    std::pair<std::size_t, It> best = partials.front().second;
    call_element_function<P>(algorithm, [&] {
        for (std::size_t k = 1; k < partials.size(); ++k)
            if (better(*partials[k].second.second, *best.second)) best = partials[k].second;
    });
    return best.first;
}

}  // namespace detail::algo

/// The first smallest element of [first, last) under comp (last if empty).
template <execution::execution_policy P, std::forward_iterator It, class Comp = std::less<>>
    requires std::indirect_strict_weak_order<Comp, It>
auto min_element(P&& policy, It first, It last, Comp comp = {}) {
    return detail::algo::dispatch(policy, [first, last, comp](const auto& p) mutable {
        const std::size_t n = detail::algo::count_of(first, last);
        auto better = [&comp](const auto& a, const auto& b) { return std::invoke(comp, a, b); };
        const std::size_t i = n == 0 ? 0 : detail::algo::extreme_index(p, first, n, better, "weft::min_element");
        return std::next(first, static_cast<std::iter_difference_t<It>>(i));
    });
}

/// The first largest element of [first, last) under comp (last if empty).
template <execution::execution_policy P, std::forward_iterator It, class Comp = std::less<>>
    requires std::indirect_strict_weak_order<Comp, It>
auto max_element(P&& policy, It first, It last, Comp comp = {}) {
    return detail::algo::dispatch(policy, [first, last, comp](const auto& p) mutable {
        const std::size_t n = detail::algo::count_of(first, last);
        auto better = [&comp](const auto& a, const auto& b) { return std::invoke(comp, b, a); };
        const std::size_t i = n == 0 ? 0 : detail::algo::extreme_index(p, first, n, better, "weft::max_element");
        return std::next(first, static_cast<std::iter_difference_t<It>>(i));
    });
}

/// {first smallest, last largest} of [first, last) under comp ({last, last} if empty).
template <execution::execution_policy P, std::forward_iterator It, class Comp = std::less<>>
    requires std::indirect_strict_weak_order<Comp, It>
auto minmax_element(P&& policy, It first, It last, Comp comp = {}) {
    return detail::algo::dispatch(policy, [first, last, comp](const auto& p) mutable {
        const std::size_t n = detail::algo::count_of(first, last);
        if (n == 0) return std::pair<It, It>{last, last};
        auto smaller = [&comp](const auto& a, const auto& b) { return std::invoke(comp, a, b); };
        // The last largest: a replaces b unless a < b.
        auto not_smaller = [&comp](const auto& a, const auto& b) { return !std::invoke(comp, a, b); };
        const std::size_t lo = detail::algo::extreme_index(p, first, n, smaller, "weft::minmax_element");
        const std::size_t hi = detail::algo::extreme_index(p, first, n, not_smaller, "weft::minmax_element");
        return std::pair<It, It>{std::next(first, static_cast<std::iter_difference_t<It>>(lo)),
                                 std::next(first, static_cast<std::iter_difference_t<It>>(hi))};
    });
}

/// min_element over a range.
template <execution::execution_policy P, std::ranges::forward_range R, class Comp = std::less<>>
    requires detail::algo::policy_borrowed_range<R, P> &&
             std::indirect_strict_weak_order<Comp, std::ranges::iterator_t<R>>
auto min_element(P&& policy, R&& r, Comp comp = {}) {
    return weft::min_element(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), std::move(comp));
}

/// max_element over a range.
template <execution::execution_policy P, std::ranges::forward_range R, class Comp = std::less<>>
    requires detail::algo::policy_borrowed_range<R, P> &&
             std::indirect_strict_weak_order<Comp, std::ranges::iterator_t<R>>
auto max_element(P&& policy, R&& r, Comp comp = {}) {
    return weft::max_element(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), std::move(comp));
}

/// minmax_element over a range.
template <execution::execution_policy P, std::ranges::forward_range R, class Comp = std::less<>>
    requires detail::algo::policy_borrowed_range<R, P> &&
             std::indirect_strict_weak_order<Comp, std::ranges::iterator_t<R>>
auto minmax_element(P&& policy, R&& r, Comp comp = {}) {
    return weft::minmax_element(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), std::move(comp));
}

}  // namespace weft
