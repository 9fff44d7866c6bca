// weft::sort with an execution policy: a parallel quicksort, in place (see
// detail/quick_sort.hpp); a range too small for it by the merge sort of detail/sort.hpp.
#pragma once

#include <weft/algorithms/detail/loop.hpp>
#include <weft/algorithms/detail/quick_sort.hpp>
#include <weft/algorithms/detail/ranges.hpp>

#include <functional>
#include <iterator>
#include <ranges>
#include <utility>

namespace weft {

/// Sorts [first, last) into ascending order by comp (equal elements in no particular
/// order). Returns nothing (a weft::future<void> for a task policy). In place, except for
/// ranges of under 8192 elements per processing unit, which a parallel merge sort with a
/// temporary buffer sorts.
/// @throws weft::exception_list of comp's exceptions (the range is then in a valid but
/// unspecified state).
template <execution::execution_policy P, std::random_access_iterator It, class Comp = std::less<>>
    requires std::sortable<It, Comp>
auto sort(P&& policy, It first, It last, Comp comp = {}) {
    return detail::algo::dispatch(policy, [first, last, comp](const auto& p) mutable {
        detail::algo::order::unstable_sort_impl(p, first, last, detail::algo::order::as_less<Comp>{&comp},
                                                "weft::sort");
    });
}

/// sort over a range.
template <execution::execution_policy P, std::ranges::random_access_range R, class Comp = std::less<>>
    requires detail::algo::policy_range<R, P> && std::sortable<std::ranges::iterator_t<R>, Comp>
auto sort(P&& policy, R&& r, Comp comp = {}) {
    return weft::sort(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), std::move(comp));
}

}  // namespace weft
