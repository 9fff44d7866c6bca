// Smith-Waterman local alignment (SW) as a 2-way R-DP, seed 001 §5.4 (L1200, L1262-1269).
//
// The recurrence (linear gap penalty g; the seed does not say which gap model it used):
//   H[i][0] = H[0][j] = 0,
//   H[i][j] = max(0, H[i-1][j-1] + score(a_i, b_j), H[i-1][j] - g, H[i][j-1] - g),
// over an (n+1) x (n+1) table for two sequences of length n; the alignment's score is the
// largest H. score = +2 for a match, -1 for a mismatch, g = 2.
//
// The recursion on a tile X (rows [i, i+s), columns [j, j+s) of the n x n interior):
//   A(X11); fork{ A(X12), A(X21) }; A(X22)
// X12 and X21 need only X11, and X22 needs X12 and X21: the join after the fork is
// essential here, but the recursion imposes the same order on every level, so that
// X12's bottom-right quarter waits for all of X21, and so on: fork-join runs the
// anti-diagonals of base tiles in O(t^log2(3)) steps instead of the wavefront's 2t - 1
// (t = n / base). This is the "barrier synchronization for every wavefront computation"
// of footnote 8 (L1273) that keeps fork-join behind dataflow on SW at every size.
//
// Base cases: t^2 tiles, one kernel each.
//
// The input: a (0..3) from a 64-bit LCG (Knuth's MMIX constants) seeded with 3; b is a
// with each letter replaced by a random one with probability 1/4 (the same generator),
// so that the best local alignment spans most of both sequences. The seed optimised SW to
// O(n) space (L1203); here the whole table is kept, so that every form fills the same
// table and every cell of it can be checked. int32: H <= 2n.
#pragma once

#include "rdp/rdp.hpp"

#include <cstdint>
#include <vector>

namespace weft::bench::rdp {

class sw {
public:
    static constexpr const char* name = "rdp_sw";
    using value_type = std::int32_t;
    static constexpr idx first_cell = 1;  // row 0 and column 0 are the boundary
    static constexpr bool has_tolerance = false;
    static constexpr std::int32_t match = 2;
    static constexpr std::int32_t mismatch = -1;
    static constexpr std::int32_t gap = 2;

    explicit sw(idx n) : n_(n), a_(n + 1, 0), b_(n + 1, 0), input_(n + 1) {
        std::uint64_t state = 3;
        auto next = [&state] {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            return state >> 33;
        };
        for (idx i = 1; i <= n; ++i) a_[i] = static_cast<std::uint8_t>(next() & 3);
        for (idx i = 1; i <= n; ++i) {
            const bool mutate = (next() & 3) == 0;
            b_[i] = mutate ? static_cast<std::uint8_t>(next() & 3) : a_[i];
        }
        // input_: all zeros, boundary included (the table constructor clears it).
    }

    idx n() const noexcept { return n_; }
    const table<std::int32_t>& input() const noexcept { return input_; }

    /// The loop, row by row over the interior: the oracle.
    void iterative(table<std::int32_t>& h) const noexcept {
        for (idx i = 1; i <= n_; ++i) {
            for (idx j = 1; j <= n_; ++j) h.at(i, j) = cell(h.at(i - 1, j - 1), h.at(i - 1, j), h.at(i, j - 1), a_[i], b_[j]);
        }
    }

    /// The base case: interior tile (i0, j0) of side s (table rows i0+1 .. i0+s, columns
    /// j0+1 .. j0+s). k is unused (the recursion's uniform leaf signature).
    void kernel(table<std::int32_t>& h, idx i0, idx j0, idx /*k*/, idx s) const noexcept {
        for (idx i = i0 + 1; i <= i0 + s; ++i) {
            std::int32_t* row = h.row(i);
            const std::int32_t* up = h.row(i - 1);
            const std::uint8_t ai = a_[i];
            std::int32_t left = row[j0];
            std::int32_t diag = up[j0];
            for (idx j = j0 + 1; j <= j0 + s; ++j) {
                const std::int32_t above = up[j];
                const std::int32_t v = cell(diag, above, left, ai, b_[j]);
                row[j] = v;
                diag = above;
                left = v;
            }
        }
    }

    template <class Fork, class Leaf>
    static void recurse(idx n, idx base, Fork& fork, Leaf&& leaf) {
        recursion<Fork, std::remove_reference_t<Leaf>> r{fork, leaf, base};
        r.a(0, 0, n);
    }

    /// For the order checker: kernel (I, J) reads the tiles above, to the left and
    /// diagonally above-left, each written once.
    template <class F>
    static void tile_reads(idx ti, idx tj, idx, F&& read) {
        if (ti > 0) read(ti - 1, tj, idx{1});
        if (tj > 0) read(ti, tj - 1, idx{1});
        if (ti > 0 && tj > 0) read(ti - 1, tj - 1, idx{1});
    }

    static idx final_version(idx, idx, idx) noexcept { return 1; }
    static constexpr bool recursion_reads_exact = true;

    static std::uint64_t base_calls(idx n, idx base) noexcept {
        const std::uint64_t t = n / base;
        return t * t;
    }

    verdict compare(const table<std::int32_t>& got, const table<std::int32_t>& want) const {
        return compare_exact(got, want, 0);  // the boundary too: nobody may write it
    }

    bool validate_oracle(const table<std::int32_t>&, std::string&) const { return true; }  // the loop is the definition

    std::string extra(const table<std::int32_t>& h) const { return " score=" + std::to_string(best(h)); }

    /// The alignment's score: the largest H.
    std::int32_t best(const table<std::int32_t>& h) const noexcept {
        std::int32_t m = 0;
        for (idx i = 1; i <= n_; ++i) {
            for (idx j = 1; j <= n_; ++j) m = std::max(m, h.at(i, j));
        }
        return m;
    }

private:
    static std::int32_t cell(std::int32_t diag, std::int32_t above, std::int32_t left, std::uint8_t x,
                             std::uint8_t y) noexcept {
        const std::int32_t v = diag + (x == y ? match : mismatch);
        return std::max(std::max(v, std::max(above, left) - gap), std::int32_t{0});
    }

    template <class Fork, class Leaf>
    struct recursion {
        Fork& fork;
        Leaf& leaf;
        idx base;

        void a(idx i, idx j, idx s) {
            if (s <= base) return leaf(i, j, idx{0}, s);
            const idx h = s / 2;
            a(i, j, h);
            fork([&] { a(i, j + h, h); }, [&] { a(i + h, j, h); });
            a(i + h, j + h, h);
        }
    };

    idx n_;
    std::vector<std::uint8_t> a_;
    std::vector<std::uint8_t> b_;
    table<std::int32_t> input_;
};

}  // namespace weft::bench::rdp
