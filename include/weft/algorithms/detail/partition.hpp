// What weft::partition and weft::stable_partition share: when they run in parallel, and
// their first pass, which tests every element once, keeps the answers as flags and counts
// the hits per piece (the later passes place the elements from the counts' prefix sums).
#pragma once

#include <weft/algorithms/detail/loop.hpp>
#include <weft/algorithms/detail/merge.hpp>
#include <weft/algorithms/detail/sort.hpp>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <numeric>
#include <utility>

namespace weft::detail::algo::order {

/// Elements per iteration of the partitions' loops (the chunk parameters group these).
inline constexpr std::size_t partition_piece = 1024;

/// A user predicate as a plain function object returning bool.
template <class Pred>
struct as_test {
    Pred* pred;
    template <class X>
    bool operator()(X&& x) const {
        return static_cast<bool>(std::invoke(*pred, std::forward<X>(x)));
    }
};

/// True if a partition of n elements under p is worth the parallel passes: more than
/// one processing unit and more than one piece.
template <class P>
bool partition_in_parallel(const P& p, std::size_t n) {
    return n > partition_piece && cores_of(p, n) > 1;
}

/// The first pass: flags[i] = test(element i) (1 or 0) and trues[u] = the number of
/// elements of piece u that pass. Returns the total number that pass.
template <class P, class Index, class Test>
std::size_t classify(const P& p, const Index& at, std::size_t n, const Test& test, unsigned char* flags,
                     std::size_t* trues, const char* algorithm) {
    const std::size_t pieces = div_up(n, partition_piece);
    loop(p, pieces, chunk_fn([&](std::size_t ub, std::size_t ue) {
        for (std::size_t u = ub; u < ue; ++u) {
            const std::size_t lo = u * partition_piece;
            const std::size_t hi = std::min(n, lo + partition_piece);
            std::size_t count = 0;
            auto it = at(lo);
            for (std::size_t i = lo; i < hi; ++i, ++it) {
                const bool t = test(*it);
                flags[i] = static_cast<unsigned char>(t);
                count += static_cast<std::size_t>(t);
            }
            trues[u] = count;
        }
    }), algorithm);
    return std::accumulate(trues, trues + pieces, std::size_t{0});
}

}  // namespace weft::detail::algo::order
