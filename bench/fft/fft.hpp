// FFT in the shape of the Barcelona OpenMP Tasks Suite's fft (itself Cilk's fft, by
// Matteo Frigo): the one-dimensional discrete Fourier transform of n complex values by a
// recursive, mixed-radix Cooley-Tukey algorithm. Shared by bench/fft/{serial,weft,omp,tbb}.cpp
// and by INNCABS's FFT (bench/inncabs/fft.cpp): the radices, the leaf kernels, the
// fork-join recursion, the task count, the input, the checks, the options and the result line.
//
// The transform X[k] = sum_t x[t] w^(k t), w = e^(-2 pi i / n), of a length n = r m:
//   roots:     W[k] = w^k for k in 0..n (one table for the whole transform)
//   unshuffle: y_j[q] = x[q r + j], the r subsequences side by side (out[j m + q])
//   recurse:   Y_j = DFT_m(y_j), one sub-transform per j, each into its own m values
//   twiddle:   for every s in 0..m-1: X[s + m k] = sum_j (w^(j s) Y_j[s]) e^(-2 pi i j k / r),
//              one DFT of length r per s
// The radix r of a length is the first of its factor list, chosen as the originals do:
// 8 for 64, 128, 256, 1024, 2048 and 4096, else 16, 8, 4 or 2 if it divides n, else the
// smallest odd prime factor. Lengths 2, 4, 8, 16 and 32 are transformed directly (the
// base case); a prime length is one generic radix step with m = 1.
//
// Tasks (the originals' shape, every split a fork of two halves and a join):
//   roots      [a, b) of k in 0..n/2: split in halves down to fewer than 128
//   unshuffle  [a, b) of q in 0..m-1: down to fewer than 128 (power-of-two radix) or 16
//   recurse    one task per sub-transform (r of them), then a join
//   twiddle    [a, b) of s in 0..m-1: down to fewer than 128 (power-of-two radix), or
//              to single s (any other radix: Cilk's fft_twiddle_gen, the finest tasks)
// For n = 2^23 (the default here, ~1 s serially; radices 16 x 5, then a base 8): 576,714
// tasks, ~2 us of work each on average (seed 001 Table 3.1 counts 128 M at n = 2^30).
// For INNCABS's n = 10^6 (radices 16, 4, 5 x 6): 2,295,754 tasks, most of them radix-5
// twiddles of a single s, well under 1 us each (seed 000 Table 7: "FFT ... 1 us, VF (var)";
// its Table 3 counts 2.04 M).
//
// Values: doubles (BOTS uses floats; the originals' input is 1 + 1i everywhere, whose
// transform is one spike, so that a wrong twiddle could go unnoticed). Here the input is
// x[t] = (u, v) with u, v in [-1, 1) from a 64-bit LCG (Knuth's MMIX constants) seeded with 1.
//
// Checks: the serial transform (the same leaf kernels, no task) is validated once, against
// a direct DFT at 6 outputs (sum_t x[t] w^(k t), with w^(k t) by repeated long-double
// rotation, so independent of the roots table) and by a round trip (the inverse transform,
// conj(FFT(conj(X))) / n, must give x back), each within 1e-9 relative to sqrt(n) max|x|;
// then every timed run must equal it bit for bit (the leaf kernels are the same machine
// code and each output's arithmetic is fixed whatever runs it). A failed check exits 1.
#pragma once

#include "common/bench_common.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numbers>
#include <string_view>
#include <vector>

namespace weft::bench::fft {

struct complex {
    double re;
    double im;
};

inline complex operator*(complex a, complex b) noexcept {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
inline complex operator+(complex a, complex b) noexcept { return {a.re + b.re, a.im + b.im}; }
inline complex operator-(complex a, complex b) noexcept { return {a.re - b.re, a.im - b.im}; }

/// Leaves: a split stops once its range is shorter than this.
inline constexpr std::size_t roots_grain = 128;
inline constexpr std::size_t pow2_grain = 128;    ///< unshuffle and twiddle, radix 2..32
inline constexpr std::size_t unshuffle_grain = 16;  ///< unshuffle, any other radix
inline constexpr std::size_t generic_grain = 2;     ///< twiddle, any other radix: single s

inline constexpr bool is_base(std::size_t n) noexcept { return n == 2 || n == 4 || n == 8 || n == 16 || n == 32; }
inline constexpr bool is_pow2_radix(std::size_t r) noexcept { return is_base(r); }

/// The radix of a length n >= 2 (see the file comment).
inline std::size_t radix(std::size_t n) noexcept {
    if (n == 64 || n == 128 || n == 256 || n == 1024 || n == 2048 || n == 4096) return 8;
    for (std::size_t r : {16u, 8u, 4u, 2u}) {
        if (n % r == 0) return r;
    }
    for (std::size_t r = 3; r * r <= n; r += 2) {
        if (n % r == 0) return r;
    }
    return n;  // prime
}

/// The radices of n, outermost first; their product is n.
inline std::vector<std::size_t> factor_list(std::size_t n) {
    std::vector<std::size_t> f;
    while (n > 1) {
        const std::size_t r = radix(n);
        f.push_back(r);
        n /= r;
    }
    return f;
}

// ---- Leaf kernels. Never inlined, so that every version in one binary runs the same
// machine code for them, whatever calls them (the bit-for-bit check relies on it).

/// W[k] = e^(-2 pi i k / n) and W[n - k] = its conjugate, for k in [a, b).
[[gnu::noinline]] inline void roots_leaf(std::size_t n, std::size_t a, std::size_t b, complex* w) noexcept {
    const double step = 2.0 * std::numbers::pi / static_cast<double>(n);
    for (std::size_t k = a; k < b; ++k) {
        const double angle = step * static_cast<double>(k);
        const double c = std::cos(angle);
        const double s = std::sin(angle);
        w[k] = {c, -s};
        w[n - k] = {c, s};
    }
}

/// out[q + j m] = in[q r + j] for q in [a, b), j in 0..r-1.
[[gnu::noinline]] inline void unshuffle_leaf(std::size_t a, std::size_t b, const complex* in, complex* out,
                                             std::size_t r, std::size_t m) noexcept {
    for (std::size_t q = a; q < b; ++q) {
        const complex* src = in + q * r;
        complex* dst = out + q;
        for (std::size_t j = 0; j < r; ++j) dst[j * m] = src[j];
    }
}

namespace detail {

/// e^(-2 pi i k / 32) for k in 0..31: the roots of every power-of-two radix.
inline const std::array<complex, 32> roots32 = [] {
    std::array<complex, 32> r{};
    for (std::size_t k = 0; k < r.size(); ++k) {
        const double angle = 2.0 * std::numbers::pi * static_cast<double>(k) / 32.0;
        r[k] = {std::cos(angle), -std::sin(angle)};
    }
    return r;
}();

/// i with its log2(R) bits reversed.
template <std::size_t R>
constexpr std::array<std::size_t, R> bit_reversal() {
    std::array<std::size_t, R> p{};
    for (std::size_t i = 0; i < R; ++i) {
        std::size_t rev = 0;
        for (std::size_t bit = 1, out = R >> 1; bit < R; bit <<= 1, out >>= 1) {
            if ((i & bit) != 0) rev |= out;
        }
        p[i] = rev;
    }
    return p;
}

/// out[k] = sum_j v[j] e^(-2 pi i j k / R), R a power of two <= 32, by radix-2
/// decimation in time (v is overwritten).
template <std::size_t R>
inline void small_dft(complex* v, complex* out) noexcept {
    static constexpr std::array<std::size_t, R> rev = bit_reversal<R>();
    for (std::size_t i = 0; i < R; ++i) out[i] = v[rev[i]];
    for (std::size_t len = 2; len <= R; len <<= 1) {
        const std::size_t half = len / 2;
        const std::size_t stride = 32 / len;
        for (std::size_t s = 0; s < R; s += len) {
            for (std::size_t k = 0; k < half; ++k) {
                const complex u = out[s + k];
                const complex t = k == 0 ? out[s + k + half] : out[s + k + half] * roots32[k * stride];
                out[s + k] = u + t;
                out[s + k + half] = u - t;
            }
        }
    }
}

template <std::size_t R>
void twiddle_pow2(std::size_t a, std::size_t b, const complex* in, complex* out, const complex* w,
                  std::size_t nwdn, std::size_t m) noexcept {
    complex v[R];
    complex x[R];
    for (std::size_t s = a; s < b; ++s) {
        const std::size_t l1 = nwdn * s;
        v[0] = in[s];
        for (std::size_t j = 1; j < R; ++j) v[j] = l1 == 0 ? in[s + j * m] : in[s + j * m] * w[j * l1];
        small_dft<R>(v, x);
        for (std::size_t k = 0; k < R; ++k) out[s + k * m] = x[k];
    }
}

/// Any radix r: out[s + k m] = sum_j in[s + j m] W[j (s + k m) nW / n mod nW], one table
/// lookup per term, no scratch (so a prime length of any size works).
inline void twiddle_any(std::size_t a, std::size_t b, const complex* in, complex* out, const complex* w,
                        std::size_t nw, std::size_t nwdn, std::size_t r, std::size_t m) noexcept {
    for (std::size_t s = a; s < b; ++s) {
        for (std::size_t k = 0; k < r; ++k) {
            const std::size_t step = nwdn * (s + k * m);  // < nW
            std::size_t at = 0;
            complex sum{0.0, 0.0};
            for (std::size_t j = 0; j < r; ++j) {
                sum = sum + in[s + j * m] * w[at];
                at += step;
                if (at >= nw) at -= nw;
            }
            out[s + k * m] = sum;
        }
    }
}

}  // namespace detail

/// The twiddle step for s in [a, b) of a length n = r m in a transform of length nw:
/// nwdn = nw / n. Reads in (the r sub-transforms side by side), writes out.
[[gnu::noinline]] inline void twiddle_leaf(std::size_t a, std::size_t b, const complex* in, complex* out,
                                           const complex* w, std::size_t nw, std::size_t nwdn, std::size_t r,
                                           std::size_t m) noexcept {
    switch (r) {
    case 2: detail::twiddle_pow2<2>(a, b, in, out, w, nwdn, m); break;
    case 4: detail::twiddle_pow2<4>(a, b, in, out, w, nwdn, m); break;
    case 8: detail::twiddle_pow2<8>(a, b, in, out, w, nwdn, m); break;
    case 16: detail::twiddle_pow2<16>(a, b, in, out, w, nwdn, m); break;
    case 32: detail::twiddle_pow2<32>(a, b, in, out, w, nwdn, m); break;
    default: detail::twiddle_any(a, b, in, out, w, nw, nwdn, r, m); break;
    }
}

/// out = DFT_n(in) for a base length n (2, 4, 8, 16, 32) in a transform of length nw.
[[gnu::noinline]] inline void base_leaf(std::size_t n, const complex* in, complex* out, const complex* w,
                                        std::size_t nw) noexcept {
    twiddle_leaf(0, 1, in, out, w, nw, 0, n, 1);
}

/// Where a split of [a, b) stops for each step (the file comment's grains).
inline std::size_t unshuffle_grain_of(std::size_t r) noexcept { return is_pow2_radix(r) ? pow2_grain : unshuffle_grain; }
inline std::size_t twiddle_grain_of(std::size_t r) noexcept { return is_pow2_radix(r) ? pow2_grain : generic_grain; }

// ---- The recursion, with a fork-join task group (weft::task_group, tbb::task_group,
// inline_group): every split runs its two halves as children and joins them.

/// A "task group" that runs every task at once, on the caller: the serial transform.
struct inline_group {
    template <class F>
    void run(F&& f) {
        f();
    }
    void wait() noexcept {}
};

template <class Group>
void roots(std::size_t n, std::size_t a, std::size_t b, complex* w) {
    if (b - a < roots_grain) {
        roots_leaf(n, a, b, w);
        return;
    }
    const std::size_t ab = a + (b - a) / 2;
    Group g;
    g.run([=] { roots<Group>(n, a, ab, w); });
    g.run([=] { roots<Group>(n, ab, b, w); });
    g.wait();
}

template <class Group>
void unshuffle(std::size_t a, std::size_t b, const complex* in, complex* out, std::size_t r, std::size_t m) {
    if (b - a < unshuffle_grain_of(r)) {
        unshuffle_leaf(a, b, in, out, r, m);
        return;
    }
    const std::size_t ab = a + (b - a) / 2;
    Group g;
    g.run([=] { unshuffle<Group>(a, ab, in, out, r, m); });
    g.run([=] { unshuffle<Group>(ab, b, in, out, r, m); });
    g.wait();
}

template <class Group>
void twiddle(std::size_t a, std::size_t b, const complex* in, complex* out, const complex* w, std::size_t nw,
             std::size_t nwdn, std::size_t r, std::size_t m) {
    if (b - a < twiddle_grain_of(r)) {
        twiddle_leaf(a, b, in, out, w, nw, nwdn, r, m);
        return;
    }
    const std::size_t ab = a + (b - a) / 2;
    Group g;
    g.run([=] { twiddle<Group>(a, ab, in, out, w, nw, nwdn, r, m); });
    g.run([=] { twiddle<Group>(ab, b, in, out, w, nw, nwdn, r, m); });
    g.wait();
}

/// out = DFT_n(in); in is clobbered. radices: n's factor list from this level on.
template <class Group>
void transform_rec(std::size_t n, complex* in, complex* out, const std::size_t* radices, const complex* w,
                   std::size_t nw) {
    if (is_base(n)) {
        base_leaf(n, in, out, w, nw);
        return;
    }
    const std::size_t r = radices[0];
    const std::size_t m = n / r;
    if (r < n) {
        unshuffle<Group>(0, m, in, out, r, m);
        Group g;
        for (std::size_t k = 0; k < n; k += m) {
            g.run([=] { transform_rec<Group>(m, out + k, in + k, radices + 1, w, nw); });
        }
        g.wait();
    }
    twiddle<Group>(0, m, in, out, w, nw, nw / n, r, m);
}

/// out = DFT_n(in), n >= 2, as the originals' fft(): the roots table (with tasks), then
/// the transform. in is clobbered.
template <class Group>
void transform(std::size_t n, complex* in, complex* out) {
    const std::unique_ptr<complex[]> w(new complex[n + 1]);
    roots<Group>(n, 0, n / 2 + 1, w.get());
    const std::vector<std::size_t> radices = factor_list(n);
    transform_rec<Group>(n, in, out, radices.data(), w.get(), n);
}

inline void transform_serial(std::size_t n, complex* in, complex* out) { transform<inline_group>(n, in, out); }

// ---- Task counts: children created by the recursion above (two per split, one per
// sub-transform), from the shape alone.

inline std::uint64_t split_tasks(std::size_t length, std::size_t grain) noexcept {
    if (length < grain) return 0;
    const std::size_t half = length / 2;
    return 2 + split_tasks(half, grain) + split_tasks(length - half, grain);
}

inline std::uint64_t transform_tasks(std::size_t n, const std::size_t* radices) noexcept {
    if (is_base(n)) return 0;
    const std::size_t r = radices[0];
    const std::size_t m = n / r;
    std::uint64_t tasks = split_tasks(m, twiddle_grain_of(r));
    if (r < n) tasks += split_tasks(m, unshuffle_grain_of(r)) + r * (1 + transform_tasks(m, radices + 1));
    return tasks;
}

/// Tasks transform<Group>(n, ...) creates with a real task group.
inline std::uint64_t tasks_created(std::size_t n) {
    const std::vector<std::size_t> radices = factor_list(n);
    return split_tasks(n / 2 + 1, roots_grain) + transform_tasks(n, radices.data());
}

// ---- Input and checks.

/// The input (see the file comment).
inline std::vector<complex> generate(std::size_t n) {
    std::vector<complex> x(n);
    std::uint64_t state = 1;
    const auto next = [&state] {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return std::ldexp(static_cast<double>(state >> 11), -52) - 1.0;  // [-1, 1)
    };
    for (complex& c : x) {
        c.re = next();
        c.im = next();
    }
    return x;
}

/// The serial transform of x, validated (see the file comment); on failure, why (and the
/// transform is still returned). `error` gets the worst error ratio (1 = the bound).
inline std::vector<complex> validated_reference(const std::vector<complex>& x, double& error, const char*& why) {
    const std::size_t n = x.size();
    std::vector<complex> in = x;
    std::vector<complex> ref(n);
    transform_serial(n, in.data(), ref.data());
    why = nullptr;
    double max_abs = 0;
    for (const complex& c : x) max_abs = std::fmax(max_abs, std::fmax(std::fabs(c.re), std::fabs(c.im)));
    const double bound = 1e-9 * std::sqrt(static_cast<double>(n)) * (max_abs > 0 ? max_abs : 1.0);
    error = 0;
    // Direct DFT at a few outputs, in long double, rotating by w^k one step at a time.
    const std::size_t samples[] = {0, 1, n / 3, n / 2, (n * 7) / 9, n - 1};
    for (const std::size_t k : samples) {
        const long double angle = -2.0L * std::numbers::pi_v<long double> * static_cast<long double>(k) /
                                  static_cast<long double>(n);
        const long double sr = std::cos(angle), si = std::sin(angle);
        long double wr = 1, wi = 0, sum_r = 0, sum_i = 0;
        for (std::size_t t = 0; t < n; ++t) {
            sum_r += static_cast<long double>(x[t].re) * wr - static_cast<long double>(x[t].im) * wi;
            sum_i += static_cast<long double>(x[t].re) * wi + static_cast<long double>(x[t].im) * wr;
            const long double nr = wr * sr - wi * si;
            wi = wr * si + wi * sr;
            wr = nr;
        }
        const double d = std::hypot(ref[k].re - static_cast<double>(sum_r), ref[k].im - static_cast<double>(sum_i));
        error = std::fmax(error, d / bound);
    }
    if (!(error <= 1.0)) why = "the serial transform differs from a direct DFT";
    // Round trip: x = conj(DFT(conj(X))) / n.
    std::vector<complex> back(n);
    for (std::size_t k = 0; k < n; ++k) in[k] = {ref[k].re, -ref[k].im};
    transform_serial(n, in.data(), back.data());
    double trip = 0;
    const double scale = 1.0 / static_cast<double>(n);
    for (std::size_t t = 0; t < n; ++t) {
        trip = std::fmax(trip, std::hypot(back[t].re * scale - x[t].re, -back[t].im * scale - x[t].im));
    }
    trip /= bound;
    if (!(trip <= 1.0) && why == nullptr) why = "the serial transform's inverse does not give the input back";
    error = std::fmax(error, trip);
    return ref;
}

inline bool identical(const std::vector<complex>& a, const std::vector<complex>& b) noexcept {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(complex)) == 0;
}

/// 64-bit FNV-1a hash of the values' bits (the result= of the line).
inline std::uint64_t hash(const std::vector<complex>& v) noexcept {
    std::uint64_t h = 14695981039346656037ULL;
    for (const complex& c : v) {
        for (const double d : {c.re, c.im}) {
            std::uint64_t bits;
            std::memcpy(&bits, &d, sizeof bits);
            h = (h ^ bits) * 1099511628211ULL;
        }
    }
    return h;
}

// ---- Options and measurement (the BOTS versions).

struct options {
    std::size_t n = std::size_t{1} << 23;
    unsigned workers = 0;
    unsigned reps = 3;
};

inline constexpr std::size_t max_n = std::size_t{1} << 28;

[[noreturn]] inline void usage(const char* program, int status) {
    std::fprintf(status == 0 ? stdout : stderr,
                 "usage: %s [--n=N] [--workers=N] [--reps=N] [--weft:...]\n"
                 "  --n=N        complex values to transform, 2..2^28 (default 8388608 = 2^23;\n"
                 "               BOTS's default is 2^25); a large prime n is one quadratic DFT\n"
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
        if (name == "--n") return parse_number(v, o.n) && o.n >= 2 && o.n <= max_n;
        return parse_run_option(name, v, o.workers, o.reps);
    });
    o.workers = default_workers(o.workers);
    return o;
}

/// Validates the serial transform (untimed), then one warm-up run and o.reps timed ones
/// of `run(n, in, out)` (a transform of in into out; in is clobbered), each on a fresh
/// copy of the input, each compared bit for bit with the serial result and reported.
/// `calls` is the number of tasks the version creates (the serial program: the same count,
/// as inline calls).
template <class Run>
void measure(const char* impl, unsigned workers, const options& o, Run run) {
    const std::vector<complex> x = generate(o.n);
    double error = 0;
    const char* why = nullptr;
    const std::vector<complex> reference = validated_reference(x, error, why);
    if (why != nullptr) {
        std::fprintf(stderr, "weft-bench problem=fft impl=%s: %s (error / bound = %g)\n", impl, why, error);
        std::exit(1);
    }
    const std::uint64_t expected = hash(reference);
    const std::uint64_t calls = tasks_created(o.n);
    std::vector<complex> in(o.n);
    std::vector<complex> out(o.n);
    for (unsigned rep = 0; rep <= o.reps; ++rep) {  // rep 0: the warm-up
        in = x;
        std::memset(static_cast<void*>(out.data()), 0, out.size() * sizeof(complex));
        const double seconds = time_seconds([&] { run(o.n, in.data(), out.data()); });
        if (!identical(out, reference)) fail_check("fft", impl, hash(out), expected);
        if (rep == 0) continue;
        std::printf("weft-bench problem=fft impl=%s workers=%u n=%zu calls=%llu seconds=%.6f ns_per_call=%.3f "
                    "result=%llu error=%.3g\n",
                    impl, workers, o.n, static_cast<unsigned long long>(calls), seconds,
                    seconds * 1e9 / static_cast<double>(calls), static_cast<unsigned long long>(expected), error);
        std::fflush(stdout);
    }
}

}  // namespace weft::bench::fft
