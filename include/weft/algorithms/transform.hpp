// weft::transform (unary and binary) with an execution policy.
#pragma once

#include <weft/algorithms/detail/loop.hpp>
#include <weft/algorithms/detail/ranges.hpp>

#include <functional>
#include <iterator>
#include <ranges>
#include <utility>

namespace weft {

/// d_first[i] = op(first[i]) for the elements of [first, last); returns the end of the
/// output (a future of it for a task policy). @throws weft::exception_list.
template <execution::execution_policy P, std::forward_iterator In, std::forward_iterator Out, class Op>
    requires std::indirectly_writable<Out, std::indirect_result_t<Op&, In>>
auto transform(P&& policy, In first, In last, Out d_first, Op op) {
    return detail::algo::dispatch(policy, [first, last, d_first, op](const auto& p) mutable {
        const std::size_t n = detail::algo::count_of(first, last);
        const auto in = detail::algo::index_of<decltype(p)>(first, n);
        const auto out = detail::algo::index_of<decltype(p)>(d_first, n);
        detail::algo::run_loop(p, n, [&](std::size_t b, std::size_t e) {
            In i = in(b);
            for (Out o = out(b); b != e; ++b, ++i, ++o) *o = std::invoke(op, *i);
        }, "weft::transform");
        return std::next(d_first, static_cast<std::iter_difference_t<Out>>(n));
    });
}

/// d_first[i] = op(first1[i], first2[i]) for the elements of [first1, last1).
template <execution::execution_policy P, std::forward_iterator In1, std::forward_iterator In2,
          std::forward_iterator Out, class Op>
    requires std::indirectly_writable<Out, std::indirect_result_t<Op&, In1, In2>>
auto transform(P&& policy, In1 first1, In1 last1, In2 first2, Out d_first, Op op) {
    return detail::algo::dispatch(policy, [first1, last1, first2, d_first, op](const auto& p) mutable {
        const std::size_t n = detail::algo::count_of(first1, last1);
        const auto in1 = detail::algo::index_of<decltype(p)>(first1, n);
        const auto in2 = detail::algo::index_of<decltype(p)>(first2, n);
        const auto out = detail::algo::index_of<decltype(p)>(d_first, n);
        detail::algo::run_loop(p, n, [&](std::size_t b, std::size_t e) {
            In1 i = in1(b);
            In2 j = in2(b);
            for (Out o = out(b); b != e; ++b, ++i, ++j, ++o) *o = std::invoke(op, *i, *j);
        }, "weft::transform");
        return std::next(d_first, static_cast<std::iter_difference_t<Out>>(n));
    });
}

/// Unary transform over a range.
template <execution::execution_policy P, std::ranges::forward_range R, std::forward_iterator Out, class Op>
    requires detail::algo::policy_range<R, P> && std::ranges::common_range<R> &&
             std::indirectly_writable<Out, std::indirect_result_t<Op&, std::ranges::iterator_t<R>>>
auto transform(P&& policy, R&& r, Out d_first, Op op) {
    return weft::transform(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), d_first, std::move(op));
}

}  // namespace weft
