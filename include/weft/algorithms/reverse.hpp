// weft::reverse with an execution policy: the n / 2 swaps of element i with element
// n - 1 - i are independent, so they are the loop's iterations.
#pragma once

#include <weft/algorithms/detail/loop.hpp>
#include <weft/algorithms/detail/ranges.hpp>

#include <algorithm>
#include <iterator>
#include <ranges>
#include <utility>

namespace weft {
namespace detail::algo {

/// Reverses positions [lo1, hi1) and [lo2, hi2) (disjoint) of an indexed range (at(i):
/// the i-th iterator, O(1)) in one loop over their swaps.
template <class P, class Index>
void reverse_positions(const P& p, const Index& at, std::size_t lo1, std::size_t hi1, std::size_t lo2,
                       std::size_t hi2, const char* algorithm) {
    const std::size_t half1 = (hi1 - lo1) / 2;
    const std::size_t half2 = (hi2 - lo2) / 2;
    run_loop(p, half1 + half2, [&](std::size_t b, std::size_t e) {
        for (; b != e; ++b) {
            if (b < half1) std::ranges::iter_swap(at(lo1 + b), at(hi1 - 1 - b));
            else std::ranges::iter_swap(at(lo2 + (b - half1)), at(hi2 - 1 - (b - half1)));
        }
    }, algorithm);
}

}  // namespace detail::algo

/// Reverses the order of the elements of [first, last) (a future<void> for a task
/// policy). @throws weft::exception_list of the swaps' exceptions.
template <execution::execution_policy P, std::bidirectional_iterator It>
    requires std::permutable<It>
auto reverse(P&& policy, It first, It last) {
    return detail::algo::dispatch(policy, [first, last](const auto& p) {
        const std::size_t n = detail::algo::count_of(first, last);
        if constexpr (!std::remove_cvref_t<decltype(p)>::kind::parallel) {
            // One chunk through the policy's executor.
            detail::algo::run_loop(p, n, [&](std::size_t, std::size_t) { std::reverse(first, last); }, "weft::reverse");
        } else {
            const auto at = detail::algo::index_of<decltype(p)>(first, n);
            detail::algo::reverse_positions(p, at, 0, n, 0, 0, "weft::reverse");
        }
    });
}

/// reverse over a range.
template <execution::execution_policy P, std::ranges::bidirectional_range R>
    requires detail::algo::policy_range<R, P> && std::permutable<std::ranges::iterator_t<R>>
auto reverse(P&& policy, R&& r) {
    return weft::reverse(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r));
}

}  // namespace weft
