// weft::transform_exclusive_scan with an execution policy: the chunked scan of
// detail/scan.hpp over unary_op of each element.
#pragma once

#include <weft/algorithms/detail/ranges.hpp>
#include <weft/algorithms/detail/scan.hpp>

#include <concepts>
#include <iterator>
#include <optional>
#include <ranges>
#include <type_traits>
#include <utility>

namespace weft {

/// d_first[i] = init op u(first[0]) op ... op u(first[i - 1]) for the elements of
/// [first, last) (d_first[0] = init), u being unary_op and op binary_op, in sums of
/// init's type; op need be associative, not commutative. d_first may be first. Returns
/// the end of the output (a future of it for a task policy). @throws weft::exception_list.
template <execution::execution_policy P, std::forward_iterator In, std::forward_iterator Out, class T, class BinaryOp,
          class UnaryOp>
    requires std::invocable<UnaryOp&, std::iter_reference_t<In>> &&
             detail::algo::scan_operation<BinaryOp, T, std::invoke_result_t<UnaryOp&, std::iter_reference_t<In>>> &&
             std::indirectly_writable<Out, T>
auto transform_exclusive_scan(P&& policy, In first, In last, Out d_first, T init, BinaryOp binary_op,
                              UnaryOp unary_op) {
    return detail::algo::dispatch(policy, [first, last, d_first, init, binary_op, unary_op](const auto& p) mutable {
        return detail::algo::scan<T, true>(p, first, last, d_first, std::optional<T>(std::move(init)), binary_op,
                                           unary_op, "weft::transform_exclusive_scan");
    });
}

/// transform_exclusive_scan over a range (with a task policy, an lvalue range or a view: a
/// temporary would be destroyed under the running task).
template <execution::execution_policy P, std::ranges::forward_range R, std::forward_iterator Out, class T,
          class BinaryOp, class UnaryOp>
    requires detail::algo::policy_range<R, P> && std::invocable<UnaryOp&, std::ranges::range_reference_t<R>> &&
             detail::algo::scan_operation<BinaryOp, T, std::invoke_result_t<UnaryOp&, std::ranges::range_reference_t<R>>> &&
             std::indirectly_writable<Out, T>
auto transform_exclusive_scan(P&& policy, R&& r, Out d_first, T init, BinaryOp binary_op, UnaryOp unary_op) {
    return weft::transform_exclusive_scan(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), d_first,
                                          std::move(init), std::move(binary_op), std::move(unary_op));
}

}  // namespace weft
