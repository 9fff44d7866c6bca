// Shared by the matrix transpose benchmarks (the Parallel Research Kernels' "transpose",
// issue #5): the problem and its options, the matrices, the timed iterations, PRK's
// validation and the result line.
//
// Two order x order matrices of doubles, row-major, A(i, j) = A[i * order + j]. Every
// iteration does, tile by tile (tile x tile blocks, 64 by default),
//   B(j, i) += A(i, j);  A(i, j) += 1
// as PRK does: A changes between iterations, so no iteration can be skipped or hoisted.
// PRK's initial values: A(i, j) = i * order + j, B = 0. Both matrices are allocated
// untouched and first written by the implementation's own tile loop (each tile writes
// the block of A and the block of B that it reads and writes later: first-touch
// placement, as PRK's parallel initialisation).
//
// One warm-up iteration, then --iterations measured ones (PRK likewise runs iterations
// + 1 and starts its clock at the second), each timed on its own. After the loop, PRK's
// check: with k = iterations + 1 applications in all,
//   B(j, i) = k * A0(i, j) + k (k - 1) / 2,   A0(i, j) = i * order + j,
// summed as absolute errors over the whole matrix, which must stay below 1e-8 (PRK's
// epsilon). The values are integers below 2^53 (the option checks bound them), so every
// correct implementation gives exactly 0; a failure ends the process with status 1
// before the result line is printed.
//
// Bandwidth is PRK's figure: 2 * 8 * order^2 bytes per iteration (one matrix read, one
// written), over the average iteration time. The memory traffic is about twice that (A
// is also written and B also read), so the GB/s are comparable with PRK's, not STREAM's.
//
// Options: --order=N (default 8000: 512 MB per matrix), --tile=N (default 64),
// --iterations=N (measured, default 10), --workers=N; --weft:* is the runtime's;
// bench/transpose/weft.cpp adds --variant.
//
// Result line, in bench_common.hpp's style with problem=transpose:
//   weft-bench problem=transpose impl=<name> workers=<W> order=<N> tile=<T> n=<N^2>
//              calls=<N^2> seconds=<avg> ns_per_call=<avg ns per element>
//              result=<abserr> iterations=<I> best_seconds= avg_seconds= max_seconds=
//              ms_per_iteration=<avg ms> gbytes_per_second=<PRK bytes / avg / 1e9>
#pragma once

#include "common/bench_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <string_view>
#include <vector>

namespace weft::bench::transpose {

struct problem {
    std::size_t order = 8000;  ///< rows and columns of each matrix
    std::size_t tile = 64;     ///< rows and columns of a tile
    unsigned iterations = 10;  ///< measured iterations, after one warm-up
    unsigned workers = 0;      ///< 0 until parsed: then std::thread::hardware_concurrency()

    /// Tiles along one dimension (the last ones may be partial).
    std::size_t tiles() const noexcept { return (order + tile - 1) / tile; }
};

/// order^2 doubles, 64-byte aligned, allocated but never written here: the
/// implementation's tile loop is the first touch (a std::vector would zero them on the
/// calling thread).
class matrix {
public:
    explicit matrix(std::size_t order) {
        constexpr std::size_t align = 64;
        std::size_t bytes = std::max<std::size_t>(order * order, 1) * sizeof(double);
        bytes = (bytes + align - 1) / align * align;
        p_.reset(static_cast<double*>(std::aligned_alloc(align, bytes)));
        if (!p_) throw std::bad_alloc();
    }
    double* data() noexcept { return p_.get(); }
    const double* data() const noexcept { return p_.get(); }

private:
    struct free_deleter {
        void operator()(double* p) const noexcept { std::free(p); }
    };
    std::unique_ptr<double, free_deleter> p_;
};

namespace detail {

[[noreturn]] inline void usage(char const* program, int status, const char* extra) {
    std::fprintf(status == 0 ? stdout : stderr,
                 "usage: %s [--order=N] [--tile=N] [--iterations=N] [--workers=N]%s [--weft:...]\n"
                 "  --order=N       rows and columns of each matrix (default 8000: 2 x 512 MB)\n"
                 "  --tile=N        tile rows and columns (default 64)\n"
                 "  --iterations=N  measured iterations after one warm-up (default 10)\n"
                 "  --workers=N     worker threads (default: hardware concurrency)\n"
                 "%s"
                 "  --weft:*        runtime options, ignored by the anchors\n",
                 program, extra[0] != '\0' ? " [--variant=...]" : "", extra);
    std::exit(status);
}

}  // namespace detail

/// Parses the command line (bench_common.hpp's parse_command_line: exit 2 on a bad
/// argument, exit 1 from a non-release build). `extra(name, value)` is asked about the
/// names this function does not know; `extra_usage` is their help text ("" if none).
template <class Extra>
problem parse_problem(int argc, char** argv, Extra extra, const char* extra_usage) {
    problem p;
    auto usage = [extra_usage](char const* program, int status) { detail::usage(program, status, extra_usage); };
    parse_command_line(argc, argv, usage, [&](std::string_view name, std::string_view v) {
        using weft::bench::detail::parse_number;
        // order <= 2^20 and iterations <= 2^20 keep (iterations + 1) * order^2 below 2^53,
        // so that the values, and PRK's check, stay exact.
        if (name == "--order") return parse_number(v, p.order) && p.order >= 1 && p.order <= (1u << 20);
        if (name == "--tile") return parse_number(v, p.tile) && p.tile >= 1;
        if (name == "--iterations") return parse_number(v, p.iterations) && p.iterations >= 1 && p.iterations <= (1u << 10);
        if (name == "--workers") return parse_number(v, p.workers) && p.workers >= 1;
        return extra(name, v);
    });
    p.tile = std::min(p.tile, p.order);
    p.workers = default_workers(p.workers);
    return p;
}

inline problem parse_problem(int argc, char** argv) {
    return parse_problem(argc, argv, [](std::string_view, std::string_view) { return false; }, "");
}

/// The work of one tile (ti, tj): rows [ti * tile, ...) of A, columns of B.
struct tile_kernel {
    double* a;
    double* b;
    std::size_t order;
    std::size_t tile;

    /// PRK's initial values for the blocks this tile reads and writes.
    void init(std::size_t ti, std::size_t tj) const noexcept {
        const std::size_t i1 = std::min(order, (ti + 1) * tile), j1 = std::min(order, (tj + 1) * tile);
        for (std::size_t i = ti * tile; i < i1; ++i)
            for (std::size_t j = tj * tile; j < j1; ++j) {
                a[i * order + j] = static_cast<double>(i * order + j);
                b[j * order + i] = 0.0;
            }
    }
    /// B(j, i) += A(i, j); A(i, j) += 1 over the tile.
    void operator()(std::size_t ti, std::size_t tj) const noexcept {
        const std::size_t i1 = std::min(order, (ti + 1) * tile), j1 = std::min(order, (tj + 1) * tile);
        for (std::size_t i = ti * tile; i < i1; ++i)
            for (std::size_t j = tj * tile; j < j1; ++j) {
                b[j * order + i] += a[i * order + j];
                a[i * order + j] += 1.0;
            }
    }
};

/// PRK's check over rows [j0, j1) of B (`rows` points at row j0): the sum of
/// |B - expected| after `applications` iterations in all. (bench/transpose/mpi.cpp checks
/// each rank's rows with it and adds the sums, as PRK's MPI version does.)
inline double abs_error_rows(const problem& p, const double* rows, std::size_t j0, std::size_t j1,
                             unsigned applications) {
    const double k = applications;
    const double addit = k * (k - 1.0) / 2.0;
    double err = 0.0;
    for (std::size_t j = j0; j < j1; ++j)
        for (std::size_t i = 0; i < p.order; ++i)
            err += std::fabs(rows[(j - j0) * p.order + i] - (static_cast<double>(i * p.order + j) * k + addit));
    return err;
}

/// PRK's check over the whole of B.
inline double abs_error(const problem& p, const double* b, unsigned applications) {
    return abs_error_rows(p, b, 0, p.order, applications);
}

/// Ends the process with status 1 if PRK's check failed (an absolute error `err` not
/// below PRK's epsilon, or a NaN).
inline void check_error(const char* impl_name, const problem& p, double err) {
    constexpr double epsilon = 1e-8;  // PRK's
    if (!(err < epsilon)) {  // written so that a NaN fails
        std::fprintf(stderr,
                     "weft-bench problem=transpose impl=%s: WRONG RESULT: absolute error %.17g after %u iterations "
                     "(PRK's epsilon %g)\n",
                     impl_name, err, p.iterations + 1, epsilon);
        std::exit(1);
    }
}

/// Prints the result line (see the top of this file) from the measured iterations' wall
/// seconds and the checked error, and flushes it.
inline void print_result(const char* impl_name, unsigned workers, const problem& p,
                         const std::vector<double>& seconds, double err) {
    const double best = *std::min_element(seconds.begin(), seconds.end());
    const double worst = *std::max_element(seconds.begin(), seconds.end());
    double sum = 0.0;
    for (const double s : seconds) sum += s;
    const double avg = sum / static_cast<double>(seconds.size());
    const double elements = static_cast<double>(p.order) * static_cast<double>(p.order);
    const double prk_bytes = 2.0 * sizeof(double) * elements;
    std::printf("weft-bench problem=transpose impl=%s workers=%u order=%zu tile=%zu n=%zu calls=%zu seconds=%.9f "
                "ns_per_call=%.4f result=%g iterations=%u best_seconds=%.9f avg_seconds=%.9f max_seconds=%.9f "
                "ms_per_iteration=%.4f gbytes_per_second=%.3f\n",
                impl_name, workers, p.order, p.tile, p.order * p.order, p.order * p.order, avg, avg * 1e9 / elements,
                err, p.iterations, best, avg, worst, avg * 1e3, prk_bytes / avg / 1e9);
    std::fflush(stdout);
}

/// Runs the transpose with `impl`, an object with
///   for_tiles(std::size_t tiles, body)   calls body(ti, tj) once for every tile of the
///                                        tiles x tiles grid, in parallel as it likes
/// `in_context(body)` runs body() where the tile loops must run (a task arena, a weft
/// worker, ...): the first touch and every iteration run in one call of it; the check and
/// the result line come after, on the calling thread. `workers` is what the line reports.
template <class Impl, class Context>
void run(const char* impl_name, unsigned workers, const problem& p, Impl& impl, Context&& in_context) {
    matrix a(p.order), b(p.order);
    const tile_kernel kernel{a.data(), b.data(), p.order, p.tile};
    const std::size_t tiles = p.tiles();
    std::vector<double> seconds;
    seconds.reserve(p.iterations);
    in_context([&] {
        impl.for_tiles(tiles, [&kernel](std::size_t ti, std::size_t tj) { kernel.init(ti, tj); });
        for (unsigned it = 0; it <= p.iterations; ++it) {
            const double s = time_seconds([&] { impl.for_tiles(tiles, kernel); });
            if (it > 0) seconds.push_back(s);  // iteration 0 is the warm-up
        }
    });

    const double err = abs_error(p, b.data(), p.iterations + 1);
    check_error(impl_name, p, err);
    print_result(impl_name, workers, p, seconds, err);
}

/// run() on the calling thread.
template <class Impl>
void run(const char* impl_name, unsigned workers, const problem& p, Impl& impl) {
    run(impl_name, workers, p, impl, [](auto&& body) { body(); });
}

}  // namespace weft::bench::transpose
