// SparseLU in the shape of the Barcelona OpenMP Tasks Suite's sparselu (seed 002, Table 1:
// three task functions, parallel-for style, missing blocks make the phases uneven): the LU
// factorisation, without pivoting, of a matrix of nb x nb blocks of bs x bs floats, some
// of them absent. Shared by bench/sparselu/{serial,weft,omp,tbb}.cpp: the matrix, its
// generator, the four block kernels, the factorisation loop, the check and the result line.
//
// The factorisation, for kk = 0 .. nb-1 (every block operation in place):
//   lu0(A[kk][kk])                                    on the producer, as BOTS does
//   for jj > kk with A[kk][jj] present: fwd(A[kk][kk], A[kk][jj])         one task each
//   for ii > kk with A[ii][kk] present: bdiv(A[kk][kk], A[ii][kk])        one task each
//   wait
//   for ii > kk, jj > kk with A[ii][kk] and A[kk][jj] present: allocate A[ii][jj] (zeros)
//       if it is absent (fill-in), then bmod(A[ii][kk], A[kk][jj], A[ii][jj])  one task each
//   wait
// with lu0: D = L U in place (L unit lower), fwd: C := L^-1 C, bdiv: R := R U^-1 (L and U
// from the diagonal block), bmod: T := T - R C. The tasks of a phase write distinct blocks
// and every block sees the same operations in the same order whoever runs them, so every
// version computes the serial factors bit for bit (no reassociation: no -ffast-math).
//
// The sparsity pattern: block (i, j) is present at the start iff |i - j| <= 1 (a block
// tridiagonal band) or both i and j are multiples of 3 (a lattice of long-range couplings,
// which is where fill-in comes from). For nb = 50: 420 of 2,500 blocks (16.8 %) at the
// start, 932 (37.3 %) after the fill-in; 50 lu0 + 441 fwd + 441 bdiv + 5,065 bmod = 5,997
// block operations. The phases shrink unevenly as kk grows: 34 fwd + bdiv and 289 bmod
// tasks at kk = 0 and 1, 256 bmod at kk = 2..4, 225 at 5..7, ..., 4 at 44..46, 1 at 47
// and 48, none at 49; each phase ends in a join that leaves workers idle when it runs short.
//
// The size: BOTS's "medium" input is 50 x 50 blocks of 100 x 100; the default here is
// 50 x 50 blocks of 120 x 120 (~1.3 s serially on the 2-core Xeon the project measures on,
// ~220 us per block operation); scripts/bench runs blocks of 50 x 50 (~20 us each).
//
// The values: a 64-bit linear congruential generator (Knuth's MMIX constants) seeded with 1
// fills the present blocks, row-major by block, then by element, with floats in [-1, 1);
// then every diagonal element becomes 1 + the sum of the absolute values of the other
// elements of its row. A strictly row diagonally dominant matrix has an LU factorisation
// without pivoting whose Schur complements stay dominant, so nothing grows or divides by 0.
//
// The check: every process first factors the matrix serially (untimed) and checks the
// factors by their backward error on a vector: |A x - L (U x)| <= gamma |L| |U| x on every
// row, with x positive (the same generator, seeded with 2: doubles in [0.5, 1.5)),
// gamma = n u / (1 - n u), n = nb * bs, u = 2^-24 (the componentwise bound of LU's
// backward error, so a correct factorisation never fails it; computed in double). It
// catches a wrong kernel or a wrong loop, not every single missing update: with this much
// diagonal dominance one bmod's share of a row of A x can stay below the bound. Then every
// timed run must equal those serial factors bit for bit, block presence included, which
// is what checks the parallel versions: a missing, repeated or misordered task, or a race,
// changes bits. A failed check fails the run (exit 1).
//
// Options: --nb=N (blocks per side, default 50), --bs=N (block side, default 120),
// --workers=N, --reps=N; --weft:* is left to the weft runtime.
//
// Result line: bench_common.hpp's format with problem=sparselu, n=<nb>, calls=<lu0 + fwd +
// bdiv + bmod calls> (ns_per_call is ns per block operation; all but lu0 are tasks in the
// parallel versions), result=<64-bit hash of the factors>, then bs=<bs>,
// blocks=<present at the start>/<present at the end>.
#pragma once

#include "common/bench_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>
#include <vector>

namespace weft::bench::sparselu {

/// Whether block (i, j) is present before the factorisation (see the file comment).
constexpr bool initially_present(int i, int j) noexcept {
    return (i - j <= 1 && j - i <= 1) || (i % 3 == 0 && j % 3 == 0);
}

/// Frees a block of floats made by matrix::allocate.
struct block_deleter {
    static constexpr std::align_val_t alignment{64};
    void operator()(float* p) const noexcept { ::operator delete[](p, alignment); }
};
using block_ptr = std::unique_ptr<float[], block_deleter>;

/// nb x nb blocks of bs x bs floats, row-major inside a block; an absent block is null.
/// Blocks start on a cache line, so that no version gets luckier alignments than another.
class matrix {
public:
    matrix(int nb, int bs) : nb_(nb), bs_(bs), blocks_(static_cast<std::size_t>(nb) * static_cast<std::size_t>(nb)) {}

    int nb() const noexcept { return nb_; }
    int bs() const noexcept { return bs_; }
    std::size_t block_elements() const noexcept { return static_cast<std::size_t>(bs_) * static_cast<std::size_t>(bs_); }

    /// The block at (i, j), or null if it is absent.
    float* block(int i, int j) const noexcept { return blocks_[index(i, j)].get(); }

    /// Makes block (i, j) present, filled with zeros, and returns it. It must be absent.
    float* allocate(int i, int j) {
        block_ptr& b = blocks_[index(i, j)];
        b = make_block();
        std::fill_n(b.get(), block_elements(), 0.0f);
        return b.get();
    }

    int present_blocks() const noexcept {
        return static_cast<int>(std::count_if(blocks_.begin(), blocks_.end(), [](const auto& b) { return b != nullptr; }));
    }

    matrix clone() const {
        matrix copy(nb_, bs_);
        for (std::size_t k = 0; k < blocks_.size(); ++k) {
            if (!blocks_[k]) continue;
            copy.blocks_[k] = make_block();
            std::memcpy(copy.blocks_[k].get(), blocks_[k].get(), block_elements() * sizeof(float));
        }
        return copy;
    }

private:
    block_ptr make_block() const {
        return block_ptr(static_cast<float*>(::operator new[](block_elements() * sizeof(float), block_deleter::alignment)));
    }

    std::size_t index(int i, int j) const noexcept {
        return static_cast<std::size_t>(i) * static_cast<std::size_t>(nb_) + static_cast<std::size_t>(j);
    }

    int nb_;
    int bs_;
    std::vector<block_ptr> blocks_;
};

/// The matrix to factor (see the file comment for the pattern and the values); another
/// block pattern `present(i, j)` may replace initially_present (INNCABS uses BOTS's).
template <class Present = bool (*)(int, int)>
matrix generate(int nb, int bs, Present present = &initially_present) {
    matrix a(nb, bs);
    std::uint64_t state = 1;
    for (int i = 0; i < nb; ++i) {
        for (int j = 0; j < nb; ++j) {
            if (!present(i, j)) continue;
            float* b = a.allocate(i, j);
            for (std::size_t e = 0; e < a.block_elements(); ++e) {
                state = state * 6364136223846793005ULL + 1442695040888963407ULL;
                // The top 24 bits: an integer in [0, 2^24), exact in a float.
                b[e] = static_cast<float>(state >> 40) * (2.0f / 16777216.0f) - 1.0f;
            }
        }
    }
    // Strict row diagonal dominance, row by row of the whole matrix.
    for (int i = 0; i < nb; ++i) {
        for (int r = 0; r < bs; ++r) {
            double off_diagonal = 0;
            for (int j = 0; j < nb; ++j) {
                const float* b = a.block(i, j);
                if (b == nullptr) continue;
                for (int c = 0; c < bs; ++c) {
                    if (j != i || c != r) off_diagonal += std::fabs(static_cast<double>(b[r * bs + c]));
                }
            }
            a.block(i, i)[r * bs + r] = static_cast<float>(off_diagonal + 1.0);
        }
    }
    return a;
}

// The block kernels. Every index is row * bs + column. Never inlined, so that every
// program built by one compiler runs the same machine code for them, whatever calls them.

/// D = L U in place: L unit lower triangular (below the diagonal), U upper triangular.
[[gnu::noinline]] inline void lu0(float* d, int bs) noexcept {
    for (int k = 0; k < bs; ++k) {
        const float pivot = d[k * bs + k];
        for (int i = k + 1; i < bs; ++i) {
            const float l = d[i * bs + k] / pivot;
            d[i * bs + k] = l;
            for (int j = k + 1; j < bs; ++j) d[i * bs + j] -= l * d[k * bs + j];
        }
    }
}

/// C := L^-1 C, with L the unit lower triangle of the factored diagonal block d.
[[gnu::noinline]] inline void fwd(const float* d, float* c, int bs) noexcept {
    for (int k = 0; k < bs; ++k) {
        for (int i = k + 1; i < bs; ++i) {
            const float l = d[i * bs + k];
            for (int j = 0; j < bs; ++j) c[i * bs + j] -= l * c[k * bs + j];
        }
    }
}

/// R := R U^-1, with U the upper triangle of the factored diagonal block d.
[[gnu::noinline]] inline void bdiv(const float* d, float* r, int bs) noexcept {
    for (int i = 0; i < bs; ++i) {
        for (int k = 0; k < bs; ++k) {
            const float x = r[i * bs + k] / d[k * bs + k];
            r[i * bs + k] = x;
            for (int j = k + 1; j < bs; ++j) r[i * bs + j] -= x * d[k * bs + j];
        }
    }
}

/// T := T - R C.
[[gnu::noinline]] inline void bmod(const float* r, const float* c, float* t, int bs) noexcept {
    for (int i = 0; i < bs; ++i) {
        for (int k = 0; k < bs; ++k) {
            const float x = r[i * bs + k];
            for (int j = 0; j < bs; ++j) t[i * bs + j] -= x * c[k * bs + j];
        }
    }
}

/// A "task group" that runs every task at once, on the caller: the serial factorisation.
struct inline_group {
    template <class F>
    void run(F&& f) {
        f();
    }
    void wait() noexcept {}
};

/// The factorisation (see the file comment) with a fork-join task group (weft::task_group,
/// tbb::task_group, inline_group): one group per phase, run and wait.
template <class TaskGroup>
void factor(matrix& a) {
    const int nb = a.nb();
    const int bs = a.bs();
    for (int kk = 0; kk < nb; ++kk) {
        float* const diag = a.block(kk, kk);
        lu0(diag, bs);
        {
            TaskGroup g;
            for (int jj = kk + 1; jj < nb; ++jj) {
                if (float* c = a.block(kk, jj)) g.run([diag, c, bs] { fwd(diag, c, bs); });
            }
            for (int ii = kk + 1; ii < nb; ++ii) {
                if (float* r = a.block(ii, kk)) g.run([diag, r, bs] { bdiv(diag, r, bs); });
            }
            g.wait();
        }
        TaskGroup g;
        for (int ii = kk + 1; ii < nb; ++ii) {
            const float* r = a.block(ii, kk);
            if (r == nullptr) continue;
            for (int jj = kk + 1; jj < nb; ++jj) {
                const float* c = a.block(kk, jj);
                if (c == nullptr) continue;
                float* t = a.block(ii, jj);
                if (t == nullptr) t = a.allocate(ii, jj);
                g.run([r, c, t, bs] { bmod(r, c, t, bs); });
            }
        }
        g.wait();
    }
}

inline void factor_serial(matrix& a) { factor<inline_group>(a); }

/// Block operations of the factorisation, found from the pattern alone.
struct operation_counts {
    std::uint64_t lu0 = 0, fwd = 0, bdiv = 0, bmod = 0;
    int initial_blocks = 0, final_blocks = 0;

    std::uint64_t total() const noexcept { return lu0 + fwd + bdiv + bmod; }
};

inline operation_counts count_operations(int nb) {
    const auto n = static_cast<std::size_t>(nb);
    std::vector<char> present(n * n);
    operation_counts ops;
    for (int i = 0; i < nb; ++i) {
        for (int j = 0; j < nb; ++j) present[static_cast<std::size_t>(i) * n + static_cast<std::size_t>(j)] = initially_present(i, j);
    }
    auto at = [&](int i, int j) -> char& { return present[static_cast<std::size_t>(i) * n + static_cast<std::size_t>(j)]; };
    ops.initial_blocks = static_cast<int>(std::count(present.begin(), present.end(), 1));
    for (int kk = 0; kk < nb; ++kk) {
        ++ops.lu0;
        for (int j = kk + 1; j < nb; ++j) if (at(kk, j)) ++ops.fwd;
        for (int i = kk + 1; i < nb; ++i) if (at(i, kk)) ++ops.bdiv;
        for (int i = kk + 1; i < nb; ++i) {
            if (!at(i, kk)) continue;
            for (int j = kk + 1; j < nb; ++j) {
                if (!at(kk, j)) continue;
                at(i, j) = 1;
                ++ops.bmod;
            }
        }
    }
    ops.final_blocks = static_cast<int>(std::count(present.begin(), present.end(), 1));
    return ops;
}

/// A 64-bit hash of the factors: block presence and every float's bits, row-major.
inline std::uint64_t hash(const matrix& a) noexcept {
    std::uint64_t h = 14695981039346656037ULL;
    auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ULL; };
    for (int i = 0; i < a.nb(); ++i) {
        for (int j = 0; j < a.nb(); ++j) {
            const float* b = a.block(i, j);
            mix(b == nullptr ? 0 : 1);
            if (b == nullptr) continue;
            for (std::size_t e = 0; e < a.block_elements(); ++e) {
                std::uint32_t bits;
                std::memcpy(&bits, &b[e], sizeof bits);
                mix(bits);
            }
        }
    }
    return h;
}

/// Whether a and b have the same blocks present and the same bits in them.
inline bool identical(const matrix& a, const matrix& b) noexcept {
    if (a.nb() != b.nb() || a.bs() != b.bs()) return false;
    for (int i = 0; i < a.nb(); ++i) {
        for (int j = 0; j < a.nb(); ++j) {
            const float* x = a.block(i, j);
            const float* y = b.block(i, j);
            if ((x == nullptr) != (y == nullptr)) return false;
            if (x != nullptr && std::memcmp(x, y, a.block_elements() * sizeof(float)) != 0) return false;
        }
    }
    return true;
}

/// y += M x over block (i, j) of `lu`, restricted to a triangle when i == j (part: -1 the
/// strict lower one, with the unit diagonal added; 1 the upper one with the diagonal; 0
/// the whole block); also y_abs += |M| x_abs. Offsets are in elements of the whole matrix.
inline void multiply_block(const float* block, int bs, int part, const double* x, const double* x_abs, double* y,
                           double* y_abs) noexcept {
    for (int r = 0; r < bs; ++r) {
        const int first = part > 0 ? r : 0;
        const int last = part < 0 ? r : bs;
        double sum = part < 0 ? x[r] : 0.0;
        double sum_abs = part < 0 ? x_abs[r] : 0.0;
        for (int c = first; c < last; ++c) {
            const double m = static_cast<double>(block[r * bs + c]);
            sum += m * x[c];
            sum_abs += std::fabs(m) * x_abs[c];
        }
        y[r] += sum;
        y_abs[r] += sum_abs;
    }
}

/// The largest ratio, over the rows, of |A x - L (U x)| to gamma |L| |U| x, for the positive
/// x of the file comment; at most 1 for a correct factorisation, infinite with a NaN.
/// `lu` holds the factors of `original`. Computed in double: its own rounding is ~2^-29
/// of what the float factors may carry.
inline double backward_error_ratio(const matrix& original, const matrix& lu) {
    const int nb = lu.nb();
    const int bs = lu.bs();
    const std::size_t n = static_cast<std::size_t>(nb) * static_cast<std::size_t>(bs);
    const double nu = static_cast<double>(n) * std::ldexp(1.0, -24);
    const double gamma = nu / (1 - nu);
    std::vector<double> x(n), ax(n), ax_abs(n), ux(n), ux_abs(n), lux(n), lux_abs(n);
    std::uint64_t state = 2;
    for (double& v : x) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        v = 0.5 + std::ldexp(static_cast<double>(state >> 11), -53);
    }
    const auto at = [bs](std::vector<double>& v, int block) {
        return v.data() + static_cast<std::size_t>(block) * static_cast<std::size_t>(bs);
    };
    for (int i = 0; i < nb; ++i) {
        for (int j = 0; j < nb; ++j) {
            if (const float* b = original.block(i, j)) multiply_block(b, bs, 0, at(x, j), at(x, j), at(ax, i), at(ax_abs, i));
            if (const float* b = lu.block(i, j); b != nullptr && j >= i) {
                multiply_block(b, bs, i == j ? 1 : 0, at(x, j), at(x, j), at(ux, i), at(ux_abs, i));
            }
        }
    }
    for (int i = 0; i < nb; ++i) {
        for (int j = 0; j <= i; ++j) {
            if (const float* b = lu.block(i, j)) {
                multiply_block(b, bs, i == j ? -1 : 0, at(ux, j), at(ux_abs, j), at(lux, i), at(lux_abs, i));
            }
        }
    }
    double worst = 0;
    for (std::size_t r = 0; r < n; ++r) {
        const double error = std::fabs(ax[r] - lux[r]);
        const double ratio = error == 0 ? 0.0 : error / (gamma * lux_abs[r]);
        if (std::isnan(ratio)) return INFINITY;
        worst = std::max(worst, ratio);
    }
    return worst;
}

struct options {
    int nb = 50;
    int bs = 120;
    unsigned workers = 0;
    unsigned reps = 3;
};

[[noreturn]] inline void usage(const char* program, int status) {
    std::fprintf(status == 0 ? stdout : stderr,
                 "usage: %s [--nb=N] [--bs=N] [--workers=N] [--reps=N] [--weft:...]\n"
                 "  --nb=N       blocks per side of the matrix, 1..1000 (default 50)\n"
                 "  --bs=N       elements per side of a block, 1..1000 (default 120)\n"
                 "  --workers=N  worker threads (default: hardware concurrency)\n"
                 "  --reps=N     measured repetitions after one warm-up (default 3)\n"
                 "  --weft:*     runtime options, ignored by the anchors\n",
                 program);
    std::exit(status);
}

inline options parse_options(int argc, char** argv) {
    options o;
    parse_command_line(argc, argv, usage, [&](std::string_view name, std::string_view v) {
        using weft::bench::detail::parse_number;
        if (name == "--nb") return parse_number(v, o.nb) && o.nb >= 1 && o.nb <= 1000;
        if (name == "--bs") return parse_number(v, o.bs) && o.bs >= 1 && o.bs <= 1000;
        return parse_run_option(name, v, o.workers, o.reps);
    });
    o.workers = default_workers(o.workers);
    return o;
}

/// Factors the matrix once serially and checks it (see the file comment), then one
/// warm-up run and o.reps timed ones of `run(matrix&)`, each on a fresh copy of the
/// matrix, each compared with the serial factors and reported. Only `run` is timed.
template <class Run>
void measure(const char* impl, unsigned workers, const options& o, Run run) {
    const matrix original = generate(o.nb, o.bs);
    const operation_counts ops = count_operations(o.nb);
    matrix reference = original.clone();
    factor_serial(reference);
    const double ratio = backward_error_ratio(original, reference);
    if (!(ratio <= 1.0)) {
        std::fprintf(stderr, "weft-bench problem=sparselu impl=%s: the serial factors fail the backward-error "
                             "check (|Ax - LUx| / (gamma |L||U|x) = %g > 1)\n", impl, ratio);
        std::exit(1);
    }
    if (reference.present_blocks() != ops.final_blocks) {
        fail_check("sparselu", impl, static_cast<std::uint64_t>(reference.present_blocks()),
                   static_cast<std::uint64_t>(ops.final_blocks));
    }
    const std::uint64_t expected = hash(reference);

    for (unsigned rep = 0; rep <= o.reps; ++rep) {  // rep 0: the warm-up
        matrix a = original.clone();
        const double seconds = time_seconds([&] { run(a); });
        if (!identical(a, reference)) fail_check("sparselu", impl, hash(a), expected);
        if (rep == 0) continue;
        std::printf("weft-bench problem=sparselu impl=%s workers=%u n=%d calls=%llu seconds=%.6f "
                    "ns_per_call=%.3f result=%llu bs=%d blocks=%d/%d\n",
                    impl, workers, o.nb, static_cast<unsigned long long>(ops.total()), seconds,
                    seconds * 1e9 / static_cast<double>(ops.total()), static_cast<unsigned long long>(expected), o.bs,
                    ops.initial_blocks, ops.final_blocks);
        std::fflush(stdout);
    }
}

}  // namespace weft::bench::sparselu
