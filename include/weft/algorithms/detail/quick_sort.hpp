// The parallel quicksort behind weft::sort for large ranges: in place, no buffer.
//
// The top levels of a quicksort are split in parallel: each range larger than about
// n / (4 x processing units) is partitioned around the median of a sample by all agents
// at once, then the ranges left (the leaves) are sorted by std::sort, one per chunk,
// largest first. A parallel partition deals the range out in blocks taken from both
// ends: an agent holds one block from the left and one from the right and swaps the
// elements that belong on the other side until one block is all in place, then takes
// another (Tsigas and Zhang's scheme). When the blocks run out, the few blocks the agents
// left unfinished are swapped next to the middle and that stretch is partitioned on its
// own. The work is std::sort's, spread: the partitions are its top levels.
//
// Many elements equal to a pivot are split off by a second partition, so all-equal input
// is linear; the number of parallel levels is bounded, so no input makes the top levels
// quadratic (std::sort's introsort bounds the leaves).
#pragma once

#include <weft/algorithms/detail/loop.hpp>
#include <weft/algorithms/detail/merge.hpp>
#include <weft/algorithms/detail/sort.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft::detail::algo::order {

/// Elements per block of a parallel partition.
inline constexpr std::size_t partition_block = 1024;
/// Ranges at least this large per processing unit are sorted by the parallel quicksort
/// (smaller ones by the merge sort, or by one std::sort).
inline constexpr std::size_t quick_sort_min_per_core = 8 * partition_block;

/// The partitions' test: x < pivot, or (or_equal) !(pivot < x). One type for both, so
/// that the parallel partition is compiled once. Small trivially copyable pivots are held
/// by value: a copy the partition's swaps cannot alias stays in a register.
template <class S, class Less>
struct pivot_test {
    using value_type = std::iter_value_t<S>;
    static constexpr bool by_value = branchless_merge<value_type>;
    const Less* less;
    std::conditional_t<by_value, value_type, S> pivot;
    bool or_equal;

    pivot_test(const Less& l, S at, bool equal) : less(&l), pivot(hold(at)), or_equal(equal) {}
    template <class X>
    bool operator()(X&& x) const {
        if constexpr (by_value) return or_equal ? !(*less)(pivot, x) : (*less)(std::forward<X>(x), pivot);
        else return or_equal ? !(*less)(*pivot, x) : (*less)(std::forward<X>(x), *pivot);
    }

private:
    static auto hold(S at) {
        if constexpr (by_value) return value_type(*at);
        else return at;
    }
};

/// Partitions [first, first + n) by test (those that pass first) with `agents` agents
/// of p (see the top of this file); returns how many pass. test may be called more than
/// once on an element (on those of the blocks left unfinished).
template <class P, class S, class Test>
std::size_t partition_blocks(const P& p, S first, std::size_t n, std::size_t agents, const Test& test,
                             const char* algorithm) {
    constexpr std::size_t k = partition_block;
    constexpr std::size_t sub = 64;  // divides k
    static_assert(k % sub == 0 && sub <= 256);
    const std::size_t blocks = n / k;
    if (blocks < 2 * agents) {
        std::size_t m = 0;
        auto step = [&] {
            m = static_cast<std::size_t>(std::distance(first, std::partition(first, advanced(first, n), test)));
        };
        serially(p, algorithm, step);
        return m;
    }
    // Left block i is [i k, (i + 1) k), right block j is [n - (j + 1) k, n - j k). A
    // claim is one of the first `blocks` increments of `claimed`; it then takes the next
    // block of its side, so the two sides never meet. relaxed: the counters only deal
    // out blocks; the elements are published to the caller by the loop's join.
    std::atomic<std::size_t> claimed{0}, left{0}, right{0};
    const auto take = [&](std::atomic<std::size_t>& side, std::size_t& index) {
        if (claimed.fetch_add(1, std::memory_order_relaxed) >= blocks) return false;  // relaxed: a ticket only
        index = side.fetch_add(1, std::memory_order_relaxed);  // relaxed: deals out a block
        return true;
    };
    const auto left_block = [&](std::size_t i) { return advanced(first, i * k); };
    const auto right_block = [&](std::size_t j) { return advanced(first, n - (j + 1) * k); };
    std::mutex m;
    std::vector<std::size_t> open_left, open_right;  // blocks left unfinished
    loop(p, agents, chunk_fn([&](std::size_t ab, std::size_t ae) {
        const Test t = test;  // a copy of its own: nothing the swaps write can alias it
        for (; ab != ae; ++ab) {
            std::size_t li = 0, ri = 0;
            if (!take(left, li)) continue;
            if (!take(right, ri)) {
                const std::lock_guard lock(m);
                open_left.push_back(li);
                continue;
            }
            // The blocks are taken in runs of `sub` elements: a run's elements that
            // belong on the other side are listed by offset without a branch (the
            // comparison's result adds to the count; Edelkamp and Weiss's BlockQuicksort),
            // then swapped pairwise with those of a run on the other side. On random keys
            // this avoids a mispredicted branch per element.
            S i = left_block(li), le = advanced(i, k);
            S j = right_block(ri), re = advanced(j, k);
            unsigned char off_l[sub], off_r[sub];
            std::size_t num_l = 0, num_r = 0, start_l = 0, start_r = 0;
            for (;;) {
                if (num_l == 0 && i == le) {
                    if (!take(left, li)) {
                        if (num_r != 0 || j != re) {
                            const std::lock_guard lock(m);
                            open_right.push_back(ri);
                        }
                        break;
                    }
                    i = left_block(li);
                    le = advanced(i, k);
                }
                if (num_r == 0 && j == re) {
                    if (!take(right, ri)) {
                        const std::lock_guard lock(m);
                        open_left.push_back(li);
                        break;
                    }
                    j = right_block(ri);
                    re = advanced(j, k);
                }
                if (num_l == 0) {
                    start_l = 0;
                    S x = i;
                    for (std::size_t o = 0; o < sub; ++o, ++x) {
                        off_l[num_l] = static_cast<unsigned char>(o);
                        num_l += static_cast<std::size_t>(!t(*x));
                    }
                }
                if (num_r == 0) {
                    start_r = 0;
                    S x = j;
                    for (std::size_t o = 0; o < sub; ++o, ++x) {
                        off_r[num_r] = static_cast<unsigned char>(o);
                        num_r += static_cast<std::size_t>(t(*x));
                    }
                }
                const std::size_t c = std::min(num_l, num_r);
                for (std::size_t q = 0; q < c; ++q)
                    std::ranges::iter_swap(advanced(i, off_l[start_l + q]), advanced(j, off_r[start_r + q]));
                num_l -= c;
                num_r -= c;
                start_l += c;
                start_r += c;
                if (num_l == 0) i = advanced(i, sub);  // that run is all in place now
                if (num_r == 0) j = advanced(j, sub);
            }
        }
    }), algorithm);

    // Every block taken but the open ones is all in place. Swap the open blocks of each
    // side to that side's inner end; between the two lies everything not yet in place.
    // relaxed: read after the loop's join, which orders every increment before it.
    const std::size_t lt = left.load(std::memory_order_relaxed);
    const std::size_t rt = right.load(std::memory_order_relaxed);  // relaxed: likewise
    const auto gather = [k](std::vector<std::size_t>& open, std::size_t taken, auto block) {
        std::sort(open.begin(), open.end());
        const std::size_t inner = taken - open.size();  // the first inner slot
        auto slot = open.begin();
        for (std::size_t t = inner; t < taken && slot != open.end() && *slot < inner; ++t) {
            if (std::binary_search(open.begin(), open.end(), t)) continue;  // open already
            std::swap_ranges(block(*slot), advanced(block(*slot), k), block(t));
            ++slot;
        }
        return open.size();
    };
    std::size_t mid = 0;
    auto step = [&] {
        const std::size_t lo = (lt - gather(open_left, lt, left_block)) * k;
        const std::size_t hi = n - (rt - gather(open_right, rt, right_block)) * k;
        const S from = advanced(first, lo);
        mid = lo + static_cast<std::size_t>(std::distance(from, std::partition(from, advanced(first, hi), test)));
    };
    serially(p, algorithm, step);
    return mid;
}

/// Moves the median of a sample of [first, first + n) (n >= 3) to *first.
template <class S, class Less>
void pivot_to_front(S first, std::size_t n, const Less& less) {
    // Up to 127 positions, one per stride, each at a scrambled offset in its stride (a
    // periodic input cannot line up with them).
    const std::size_t count = std::min<std::size_t>(127, n);
    const std::size_t stride = n / count;
    std::vector<S> sample;
    sample.reserve(count);
    std::uint64_t h = 0x9e3779b97f4a7c15u;
    for (std::size_t s = 0; s < count; ++s) {
        h ^= h >> 31;
        h *= 0xbf58476d1ce4e5b9u;
        sample.push_back(advanced(first, s * stride + static_cast<std::size_t>(h % stride)));
    }
    const auto middle = sample.begin() + static_cast<std::ptrdiff_t>(count / 2);
    std::nth_element(sample.begin(), middle, sample.end(), [&](S a, S b) { return less(*a, *b); });
    std::ranges::iter_swap(first, *middle);
}

/// Sorts [first, first + n) with `less` by the parallel quicksort, under bp: the caller's
/// policy with one_block_each parameters (so that the policies that differ only in their
/// parameters share this code).
template <class BP, class S, class Less>
void quick_sort_impl(const BP& bp, S base, std::size_t n, std::size_t cores, const Less& less,
                     const char* algorithm) {
    // Ranges up to 5/4 of a leaf are leaves; about 4 leaves per processing unit.
    const std::size_t leaf = n / (4 * cores);
    const std::size_t max_depth = 2 * log2_up(4 * cores) + 4;
    std::vector<std::tuple<std::size_t, std::size_t, std::size_t>> todo{{0, n, 0}};  // [lo, hi), depth
    std::vector<std::pair<std::size_t, std::size_t>> leaves;
    while (!todo.empty()) {
        const std::size_t lo = std::get<0>(todo.back());
        const std::size_t hi = std::get<1>(todo.back());
        const std::size_t depth = std::get<2>(todo.back());
        todo.pop_back();
        if (hi - lo <= leaf + leaf / 4 || depth == max_depth) {
            if (hi - lo > 1) leaves.emplace_back(lo, hi);
            continue;
        }
        // Pivot at lo; [lo + 1, hi) split into < pivot and >= pivot, the pivot then
        // swapped between them, to m - 1.
        const S pivot = advanced(base, lo);
        auto choose = [&] { pivot_to_front(pivot, hi - lo, less); };
        serially(bp, algorithm, choose);
        const std::size_t m = lo + 1 +
                              partition_blocks(bp, advanced(base, lo + 1), hi - lo - 1, cores,
                                               pivot_test<S, Less>(less, pivot, false), algorithm);
        std::ranges::iter_swap(pivot, advanced(base, m - 1));
        todo.emplace_back(lo, m - 1, depth + 1);
        // More than 3/4 not below the pivot: split off those equal to it (sorted already).
        std::size_t m2 = m;
        if (4 * (hi - m) > 3 * (hi - lo)) {
            m2 = m + partition_blocks(bp, advanced(base, m), hi - m, cores,
                                      pivot_test<S, Less>(less, advanced(base, m - 1), true), algorithm);
        }
        todo.emplace_back(m2, hi, depth + 1);
    }
    // The leaves, largest first (so that the last ones to start are the short ones).
    std::sort(leaves.begin(), leaves.end(),
              [](const auto& a, const auto& b) { return a.second - a.first > b.second - b.first; });
    loop(bp, leaves.size(), chunk_fn([&](std::size_t b, std::size_t e) {
        for (; b != e; ++b) std::sort(advanced(base, leaves[b].first), advanced(base, leaves[b].second), less);
    }), algorithm);
}

/// Sorts [first, last) with `less` under the (synchronous) policy p, not stably: by the
/// parallel quicksort when the range is large enough for it, else by the merge sort
/// (which sorts a small range with one std::sort).
template <class P, class It, class Less>
void unstable_sort_impl(const P& p, It first, It last, Less less, const char* algorithm) {
    if constexpr (std::remove_cvref_t<P>::kind::parallel) {
        const std::size_t n = count_of(first, last);
        const std::size_t cores = cores_of(p, n);
        if (cores > 1 && n >= quick_sort_min_per_core * cores) {
            quick_sort_impl(p.with(one_block_each{cores}), storage_of(first), n, cores, less, algorithm);
            return;
        }
    }
    sort_impl<false>(p, first, last, less, algorithm);
}

}  // namespace weft::detail::algo::order
