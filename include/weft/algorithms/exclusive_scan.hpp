// weft::exclusive_scan with an execution policy: the chunked scan of detail/scan.hpp.
#pragma once

#include <weft/algorithms/detail/ranges.hpp>
#include <weft/algorithms/detail/scan.hpp>

#include <functional>
#include <iterator>
#include <optional>
#include <ranges>
#include <utility>

namespace weft {

/// d_first[i] = init op first[0] op ... op first[i - 1] for the elements of [first,
/// last) (d_first[0] = init), in sums of init's type; op need be associative, not
/// commutative. d_first may be first. Returns the end of the output (a future of it for
/// a task policy). @throws weft::exception_list.
template <execution::execution_policy P, std::forward_iterator In, std::forward_iterator Out, class T,
          class Op = std::plus<>>
    requires detail::algo::scan_operation<Op, T, std::iter_reference_t<In>> && std::indirectly_writable<Out, T>
auto exclusive_scan(P&& policy, In first, In last, Out d_first, T init, Op op = {}) {
    return detail::algo::dispatch(policy, [first, last, d_first, init, op](const auto& p) mutable {
        detail::algo::scan_identity id;
        return detail::algo::scan<T, true>(p, first, last, d_first, std::optional<T>(std::move(init)), op, id,
                                           "weft::exclusive_scan");
    });
}

/// exclusive_scan over a range (with a task policy, an lvalue range or a view: a temporary
/// would be destroyed under the running task).
template <execution::execution_policy P, std::ranges::forward_range R, std::forward_iterator Out, class T,
          class Op = std::plus<>>
    requires detail::algo::policy_range<R, P> && detail::algo::scan_operation<Op, T, std::ranges::range_reference_t<R>> &&
             std::indirectly_writable<Out, T>
auto exclusive_scan(P&& policy, R&& r, Out d_first, T init, Op op = {}) {
    return weft::exclusive_scan(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), d_first,
                                std::move(init), std::move(op));
}

}  // namespace weft
