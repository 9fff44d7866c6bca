// weft::stable_sort with an execution policy: a parallel merge sort, std::stable_sort
// within blocks and stable merges above them (see detail/sort.hpp).
#pragma once

#include <weft/algorithms/detail/loop.hpp>
#include <weft/algorithms/detail/ranges.hpp>
#include <weft/algorithms/detail/sort.hpp>

#include <functional>
#include <iterator>
#include <ranges>
#include <utility>

namespace weft {

/// Sorts [first, last) into ascending order by comp; equal elements keep their order.
/// Returns nothing (a weft::future<void> for a task policy). Uses a temporary buffer of
/// last - first elements when it runs in parallel.
/// @throws weft::exception_list of comp's exceptions (the range is then in a valid but
/// unspecified state).
template <execution::execution_policy P, std::random_access_iterator It, class Comp = std::less<>>
    requires std::sortable<It, Comp>
auto stable_sort(P&& policy, It first, It last, Comp comp = {}) {
    return detail::algo::dispatch(policy, [first, last, comp](const auto& p) mutable {
        detail::algo::order::sort_impl<true>(p, first, last, detail::algo::order::as_less<Comp>{&comp},
                                             "weft::stable_sort");
    });
}

/// stable_sort over a range.
template <execution::execution_policy P, std::ranges::random_access_range R, class Comp = std::less<>>
    requires detail::algo::policy_range<R, P> && std::sortable<std::ranges::iterator_t<R>, Comp>
auto stable_sort(P&& policy, R&& r, Comp comp = {}) {
    return weft::stable_sort(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), std::move(comp));
}

}  // namespace weft
