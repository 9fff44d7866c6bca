// weft::inclusive_scan with an execution policy: the chunked scan of detail/scan.hpp.
#pragma once

#include <weft/algorithms/detail/ranges.hpp>
#include <weft/algorithms/detail/scan.hpp>

#include <functional>
#include <iterator>
#include <optional>
#include <ranges>
#include <utility>

namespace weft {

/// d_first[i] = first[0] op first[1] op ... op first[i] for the elements of [first,
/// last), in sums of the input's value type; op need be associative, not commutative.
/// d_first may be first. Returns the end of the output (a future of it for a task
/// policy). @throws weft::exception_list.
template <execution::execution_policy P, std::forward_iterator In, std::forward_iterator Out, class Op = std::plus<>>
    requires detail::algo::scan_operation<Op, std::iter_value_t<In>, std::iter_reference_t<In>> &&
             std::indirectly_writable<Out, const std::iter_value_t<In>&>
auto inclusive_scan(P&& policy, In first, In last, Out d_first, Op op = {}) {
    return detail::algo::dispatch(policy, [first, last, d_first, op](const auto& p) mutable {
        detail::algo::scan_identity id;
        return detail::algo::scan<std::iter_value_t<In>, false>(p, first, last, d_first, std::nullopt, op, id,
                                                                "weft::inclusive_scan");
    });
}

/// d_first[i] = init op first[0] op ... op first[i], in sums of init's type.
template <execution::execution_policy P, std::forward_iterator In, std::forward_iterator Out, class Op, class T>
    requires detail::algo::scan_operation<Op, T, std::iter_reference_t<In>> && std::indirectly_writable<Out, const T&>
auto inclusive_scan(P&& policy, In first, In last, Out d_first, Op op, T init) {
    return detail::algo::dispatch(policy, [first, last, d_first, op, init](const auto& p) mutable {
        detail::algo::scan_identity id;
        return detail::algo::scan<T, false>(p, first, last, d_first, std::optional<T>(std::move(init)), op, id,
                                            "weft::inclusive_scan");
    });
}

/// inclusive_scan over a range (with a task policy, an lvalue range or a view: a temporary
/// would be destroyed under the running task).
template <execution::execution_policy P, std::ranges::forward_range R, std::forward_iterator Out, class Op = std::plus<>>
    requires detail::algo::policy_range<R, P> &&
             detail::algo::scan_operation<Op, std::ranges::range_value_t<R>, std::ranges::range_reference_t<R>> &&
             std::indirectly_writable<Out, const std::ranges::range_value_t<R>&>
auto inclusive_scan(P&& policy, R&& r, Out d_first, Op op = {}) {
    return weft::inclusive_scan(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), d_first,
                                std::move(op));
}

/// inclusive_scan with init over a range (with a task policy, an lvalue range or a view).
template <execution::execution_policy P, std::ranges::forward_range R, std::forward_iterator Out, class Op, class T>
    requires detail::algo::policy_range<R, P> && detail::algo::scan_operation<Op, T, std::ranges::range_reference_t<R>> &&
             std::indirectly_writable<Out, const T&>
auto inclusive_scan(P&& policy, R&& r, Out d_first, Op op, T init) {
    return weft::inclusive_scan(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), d_first,
                                std::move(op), std::move(init));
}

}  // namespace weft
