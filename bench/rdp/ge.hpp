// Gaussian elimination without pivoting (GE) as a 2-way R-DP, seed 001 §5.3 (L966-1049):
// the loop of Listing 4, the recursive functions A, B, C, D of Fig. 5.3 / Listing 5, and
// the tile kernel every form runs at the base case.
//
// The recurrence (the Gaussian elimination paradigm of the seed's refs [94, 95]): for
// k = 0 .. n-1, for i > k, j > k:  c[i][j] -= (c[i][k] / c[k][k]) * c[k][j].
// Listing 4 writes the test as `i > k && j >= k`, which would zero column k before the
// rest of row i reads it; Listing 5's base case has `k < i && k < j`, which is the one
// used here. (Listing 5 also prints `=` for `-=`.) Column k below the diagonal is left
// as it is after step k-1, so the table ends holding U on and above the diagonal and
// L * diag(U) below it: L[i][k] = c[i][k] / c[k][k].
//
// The recursion works on quadrants of a tile X = rows [i, i+s), columns [j, j+s),
// updated by pivots k in [k0, k0+s) (U = (i, k0) the pivot columns of X's rows, V = (k0, j)
// the pivot rows of X's columns, W = (k0, k0)); it only needs the three offsets:
//   A (X = U = V = W, on the diagonal), Listing 5:
//       A(X11); fork{ B(X12), C(X21) }; D(X22); A(X22)
//   B (X in the pivot rows, V = X; to the right of W):
//       fork{ B(X11), B(X12) } by pivots K1;  fork{ D(X21), D(X22) } by K1;
//       fork{ B(X21), B(X22) } by K2           (rows K1 see no pivot of K2: i < k)
//   C (X in the pivot columns, U = X; below W): B mirrored:
//       fork{ C(X11), C(X21) } by K1;  fork{ D(X12), D(X22) } by K1;  fork{ C(X12), C(X22) } by K2
//   D (X disjoint from the pivot rows and columns):
//       fork{ D(X11), D(X12), D(X21), D(X22) } by K1;  the same four by K2
// (K1, K2: the first and second half of the pivots.) The seed lists only A (Listing 5)
// and says B, C and D have "similar recursive specifications" (L992); these are those
// of its refs [94, 95] (Chowdhury and Ramachandran's I-GEP), with a join after every
// fork as in Listing 5. The joins are what the seed calls artificial dependencies
// (Fig. 5.4): e.g. the second A must wait for all of D(X22), not only for the tiles it reads.
//
// Base cases: with tiles of side m over n, one kernel per (I, J, K) tile triple with
// I >= K and J >= K: (1/3)(n/m)^3 + (1/2)(n/m)^2 + (1/6)(n/m) of them (seed eq. 5.1).
//
// The input: a 64-bit LCG (Knuth's MMIX constants) seeded with 1 fills the matrix row by
// row with doubles in [-1, 1); then each diagonal element becomes 1 + the sum of the
// absolute values of its row's other elements. A strictly row diagonally dominant matrix
// needs no pivoting: the Schur complements stay dominant and nothing divides by zero.
//
// The oracle's own check: the backward error of its factors on a positive vector x,
// |A x - L (U x)| <= 3 gamma_n (|L| |U| x) row by row, with gamma_n = n u / (1 - n u),
// u = 2^-53: LU's componentwise bound gamma_n, tripled to cover the double-precision
// products of the check itself. O(n^2).
#pragma once

#include "rdp/rdp.hpp"

#include <vector>

namespace weft::bench::rdp {

class ge {
public:
    static constexpr const char* name = "rdp_ge";
    using value_type = double;
    static constexpr idx first_cell = 0;
    static constexpr bool has_tolerance = true;

    explicit ge(idx n) : n_(n), input_(n) {
        std::uint64_t state = 1;
        for (idx i = 0; i < n; ++i) {
            for (idx j = 0; j < n; ++j) {
                state = state * 6364136223846793005ULL + 1442695040888963407ULL;
                input_.at(i, j) = std::ldexp(static_cast<double>(state >> 11), -52) - 1.0;
            }
        }
        for (idx i = 0; i < n; ++i) {
            double off = 0;
            for (idx j = 0; j < n; ++j) {
                if (j != i) off += std::fabs(input_.at(i, j));
            }
            input_.at(i, i) = off + 1.0;
        }
    }

    idx n() const noexcept { return n_; }
    const table<double>& input() const noexcept { return input_; }

    /// The loop (Listing 4 with Listing 5's test): the oracle.
    void iterative(table<double>& c) const noexcept {
        for (idx k = 0; k < n_; ++k) {
            const double* row_k = c.row(k);
            for (idx i = k + 1; i < n_; ++i) {
                double* row_i = c.row(i);
                const double f = row_i[k] / row_k[k];
                for (idx j = k + 1; j < n_; ++j) row_i[j] -= f * row_k[j];
            }
        }
    }

    /// The base case: tile (i0, j0) of side s by pivots [k0, k0 + s). The tests i > k and
    /// j > k become loop bounds (they matter on the diagonal, in the pivot rows and in the
    /// pivot columns), so the innermost loop has no branch and vectorises. Every cell gets
    /// the oracle's operations in the oracle's order.
    void kernel(table<double>& c, idx i0, idx j0, idx k0, idx s) const noexcept {
        for (idx k = k0; k < k0 + s; ++k) {
            const double* row_k = c.row(k);
            const double pivot = row_k[k];
            for (idx i = std::max(i0, k + 1); i < i0 + s; ++i) {
                double* row_i = c.row(i);
                const double f = row_i[k] / pivot;
                for (idx j = std::max(j0, k + 1); j < j0 + s; ++j) row_i[j] -= f * row_k[j];
            }
        }
    }

    /// The recursion from A(0, n) down to tiles of side `base`, calling leaf(i, j, k, s)
    /// at each base case and fork(f...) for each parallel step (see the file comment).
    template <class Fork, class Leaf>
    static void recurse(idx n, idx base, Fork& fork, Leaf&& leaf) {
        recursion<Fork, std::remove_reference_t<Leaf>> r{fork, leaf, base};
        r.a(0, n);
    }

    /// For the order checker: the tiles kernel (I, J, K) reads and how many updates each
    /// must have had: (I, K), (K, J) and (K, K) (the pivots), each just after its step-K
    /// update, which is its last: the recursion reads the same versions.
    template <class F>
    static void tile_reads(idx ti, idx tj, idx tk, F&& read) {
        read(ti, tk, tk + 1);
        read(tk, tj, tk + 1);
        read(tk, tk, tk + 1);
    }
    static constexpr bool recursion_reads_exact = true;

    /// Updates tile (I, J) gets: one per step K <= min(I, J).
    static idx final_version(idx ti, idx tj, idx) noexcept { return std::min(ti, tj) + 1; }

    static std::uint64_t base_calls(idx n, idx base) noexcept {
        const std::uint64_t t = n / base;
        return t * (t + 1) * (2 * t + 1) / 6;  // eq. 5.1: t^3/3 + t^2/2 + t/6
    }

    verdict compare(const table<double>& got, const table<double>& want) const {
        verdict v;
        for (idx i = 0; i < n_; ++i) {
            for (idx j = 0; j < n_; ++j) {
                const double g = got.at(i, j);
                const double w = want.at(i, j);
                if (g == w) continue;
                v.exact = false;
                const double err = std::fabs(g - w) / (1.0 + std::fabs(w));
                if (!(err <= tolerance)) {  // NaN fails too
                    if (v.ok) {
                        char text[160];
                        std::snprintf(text, sizeof text, "cell (%zu, %zu) is %.17g, the loop oracle has %.17g", i, j, g,
                                      w);
                        v.why = text;
                    }
                    v.ok = false;
                    v.max_err = INFINITY;
                }
                if (v.ok) v.max_err = std::max(v.max_err, err);
            }
        }
        return v;
    }

    bool validate_oracle(const table<double>& lu, std::string& why) const {
        std::vector<double> x(n_), ax(n_, 0.0), ux(n_, 0.0), ux_abs(n_, 0.0), lux(n_, 0.0), lux_abs(n_, 0.0);
        std::uint64_t state = 2;
        for (double& v : x) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            v = 0.5 + std::ldexp(static_cast<double>(state >> 11), -53);
        }
        for (idx i = 0; i < n_; ++i) {
            for (idx j = 0; j < n_; ++j) ax[i] += input_.at(i, j) * x[j];
            for (idx j = i; j < n_; ++j) {
                ux[i] += lu.at(i, j) * x[j];
                ux_abs[i] += std::fabs(lu.at(i, j)) * x[j];
            }
        }
        for (idx i = 0; i < n_; ++i) {
            lux[i] = ux[i];  // L's unit diagonal
            lux_abs[i] = ux_abs[i];
            for (idx k = 0; k < i; ++k) {
                const double l = lu.at(i, k) / lu.at(k, k);
                lux[i] += l * ux[k];
                lux_abs[i] += std::fabs(l) * ux_abs[k];
            }
        }
        const double nu = static_cast<double>(n_) * std::ldexp(1.0, -53);
        const double bound = 3 * nu / (1 - nu);
        for (idx i = 0; i < n_; ++i) {
            const double err = std::fabs(ax[i] - lux[i]);
            if (!(err <= bound * lux_abs[i])) {
                char text[200];
                std::snprintf(text, sizeof text, "row %zu: |Ax - LUx| = %.3g exceeds 3 gamma_n |L||U|x = %.3g", i, err,
                              bound * lux_abs[i]);
                why = text;
                return false;
            }
        }
        return true;
    }

    std::string extra(const table<double>&) const { return {}; }

private:
    static constexpr double tolerance = 1e-9;

    template <class Fork, class Leaf>
    struct recursion {
        Fork& fork;
        Leaf& leaf;
        idx base;

        // X = (i, j), pivots [k, k + s): U = (i, k), V = (k, j), W = (k, k).
        void a(idx k, idx s) {
            if (s <= base) return leaf(k, k, k, s);
            const idx h = s / 2;
            a(k, h);
            fork([&] { b(k, k + h, k, h); }, [&] { c(k + h, k, k, h); });
            d(k + h, k + h, k, h);
            a(k + h, h);
        }
        void b(idx i, idx j, idx k, idx s) {  // i == k
            if (s <= base) return leaf(i, j, k, s);
            const idx h = s / 2;
            fork([&] { b(i, j, k, h); }, [&] { b(i, j + h, k, h); });
            fork([&] { d(i + h, j, k, h); }, [&] { d(i + h, j + h, k, h); });
            fork([&] { b(i + h, j, k + h, h); }, [&] { b(i + h, j + h, k + h, h); });
        }
        void c(idx i, idx j, idx k, idx s) {  // j == k
            if (s <= base) return leaf(i, j, k, s);
            const idx h = s / 2;
            fork([&] { c(i, j, k, h); }, [&] { c(i + h, j, k, h); });
            fork([&] { d(i, j + h, k, h); }, [&] { d(i + h, j + h, k, h); });
            fork([&] { c(i, j + h, k + h, h); }, [&] { c(i + h, j + h, k + h, h); });
        }
        void d(idx i, idx j, idx k, idx s) {
            if (s <= base) return leaf(i, j, k, s);
            const idx h = s / 2;
            fork([&] { d(i, j, k, h); }, [&] { d(i, j + h, k, h); }, [&] { d(i + h, j, k, h); },
                 [&] { d(i + h, j + h, k, h); });
            fork([&] { d(i, j, k + h, h); }, [&] { d(i, j + h, k + h, h); }, [&] { d(i + h, j, k + h, h); },
                 [&] { d(i + h, j + h, k + h, h); });
        }
    };

    idx n_;
    table<double> input_;
};

}  // namespace weft::bench::rdp
