// weft::partition with an execution policy. In parallel: a first pass tests every
// element once (flags) and counts the hits per piece, which gives m, the size of the
// first group. The elements misplaced are then the failures before m and the hits from
// m on, equally many; the k-th of the former is swapped with the k-th of the latter, by
// a loop over k (each chunk finds its first pair from the per-piece counts). In place:
// only misplaced elements move, each once.
#pragma once

#include <weft/algorithms/detail/loop.hpp>
#include <weft/algorithms/detail/merge.hpp>
#include <weft/algorithms/detail/partition.hpp>
#include <weft/algorithms/detail/ranges.hpp>

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <memory>
#include <ranges>
#include <utility>
#include <vector>

namespace weft {
namespace detail::algo::order {
template <class P, class It, class Pred>
It partition_impl(const P& p, It first, It last, Pred& pred) {
    static constexpr const char* name = "weft::partition";
    const std::size_t n = count_of(first, last);
    const as_test<Pred> test{&pred};
    if (!partition_in_parallel(p, n)) {
        It r = first;
        auto step = [&] { r = std::partition(first, last, test); };
        if (n > 0) serially(p, name, step);
        return r;
    }
    const auto at = index_of<P>(first, n);
    const std::size_t pieces = div_up(n, partition_piece);
    const auto flags = std::make_unique_for_overwrite<unsigned char[]>(n);
    std::vector<std::size_t> trues(pieces);
    const std::size_t m = classify(p, at, n, test, flags.get(), trues.data(), name);

    // left[u]: the failures in piece u before m, right[u]: the hits in piece u from m
    // on, both as exclusive prefix sums over the pieces (one entry more: the totals).
    std::vector<std::size_t> left(pieces + 1, 0), right(pieces + 1, 0);
    for (std::size_t u = 0; u < pieces; ++u) {
        const std::size_t lo = u * partition_piece;
        const std::size_t hi = std::min(n, lo + partition_piece);
        std::size_t l = 0, r = 0;
        if (hi <= m) {
            l = (hi - lo) - trues[u];
        } else if (lo >= m) {
            r = trues[u];
        } else {
            const auto hits_before_m = static_cast<std::size_t>(std::count(flags.get() + lo, flags.get() + m, 1));
            l = (m - lo) - hits_before_m;
            r = trues[u] - hits_before_m;
        }
        left[u + 1] = left[u] + l;
        right[u + 1] = right[u] + r;
    }
    const std::size_t misplaced = left[pieces];  // == right[pieces]

    const unsigned char* const f = flags.get();
    loop(p, div_up(misplaced, partition_piece), chunk_fn([&](std::size_t qb, std::size_t qe) {
        const std::size_t k0 = qb * partition_piece;
        const std::size_t k1 = std::min(misplaced, qe * partition_piece);
        // The k0-th misplaced element on each side: its piece from the prefix sums, then
        // a scan of that piece's flags.
        const auto u = static_cast<std::size_t>(std::upper_bound(left.begin(), left.end(), k0) - left.begin()) - 1;
        std::size_t x = u * partition_piece;
        for (std::size_t skip = k0 - left[u];; ++x)
            if (f[x] == 0 && skip-- == 0) break;
        const auto v = static_cast<std::size_t>(std::upper_bound(right.begin(), right.end(), k0) - right.begin()) - 1;
        std::size_t y = std::max(v * partition_piece, m);
        for (std::size_t skip = k0 - right[v];; ++y)
            if (f[y] != 0 && skip-- == 0) break;
        It ix = at(x);
        It iy = at(y);
        for (std::size_t c = k1 - k0;;) {
            std::ranges::iter_swap(ix, iy);
            if (--c == 0) break;
            do {
                ++x;
                ++ix;
            } while (f[x] != 0);
            do {
                ++y;
                ++iy;
            } while (f[y] == 0);
        }
    }), name);
    return m == n ? last : at(m);
}
}  // namespace detail::algo::order

/// Reorders [first, last) so that the elements that satisfy pred precede those that do
/// not (not stably). Returns an iterator to the first element of the second group (a
/// future of it for a task policy). pred is called once per element.
/// @throws weft::exception_list of pred's exceptions (the range is then unchanged when
/// it runs in parallel, and a permutation of it in any case).
template <execution::execution_policy P, std::forward_iterator It, class Pred>
    requires std::permutable<It> && std::indirect_unary_predicate<Pred, It>
auto partition(P&& policy, It first, It last, Pred pred) {
    return detail::algo::dispatch(policy, [first, last, pred](const auto& p) mutable {
        return detail::algo::order::partition_impl(p, first, last, pred);
    });
}

/// partition over a range.
template <execution::execution_policy P, std::ranges::forward_range R, class Pred>
    requires detail::algo::policy_borrowed_range<R, P> && std::permutable<std::ranges::iterator_t<R>> &&
             std::indirect_unary_predicate<Pred, std::ranges::iterator_t<R>>
auto partition(P&& policy, R&& r, Pred pred) {
    return weft::partition(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), std::move(pred));
}

}  // namespace weft
