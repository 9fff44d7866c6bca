// weft::stable_partition with an execution policy. In parallel: a first pass tests every
// element once (flags) and counts the hits per piece; the prefix sums of the counts give
// each piece where its hits and its failures go, in order. A second pass moves every
// element to its place in a temporary buffer, a third moves the buffer back.
#pragma once

#include <weft/algorithms/detail/loop.hpp>
#include <weft/algorithms/detail/merge.hpp>
#include <weft/algorithms/detail/partition.hpp>
#include <weft/algorithms/detail/ranges.hpp>

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <memory>
#include <numeric>
#include <ranges>
#include <utility>
#include <vector>

namespace weft {
namespace detail::algo::order {
template <class P, class It, class Pred>
It stable_partition_impl(const P& p, It first, It last, Pred& pred) {
    static constexpr const char* name = "weft::stable_partition";
    using T = std::iter_value_t<It>;
    const std::size_t n = count_of(first, last);
    const as_test<Pred> test{&pred};
    if (!partition_in_parallel(p, n)) {
        It r = first;
        auto step = [&] { r = std::stable_partition(first, last, test); };
        if (n > 0) serially(p, name, step);
        return r;
    }
    const auto at = index_of<P>(first, n);
    const std::size_t pieces = div_up(n, partition_piece);
    const auto flags = std::make_unique_for_overwrite<unsigned char[]>(n);
    std::vector<std::size_t> trues(pieces);
    const std::size_t m = classify(p, at, n, test, flags.get(), trues.data(), name);
    // before[u]: the hits in the pieces before u. Piece u's hits go to [before[u], ...)
    // and its failures to [m + lo - before[u], ...), lo its first position.
    std::vector<std::size_t> before(pieces);
    std::exclusive_scan(trues.begin(), trues.end(), before.begin(), std::size_t{0});

    scratch<T> buf(n);
    T* const tmp = buf.data();
    const unsigned char* const f = flags.get();
    const auto hits_at = [&](std::size_t u) { return tmp + before[u]; };
    const auto failures_at = [&](std::size_t u) { return tmp + m + u * partition_piece - before[u]; };
    buf.construct_by(pieces, [&](auto marks) {
        loop(p, pieces, chunk_fn([&](std::size_t ub, std::size_t ue) {
            for (std::size_t u = ub; u < ue; ++u) {
                const std::size_t lo = u * partition_piece;
                const std::size_t hi = std::min(n, lo + partition_piece);
                T* hit = hits_at(u);
                T* failure = failures_at(u);
                try {
                    It it = at(lo);
                    for (std::size_t i = lo; i < hi; ++i, ++it) {
                        T*& to = f[i] != 0 ? hit : failure;
                        std::construct_at(to, std::ranges::iter_move(it));
                        ++to;
                    }
                } catch (...) {
                    std::destroy(hits_at(u), hit);
                    std::destroy(failures_at(u), failure);
                    throw;
                }
                marks(u, u + 1);
            }
        }), name);
    }, [&](std::size_t u) {
        const std::size_t size = std::min(n - u * partition_piece, partition_piece);
        std::destroy_n(hits_at(u), trues[u]);
        std::destroy_n(failures_at(u), size - trues[u]);
    });
    loop(p, pieces, chunk_fn([&](std::size_t ub, std::size_t ue) {
        const std::size_t lo = ub * partition_piece;
        const std::size_t hi = std::min(n, ue * partition_piece);
        std::move(tmp + lo, tmp + hi, at(lo));
    }), name);
    return m == n ? last : at(m);
}
}  // namespace detail::algo::order

/// Reorders [first, last) so that the elements that satisfy pred precede those that do
/// not, each group in its original order. Returns an iterator to the first element of
/// the second group (a future of it for a task policy). pred is called once per element;
/// a temporary buffer of last - first elements is used.
/// @throws weft::exception_list of pred's exceptions (the range is then unchanged when
/// it runs in parallel, and in a valid but unspecified state in any case).
template <execution::execution_policy P, std::bidirectional_iterator It, class Pred>
    requires std::permutable<It> && std::indirect_unary_predicate<Pred, It>
auto stable_partition(P&& policy, It first, It last, Pred pred) {
    return detail::algo::dispatch(policy, [first, last, pred](const auto& p) mutable {
        return detail::algo::order::stable_partition_impl(p, first, last, pred);
    });
}

/// stable_partition over a range.
template <execution::execution_policy P, std::ranges::bidirectional_range R, class Pred>
    requires detail::algo::policy_borrowed_range<R, P> && std::permutable<std::ranges::iterator_t<R>> &&
             std::indirect_unary_predicate<Pred, std::ranges::iterator_t<R>>
auto stable_partition(P&& policy, R&& r, Pred pred) {
    return weft::stable_partition(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r),
                                  std::move(pred));
}

}  // namespace weft
