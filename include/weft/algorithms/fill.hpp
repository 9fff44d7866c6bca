// weft::fill and weft::fill_n with an execution policy.
#pragma once

#include <weft/algorithms/detail/loop.hpp>
#include <weft/algorithms/detail/ranges.hpp>

#include <iterator>
#include <ranges>
#include <utility>

namespace weft {

/// Assigns `value` to every element of [first, last); nothing (a future<void> for a task
/// policy). @throws weft::exception_list if assignments threw.
template <execution::execution_policy P, std::forward_iterator It, class T>
    requires std::indirectly_writable<It, const T&>
auto fill(P&& policy, It first, It last, const T& value) {
    return detail::algo::dispatch(policy, [first, last, value](const auto& p) {
        const std::size_t n = detail::algo::count_of(first, last);
        const auto at = detail::algo::index_of<decltype(p)>(first, n);
        detail::algo::run_loop(p, n, [&](std::size_t b, std::size_t e) {
            for (It it = at(b); b != e; ++b, ++it) *it = value;
        }, "weft::fill");
    });
}

/// fill over a range.
template <execution::execution_policy P, std::ranges::forward_range R, class T>
    requires detail::algo::policy_range<R, P> && std::indirectly_writable<std::ranges::iterator_t<R>, const T&> && std::ranges::common_range<R>
auto fill(P&& policy, R&& r, const T& value) {
    return weft::fill(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), value);
}

/// Assigns `value` to the n elements from first; returns first + n (nothing done for
/// n <= 0, and first returned).
template <execution::execution_policy P, std::forward_iterator It, std::integral Size, class T>
    requires std::indirectly_writable<It, const T&>
auto fill_n(P&& policy, It first, Size count, const T& value) {
    return detail::algo::dispatch(policy, [first, count, value](const auto& p) {
        const std::size_t n = count > 0 ? static_cast<std::size_t>(count) : 0;
        const auto at = detail::algo::index_of<decltype(p)>(first, n);
        detail::algo::run_loop(p, n, [&](std::size_t b, std::size_t e) {
            for (It it = at(b); b != e; ++b, ++it) *it = value;
        }, "weft::fill_n");
        return std::next(first, static_cast<std::iter_difference_t<It>>(n));
    });
}

}  // namespace weft
