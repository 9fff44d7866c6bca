// Shared by the STREAM benchmarks (McCalpin's STREAM, seed 003): the problem and its
// options, the arrays, the timed iterations, the check and the result lines.
//
// Three arrays a, b, c of n doubles and the scalar k = 3.0; four kernels, each timed on
// its own, in STREAM's order:
//   copy   c = a            16 bytes per element (one read, one write)
//   scale  b = k * c        16
//   add    c = a + b        24 (two reads, one write)
//   triad  a = b + k * c    24
// The arrays are allocated untouched and first written (a = 1, b = 2, c = 0, as STREAM)
// by the implementation's own fill, with the same mechanism and the same partitioning its
// kernels use afterwards, so that each thread's pages are where that thread computes
// (first-touch placement, as STREAM's parallel initialisation loop). Then one warm-up
// iteration and --reps measured ones of the four kernels; every kernel is reported at
// its best (minimum) time over the measured iterations, in GB/s (10^9 bytes per second)
// with STREAM's byte counts above. STREAM also runs 10 iterations and drops the first.
//
// After the iterations the final arrays are checked against the values the same kernel
// sequence gives on scalars (STREAM's checkSTREAMresults): every element, at 1e-13
// relative (STREAM's epsilon for doubles). The values stay exact integers (a grows 15x per
// iteration), so every implementation should match bit for bit; a mismatch ends the
// process with status 1 before any result line is printed.
//
// Options: --n=N (elements per array, default 5*10^7, i.e. 3 x 400 MB), --reps=N
// (measured iterations, default 10, at most 100 so that the values stay finite),
// --workers=N; --weft:* is left to the weft runtime; bench/stream/weft.cpp adds --variant.
//
// Result lines, one per kernel, in bench_common.hpp's format with problem=stream:
//   weft-bench problem=stream impl=<name> workers=<W> kernel=<copy|scale|add|triad>
//              n=<n> calls=<n> seconds=<best> ns_per_call=<best ns per element>
//              result=<hash of the final arrays' bits> reps=<reps>
//              best_seconds=<best> avg_seconds=<mean> max_seconds=<worst>
//              gbytes_per_second=<bytes of one pass / best / 1e9>
// (calls = n: ns_per_call is per element of one pass; seconds = best_seconds.)
#pragma once

#include "common/bench_common.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <string_view>
#include <vector>

namespace weft::bench::stream {

/// STREAM's scalar.
inline constexpr double scalar = 3.0;
/// STREAM's initial values (STREAM then doubles a once to probe the clock; not here).
inline constexpr double initial_a = 1.0;
inline constexpr double initial_b = 2.0;
inline constexpr double initial_c = 0.0;

/// 15^101 < 10^119: with at most 100 measured iterations (and one warm-up) the values
/// stay finite and exact.
inline constexpr unsigned max_reps = 100;

struct kernel_info {
    const char* name;
    unsigned bytes_per_element;  ///< STREAM's count: 8 bytes per array read or written
};
inline constexpr std::array<kernel_info, 4> kernels{{{"copy", 16}, {"scale", 16}, {"add", 24}, {"triad", 24}}};

struct problem {
    std::size_t n = 50'000'000;  ///< elements per array
    unsigned reps = 10;          ///< measured iterations, after one warm-up
    unsigned workers = 0;        ///< 0 until parsed: then std::thread::hardware_concurrency()
};

/// n doubles, 64-byte aligned, allocated but never written here: the implementation's
/// fill is the first touch. (A std::vector would zero them on the calling thread.)
class array {
public:
    explicit array(std::size_t n) : n_(n) {
        constexpr std::size_t align = 64;
        std::size_t bytes = std::max<std::size_t>(n, 1) * sizeof(double);
        bytes = (bytes + align - 1) / align * align;
        p_.reset(static_cast<double*>(std::aligned_alloc(align, bytes)));
        if (!p_) throw std::bad_alloc();
    }
    double* data() noexcept { return p_.get(); }
    const double* data() const noexcept { return p_.get(); }
    std::size_t size() const noexcept { return n_; }

private:
    struct free_deleter {
        void operator()(double* p) const noexcept { std::free(p); }
    };
    std::unique_ptr<double, free_deleter> p_;
    std::size_t n_;
};

/// Wall seconds of every measured iteration, per kernel.
struct timings {
    std::array<std::vector<double>, kernels.size()> seconds;
};

namespace detail {

[[noreturn]] inline void usage(char const* program, int status, const char* extra) {
    std::fprintf(status == 0 ? stdout : stderr,
                 "usage: %s [--n=N] [--reps=N] [--workers=N]%s [--weft:...]\n"
                 "  --n=N        elements per array (default 50000000: 3 arrays of 400 MB)\n"
                 "  --reps=N     measured iterations after one warm-up, 1..%u (default 10);\n"
                 "               each kernel is reported at its best\n"
                 "  --workers=N  worker threads (default: hardware concurrency)\n"
                 "%s"
                 "  --weft:*     runtime options, ignored by the anchors\n",
                 program, extra[0] != '\0' ? " [--variant=...]" : "", max_reps, extra);
    std::exit(status);
}

/// The expected final values: the same kernels on scalars, as STREAM's check does.
struct expected_values {
    double a, b, c;
};
inline expected_values expected(unsigned iterations) noexcept {
    double a = initial_a, b = initial_b, c = initial_c;
    for (unsigned i = 0; i < iterations; ++i) {
        c = a;
        b = scalar * c;
        c = a + b;
        a = b + scalar * c;
    }
    return {a, b, c};
}

}  // namespace detail

/// Parses the command line (bench_common.hpp's parse_command_line: exit 2 on a bad
/// argument, exit 1 from a non-release build). `extra(name, value)` is asked about the
/// names this function does not know (false: a bad argument); `extra_usage` is the help
/// text of those options ("" if none).
template <class Extra>
problem parse_problem(int argc, char** argv, Extra extra, const char* extra_usage) {
    problem p;
    auto usage = [extra_usage](char const* program, int status) { detail::usage(program, status, extra_usage); };
    parse_command_line(argc, argv, usage, [&](std::string_view name, std::string_view v) {
        using weft::bench::detail::parse_number;
        if (name == "--n") return parse_number(v, p.n) && p.n >= 1;
        if (name == "--reps") return parse_number(v, p.reps) && p.reps >= 1 && p.reps <= max_reps;
        if (name == "--workers") return parse_number(v, p.workers) && p.workers >= 1;
        return extra(name, v);
    });
    p.workers = default_workers(p.workers);
    return p;
}

inline problem parse_problem(int argc, char** argv) {
    return parse_problem(argc, argv, [](std::string_view, std::string_view) { return false; }, "");
}

/// STREAM's epsilon for doubles: the check's relative tolerance.
inline constexpr double check_epsilon = 1e-13;

/// The result hash is FNV-1a over the bits of a[0..n), then b[0..n), then c[0..n), from
/// this basis; hash_step adds one element. (Exposed so that bench/stream/mpi.cpp can
/// carry the hash across the ranks' parts in the same order.)
inline constexpr std::uint64_t hash_basis = 0xcbf29ce484222325ULL;
inline void hash_step(std::uint64_t& h, double x) noexcept {
    h ^= std::bit_cast<std::uint64_t>(x);
    h *= 0x100000001b3ULL;
}

/// The final values of a, b and c after `iterations` iterations, in check()'s order.
inline std::array<double, 3> expected_final(unsigned iterations) noexcept {
    const detail::expected_values want = detail::expected(iterations);
    return {want.a, want.b, want.c};
}

/// Checks the final arrays after `iterations` iterations of the four kernels; ends the
/// process with status 1 past 1e-13 relative (STREAM's epsilon for doubles). Returns
/// an FNV-1a hash of the three arrays' bits for the result lines.
inline std::uint64_t check(const char* impl, const problem& p, const array& a, const array& b, const array& c,
                           unsigned iterations) {
    const std::array<const array*, 3> arrays{&a, &b, &c};
    const std::array<double, 3> expect = expected_final(iterations);
    const std::array<char, 3> names{'a', 'b', 'c'};
    constexpr double epsilon = check_epsilon;
    std::uint64_t h = hash_basis;
    bool ok = true;
    for (std::size_t k = 0; k < arrays.size(); ++k) {
        const double* x = arrays[k]->data();
        const double e = expect[k];
        std::size_t wrong = 0;
        std::size_t first_wrong = 0;
        for (std::size_t j = 0; j < p.n; ++j) {
            hash_step(h, x[j]);
            // Written so that a NaN counts as wrong.
            if (!(std::fabs(x[j] - e) <= epsilon * std::fabs(e))) {
                if (wrong++ == 0) first_wrong = j;
            }
        }
        if (wrong > 0) {
            ok = false;
            std::fprintf(stderr,
                         "weft-bench problem=stream impl=%s: WRONG RESULT: %zu of %zu elements of %c differ from "
                         "%.17g after %u iterations; first at %zu: %.17g\n",
                         impl, wrong, p.n, names[k], e, iterations, first_wrong, x[first_wrong]);
        }
    }
    if (!ok) std::exit(1);
    return h;
}

/// Prints the result line of one kernel (see the top of this file) and flushes it.
inline void print_result(const char* impl, unsigned workers, const problem& p, const kernel_info& kernel,
                         const std::vector<double>& seconds, std::uint64_t result) {
    const double best = *std::min_element(seconds.begin(), seconds.end());
    const double worst = *std::max_element(seconds.begin(), seconds.end());
    double sum = 0.0;
    for (const double s : seconds) sum += s;
    const double avg = sum / static_cast<double>(seconds.size());
    const double n = static_cast<double>(p.n);
    const double gbytes = static_cast<double>(kernel.bytes_per_element) * n / best / 1e9;
    std::printf("weft-bench problem=stream impl=%s workers=%u kernel=%s n=%zu calls=%zu seconds=%.9f "
                "ns_per_call=%.4f result=%llu reps=%u best_seconds=%.9f avg_seconds=%.9f max_seconds=%.9f "
                "gbytes_per_second=%.3f\n",
                impl, workers, kernel.name, p.n, p.n, best, best * 1e9 / n, static_cast<unsigned long long>(result),
                p.reps, best, avg, worst, gbytes);
    std::fflush(stdout);
}

/// Runs STREAM with the kernels of `impl`, an object with
///   fill(double* x, std::size_t n, double v)                          x = v
///   copy(const double* a, double* c, std::size_t n)                   c = a
///   scale(const double* c, double* b, std::size_t n)                  b = scalar * c
///   add(const double* a, const double* b, double* c, std::size_t n)   c = a + b
///   triad(const double* b, const double* c, double* a, std::size_t n) a = b + scalar * c
/// `in_context(body)` runs body() where the kernels must run (inside a task arena, on a
/// weft worker, ...): the first touch and every iteration run in one call of it; the
/// check and the result lines come after, on the calling thread. `workers` is what the
/// result lines report.
template <class Impl, class Context>
void run(const char* impl_name, unsigned workers, const problem& p, Impl& impl, Context&& in_context) {
    array a(p.n), b(p.n), c(p.n);
    timings t;
    for (auto& s : t.seconds) s.reserve(p.reps);
    const std::size_t n = p.n;
    in_context([&] {
        // The first touch, by the mechanism that computes afterwards.
        impl.fill(a.data(), n, initial_a);
        impl.fill(b.data(), n, initial_b);
        impl.fill(c.data(), n, initial_c);
        for (unsigned it = 0; it <= p.reps; ++it) {
            const std::array<double, kernels.size()> s{
                time_seconds([&] { impl.copy(a.data(), c.data(), n); }),
                time_seconds([&] { impl.scale(c.data(), b.data(), n); }),
                time_seconds([&] { impl.add(a.data(), b.data(), c.data(), n); }),
                time_seconds([&] { impl.triad(b.data(), c.data(), a.data(), n); }),
            };
            if (it == 0) continue;  // the warm-up
            for (std::size_t k = 0; k < kernels.size(); ++k) t.seconds[k].push_back(s[k]);
        }
    });
    const std::uint64_t hash = check(impl_name, p, a, b, c, p.reps + 1);
    for (std::size_t k = 0; k < kernels.size(); ++k) print_result(impl_name, workers, p, kernels[k], t.seconds[k], hash);
}

/// run() on the calling thread.
template <class Impl>
void run(const char* impl_name, unsigned workers, const problem& p, Impl& impl) {
    run(impl_name, workers, p, impl, [](auto&& body) { body(); });
}

}  // namespace weft::bench::stream
