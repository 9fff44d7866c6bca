// weft::unique with an execution policy: element i stays unless it is equivalent to
// element i - 1, which each chunk decides on its own (reading one element of the chunk
// before it); then the stable compaction of remove_if (see detail/compact.hpp).
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
It unique_impl(const P& p, It first, It last, Pred& pred, const char* algorithm) {
    const std::size_t n = count_of(first, last);
    if constexpr (!std::remove_cvref_t<P>::kind::parallel) {
        run_loop(p, n, [&](std::size_t, std::size_t) {
            last = std::unique(first, last, [&pred](auto&& a, auto&& b) {
                return std::invoke(pred, std::forward<decltype(a)>(a), std::forward<decltype(b)>(b));
            });
        }, algorithm);
        return last;
    } else {
        auto keep = [&pred](const auto& at, std::size_t b, std::size_t e, auto& emit) {
            // Element i is compared with element i - 1 before either moves, so each
            // element is moved one step late; the chunk's last element is left in place
            // (the next chunk compares its first element with it) and reported pending.
            const bool head = b == 0;  // element 0 stays, with nothing before it
            It prev = at(head ? 0 : b - 1);
            It it = std::next(prev);
            bool prev_stays = head;  // element b - 1 (b > 0) is the chunk before's to move
            std::size_t i = head ? 1 : b;
            for (; i != e; ++i, ++it) {
                const bool stays = !std::invoke(pred, *prev, *it);
                if (prev_stays) emit(prev);
                prev_stays = stays;
                prev = it;
            }
            return prev_stays;
        };
        return compact_in_place(p, first, last, n, keep, algorithm);
    }
}

}  // namespace detail::algo

/// Removes from [first, last) every element equivalent (under pred, an equivalence) to
/// the one before it, keeping the first of each run; returns the new end (a future of
/// it for a task policy). The elements from the new end to last are valid but
/// unspecified. @throws weft::exception_list of pred's and the moves' exceptions.
template <execution::execution_policy P, std::forward_iterator It, class Pred = std::equal_to<>>
    requires std::permutable<It> && std::indirect_equivalence_relation<Pred, It>
auto unique(P&& policy, It first, It last, Pred pred = {}) {
    return detail::algo::dispatch(policy, [first, last, pred](const auto& p) mutable {
        return detail::algo::unique_impl(p, first, last, pred, "weft::unique");
    });
}

/// unique over a range.
template <execution::execution_policy P, std::ranges::forward_range R, class Pred = std::equal_to<>>
    requires detail::algo::policy_borrowed_range<R, P> && std::permutable<std::ranges::iterator_t<R>> &&
             std::indirect_equivalence_relation<Pred, std::ranges::iterator_t<R>>
auto unique(P&& policy, R&& r, Pred pred = {}) {
    return weft::unique(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), std::move(pred));
}

}  // namespace weft
