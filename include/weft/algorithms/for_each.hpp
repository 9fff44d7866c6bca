// weft::for_each and weft::for_each_n with an execution policy: std semantics, chunks of
// the range run as the policy's executor and parameters say.
#pragma once

#include <weft/algorithms/detail/loop.hpp>
#include <weft/algorithms/detail/ranges.hpp>

#include <functional>
#include <iterator>
#include <ranges>
#include <utility>

namespace weft {

/// Calls f(*it) for every it in [first, last). Returns nothing, or for a task policy a
/// weft::future<void>. @throws weft::exception_list of the element functions' exceptions
/// (seq and par; the unsequenced policies terminate instead).
template <execution::execution_policy P, std::forward_iterator It, class F>
    requires std::indirectly_unary_invocable<F, It>
auto for_each(P&& policy, It first, It last, F f) {
    return detail::algo::dispatch(policy, [first, last, f](const auto& p) mutable {
        const std::size_t n = detail::algo::count_of(first, last);
        const auto at = detail::algo::index_of<decltype(p)>(first, n);
        detail::algo::run_loop(p, n, [&](std::size_t b, std::size_t e) {
            for (It it = at(b); b != e; ++b, ++it) std::invoke(f, *it);
        }, "weft::for_each");
    });
}

/// for_each over a range.
template <execution::execution_policy P, std::ranges::forward_range R, class F>
    requires detail::algo::policy_range<R, P> && std::indirectly_unary_invocable<F, std::ranges::iterator_t<R>> && std::ranges::common_range<R>
auto for_each(P&& policy, R&& r, F f) {
    return weft::for_each(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), std::move(f));
}

/// Calls f(*it) for the n elements from first; returns first + n (a future of it for a
/// task policy). A negative n does nothing. @throws as for_each.
template <execution::execution_policy P, std::forward_iterator It, std::integral Size, class F>
    requires std::indirectly_unary_invocable<F, It>
auto for_each_n(P&& policy, It first, Size count, F f) {
    return detail::algo::dispatch(policy, [first, count, f](const auto& p) mutable {
        const std::size_t n = count > 0 ? static_cast<std::size_t>(count) : 0;
        const auto at = detail::algo::index_of<decltype(p)>(first, n);
        detail::algo::run_loop(p, n, [&](std::size_t b, std::size_t e) {
            for (It it = at(b); b != e; ++b, ++it) std::invoke(f, *it);
        }, "weft::for_each_n");
        return std::next(first, static_cast<std::iter_difference_t<It>>(n));
    });
}

}  // namespace weft
