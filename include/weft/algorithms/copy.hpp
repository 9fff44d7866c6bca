// weft::copy and weft::copy_n with an execution policy.
#pragma once

#include <weft/algorithms/detail/loop.hpp>
#include <weft/algorithms/detail/ranges.hpp>

#include <iterator>
#include <ranges>
#include <utility>

namespace weft {
namespace detail::algo {
/// Assigns the n elements from first to those from d_first with put(*out, in) (a copy or
/// a move); returns d_first + n. Shared by copy, copy_n and move.
template <class P, class In, class Out, class Put>
Out transfer_n(const P& p, In first, std::size_t n, Out d_first, Put put, const char* algorithm) {
    const auto in = index_of<P>(first, n);
    const auto out = index_of<P>(d_first, n);
    run_loop(p, n, [&](std::size_t b, std::size_t e) {
        In i = in(b);
        for (Out o = out(b); b != e; ++b, ++i, ++o) put(o, i);
    }, algorithm);
    return std::next(d_first, static_cast<std::iter_difference_t<Out>>(n));
}
inline constexpr auto copy_one = [](auto& o, auto& i) { *o = *i; };
}  // namespace detail::algo

/// Copies [first, last) to d_first (the ranges must not overlap); returns the end of the
/// output (a future of it for a task policy). @throws weft::exception_list.
template <execution::execution_policy P, std::forward_iterator In, std::forward_iterator Out>
    requires std::indirectly_copyable<In, Out>
auto copy(P&& policy, In first, In last, Out d_first) {
    return detail::algo::dispatch(policy, [first, last, d_first](const auto& p) {
        return detail::algo::transfer_n(p, first, detail::algo::count_of(first, last), d_first, detail::algo::copy_one,
                                        "weft::copy");
    });
}

/// copy over a range.
template <execution::execution_policy P, std::ranges::forward_range R, std::forward_iterator Out>
    requires detail::algo::policy_range<R, P> && std::ranges::common_range<R> && std::indirectly_copyable<std::ranges::iterator_t<R>, Out>
auto copy(P&& policy, R&& r, Out d_first) {
    return weft::copy(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), d_first);
}

/// Copies the n elements from first to d_first; returns d_first + n (n <= 0: nothing).
template <execution::execution_policy P, std::forward_iterator In, std::integral Size, std::forward_iterator Out>
    requires std::indirectly_copyable<In, Out>
auto copy_n(P&& policy, In first, Size count, Out d_first) {
    return detail::algo::dispatch(policy, [first, count, d_first](const auto& p) {
        const std::size_t n = count > 0 ? static_cast<std::size_t>(count) : 0;
        return detail::algo::transfer_n(p, first, n, d_first, detail::algo::copy_one, "weft::copy_n");
    });
}

}  // namespace weft
