// The pieces of tiled Floyd-Warshall (seed 001 §6.3.2) that examples/ttg/fw_apsp.cpp
// (the template task graph and fork-join) and bench/ttg/fw_apsp_ref.cpp (OpenMP tasks,
// MPI + OpenMP) share, so that every version computes the same thing bit for bit: the
// input graph, the tiled kernel, serial Floyd-Warshall, and tile copies.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace fw_apsp {

using tile = std::vector<double>;

/// Row-major index (i, j) of a matrix with n columns.
constexpr std::size_t idx(int i, int n, int j) noexcept {
    return static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j);
}

/// C = min(C, A (min,+) B) over the b x b tiles, for kk in order: the blocked kernel; A,
/// B and C may be the same tile (kernels A, B, C).
inline void fw_kernel(double* c, const double* a, const double* bb, int b) {
    for (int kk = 0; kk < b; ++kk) {
        const double* brow = bb + static_cast<std::ptrdiff_t>(kk) * b;
        for (int i = 0; i < b; ++i) {
            const double aik = a[static_cast<std::ptrdiff_t>(i) * b + kk];
            double* crow = c + static_cast<std::ptrdiff_t>(i) * b;
            for (int j = 0; j < b; ++j) crow[j] = std::min(crow[j], aik + brow[j]);
        }
    }
}

/// A random weighted digraph: each edge present with probability 1/4, weights 1-100.
inline std::vector<double> make_graph(int n, std::uint64_t seed) {
    std::vector<double> m(idx(n, n, 0), std::numeric_limits<double>::infinity());
    std::uint64_t x = seed;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if (i == j) m[idx(i, n, j)] = 0;
            else if (x % 4 == 0) m[idx(i, n, j)] = static_cast<double>(1 + (x >> 8) % 100);
        }
    return m;
}

inline void serial_fw(std::vector<double>& m, int n) {
    for (int k = 0; k < n; ++k)
        for (int i = 0; i < n; ++i) {
            const double mik = m[idx(i, n, k)];
            for (int j = 0; j < n; ++j) {
                double& mij = m[idx(i, n, j)];
                mij = std::min(mij, mik + m[idx(k, n, j)]);
            }
        }
}

inline tile get_tile(const std::vector<double>& m, int n, int b, int ti, int tj) {
    tile t(idx(b, b, 0));
    for (int i = 0; i < b; ++i)
        std::copy_n(&m[idx(ti * b + i, n, tj * b)], b, &t[idx(i, b, 0)]);
    return t;
}

inline void put_tile(std::vector<double>& m, int n, int b, int ti, int tj, const tile& t) {
    for (int i = 0; i < b; ++i)
        std::copy_n(&t[idx(i, b, 0)], b, &m[idx(ti * b + i, n, tj * b)]);
}

}  // namespace fw_apsp
