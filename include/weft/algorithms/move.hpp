// weft::move (the algorithm) with an execution policy.
#pragma once

#include <weft/algorithms/copy.hpp>
#include <weft/algorithms/detail/ranges.hpp>

#include <iterator>
#include <ranges>
#include <utility>

namespace weft {

/// Moves [first, last) to d_first (the ranges must not overlap); returns the end of the
/// output (a future of it for a task policy). @throws weft::exception_list.
template <execution::execution_policy P, std::forward_iterator In, std::forward_iterator Out>
    requires std::indirectly_movable<In, Out>
auto move(P&& policy, In first, In last, Out d_first) {
    return detail::algo::dispatch(policy, [first, last, d_first](const auto& p) {
        return detail::algo::transfer_n(p, first, detail::algo::count_of(first, last), d_first,
                                        [](auto& o, auto& i) { *o = std::ranges::iter_move(i); }, "weft::move");
    });
}

/// move over a range.
template <execution::execution_policy P, std::ranges::forward_range R, std::forward_iterator Out>
    requires detail::algo::policy_range<R, P> && std::indirectly_movable<std::ranges::iterator_t<R>, Out>
auto move(P&& policy, R&& r, Out d_first) {
    return weft::move(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), d_first);
}

}  // namespace weft
