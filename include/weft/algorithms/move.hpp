// weft::move (the algorithm) with an execution policy.
#pragma once

#include <weft/algorithms/detail/loop.hpp>

#include <iterator>
#include <utility>

namespace weft {

/// Moves [first, last) to d_first (the ranges must not overlap); returns the end of the
/// output (a future of it for a task policy). @throws weft::exception_list.
template <execution::execution_policy P, std::forward_iterator In, std::forward_iterator Out>
    requires std::indirectly_movable<In, Out>
auto move(P&& policy, In first, In last, Out d_first) {
    return detail::algo::dispatch(policy, [first, last, d_first](const auto& p) {
        const std::size_t n = detail::algo::count_of(first, last);
        const auto in = detail::algo::index_of<decltype(p)>(first, n);
        const auto out = detail::algo::index_of<decltype(p)>(d_first, n);
        detail::algo::run_loop(p, n, [&](std::size_t b, std::size_t e) {
            In i = in(b);
            for (Out o = out(b); b != e; ++b, ++i, ++o) *o = std::ranges::iter_move(i);
        }, "weft::move");
        return std::next(d_first, static_cast<std::iter_difference_t<Out>>(n));
    });
}

}  // namespace weft
