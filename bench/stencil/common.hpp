// Shared by the 1D heat-stencil benchmarks: the kernel, the problem and its options, the
// serial reference, the check and the result line.
//
// The problem is HPX's 1d_stencil_4, the benchmark of seed 000 §5.1.1 (digest §3.1): heat
// diffusion on a ring of nx points, cut into partitions of np points; one task updates one
// partition for one time step and needs partitions i-1, i, i+1 of the previous step.
// Kernel and constants as in HPX: heat(l, m, r) = m + k*dt/(dx*dx) * (l - 2m + r) with
// k = 0.5, dt = 1, dx = 1. The initial values differ from HPX's ramp (point x = x): a
// linear profile has a zero second difference, so away from the wrap-around point it
// never changes and a wrong neighbour would go unnoticed; pseudo-random values in [0, 1)
// make every point depend on its neighbours at every step.
//
// Every implementation computes each point with the same expression in the same order,
// so results match the serial reference bit for bit; the check still accepts 1e-12
// relative, and fails the run (exit 1) beyond it.
//
// Options: --nx=N (total points, default 10^7), --np=N (points per partition, default
// min(10^5, nx); the last partition takes the remainder), --nt=N (time steps, default 50),
// --workers=N, --reps=N; --weft:* is left to the weft runtime.
//
// Result line: bench_common.hpp's format with problem=stencil, n=<np>, calls=<nx*nt>
// (ns_per_call is ns per point update) and result=<hash of the final grid's bits>, then
// nx=<nx> nt=<nt> ms_per_step=<wall ms per time step>.
#pragma once

#include "common/bench_common.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <malloc.h>
#include <string_view>
#include <thread>
#include <vector>

namespace weft::bench::stencil {

// k = 0.5, dt = 1, dx = 1: HPX's 1d_stencil_4 (digest §3.1 [ext]).
inline constexpr double k = 0.5;
inline constexpr double dt = 1.0;
inline constexpr double dx = 1.0;

/// The next value of a point from its left neighbour, itself and its right neighbour.
/// Every implementation goes through this one expression.
inline double heat(double left, double middle, double right) noexcept {
    return middle + (k * dt / (dx * dx)) * (left - 2.0 * middle + right);
}

/// One partition for one step: out[0..n) from in[0..n), with `left` the point before
/// in[0] and `right` the point after in[n-1] on the ring. `in` and `out` do not overlap.
inline void heat_range(const double* in, double left, double right, double* out,
                       std::size_t n) noexcept {
    if (n == 1) {
        out[0] = heat(left, in[0], right);
        return;
    }
    out[0] = heat(left, in[0], in[1]);
    for (std::size_t i = 1; i + 1 < n; ++i) out[i] = heat(in[i - 1], in[i], in[i + 1]);
    out[n - 1] = heat(in[n - 2], in[n - 1], right);
}

struct problem {
    std::size_t nx = 10'000'000;  ///< points on the ring
    std::size_t np = 100'000;     ///< points per partition (the last one may be shorter)
    unsigned nt = 50;             ///< time steps
    unsigned workers = 0;         ///< 0 until parsed: then std::thread::hardware_concurrency()
    unsigned reps = 3;            ///< measured repetitions, after one warm-up

    std::size_t partitions() const noexcept { return (nx + np - 1) / np; }
    std::size_t begin(std::size_t part) const noexcept { return part * np; }
    std::size_t end(std::size_t part) const noexcept { return std::min(nx, (part + 1) * np); }
    std::size_t left(std::size_t part) const noexcept { return part == 0 ? partitions() - 1 : part - 1; }
    std::size_t right(std::size_t part) const noexcept { return part + 1 == partitions() ? 0 : part + 1; }
    std::uint64_t updates() const noexcept { return static_cast<std::uint64_t>(nx) * nt; }
};

/// One partition for one step, on a flat grid of p.nx points.
inline void heat_partition(const problem& p, const double* cur, double* next, std::size_t part) noexcept {
    std::size_t const b = p.begin(part);
    std::size_t const e = p.end(part);
    double const l = cur[b == 0 ? p.nx - 1 : b - 1];
    double const r = cur[e == p.nx ? 0 : e];
    heat_range(cur + b, l, r, next + b, e - b);
}

/// The initial value of point x: a hash of x mapped to [0, 1) (exact in a double).
inline double initial_value(std::size_t x) noexcept {
    std::uint64_t z = static_cast<std::uint64_t>(x) + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-53;
}

inline std::vector<double> initial_grid(const problem& p) {
    std::vector<double> g(p.nx);
    for (std::size_t x = 0; x < p.nx; ++x) g[x] = initial_value(x);
    return g;
}

/// The serial reference: the whole ring as one loop, written independently of
/// heat_range (no partitions), p.nt steps from initial_grid.
inline std::vector<double> reference_grid(const problem& p) {
    std::vector<double> cur = initial_grid(p);
    std::vector<double> next(p.nx);
    std::size_t const n = p.nx;
    for (unsigned t = 0; t < p.nt; ++t) {
        if (n == 1) {
            next[0] = heat(cur[0], cur[0], cur[0]);
        } else {
            next[0] = heat(cur[n - 1], cur[0], cur[1]);
            for (std::size_t x = 1; x + 1 < n; ++x) next[x] = heat(cur[x - 1], cur[x], cur[x + 1]);
            next[n - 1] = heat(cur[n - 2], cur[n - 1], cur[0]);
        }
        cur.swap(next);
    }
    return cur;
}

/// FNV-1a over the bit patterns: equal for equal grids, reported as result=.
inline std::uint64_t grid_hash(const std::vector<double>& g) noexcept {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (double const v : g) {
        h ^= std::bit_cast<std::uint64_t>(v);
        h *= 0x100000001b3ULL;
    }
    return h;
}

/// Compares a final grid with the serial reference (computed on first use, outside any
/// timed region) and ends the process with status 1 past 1e-12 relative.
class checker {
public:
    checker(const char* impl, const problem& p) : impl_(impl), p_(p) {}

    /// Returns the grid's hash for the result line.
    std::uint64_t check(const std::vector<double>& got) {
        if (expected_.empty()) expected_ = reference_grid(p_);
        if (got.size() != expected_.size()) {
            std::fprintf(stderr, "weft-bench problem=stencil impl=%s: WRONG RESULT: %zu points, expected %zu\n",
                         impl_, got.size(), expected_.size());
            std::exit(1);
        }
        double worst = 0.0;
        std::size_t worst_at = 0;
        std::size_t differ = 0;
        for (std::size_t x = 0; x < got.size(); ++x) {
            if (std::bit_cast<std::uint64_t>(got[x]) == std::bit_cast<std::uint64_t>(expected_[x])) continue;
            ++differ;
            double const scale = std::max(std::fabs(expected_[x]), 1e-300);
            double const rel = std::isfinite(got[x]) ? std::fabs(got[x] - expected_[x]) / scale : std::numeric_limits<double>::infinity();
            if (!(rel <= worst)) {
                worst = rel;
                worst_at = x;
            }
        }
        if (differ > 0 && !(worst <= 1e-12)) {
            std::fprintf(stderr,
                         "weft-bench problem=stencil impl=%s: WRONG RESULT: %zu of %zu points differ from "
                         "the serial reference; worst at %zu: %.17g, expected %.17g (relative %.3g)\n",
                         impl_, differ, got.size(), worst_at, got[worst_at], expected_[worst_at], worst);
            std::exit(1);
        }
        return grid_hash(got);
    }

private:
    const char* impl_;
    problem p_;
    std::vector<double> expected_;
};

namespace detail {

/// `extra`: the help lines of a binary's own options ("" if none), before --weft:*.
[[noreturn]] inline void usage(char const* program, int status, char const* extra = "") {
    std::fprintf(status == 0 ? stdout : stderr,
                 "usage: %s [--nx=N] [--np=N] [--nt=N] [--workers=N] [--reps=N]%s [--weft:...]\n"
                 "  --nx=N       points on the ring (default 10000000)\n"
                 "  --np=N       points per partition, 1..nx (default min(100000, nx))\n"
                 "  --nt=N       time steps (default 50)\n"
                 "  --workers=N  worker threads (default: hardware concurrency)\n"
                 "  --reps=N     measured repetitions after one warm-up (default 3)\n"
                 "%s"
                 "  --weft:*     runtime options, ignored by the anchors\n",
                 program, extra[0] != '\0' ? " [...]" : "", extra);
    std::exit(status);
}

}  // namespace detail

/// Lets glibc's malloc keep freed memory instead of handing it back to the kernel: the
/// dataflow versions allocate a fresh partition per task (as HPX does), and with the
/// default thresholds glibc returns partitions of 128 KiB and more (and, with several
/// threads, the tops of its per-thread heaps) to the kernel, which then clears the pages
/// again on the next step's page faults: 10-25 % of a run, all of it the kernel's. HPX
/// links a caching allocator (tcmalloc or jemalloc) by default for the same reason.
/// Blocks up to 32 MiB come from the heap; the flat grids of 10^7 points stay mmap'ed.
/// Called by parse_problem, so every implementation runs under the same settings.
inline void keep_freed_memory() noexcept {
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);  // also turns off the dynamic threshold
    mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
}

/// Parses the command line (bench_common.hpp's parse_command_line: exit 2 on a bad
/// argument, exit 1 from a non-release build). `extra(name, value)` is asked about the
/// names this function does not know; `extra_usage` is their help text ("" if none).
template <class Extra>
problem parse_problem(int argc, char** argv, Extra extra, const char* extra_usage) {
    keep_freed_memory();
    problem p;
    bool np_given = false;
    auto usage = [extra_usage](char const* program, int status) { detail::usage(program, status, extra_usage); };
    parse_command_line(argc, argv, usage, [&](std::string_view name, std::string_view v) {
        using weft::bench::detail::parse_number;
        if (name == "--nx") return parse_number(v, p.nx) && p.nx >= 1;
        if (name == "--np") {
            np_given = true;
            return parse_number(v, p.np) && p.np >= 1;
        }
        if (name == "--nt") return parse_number(v, p.nt) && p.nt >= 1;
        if (name == "--workers") return parse_number(v, p.workers) && p.workers >= 1;
        if (name == "--reps") return parse_number(v, p.reps) && p.reps >= 1;
        return extra(name, v);
    });
    if (!np_given) p.np = std::min(p.np, p.nx);
    if (p.np > p.nx) {
        std::fprintf(stderr, "%s: --np=%zu is larger than --nx=%zu\n", argc > 0 ? argv[0] : "bench", p.np, p.nx);
        usage(argc > 0 ? argv[0] : "bench", 2);
    }
    p.workers = default_workers(p.workers);
    return p;
}

inline problem parse_problem(int argc, char** argv) {
    return parse_problem(argc, argv, [](std::string_view, std::string_view) { return false; }, "");
}

/// Prints one result line (bench_common.hpp's format, plus nx, nt and ms_per_step) and
/// flushes it.
inline void print_result(const char* impl, unsigned workers, const problem& p, double seconds,
                         std::uint64_t result) {
    double const ns_per_update = seconds * 1e9 / static_cast<double>(p.updates());
    std::printf("weft-bench problem=stencil impl=%s workers=%u n=%zu calls=%llu seconds=%.6f "
                "ns_per_call=%.4f result=%llu nx=%zu nt=%u ms_per_step=%.4f\n",
                impl, workers, p.np, static_cast<unsigned long long>(p.updates()), seconds,
                ns_per_update, static_cast<unsigned long long>(result), p.nx, p.nt,
                seconds * 1e3 / p.nt);
    std::fflush(stdout);
}


/// One warm-up and p.reps measured repetitions: `run(grid)` receives the initial grid,
/// must leave the final grid in it and returns the wall seconds of the computation alone.
/// Every result is checked after timing; the measured ones are printed.
template <class Run>
void measure(const char* impl, unsigned workers, const problem& p, Run&& run) {
    checker c(impl, p);
    for (unsigned rep = 0; rep <= p.reps; ++rep) {
        std::vector<double> grid = initial_grid(p);
        double const seconds = run(grid);
        std::uint64_t const hash = c.check(grid);
        if (rep > 0) print_result(impl, workers, p, seconds, hash);
    }
}

}  // namespace weft::bench::stencil
