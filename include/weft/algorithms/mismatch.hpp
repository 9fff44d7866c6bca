// weft::mismatch and weft::equal with an execution policy: the first position where two
// ranges differ (a search for the first hit, see find_if).
#pragma once

#include <weft/algorithms/detail/loop.hpp>
#include <weft/algorithms/detail/ranges.hpp>

#include <algorithm>
#include <functional>
#include <iterator>
#include <ranges>
#include <utility>

namespace weft {
namespace detail::algo {
template <class P, class It1, class It2, class Pred>
std::size_t first_difference(const P& p, It1 first1, It2 first2, std::size_t n, Pred& pred, const char* algorithm) {
    const auto a = index_of<P>(first1, n);
    const auto b = index_of<P>(first2, n);
    return find_first(p, n, [&](std::size_t lo, std::size_t hi) {
        It1 i = a(lo);
        It2 j = b(lo);
        for (; lo != hi; ++lo, ++i, ++j)
            if (!std::invoke(pred, *i, *j)) return lo;
        return hi;
    }, algorithm);
}
}  // namespace detail::algo

/// The first pair of positions where [first1, last1) and [first2, last2) differ under
/// pred (or where the shorter ends), as std::mismatch (a future of it for a task policy).
template <execution::execution_policy P, std::forward_iterator It1, std::forward_iterator It2,
          class Pred = std::equal_to<>>
    requires std::indirectly_comparable<It1, It2, Pred>
auto mismatch(P&& policy, It1 first1, It1 last1, It2 first2, It2 last2, Pred pred = {}) {
    return detail::algo::dispatch(policy, [first1, last1, first2, last2, pred](const auto& p) mutable {
        const std::size_t n = std::min(detail::algo::count_of(first1, last1), detail::algo::count_of(first2, last2));
        const std::size_t i = detail::algo::first_difference(p, first1, first2, n, pred, "weft::mismatch");
        return std::pair<It1, It2>{std::next(first1, static_cast<std::iter_difference_t<It1>>(i)),
                                   std::next(first2, static_cast<std::iter_difference_t<It2>>(i))};
    });
}

/// mismatch with a second range as long as the first.
template <execution::execution_policy P, std::forward_iterator It1, std::forward_iterator It2,
          class Pred = std::equal_to<>>
    requires std::indirectly_comparable<It1, It2, Pred>
auto mismatch(P&& policy, It1 first1, It1 last1, It2 first2, Pred pred = {}) {
    const auto n = std::distance(first1, last1);  // negative: refused by the call below
    const It2 last2 = n > 0 ? std::next(first2, static_cast<std::iter_difference_t<It2>>(n)) : first2;
    return weft::mismatch(std::forward<P>(policy), first1, last1, first2, last2, std::move(pred));
}

/// True if [first1, last1) and [first2, last2) have the same length and equal elements.
template <execution::execution_policy P, std::forward_iterator It1, std::forward_iterator It2,
          class Pred = std::equal_to<>>
    requires std::indirectly_comparable<It1, It2, Pred>
auto equal(P&& policy, It1 first1, It1 last1, It2 first2, It2 last2, Pred pred = {}) {
    return detail::algo::dispatch(policy, [first1, last1, first2, last2, pred](const auto& p) mutable {
        const std::size_t n = detail::algo::count_of(first1, last1);
        if (n != detail::algo::count_of(first2, last2)) return false;
        return detail::algo::first_difference(p, first1, first2, n, pred, "weft::equal") == n;
    });
}

/// True if [first1, last1) equals the range of the same length at first2.
template <execution::execution_policy P, std::forward_iterator It1, std::forward_iterator It2,
          class Pred = std::equal_to<>>
    requires std::indirectly_comparable<It1, It2, Pred>
auto equal(P&& policy, It1 first1, It1 last1, It2 first2, Pred pred = {}) {
    return detail::algo::dispatch(policy, [first1, last1, first2, pred](const auto& p) mutable {
        const std::size_t n = detail::algo::count_of(first1, last1);
        return detail::algo::first_difference(p, first1, first2, n, pred, "weft::equal") == n;
    });
}

/// mismatch over two ranges.
template <execution::execution_policy P, std::ranges::forward_range R1, std::ranges::forward_range R2,
          class Pred = std::equal_to<>>
    requires detail::algo::policy_borrowed_range<R1, P> && detail::algo::policy_borrowed_range<R2, P> &&
             std::indirectly_comparable<std::ranges::iterator_t<R1>, std::ranges::iterator_t<R2>, Pred>
auto mismatch(P&& policy, R1&& r1, R2&& r2, Pred pred = {}) {
    return weft::mismatch(std::forward<P>(policy), std::ranges::begin(r1), std::ranges::end(r1),
                          std::ranges::begin(r2), std::ranges::end(r2), std::move(pred));
}

/// equal over two ranges: same length and equal elements.
template <execution::execution_policy P, std::ranges::forward_range R1, std::ranges::forward_range R2,
          class Pred = std::equal_to<>>
    requires detail::algo::policy_range<R1, P> && detail::algo::policy_range<R2, P> &&
             std::indirectly_comparable<std::ranges::iterator_t<R1>, std::ranges::iterator_t<R2>, Pred>
auto equal(P&& policy, R1&& r1, R2&& r2, Pred pred = {}) {
    return weft::equal(std::forward<P>(policy), std::ranges::begin(r1), std::ranges::end(r1), std::ranges::begin(r2),
                       std::ranges::end(r2), std::move(pred));
}

}  // namespace weft
