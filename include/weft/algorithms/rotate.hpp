// weft::rotate with an execution policy: three reversals, in two parallel loops (the two
// parts' reversals share one loop, then the whole range is reversed). No buffer; each
// element is swapped twice.
#pragma once

#include <weft/algorithms/detail/loop.hpp>
#include <weft/algorithms/detail/ranges.hpp>
#include <weft/algorithms/reverse.hpp>

#include <algorithm>
#include <iterator>
#include <ranges>
#include <utility>

namespace weft {

/// Rotates [first, last) left so that middle becomes the first element; returns the
/// new position of the element first pointed to, first + (last - middle) (a future of
/// it for a task policy). @throws weft::exception_list of the swaps' exceptions.
template <execution::execution_policy P, std::forward_iterator It>
    requires std::permutable<It>
auto rotate(P&& policy, It first, It middle, It last) {
    return detail::algo::dispatch(policy, [first, middle, last](const auto& p) {
        const std::size_t m = detail::algo::count_of(first, middle);
        const std::size_t n = m + detail::algo::count_of(middle, last);
        if constexpr (!std::remove_cvref_t<decltype(p)>::kind::parallel) {
            It result = last;
            detail::algo::run_loop(p, n, [&](std::size_t, std::size_t) { result = std::rotate(first, middle, last); },
                                   "weft::rotate");
            return result;
        } else {
            if (m == 0) return last;
            if (m == n) return first;
            // A forward iterator's positions are listed once, so reversing needs no
            // operator--.
            const auto at = detail::algo::index_of<decltype(p)>(first, n);
            detail::algo::reverse_positions(p, at, 0, m, m, n, "weft::rotate");
            detail::algo::reverse_positions(p, at, 0, n, 0, 0, "weft::rotate");
            return at(n - m);
        }
    });
}

/// rotate over a range, around middle (an iterator into it).
template <execution::execution_policy P, std::ranges::forward_range R>
    requires detail::algo::policy_borrowed_range<R, P> && std::permutable<std::ranges::iterator_t<R>>
auto rotate(P&& policy, R&& r, std::ranges::iterator_t<R> middle) {
    return weft::rotate(std::forward<P>(policy), std::ranges::begin(r), middle, std::ranges::end(r));
}

}  // namespace weft
