// Strassen's matrix multiplication in the shape of the Barcelona OpenMP Tasks Suite's
// strassen (Duran et al. 2009, from the Cilk project; seed 001 ch.3-4). Shared by
// bench/strassen/{serial,weft,tbb,omp}.cpp and by INNCABS's Strassen
// (bench/inncabs/strassen.cpp): the kernels, one recursion step, the fork-join recursion
// on a task group, the input, the checks, the options and the result line.
//
// C = A B for n x n row-major matrices of doubles, n a power of two >= 16, in Winograd's
// form of Strassen's algorithm (7 products, 15 additions). One step on quadrants
// (A11 A12 / A21 A22, likewise B and C), with q = n / 2 and 11 temporaries of q x q
// allocated by the step:
//   S1 = A21 + A22   S2 = S1 - A11   S3 = A11 - A21   S4 = A12 - S2
//   S5 = B12 - B11   S6 = B22 - S5   S7 = B22 - B12   S8 = S6 - B21
//   the 7 products (the recursion; each writes a matrix of its own):
//   M2 = A11 B11   M5 = S1 S5   T1 = S2 S6   C22 = S3 S7   C11 = A12 B21
//   C12 = S4 B22   C21 = A22 S8
//   then, element by element: t1 = T1 + M2, t2 = C22 + t1, C11 += M2,
//   C12 += M5 + t1, C22 = M5 + t2, C21 = t2 - C21.
// At n <= cutoff (BOTS -y, default 64) the product is a divide-and-conquer one instead:
// 8 quadrant products (the last 4 accumulating), down to quadrants of 16, multiplied by a
// naive kernel 8 columns at a time. Every element of every matrix is computed by one
// fixed sequence of operations whoever runs it, so a parallel product equals the serial
// one bit for bit (no reassociation: no -ffast-math).
//
// Tasks: the 7 products of a step are 7 tasks and a wait, at depths below the depth
// cutoff (BOTS -x: the root step is depth 1 and spawns when 1 < cutoff; default 3, so the
// root's 7 products and their 49 are tasks, deeper steps run serially inside them). INNCABS
// has no depth cutoff: every step above the size cutoff asyncs its 7 products.
//
// The input: A then B filled row by row with doubles in [0, 1) from a 64-bit linear
// congruential generator (Knuth's MMIX constants) seeded with 1 (the suites call rand()).
//
// The checks, against the definition of the product (check_product): every entry
// (n <= 256) or one entry, at a pseudo-random place, in every 64 x 64 block of C, is
// compared with its dot product computed in long double; and C x is compared with A (B x)
// for a positive random x (Freivalds' test: any wrong entry shows in its row unless it
// cancels, which the random x makes unlikely). Both scaled by what the exact value is
// made of (the entry or the row sum of |A| |B| x), which for these nonnegative inputs is
// the value itself; a correct Strassen product stays within 1e-14 of it here, a missing or
// wrong product of the recursion changes it by ~1e-2, and the bound is 1e-9. The BOTS
// programs check the serial product so, untimed, then require every timed run to equal
// it bit for bit (a race or a missing task changes bits); INNCABS's checks every run so.
//
// Options (BOTS's strassen: -n, -y, -x): --n=N (power of two, 16..16384; default 2048,
// ~4-5 s serially here; BOTS's default is 1024, under 1 s), --cutoff=N (BOTS -y, power of
// two >= 16, default 64), --depth-cutoff=D|none (BOTS -x, default 3), --workers=N,
// --reps=N; --weft:* is left to the weft runtime.
//
// Result line: bench_common.hpp's format with problem=strassen, n=<n>, calls=<tasks per
// run> (the serial program prints the parallel ones' count), result=<64-bit hash
// of C's bits>, then cutoff=<size cutoff> depth_cutoff=<D or none>.
#pragma once

#include "common/bench_common.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

namespace weft::bench::strassen {

using real = double;

/// Side of the quadrants that the divide-and-conquer product hands to the naive kernel.
inline constexpr std::size_t naive_size = 16;

// --- The kernels -----------------------------------------------------------------------
// Matrices are row-major with a row stride (elements from one row to the next). Never
// inlined, so that every program built by one compiler runs the same machine code.

/// C = A B (add: C += A B) for n x n blocks, n a multiple of 8: 8 columns of a row of C
/// at a time, accumulated over k.
[[gnu::noinline]] inline void multiply_naive(real* c, const real* a, const real* b, std::size_t n, std::size_t rc,
                                             std::size_t ra, std::size_t rb, bool add) noexcept {
    for (std::size_t i = 0; i < n; ++i) {
        real* crow = c + i * rc;
        const real* arow = a + i * ra;
        for (std::size_t j = 0; j < n; j += 8) {
            real s[8];
            for (std::size_t t = 0; t < 8; ++t) s[t] = add ? crow[j + t] : 0.0;
            for (std::size_t k = 0; k < n; ++k) {
                const real x = arow[k];
                const real* brow = b + k * rb + j;
                for (std::size_t t = 0; t < 8; ++t) s[t] += x * brow[t];
            }
            for (std::size_t t = 0; t < 8; ++t) crow[j + t] = s[t];
        }
    }
}

/// C = A B (add: C += A B) by quadrants: C11 = A11 B11, C12 = A11 B12, C22 = A21 B12,
/// C21 = A21 B11, then C11 += A12 B21, C12 += A12 B22, C22 += A22 B22, C21 += A22 B21;
/// quadrants of naive_size or less go to the naive kernel.
inline void multiply_by_quadrants(real* c, const real* a, const real* b, std::size_t n, std::size_t rc,
                                  std::size_t ra, std::size_t rb, bool add) noexcept {
    const std::size_t q = n / 2;
    const real* a12 = a + q;
    const real* a21 = a + q * ra;
    const real* a22 = a21 + q;
    const real* b12 = b + q;
    const real* b21 = b + q * rb;
    const real* b22 = b21 + q;
    real* c12 = c + q;
    real* c21 = c + q * rc;
    real* c22 = c21 + q;
    const auto product = [&](real* cc, const real* aa, const real* bb, bool accumulate) {
        if (q > naive_size) multiply_by_quadrants(cc, aa, bb, q, rc, ra, rb, accumulate);
        else multiply_naive(cc, aa, bb, q, rc, ra, rb, accumulate);
    };
    product(c, a, b, add);
    product(c12, a, b12, add);
    product(c22, a21, b12, add);
    product(c21, a21, b, add);
    product(c, a12, b21, true);
    product(c12, a12, b22, true);
    product(c22, a22, b22, true);
    product(c21, a22, b21, true);
}

// --- One Strassen step -----------------------------------------------------------------

/// One of the 7 products of a step: c (stride rc) = a (stride ra) times b (stride rb),
/// all n x n.
struct product {
    real* c;
    const real* a;
    const real* b;
    std::size_t n, rc, ra, rb;
};

/// One step of Strassen-Winograd on C = A B (n > the size cutoff): the constructor
/// allocates the temporaries and forms S1..S8; products() are the 7 products to compute
/// (in any order, in parallel); combine() then finishes C.
class step {
public:
    step(real* c, const real* a, const real* b, std::size_t n, std::size_t rc, std::size_t ra, std::size_t rb)
        : q_(n / 2), rc_(rc), c_(c), temps_(std::make_unique_for_overwrite<real[]>(11 * q_ * q_)) {
        const std::size_t q = q_;
        real* t = temps_.get();
        for (std::size_t k = 0; k < 8; ++k) s_[k] = t + k * q * q;
        m2_ = t + 8 * q * q;
        m5_ = t + 9 * q * q;
        t1_ = t + 10 * q * q;
        const real* a12 = a + q;
        const real* a21 = a + q * ra;
        const real* a22 = a21 + q;
        const real* b12 = b + q;
        const real* b21 = b + q * rb;
        const real* b22 = b21 + q;
        for (std::size_t i = 0; i < q; ++i) {
            const std::size_t ia = i * ra, ib = i * rb, it = i * q;
            for (std::size_t j = 0; j < q; ++j) {
                const real s1 = a21[ia + j] + a22[ia + j];
                const real s2 = s1 - a[ia + j];
                s_[0][it + j] = s1;
                s_[1][it + j] = s2;
                s_[2][it + j] = a[ia + j] - a21[ia + j];
                s_[3][it + j] = a12[ia + j] - s2;
                const real s5 = b12[ib + j] - b[ib + j];
                const real s6 = b22[ib + j] - s5;
                s_[4][it + j] = s5;
                s_[5][it + j] = s6;
                s_[6][it + j] = b22[ib + j] - b12[ib + j];
                s_[7][it + j] = s6 - b21[ib + j];
            }
        }
        real* c12 = c + q;
        real* c21 = c + q * rc;
        real* c22 = c21 + q;
        products_ = {{
            {m2_, a, b, q, q, ra, rb},               // M2 = A11 B11
            {m5_, s_[0], s_[4], q, q, q, q},         // M5 = S1 S5
            {t1_, s_[1], s_[5], q, q, q, q},         // T1 = S2 S6
            {c22, s_[2], s_[6], q, rc, q, q},        // C22 = S3 S7
            {c, a12, b21, q, rc, ra, rb},            // C11 = A12 B21
            {c12, s_[3], b22, q, rc, q, rb},         // C12 = S4 B22
            {c21, a22, s_[7], q, rc, ra, q},         // C21 = A22 S8
        }};
    }

    const std::array<product, 7>& products() const noexcept { return products_; }

    /// C from the 7 products (see the file comment).
    void combine() noexcept {
        const std::size_t q = q_;
        real* c11 = c_;
        real* c12 = c_ + q;
        real* c21 = c_ + q * rc_;
        real* c22 = c21 + q;
        for (std::size_t i = 0; i < q; ++i) {
            const std::size_t ic = i * rc_, it = i * q;
            for (std::size_t j = 0; j < q; ++j) {
                const real m2 = m2_[it + j];
                const real m5 = m5_[it + j];
                const real t1 = t1_[it + j] + m2;
                const real t2 = c22[ic + j] + t1;
                c11[ic + j] += m2;
                c12[ic + j] += m5 + t1;
                c22[ic + j] = m5 + t2;
                c21[ic + j] = t2 - c21[ic + j];
            }
        }
    }

private:
    std::size_t q_, rc_;
    real* c_;
    std::unique_ptr<real[]> temps_;
    real* s_[8];
    real* m2_;
    real* m5_;
    real* t1_;
    std::array<product, 7> products_;
};

// --- The fork-join recursion -----------------------------------------------------------

struct params {
    std::size_t cutoff = 64;  ///< products of n <= cutoff are divide-and-conquer ones
    int depth_cutoff = 3;     ///< steps at depth >= this (the root is 1) spawn no task
};

/// A "task group" that runs every task at once, on the caller: the serial product.
struct inline_group {
    template <class F>
    void run(F&& f) {
        f();
    }
    void wait() noexcept {}
};

/// C = A B on a fork-join task group (weft::task_group, tbb::task_group, inline_group):
/// at depth < p.depth_cutoff the 7 products of a step are children, deeper they run
/// serially; the combination follows the join.
template <class Group>
void multiply(const params& p, const product& m, int depth) {
    if (m.n <= p.cutoff) {
        multiply_by_quadrants(m.c, m.a, m.b, m.n, m.rc, m.ra, m.rb, false);
        return;
    }
    step s(m.c, m.a, m.b, m.n, m.rc, m.ra, m.rb);
    if (depth < p.depth_cutoff) {
        Group g;
        for (const product& x : s.products()) g.run([&p, x, depth] { multiply<Group>(p, x, depth + 1); });
        g.wait();
    } else {
        for (const product& x : s.products()) multiply<inline_group>(p, x, depth + 1);
    }
    s.combine();
}

/// Tasks multiply() creates for an n x n product: 7 per step above the size cutoff at a
/// depth below the depth cutoff.
inline std::uint64_t tasks_created(std::size_t n, const params& p) noexcept {
    std::uint64_t tasks = 0, steps = 1;
    for (int depth = 1; n > p.cutoff && depth < p.depth_cutoff; ++depth, n /= 2) {
        tasks += 7 * steps;
        steps *= 7;
    }
    return tasks;
}

// --- The input and the checks ----------------------------------------------------------

/// An n x n matrix, row-major, its rows on cache lines.
class matrix {
public:
    explicit matrix(std::size_t n)
        : n_(n), data_(static_cast<real*>(::operator new[](n * n * sizeof(real), std::align_val_t{64}))) {}
    std::size_t n() const noexcept { return n_; }
    real* data() noexcept { return data_.get(); }
    const real* data() const noexcept { return data_.get(); }
    real operator()(std::size_t i, std::size_t j) const noexcept { return data_[i * n_ + j]; }

private:
    struct deleter {
        void operator()(real* p) const noexcept { ::operator delete[](p, std::align_val_t{64}); }
    };
    std::size_t n_;
    std::unique_ptr<real[], deleter> data_;
};

/// A and B of the file comment.
inline void fill_input(matrix& a, matrix& b) noexcept {
    std::uint64_t state = 1;
    for (matrix* m : {&a, &b}) {
        for (std::size_t e = 0; e < m->n() * m->n(); ++e) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            m->data()[e] = std::ldexp(static_cast<real>(state >> 11), -53);
        }
    }
}

/// The largest error of c as the product a b, scaled by the tolerance (see the file
/// comment): at most 1 for a right product; infinite with a NaN. Sets `where` to what
/// it found worst.
inline double check_product(const matrix& a, const matrix& b, const matrix& c, std::string* where = nullptr) {
    constexpr double tolerance = 1e-9;
    const std::size_t n = c.n();
    double worst = -1;
    const auto note = [&](double ratio, const std::string& what) {
        if (std::isnan(ratio)) ratio = INFINITY;
        if (ratio <= worst) return;
        worst = ratio;
        if (where != nullptr) *where = what;
    };
    const auto entry = [&](std::size_t i, std::size_t j) {
        long double exact = 0;
        for (std::size_t k = 0; k < n; ++k) exact += static_cast<long double>(a(i, k)) * b(k, j);
        const double scale = static_cast<double>(exact);  // the entries are >= 0: |A||B| = A B
        const double error = std::fabs(c(i, j) - scale);
        note(error == 0 ? 0.0 : error / (tolerance * scale),
             "C[" + std::to_string(i) + "][" + std::to_string(j) + "] = " + std::to_string(c(i, j)) + ", A B gives " +
                 std::to_string(scale));
    };
    // Entries: all of them, or one in every block of 64 x 64.
    const std::size_t block = n <= 256 ? 1 : 64;
    std::uint64_t state = 3;
    for (std::size_t bi = 0; bi < n; bi += block) {
        for (std::size_t bj = 0; bj < n; bj += block) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            const std::size_t off = block == 1 ? 0 : static_cast<std::size_t>(state >> 32) % (block * block);
            entry(bi + off / block, bj + off % block);
        }
    }
    // Freivalds: C x against A (B x), x in [0.5, 1.5).
    std::vector<double> x(n), bx(n, 0.0), abx(n, 0.0), cx(n, 0.0);
    for (double& v : x) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        v = 0.5 + std::ldexp(static_cast<double>(state >> 11), -53);
    }
    for (std::size_t i = 0; i < n; ++i) {
        double sb = 0, sc = 0;
        for (std::size_t k = 0; k < n; ++k) {
            sb += b(i, k) * x[k];
            sc += c(i, k) * x[k];
        }
        bx[i] = sb;
        cx[i] = sc;
    }
    for (std::size_t i = 0; i < n; ++i) {
        double s = 0;
        for (std::size_t k = 0; k < n; ++k) s += a(i, k) * bx[k];
        abx[i] = s;
    }
    for (std::size_t i = 0; i < n; ++i) {
        const double error = std::fabs(cx[i] - abx[i]);
        note(error == 0 ? 0.0 : error / (tolerance * abx[i]),
             "row " + std::to_string(i) + ": (C x) = " + std::to_string(cx[i]) +
                 ", A (B x) = " + std::to_string(abx[i]));
    }
    return worst;
}

/// A 64-bit hash of c's bits, row by row.
inline std::uint64_t hash(const matrix& c) noexcept {
    std::uint64_t h = 14695981039346656037ULL;
    for (std::size_t e = 0; e < c.n() * c.n(); ++e) {
        std::uint64_t bits;
        std::memcpy(&bits, &c.data()[e], sizeof bits);
        h = (h ^ bits) * 1099511628211ULL;
    }
    return h;
}

// --- Options and the measurement -------------------------------------------------------

struct options {
    std::size_t n = 2048;
    params p;
    unsigned workers = 0;
    unsigned reps = 3;
};

inline bool power_of_two(std::size_t v) noexcept { return v != 0 && (v & (v - 1)) == 0; }

[[noreturn]] inline void usage(const char* program, int status) {
    std::fprintf(status == 0 ? stdout : stderr,
                 "usage: %s [--n=N] [--cutoff=N] [--depth-cutoff=D|none] [--workers=N] [--reps=N] [--weft:...]\n"
                 "  --n=N                 matrix side, a power of two from 16 to 16384 (default 2048)\n"
                 "  --cutoff=N            products of side <= N are divide-and-conquer ones (BOTS -y;\n"
                 "                        a power of two >= 16, default 64)\n"
                 "  --depth-cutoff=D      steps at depth >= D spawn no task (BOTS -x; the root is 1;\n"
                 "                        default 3; none: every step spawns)\n"
                 "  --workers=N           worker threads (default: hardware concurrency)\n"
                 "  --reps=N              measured repetitions after one warm-up (default 3)\n"
                 "  --weft:*              runtime options, ignored by the anchors\n",
                 program);
    std::exit(status);
}

inline options parse_options(int argc, char** argv) {
    options o;
    parse_command_line(argc, argv, usage, [&](std::string_view name, std::string_view v) {
        using weft::bench::detail::parse_number;
        if (name == "--n") return parse_number(v, o.n) && power_of_two(o.n) && o.n >= 16 && o.n <= 16384;
        if (name == "--cutoff") return parse_number(v, o.p.cutoff) && power_of_two(o.p.cutoff) && o.p.cutoff >= 16;
        if (name == "--depth-cutoff") {
            if (v == "none") {
                o.p.depth_cutoff = std::numeric_limits<int>::max();
                return true;
            }
            return parse_number(v, o.p.depth_cutoff) && o.p.depth_cutoff >= 1;
        }
        return parse_run_option(name, v, o.workers, o.reps);
    });
    o.workers = default_workers(o.workers);
    return o;
}

/// Multiplies serially once and checks that product (untimed), then one warm-up run and
/// o.reps timed ones of `run(const product&)` (C = A B at depth 1), each compared with the
/// serial product bit for bit and reported.
template <class Run>
void measure(const char* impl, unsigned workers, const options& o, Run run) {
    matrix a(o.n), b(o.n), c(o.n), reference(o.n);
    fill_input(a, b);
    const product whole{reference.data(), a.data(), b.data(), o.n, o.n, o.n, o.n};
    multiply<inline_group>(o.p, whole, 1);
    std::string where;
    if (const double ratio = check_product(a, b, reference, &where); !(ratio <= 1.0)) {
        std::fprintf(stderr, "weft-bench problem=strassen impl=%s: the serial product is wrong: %s (%g times the "
                             "tolerance)\n", impl, where.c_str(), ratio);
        std::exit(1);
    }
    const std::uint64_t expected = hash(reference);
    const std::uint64_t tasks = tasks_created(o.n, o.p);
    char depth[16] = "none";
    if (o.p.depth_cutoff != std::numeric_limits<int>::max()) std::snprintf(depth, sizeof depth, "%d", o.p.depth_cutoff);
    for (unsigned rep = 0; rep <= o.reps; ++rep) {  // rep 0: the warm-up
        std::memset(c.data(), 0xff, o.n * o.n * sizeof(real));  // NaNs: an entry never written shows
        const product m{c.data(), a.data(), b.data(), o.n, o.n, o.n, o.n};
        const double seconds = time_seconds([&] { run(m); });
        if (std::memcmp(c.data(), reference.data(), o.n * o.n * sizeof(real)) != 0) {
            fail_check("strassen", impl, hash(c), expected);
        }
        if (rep == 0) continue;
        std::printf("weft-bench problem=strassen impl=%s workers=%u n=%zu calls=%llu seconds=%.6f ns_per_call=%.3f "
                    "result=%llu cutoff=%zu depth_cutoff=%s\n",
                    impl, workers, o.n, static_cast<unsigned long long>(tasks), seconds,
                    tasks != 0 ? seconds * 1e9 / static_cast<double>(tasks) : 0.0,
                    static_cast<unsigned long long>(expected), o.p.cutoff, depth);
        std::fflush(stdout);
    }
}

}  // namespace weft::bench::strassen
