// weft::generate and weft::generate_n with an execution policy.
#pragma once

#include <weft/algorithms/detail/loop.hpp>
#include <weft/algorithms/detail/ranges.hpp>

#include <functional>
#include <iterator>
#include <ranges>
#include <utility>

namespace weft {

/// Assigns g() to every element of [first, last). g is called concurrently (it must be
/// safe to), in no particular order. @throws weft::exception_list of g's exceptions.
template <execution::execution_policy P, std::forward_iterator It, class G>
    requires std::invocable<G&> && std::indirectly_writable<It, std::invoke_result_t<G&>>
auto generate(P&& policy, It first, It last, G g) {
    return detail::algo::dispatch(policy, [first, last, g](const auto& p) mutable {
        const std::size_t n = detail::algo::count_of(first, last);
        const auto at = detail::algo::index_of<decltype(p)>(first, n);
        detail::algo::run_loop(p, n, [&](std::size_t b, std::size_t e) {
            for (It it = at(b); b != e; ++b, ++it) *it = std::invoke(g);
        }, "weft::generate");
    });
}

/// Assigns g() to the n elements from first; returns first + n (n <= 0: nothing).
template <execution::execution_policy P, std::forward_iterator It, std::integral Size, class G>
    requires std::invocable<G&> && std::indirectly_writable<It, std::invoke_result_t<G&>>
auto generate_n(P&& policy, It first, Size count, G g) {
    return detail::algo::dispatch(policy, [first, count, g](const auto& p) mutable {
        const std::size_t n = count > 0 ? static_cast<std::size_t>(count) : 0;
        const auto at = detail::algo::index_of<decltype(p)>(first, n);
        detail::algo::run_loop(p, n, [&](std::size_t b, std::size_t e) {
            for (It it = at(b); b != e; ++b, ++it) *it = std::invoke(g);
        }, "weft::generate_n");
        return std::next(first, static_cast<std::iter_difference_t<It>>(n));
    });
}

/// generate over a range.
template <execution::execution_policy P, std::ranges::forward_range R, class G>
    requires detail::algo::policy_range<R, P> && std::invocable<G&> &&
             std::indirectly_writable<std::ranges::iterator_t<R>, std::invoke_result_t<G&>>
auto generate(P&& policy, R&& r, G g) {
    return weft::generate(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), std::move(g));
}

}  // namespace weft
