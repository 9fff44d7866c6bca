// weft::merge with an execution policy: the output is cut into pieces, and each chunk
// finds by co-rank (a binary search, "merge path") which stretches of the two inputs
// make its stretch of output, then merges them with std::merge.
#pragma once

#include <weft/algorithms/detail/loop.hpp>
#include <weft/algorithms/detail/merge.hpp>
#include <weft/algorithms/detail/ranges.hpp>

#include <algorithm>
#include <functional>
#include <iterator>
#include <ranges>
#include <utility>

namespace weft {
namespace detail::algo::order {
template <class P, class It1, class It2, class Out, class Comp>
Out merge_impl(const P& p, It1 first1, It1 last1, It2 first2, It2 last2, Out d_first, Comp& comp) {
    const std::size_t n1 = count_of(first1, last1);
    const std::size_t n2 = count_of(first2, last2);
    const std::size_t n = n1 + n2;
    const as_less<Comp> less{&comp};
    const auto index1 = index_of<P>(first1, n1);
    const auto index2 = index_of<P>(first2, n2);
    const auto out = index_of<P>(d_first, n);
    // The inputs' iterators by position, their ends included.
    const auto a = [&](std::size_t i) { return i == n1 ? last1 : index1(i); };
    const auto b = [&](std::size_t j) { return j == n2 ? last2 : index2(j); };
    loop(p, div_up(n, merge_piece), chunk_fn([&](std::size_t pb, std::size_t pe) {
        const std::size_t lo = pb * merge_piece;
        const std::size_t hi = std::min(n, pe * merge_piece);
        const std::size_t alo = co_rank(lo, a, n1, b, n2, less);
        const std::size_t ahi = co_rank(hi, a, n1, b, n2, less);
        std::merge(a(alo), a(ahi), b(lo - alo), b(hi - ahi), out(lo), less);
    }), "weft::merge");
    return n == 0 ? d_first : std::next(out(n - 1));
}
}  // namespace detail::algo::order

/// Merges the sorted ranges [first1, last1) and [first2, last2) into the range at
/// d_first (which must overlap neither), stably: of equal elements, those of the first
/// range come first. Returns the end of the output (a future of it for a task policy).
/// @throws weft::exception_list of comp's exceptions.
template <execution::execution_policy P, std::forward_iterator It1, std::forward_iterator It2,
          std::forward_iterator Out, class Comp = std::less<>>
    requires std::mergeable<It1, It2, Out, Comp>
auto merge(P&& policy, It1 first1, It1 last1, It2 first2, It2 last2, Out d_first, Comp comp = {}) {
    return detail::algo::dispatch(policy, [first1, last1, first2, last2, d_first, comp](const auto& p) mutable {
        return detail::algo::order::merge_impl(p, first1, last1, first2, last2, d_first, comp);
    });
}

/// merge over two ranges.
template <execution::execution_policy P, std::ranges::forward_range R1, std::ranges::forward_range R2,
          std::forward_iterator Out, class Comp = std::less<>>
    requires detail::algo::policy_range<R1, P> && detail::algo::policy_range<R2, P> &&
             std::mergeable<std::ranges::iterator_t<R1>, std::ranges::iterator_t<R2>, Out, Comp>
auto merge(P&& policy, R1&& r1, R2&& r2, Out d_first, Comp comp = {}) {
    return weft::merge(std::forward<P>(policy), std::ranges::begin(r1), std::ranges::end(r1), std::ranges::begin(r2),
                       std::ranges::end(r2), d_first, std::move(comp));
}

}  // namespace weft
