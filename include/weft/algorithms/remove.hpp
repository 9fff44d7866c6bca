// weft::remove and weft::remove_if with an execution policy: a stable compaction (see
// detail/compact.hpp): each chunk moves the elements it keeps into its stretch of a
// buffer and counts them; the counts, summed in range order, give each chunk's place;
// then every chunk moves its elements from the buffer to their place.
#pragma once

#include <weft/algorithms/detail/compact.hpp>
#include <weft/algorithms/detail/loop.hpp>
#include <weft/algorithms/detail/ranges.hpp>

#include <algorithm>
#include <functional>
#include <iterator>
#include <ranges>
#include <utility>

namespace weft {
namespace detail::algo {

template <class P, class It, class Pred>
It remove_if_impl(const P& p, It first, It last, Pred& pred, const char* algorithm) {
    const std::size_t n = count_of(first, last);
    if constexpr (!std::remove_cvref_t<P>::kind::parallel) {
        run_loop(p, n, [&](std::size_t, std::size_t) {
            last = std::remove_if(first, last,
                                  [&pred](auto&& x) { return std::invoke(pred, std::forward<decltype(x)>(x)); });
        }, algorithm);
        return last;
    } else {
        auto keep = [&pred](const auto& at, std::size_t b, std::size_t e, auto& emit) {
            It it = at(b);
            for (; b != e; ++b, ++it)
                if (!std::invoke(pred, *it)) emit(it);
            return false;
        };
        return compact_in_place(p, first, last, n, keep, algorithm);
    }
}

}  // namespace detail::algo

/// Removes the elements of [first, last) that satisfy pred, keeping the order of the
/// others; returns the new end (a future of it for a task policy). The elements from
/// the new end to last are valid but unspecified. pred is called once per element.
/// @throws weft::exception_list of pred's and the moves' exceptions.
template <execution::execution_policy P, std::forward_iterator It, class Pred>
    requires std::permutable<It> && std::indirect_unary_predicate<Pred, It>
auto remove_if(P&& policy, It first, It last, Pred pred) {
    return detail::algo::dispatch(policy, [first, last, pred](const auto& p) mutable {
        return detail::algo::remove_if_impl(p, first, last, pred, "weft::remove_if");
    });
}

/// Removes the elements equal to value (as remove_if).
template <execution::execution_policy P, std::forward_iterator It, class T>
    requires std::permutable<It> && std::indirect_binary_predicate<std::ranges::equal_to, It, const T*>
auto remove(P&& policy, It first, It last, const T& value) {
    return detail::algo::dispatch(policy, [first, last, value](const auto& p) {
        auto equal = [&value](const auto& x) { return x == value; };
        return detail::algo::remove_if_impl(p, first, last, equal, "weft::remove");
    });
}

/// remove_if over a range.
template <execution::execution_policy P, std::ranges::forward_range R, class Pred>
    requires detail::algo::policy_borrowed_range<R, P> && std::permutable<std::ranges::iterator_t<R>> &&
             std::indirect_unary_predicate<Pred, std::ranges::iterator_t<R>>
auto remove_if(P&& policy, R&& r, Pred pred) {
    return weft::remove_if(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), std::move(pred));
}

/// remove over a range.
template <execution::execution_policy P, std::ranges::forward_range R, class T>
    requires detail::algo::policy_borrowed_range<R, P> && std::permutable<std::ranges::iterator_t<R>> &&
             std::indirect_binary_predicate<std::ranges::equal_to, std::ranges::iterator_t<R>, const T*>
auto remove(P&& policy, R&& r, const T& value) {
    return weft::remove(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), value);
}

}  // namespace weft
