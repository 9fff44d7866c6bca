// weft::count and weft::count_if with an execution policy.
#pragma once

#include <weft/algorithms/detail/ranges.hpp>
#include <weft/algorithms/reduce.hpp>

#include <functional>
#include <iterator>
#include <ranges>
#include <utility>

namespace weft {

/// The number of elements of [first, last) that satisfy pred (a future of it for a task
/// policy). @throws weft::exception_list of pred's exceptions.
template <execution::execution_policy P, std::forward_iterator It, class Pred>
    requires std::indirect_unary_predicate<Pred, It>
auto count_if(P&& policy, It first, It last, Pred pred) {
    return detail::algo::dispatch(policy, [first, last, pred](const auto& p) mutable {
        using D = std::iter_difference_t<It>;
        const std::size_t n = detail::algo::count_of(first, last);
        const auto at = detail::algo::index_of<decltype(p)>(first, n);
        std::plus<> add;
        return detail::algo::reduce_chunks(p, n, D{0}, add, [&](std::size_t b, std::size_t e) {
            D c = 0;
            for (It it = at(b); b != e; ++b, ++it)
                if (std::invoke(pred, *it)) ++c;
            return c;
        }, "weft::count_if");
    });
}

/// The number of elements equal to value.
template <execution::execution_policy P, std::forward_iterator It, class T>
auto count(P&& policy, It first, It last, const T& value) {
    return weft::count_if(std::forward<P>(policy), first, last, [value](const auto& x) { return x == value; });
}

/// count_if over a range.
template <execution::execution_policy P, std::ranges::forward_range R, class Pred>
    requires detail::algo::policy_range<R, P> && std::indirect_unary_predicate<Pred, std::ranges::iterator_t<R>>
auto count_if(P&& policy, R&& r, Pred pred) {
    return weft::count_if(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), std::move(pred));
}

/// count over a range.
template <execution::execution_policy P, std::ranges::forward_range R, class T>
    requires detail::algo::policy_range<R, P>
auto count(P&& policy, R&& r, const T& value) {
    return weft::count(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), value);
}

}  // namespace weft
