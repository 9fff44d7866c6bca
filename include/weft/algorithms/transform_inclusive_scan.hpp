// weft::transform_inclusive_scan with an execution policy: the chunked scan of
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

/// d_first[i] = u(first[0]) op u(first[1]) ... op u(first[i]) for the elements of
/// [first, last), u being unary_op and op binary_op, in sums of u's (decayed) result
/// type; op need be associative, not commutative. d_first may be first. Returns the end
/// of the output (a future of it for a task policy). @throws weft::exception_list.
template <execution::execution_policy P, std::forward_iterator In, std::forward_iterator Out, class BinaryOp,
          class UnaryOp>
    requires std::invocable<UnaryOp&, std::iter_reference_t<In>> &&
             detail::algo::scan_operation<BinaryOp, std::decay_t<std::invoke_result_t<UnaryOp&, std::iter_reference_t<In>>>,
                                          std::invoke_result_t<UnaryOp&, std::iter_reference_t<In>>> &&
             std::indirectly_writable<Out, const std::decay_t<std::invoke_result_t<UnaryOp&, std::iter_reference_t<In>>>&>
auto transform_inclusive_scan(P&& policy, In first, In last, Out d_first, BinaryOp binary_op, UnaryOp unary_op) {
    return detail::algo::dispatch(policy, [first, last, d_first, binary_op, unary_op](const auto& p) mutable {
        using T = std::decay_t<std::invoke_result_t<UnaryOp&, std::iter_reference_t<In>>>;
        return detail::algo::scan<T, false>(p, first, last, d_first, std::nullopt, binary_op, unary_op,
                                            "weft::transform_inclusive_scan");
    });
}

/// d_first[i] = init op u(first[0]) op ... op u(first[i]), in sums of init's type.
template <execution::execution_policy P, std::forward_iterator In, std::forward_iterator Out, class BinaryOp,
          class UnaryOp, class T>
    requires std::invocable<UnaryOp&, std::iter_reference_t<In>> &&
             detail::algo::scan_operation<BinaryOp, T, std::invoke_result_t<UnaryOp&, std::iter_reference_t<In>>> &&
             std::indirectly_writable<Out, const T&>
auto transform_inclusive_scan(P&& policy, In first, In last, Out d_first, BinaryOp binary_op, UnaryOp unary_op,
                              T init) {
    return detail::algo::dispatch(policy, [first, last, d_first, binary_op, unary_op, init](const auto& p) mutable {
        return detail::algo::scan<T, false>(p, first, last, d_first, std::optional<T>(std::move(init)), binary_op,
                                            unary_op, "weft::transform_inclusive_scan");
    });
}

/// transform_inclusive_scan over a range (with a task policy, an lvalue range or a view: a
/// temporary would be destroyed under the running task).
template <execution::execution_policy P, std::ranges::forward_range R, std::forward_iterator Out, class BinaryOp,
          class UnaryOp>
    requires detail::algo::policy_range<R, P> && std::invocable<UnaryOp&, std::ranges::range_reference_t<R>> &&
             detail::algo::scan_operation<BinaryOp,
                                          std::decay_t<std::invoke_result_t<UnaryOp&, std::ranges::range_reference_t<R>>>,
                                          std::invoke_result_t<UnaryOp&, std::ranges::range_reference_t<R>>> &&
             std::indirectly_writable<
                 Out, const std::decay_t<std::invoke_result_t<UnaryOp&, std::ranges::range_reference_t<R>>>&>
auto transform_inclusive_scan(P&& policy, R&& r, Out d_first, BinaryOp binary_op, UnaryOp unary_op) {
    return weft::transform_inclusive_scan(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), d_first,
                                          std::move(binary_op), std::move(unary_op));
}

/// transform_inclusive_scan with init over a range (with a task policy, an lvalue range or
/// a view).
template <execution::execution_policy P, std::ranges::forward_range R, std::forward_iterator Out, class BinaryOp,
          class UnaryOp, class T>
    requires detail::algo::policy_range<R, P> && std::invocable<UnaryOp&, std::ranges::range_reference_t<R>> &&
             detail::algo::scan_operation<BinaryOp, T, std::invoke_result_t<UnaryOp&, std::ranges::range_reference_t<R>>> &&
             std::indirectly_writable<Out, const T&>
auto transform_inclusive_scan(P&& policy, R&& r, Out d_first, BinaryOp binary_op, UnaryOp unary_op, T init) {
    return weft::transform_inclusive_scan(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), d_first,
                                          std::move(binary_op), std::move(unary_op), std::move(init));
}

}  // namespace weft
