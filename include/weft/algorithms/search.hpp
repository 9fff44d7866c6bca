// weft::search with an execution policy: each of the n - m + 1 candidate positions is
// checked on its own, and the first that matches wins (a search for the first hit, as
// find_if: chunks past a match already found are skipped).
#pragma once

#include <weft/algorithms/detail/loop.hpp>
#include <weft/algorithms/detail/ranges.hpp>

#include <functional>
#include <iterator>
#include <ranges>
#include <utility>

namespace weft {

/// The first position in [first, last) where [s_first, s_last) occurs, elements being
/// compared with pred(*it, *s) (first if the pattern is empty, last if it does not
/// occur); a future of it for a task policy. @throws weft::exception_list of pred's
/// exceptions.
template <execution::execution_policy P, std::forward_iterator It1, std::forward_iterator It2,
          class Pred = std::equal_to<>>
    requires std::indirectly_comparable<It1, It2, Pred>
auto search(P&& policy, It1 first, It1 last, It2 s_first, It2 s_last, Pred pred = {}) {
    return detail::algo::dispatch(policy, [first, last, s_first, s_last, pred](const auto& p) mutable {
        const std::size_t n = detail::algo::count_of(first, last);
        const std::size_t m = detail::algo::count_of(s_first, s_last);
        if (m == 0) return first;
        if (m > n) return last;
        const std::size_t candidates = n - m + 1;
        const auto at = detail::algo::index_of<decltype(p)>(first, candidates);
        const std::size_t i = detail::algo::find_first(p, candidates, [&](std::size_t b, std::size_t e) {
            It1 start = at(b);
            for (; b != e; ++b, ++start) {
                It1 h = start;
                It2 s = s_first;
                while (s != s_last && std::invoke(pred, *h, *s)) {
                    ++h;
                    ++s;
                }
                if (s == s_last) return b;
            }
            return e;
        }, "weft::search");
        return i == candidates ? last : at(i);
    });
}

/// search over ranges: the first occurrence of r2 in r1.
template <execution::execution_policy P, std::ranges::forward_range R1, std::ranges::forward_range R2,
          class Pred = std::equal_to<>>
    requires detail::algo::policy_borrowed_range<R1, P> && detail::algo::policy_range<R2, P> &&
             std::indirectly_comparable<std::ranges::iterator_t<R1>, std::ranges::iterator_t<R2>, Pred>
auto search(P&& policy, R1&& r1, R2&& r2, Pred pred = {}) {
    return weft::search(std::forward<P>(policy), std::ranges::begin(r1), std::ranges::end(r1), std::ranges::begin(r2),
                        std::ranges::end(r2), std::move(pred));
}

}  // namespace weft
