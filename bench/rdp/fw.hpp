// Floyd-Warshall all-pairs shortest paths (FW) as a 2-way R-DP, seed 001 §5.4 (L1200,
// L1271-1278).
//
// The recurrence: for k = 0 .. n-1, for every i, j:  d[i][j] = min(d[i][j], d[i][k] + d[k][j]).
// Unlike GE every (i, j, k) updates, so the recursion has more stages (the seed's refs
// [94, 95], I-GEP for Floyd-Warshall). On a tile X = (i, j) by pivots [k, k+s), with
// U = (i, k), V = (k, j), W = (k, k):
//   A (X = U = V = W):  A(X11); fork{ B(X12), C(X21) }; D(X22);
//                       A(X22); fork{ B(X21), C(X12) }; D(X11)
//   B (X in the pivot rows):    fork{ B(X11), B(X12) } by K1; fork{ D(X21), D(X22) } by K1;
//                               fork{ B(X21), B(X22) } by K2; fork{ D(X11), D(X12) } by K2
//   C (X in the pivot columns): fork{ C(X11), C(X21) } by K1; fork{ D(X12), D(X22) } by K1;
//                               fork{ C(X12), C(X22) } by K2; fork{ D(X11), D(X21) } by K2
//   D (X off the pivot rows and columns): the four quadrants by K1 (one fork), then by K2
// with a join after every fork (K1, K2: the two halves of the pivots).
//
// Base cases: one kernel per (I, J, K) tile triple: t^3 (t = n / base). Inside a tile the
// kernel may read the cells it writes (on the pivot row or column): d[k][k] = 0 keeps
// them unchanged, as in the plain loop.
//
// The input: a directed graph on n vertices: an edge i -> i+1 (mod n) for every i, so
// that every distance is finite, and 8 more edges out of each vertex to targets from a
// 64-bit LCG (Knuth's MMIX constants) seeded with 4; weights 1..1000 from the same
// generator; d = 0 on the diagonal, the lightest edge i -> j, or `unreachable` (2^29:
// two of them still add up within int32). Distances stay below n * 1000.
//
// The oracle's own check: Bellman's equations on the graph, d[i][i] = 0 and, for j != i,
// d[i][j] = min over edges p -> j of d[i][p] + w(p, j). With positive weights only the
// true distances satisfy them. O(n * edges) = O(9 n^2).
#pragma once

#include "rdp/rdp.hpp"

#include <cstdint>
#include <vector>

namespace weft::bench::rdp {

class fw {
public:
    static constexpr const char* name = "rdp_fw";
    using value_type = std::int32_t;
    static constexpr idx first_cell = 0;
    static constexpr bool has_tolerance = false;
    static constexpr std::int32_t unreachable = std::int32_t{1} << 29;
    static constexpr int extra_edges = 8;

    explicit fw(idx n) : n_(n), input_(n) {
        std::uint64_t state = 4;
        auto next = [&state] {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            return state >> 33;
        };
        for (idx i = 0; i < n; ++i) {
            for (idx j = 0; j < n; ++j) input_.at(i, j) = i == j ? 0 : unreachable;
        }
        for (idx i = 0; i < n; ++i) {
            for (int e = 0; e <= extra_edges; ++e) {
                const idx j = e == 0 ? (i + 1) % n : static_cast<idx>(next() % n);
                const auto w = static_cast<std::int32_t>(1 + next() % 1000);
                edges_.push_back({i, j, w});
                if (i != j) input_.at(i, j) = std::min(input_.at(i, j), w);
            }
        }
    }

    idx n() const noexcept { return n_; }
    const table<std::int32_t>& input() const noexcept { return input_; }

    /// The loop: the oracle.
    void iterative(table<std::int32_t>& d) const noexcept {
        for (idx k = 0; k < n_; ++k) {
            const std::int32_t* row_k = d.row(k);
            for (idx i = 0; i < n_; ++i) {
                std::int32_t* row_i = d.row(i);
                const std::int32_t dik = row_i[k];
                for (idx j = 0; j < n_; ++j) row_i[j] = std::min(row_i[j], dik + row_k[j]);
            }
        }
    }

    /// The base case: tile (i0, j0) of side s by pivots [k0, k0 + s).
    void kernel(table<std::int32_t>& d, idx i0, idx j0, idx k0, idx s) const noexcept {
        for (idx k = k0; k < k0 + s; ++k) {
            const std::int32_t* row_k = d.row(k);
            for (idx i = i0; i < i0 + s; ++i) {
                std::int32_t* row_i = d.row(i);
                const std::int32_t dik = row_i[k];
                for (idx j = j0; j < j0 + s; ++j) row_i[j] = std::min(row_i[j], dik + row_k[j]);
            }
        }
    }

    template <class Fork, class Leaf>
    static void recurse(idx n, idx base, Fork& fork, Leaf&& leaf) {
        recursion<Fork, std::remove_reference_t<Leaf>> r{fork, leaf, base};
        r.a(0, n);
    }

    /// For the order checker: the tiles kernel (I, J, K) reads, (I, K) and (K, J), and the
    /// updates each has had in the blocked order: K + 1 (just after step K). The
    /// recursion reads some of them later (e.g. B(X12) reads W = X11 after all of A(X11),
    /// pivots of K1 beyond K included), which FW tolerates (I-GEP, refs [94, 95]): min and
    /// + only ever turn a path length into a shorter valid one. Hence
    /// recursion_reads_exact = false: the recursion must read at least these versions.
    template <class F>
    static void tile_reads(idx ti, idx tj, idx tk, F&& read) {
        read(ti, tk, tk + 1);
        read(tk, tj, tk + 1);
    }
    static constexpr bool recursion_reads_exact = false;

    /// Updates tile (I, J) gets: one per step.
    static idx final_version(idx, idx, idx tiles) noexcept { return tiles; }

    static std::uint64_t base_calls(idx n, idx base) noexcept {
        const std::uint64_t t = n / base;
        return t * t * t;
    }

    verdict compare(const table<std::int32_t>& got, const table<std::int32_t>& want) const {
        return compare_exact(got, want, 0);
    }

    bool validate_oracle(const table<std::int32_t>& d, std::string& why) const {
        std::vector<std::vector<edge>> into(n_);
        for (const edge& e : edges_) into[e.to].push_back(e);
        for (idx i = 0; i < n_; ++i) {
            if (d.at(i, i) != 0) {
                why = "d[" + std::to_string(i) + "][" + std::to_string(i) + "] = " + std::to_string(d.at(i, i));
                return false;
            }
            for (idx j = 0; j < n_; ++j) {
                if (j == i) continue;
                std::int32_t best = unreachable;
                for (const edge& e : into[j]) best = std::min(best, d.at(i, e.from) + e.weight);
                if (d.at(i, j) != best) {
                    why = "d[" + std::to_string(i) + "][" + std::to_string(j) + "] = " + std::to_string(d.at(i, j)) +
                          " but the best edge into " + std::to_string(j) + " gives " + std::to_string(best);
                    return false;
                }
            }
        }
        return true;
    }

    std::string extra(const table<std::int32_t>&) const { return {}; }

private:
    struct edge {
        idx from;
        idx to;
        std::int32_t weight;
    };

    template <class Fork, class Leaf>
    struct recursion {
        Fork& fork;
        Leaf& leaf;
        idx base;

        void a(idx k, idx s) {
            if (s <= base) return leaf(k, k, k, s);
            const idx h = s / 2;
            const idx m = k + h;
            a(k, h);
            fork([&] { b(k, m, k, h); }, [&] { c(m, k, k, h); });
            d(m, m, k, h);
            a(m, h);
            fork([&] { b(m, k, m, h); }, [&] { c(k, m, m, h); });
            d(k, k, m, h);
        }
        void b(idx i, idx j, idx k, idx s) {  // i == k
            if (s <= base) return leaf(i, j, k, s);
            const idx h = s / 2;
            fork([&] { b(i, j, k, h); }, [&] { b(i, j + h, k, h); });
            fork([&] { d(i + h, j, k, h); }, [&] { d(i + h, j + h, k, h); });
            fork([&] { b(i + h, j, k + h, h); }, [&] { b(i + h, j + h, k + h, h); });
            fork([&] { d(i, j, k + h, h); }, [&] { d(i, j + h, k + h, h); });
        }
        void c(idx i, idx j, idx k, idx s) {  // j == k
            if (s <= base) return leaf(i, j, k, s);
            const idx h = s / 2;
            fork([&] { c(i, j, k, h); }, [&] { c(i + h, j, k, h); });
            fork([&] { d(i, j + h, k, h); }, [&] { d(i + h, j + h, k, h); });
            fork([&] { c(i, j + h, k + h, h); }, [&] { c(i + h, j + h, k + h, h); });
            fork([&] { d(i, j, k + h, h); }, [&] { d(i + h, j, k + h, h); });
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
    std::vector<edge> edges_;
    table<std::int32_t> input_;
};

}  // namespace weft::bench::rdp
