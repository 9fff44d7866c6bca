// The parallel merge sort behind weft::stable_sort (and weft::sort of ranges too small
// for its quicksort, see quick_sort.hpp).
//
// The range is cut into about one block per processing unit; one parallel pass sorts the
// blocks (std::sort or std::stable_sort), then ceil(log2(blocks)) merge rounds pair the
// sorted runs up, alternating between the range and one scratch buffer of n elements.
// A round is a loop over its output in pieces: each chunk finds by co-rank where its
// stretch of output starts in the two runs it merges, so every round keeps all workers
// busy, down to the last round's single merge. With an odd number of rounds the block
// pass merges each block's two sorted halves into the buffer, so that the last round
// still ends in the range (no pass to copy back). Sorted, reversed and all-equal inputs
// cost what random ones do: std::sort in the blocks and linear merges above them.
#pragma once

#include <weft/algorithms/detail/loop.hpp>
#include <weft/algorithms/detail/merge.hpp>

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <memory>
#include <tuple>
#include <type_traits>
#include <vector>

namespace weft::detail::algo::order {

/// Elements below which a block is not worth a task of its own (sorting 2048 elements
/// takes tens of microseconds, well above a task's cost).
inline constexpr std::size_t min_sort_block = 2048;

/// The largest block stable_sort sorts with std::stable_sort (when it runs in parallel).
inline constexpr std::size_t max_stable_block = std::size_t{1} << 17;

/// The executor parameters of the sorts' coarse loops (the merge sort's blocks, the
/// quicksort's partitioning agents and leaves): one iteration per chunk, dealt to the
/// next free agent, on the processing units the caller's policy chose. An iteration is
/// one std::sort (or one agent) sized from those units, so the policy's chunk parameter
/// has nothing to group there (auto_chunk_size would even time the first iteration alone
/// on the caller before any other starts); the merge rounds, loops over small pieces, run
/// with the policy's own parameters.
struct one_block_each {
    std::size_t cores = 1;
    ex::chunking chunks(const ex::loop_shape&) const noexcept { return {ex::chunk_schedule::dynamic, 1}; }
    std::size_t processing_units_count(std::size_t available, std::size_t) const noexcept {
        return std::min(available, cores);
    }
};

/// Where the algorithm works on the elements: a pointer for contiguous iterators (so that
/// every contiguous container shares one instantiation), else the iterator itself.
template <class It>
auto storage_of(It first) {
    if constexpr (std::contiguous_iterator<It>) return std::to_address(first);
    else return first;
}

template <bool Stable, class S, class Less>
void sort_block(S first, S last, const Less& less) {
    if constexpr (Stable) std::stable_sort(first, last, less);
    else std::sort(first, last, less);
}

/// The smallest r with 2^r >= x.
inline std::size_t log2_up(std::size_t x) noexcept {
    std::size_t r = 0;
    while ((std::size_t{1} << r) < x) ++r;
    return r;
}

/// The processing units a parallel loop over n elements would use under policy p (1 for
/// a policy that is not parallel).
template <class P>
std::size_t cores_of(const P& p, std::size_t n) {
    if constexpr (!std::remove_cvref_t<P>::kind::parallel) {
        (void)p;
        (void)n;
        return 1;
    } else {
        using params_t = std::remove_cvref_t<decltype(p.parameters().get())>;
        return cores_for<std::tuple_size_v<params_t>>(p.parameters().get(), ex::processing_units_count(p.executor()),
                                                      n);
    }
}

/// Whether a chunk of a merge round may read elements that other chunks move: yes if
/// moving leaves the source as it was (trivially copyable elements). The chunk's co-rank
/// search reads them, and so does the comparison that makes its last output (it looks at
/// both inputs' next elements, one of which is the next chunk's). For other elements a
/// moved-from element would mislead both: a first pass of the round finds the co-rank of
/// every piece before any element moves, and each chunk merges exactly the stretches of
/// the inputs between its own two co-ranks.
template <class T>
inline constexpr bool co_rank_while_moving = std::is_trivially_copyable_v<T>;

/// One merge round: src holds sorted runs of `width` elements (the last may be shorter);
/// merges runs 2q and 2q + 1 into dst for every q (a last run without a partner is
/// moved). With `construct`, dst is raw storage (see scratch::construct_by): a chunk
/// constructs all its output or, if it throws, none; `marks` records the chunks that did.
template <class P, class Src, class Dst, class Marks, class Less>
void merge_round(const P& p, Src src, Dst dst, std::size_t n, std::size_t width, bool construct, Marks marks,
                 Less& less, const char* algorithm) {
    const std::size_t pieces = div_up(n, merge_piece);
    // The co-rank of output b: how many of its pair's first b - q0 outputs come from the
    // first run [q0, mid) of the pair [q0, q1).
    const auto search = [&](std::size_t b, std::size_t q0, std::size_t mid, std::size_t q1) {
        const Src a = advanced(src, q0);
        const Src m = advanced(src, mid);
        return co_rank(
            b - q0, [a](std::size_t k) { return advanced(a, k); }, mid - q0,
            [m](std::size_t k) { return advanced(m, k); }, q1 - mid, less);
    };
    const auto pair_of = [&](std::size_t b) {
        const std::size_t q0 = b - b % (2 * width);
        return std::tuple{q0, std::min(n, q0 + width), std::min(n, q0 + 2 * width)};
    };
    std::vector<std::size_t> ranks;  // of the pieces' first outputs, if found first
    if constexpr (!co_rank_while_moving<std::iter_value_t<Src>>) {
        ranks.resize(pieces);
        loop(p, pieces, chunk_fn([&](std::size_t pb, std::size_t pe) {
            for (std::size_t u = pb; u < pe; ++u) {
                const auto [q0, mid, q1] = pair_of(u * merge_piece);
                ranks[u] = search(u * merge_piece, q0, mid, q1);
            }
        }), algorithm);
    }
    loop(p, pieces, chunk_fn([&](std::size_t pb, std::size_t pe) {
        std::size_t b = pb * merge_piece;
        const std::size_t e = std::min(n, pe * merge_piece);
        const Dst start = advanced(dst, b);
        Dst out = start;
        try {
            while (b < e) {
                // The runs [q0, mid) and [mid, q1) whose merge holds output b; b is the
                // chunk's first output or the pair's.
                const auto [q0, mid, q1] = pair_of(b);
                const std::size_t stop = std::min(e, q1);
                const Src m = advanced(src, mid);
                Src ia = advanced(src, q0);
                Src ib = m;
                Src ae = m;
                Src be = advanced(src, q1);
                if constexpr (co_rank_while_moving<std::iter_value_t<Src>>) {
                    const std::size_t i = b == q0 ? 0 : search(b, q0, mid, q1);
                    ia = advanced(ia, i);
                    ib = advanced(ib, b - q0 - i);
                } else {
                    const std::size_t i = b == q0 ? 0 : ranks[pb];
                    // stop < q1: stop is the first output of piece pe, in this pair.
                    const std::size_t i_end = stop == q1 ? mid - q0 : ranks[pe];
                    ia = advanced(ia, i);
                    ib = advanced(ib, b - q0 - i);
                    ae = advanced(src, q0 + i_end);
                    be = advanced(m, stop - q0 - i_end);
                }
                if constexpr (std::is_pointer_v<Dst>) {
                    if (construct) out = merge_move_n<true>(ia, ae, ib, be, out, stop - b, less);
                    else out = merge_move_n<false>(ia, ae, ib, be, out, stop - b, less);
                } else {
                    out = merge_move_n<false>(ia, ae, ib, be, out, stop - b, less);
                }
                b = stop;
            }
        } catch (...) {
            // merge_move_n has destroyed what its failing call built; these are the
            // chunk's earlier stretches.
            if constexpr (std::is_pointer_v<Dst>) {
                if (construct) std::destroy(start, out);
            }
            throw;
        }
        marks(pb, pe);
    }), algorithm);
}

/// The block pass of the merge sort, under bp (the caller's policy with one_block_each
/// parameters, so that policies that differ only in their parameters share it): sorts
/// each block of `size` elements in place, or (odd) sorts its halves and merges them
/// into the buffer at tmp, marking the block done.
template <bool Stable, class BP, class S, class T, class Marks, class Less>
void sort_blocks(const BP& bp, S base, T* tmp, std::size_t n, std::size_t size, std::size_t blocks, bool odd,
                 Marks marks, const Less& less, const char* algorithm) {
    loop(bp, blocks, chunk_fn([&](std::size_t kb, std::size_t ke) {
        for (std::size_t k = kb; k < ke; ++k) {
            const std::size_t lo = k * size;
            const std::size_t hi = std::min(n, lo + size);
            if (!odd) {
                sort_block<Stable>(advanced(base, lo), advanced(base, hi), less);
                continue;
            }
            // Halves sorted in place and merged into the buffer: one merge level in
            // place of the sort level it saves.
            const std::size_t mid = lo + (hi - lo) / 2;
            sort_block<Stable>(advanced(base, lo), advanced(base, mid), less);
            sort_block<Stable>(advanced(base, mid), advanced(base, hi), less);
            merge_move_n<true>(advanced(base, lo), advanced(base, mid), advanced(base, mid), advanced(base, hi),
                               tmp + lo, hi - lo, less);
            marks(k, k + 1);
        }
    }), algorithm);
}

/// Sorts [first, last) with `less` under the (synchronous) policy p; Stable: equal
/// elements keep their order.
template <bool Stable, class P, class It, class Less>
void sort_impl(const P& p, It first, It last, Less less, const char* algorithm) {
    using T = std::iter_value_t<It>;
    const std::size_t n = count_of(first, last);
    const auto base = storage_of(first);
    const std::size_t cores = cores_of(p, n);
    // One block per processing unit; two if that costs no merge level: an odd number of
    // rounds adds one level anyway (the halves' merge below), so c blocks with an odd
    // ceil(log2 c) merge as many times as 2c, and two blocks per unit balance better.
    std::size_t blocks = log2_up(cores) % 2 == 1 ? 2 * cores : cores;
    blocks = std::min(blocks, n / min_sort_block);
    if constexpr (Stable) {
        // std::stable_sort merges through a buffer of its own, as large as its block: at
        // most max_stable_block elements each, these stay in cache and are reused, and
        // the levels above them are the rounds' (which use this call's one buffer).
        if (blocks > 1) blocks = std::max(blocks, div_up(n, max_stable_block));
    }
    if (blocks <= 1) {
        // One block: the whole range, on the policy's executor (an exception still
        // reaches the caller as a weft::exception_list).
        auto step = [&] { sort_block<Stable>(base, advanced(base, n), less); };
        if (n > 1) serially(p, algorithm, step);
        return;
    }
    const std::size_t size = div_up(n, blocks);
    blocks = div_up(n, size);  // no empty block
    const std::size_t rounds = log2_up(blocks);
    const bool odd = rounds % 2 == 1;

    scratch<T> buf(n);
    T* const tmp = buf.data();
    using marks_t = typename scratch<T>::marks;
    const auto bp = p.with(one_block_each{cores});
    if (odd) {
        buf.construct_by(
            blocks,
            [&](marks_t marks) { sort_blocks<Stable>(bp, base, tmp, n, size, blocks, true, marks, less, algorithm); },
            [&](std::size_t k) { std::destroy(tmp + k * size, tmp + std::min(n, (k + 1) * size)); });
    } else {
        sort_blocks<Stable>(bp, base, tmp, n, size, blocks, false, marks_t{}, less, algorithm);
    }

    // The merge rounds. The first write into the buffer constructs its elements.
    bool in_range = !odd;
    for (std::size_t r = 0; r < rounds; ++r, in_range = !in_range) {
        const std::size_t width = size << r;
        if (!in_range) {
            merge_round(p, tmp, base, n, width, false, marks_t{}, less, algorithm);
        } else if (r > 0) {
            merge_round(p, base, tmp, n, width, false, marks_t{}, less, algorithm);
        } else {
            buf.construct_by(
                div_up(n, merge_piece),
                [&](marks_t marks) { merge_round(p, base, tmp, n, width, true, marks, less, algorithm); },
                [&](std::size_t u) {
                    std::destroy(tmp + u * merge_piece, tmp + std::min(n, (u + 1) * merge_piece));
                });
        }
    }
}

}  // namespace weft::detail::algo::order
