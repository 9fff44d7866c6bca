// Shared by the task-graph benchmarks (issue #22): the graph and its dependence shapes,
// the compute-bound kernel, the options, the serial peak, the result hash, the check and
// the result line.
//
// The method is Task Bench's (Slaughter et al., "Task Bench: A Parameterized Benchmark for
// Evaluating Parallel Runtime Performance", SC20): a graph of `width` points per time step
// and `steps` steps; task (t, i) depends on a set of points of step t-1 given by the
// shape, runs a compute-bound kernel of `iterations` iterations, and the system's
// efficiency is the graph's FLOP/s over the peak FLOP/s of the same kernel run serially,
// times the cores used. METG(50 %), the minimum effective task granularity, is the
// smallest task duration at which a system still reaches 50 % efficiency (scripts/taskgraph
// computes it from a sweep of `iterations`).
//
// Shapes (task (t, i) for t >= 1; step 0 has no inputs; inputs are listed in ascending
// column order, which is the order every implementation hashes them in):
//   stencil   i-1, i, i+1, clipped at the edges (Task Bench's stencil_1d)
//   nearest   the `radix` points [i - radix/2, i + (radix-1)/2], clipped (Task Bench's
//             nearest: radix 3 is the stencil's set, radix 5 reaches two points each way)
//   no_comm   i alone (Task Bench's no_comm)
//   fft       i and its butterfly partner i xor 2^k, with k = (t-1) mod log2(width)
//             cycling over the levels. Task Bench's fft takes i - 2^k, i and i + 2^k
//             (whichever exist) and any width; the issue asks for the butterfly proper,
//             so width must be a power of two (a width of 1 has no partner: only i).
//   tree      Task Bench's tree: step t has min(width, 2^t) active points and point i
//             depends on point i/2 of the step before (a fan-out from point 0 that
//             doubles each step, then a full-width pattern in which every point feeds
//             two: 2i and 2i+1, where they exist).
//
// The kernel: `kernel_chains` independent multiply-add chains x = x*m + c in registers,
// `iterations` times (2 flops per chain per iteration, as Task Bench counts its
// compute_bound kernel's A = A*A + A). Independent chains let the core overlap the
// latencies, so the serial rate is the core's throughput for this kernel; m < 1 and
// c > 0 keep every value normal and finite (no denormals, no infinities). The chains
// start from a constant the compiler cannot see (an empty asm), so it can neither fold
// the loop nor hoist it out of a task loop; the kernel's result is the same for every
// task of a graph, and its bits enter every task's value, so a task that skipped its
// kernel or ran another iteration count changes the graph's result.
//
// A task's value is a hash of (t, i), the kernel's bits and its inputs' values in order;
// the result is a hash of the last step's values. Every implementation checks its result
// against the serial evaluation of the same graph (computed in-process from the kernel's
// bits, without running the kernel once per task) and fails the run (exit 1) on a
// mismatch.
//
// Efficiency = (tasks * iterations * ns_per_iteration) / (wall ns * cores), the same as
// (flops / wall) / (serial peak flop/s * cores); ns_per_iteration is the median of many
// 2 ms serial runs of the kernel, measured in the same process before the runtime starts
// (its idle workers would spin beside it; see measure_ns_per_iteration). cores = the workers
// (or ranks), capped at the hardware threads. task_us = iterations * ns_per_iteration.
// Task Bench's own scripts plot efficiency against "time per task" = wall * cores / tasks
// (at 50 % efficiency twice the kernel's duration); it is printed as granularity_us.
//
// Options: --shape=stencil|nearest|no_comm|fft|tree (default stencil), --width=N (default:
// the workers or ranks), --steps=N (default 1000), --radix=N (nearest only, 1..9,
// default 3), --iterations=N (default 1000), --workers=N, --reps=N (default 3),
// --warmup=N (untimed runs first, default 1), --budget=S (see next_run); --weft:* is left
// to the weft runtime.
//
// Result line (bench_common.hpp's format, then the graph and the efficiency):
//   weft-bench problem=taskgraph impl=<name> workers=<W> n=<iterations> calls=<tasks>
//     seconds=<wall> ns_per_call=<wall ns per task> result=<hash> shape=<s> width=<w>
//     steps=<n> radix=<r> iterations=<n> cores=<c> task_us=<kernel us>
//     ns_per_iteration=<serial> gflops=<achieved> peak_gflops=<serial * cores>
//     efficiency=<0..1> granularity_us=<wall * cores / tasks, in us>
#pragma once

#include "common/bench_common.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <thread>
#include <vector>

namespace weft::bench::taskgraph {

enum class shape : std::uint8_t { stencil, nearest, no_comm, fft, tree };

inline constexpr unsigned max_radix = 9;
/// The most inputs a task has, over every shape (nearest at max_radix).
inline constexpr unsigned max_inputs = max_radix;

inline const char* shape_name(shape s) noexcept {
    switch (s) {
        case shape::stencil: return "stencil";
        case shape::nearest: return "nearest";
        case shape::no_comm: return "no_comm";
        case shape::fft: return "fft";
        case shape::tree: return "tree";
    }
    return "?";
}

inline bool shape_of(std::string_view name, shape& out) noexcept {
    for (shape s : {shape::stencil, shape::nearest, shape::no_comm, shape::fft, shape::tree}) {
        if (name == shape_name(s)) {
            out = s;
            return true;
        }
    }
    return false;
}

/// The task graph: which points are active at a step and which points of the step before
/// each one reads (see the head of this file).
struct graph {
    shape kind = shape::stencil;
    unsigned width = 0;  ///< 0 until the program knows its workers: then that count
    unsigned steps = 1000;
    unsigned radix = 3;
    std::uint64_t iterations = 1000;

    /// fft: log2(width) levels; 0 for a width of 1.
    unsigned levels() const noexcept { return width <= 1 ? 0 : static_cast<unsigned>(std::countr_zero(width)); }
    /// tree: the first step with all `width` points active, ceil(log2(width)).
    unsigned tree_depth() const noexcept { return width <= 1 ? 0 : static_cast<unsigned>(std::bit_width(width - 1)); }

    /// Points active at step t: all of them, except in the tree's first steps.
    unsigned width_at(unsigned t) const noexcept {
        if (kind != shape::tree || t >= 31) return width;
        return std::min(width, 1u << t);
    }

    /// Writes the inputs of task (t, i), t >= 1 and i < width_at(t), to `out` in ascending
    /// order and returns their count (at most max_inputs).
    unsigned inputs(unsigned t, unsigned i, unsigned* out) const noexcept {
        switch (kind) {
            case shape::stencil: return range(i - std::min(i, 1u), std::min(width - 1, i + 1), out);
            case shape::nearest: {
                // Task Bench's nearest: [i - radix/2, i + (radix-1)/2], clipped.
                const unsigned below = std::min(i, radix / 2);
                return range(i - below, std::min(width - 1, i + (radix - 1) / 2), out);
            }
            case shape::no_comm: out[0] = i; return 1;
            case shape::fft: {
                const unsigned l = levels();
                if (l == 0) {
                    out[0] = i;
                    return 1;
                }
                const unsigned partner = i ^ (1u << ((t - 1) % l));
                out[0] = std::min(i, partner);
                out[1] = std::max(i, partner);
                return 2;
            }
            case shape::tree: out[0] = i / 2; return 1;
        }
        return 0;
    }

    /// Tasks in the whole graph.
    std::uint64_t tasks() const noexcept {
        std::uint64_t n = 0;
        for (unsigned t = 0; t < steps; ++t) {
            if (t >= 32) return n + static_cast<std::uint64_t>(steps - t) * width;
            n += width_at(t);
        }
        return n;
    }

    /// The steps t >= 1 fall into a few classes with the same inputs for every point (the
    /// MPI program precomputes its messages per class): pattern(t) in [0, patterns()),
    /// and a step of each class, first_step(p).
    unsigned patterns() const noexcept {
        if (kind == shape::fft) return std::max(1u, levels());
        if (kind == shape::tree) return tree_depth() + 1;
        return 1;
    }
    unsigned pattern(unsigned t) const noexcept {
        if (kind == shape::fft) return levels() == 0 ? 0 : (t - 1) % levels();
        if (kind == shape::tree) return std::min(t, tree_depth() + 1) - 1;
        return 0;
    }
    unsigned first_step(unsigned p) const noexcept { return p + 1; }

private:
    static unsigned range(unsigned lo, unsigned hi, unsigned* out) noexcept {
        for (unsigned j = lo; j <= hi; ++j) out[j - lo] = j;
        return hi - lo + 1;
    }
};

// ---------------------------------------------------------------------------------------
// The kernel and the values

inline constexpr unsigned kernel_chains = 16;
/// One multiply and one add per chain per iteration.
inline constexpr double flops_per_iteration = 2.0 * kernel_chains;

/// `iterations` rounds of x = x*m + c on kernel_chains independent chains; returns their sum.
/// Never inlined: the serial peak and every task then run the same machine code (inlined
/// into a task loop, g++ 12 kept the chains scalar and spilled some: 2.4x slower).
[[gnu::noinline]] inline double kernel(std::uint64_t iterations) noexcept {
    double start = 1.0;
    // The compiler must treat `start` as unknown, so that the loop is neither evaluated at
    // compile time nor hoisted out of a caller's loop (every task runs its own).
    __asm__ __volatile__("" : "+m"(start));
    constexpr double m = 0.9990234375;  // 1 - 2^-10: the chains approach c / (1 - m) slowly
    constexpr double c = 0.001953125;   // 2^-9
    double x[kernel_chains];
    for (unsigned j = 0; j < kernel_chains; ++j) x[j] = start + 0.0625 * j;
    for (std::uint64_t it = 0; it < iterations; ++it) {
        for (unsigned j = 0; j < kernel_chains; ++j) x[j] = x[j] * m + c;
    }
    double sum = 0.0;
    for (unsigned j = 0; j < kernel_chains; ++j) sum += x[j];
    return sum;
}

/// splitmix64's finalizer: a bijection that spreads every input bit.
constexpr std::uint64_t mix(std::uint64_t z) noexcept {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/// The value of task (t, i) from its inputs' values (in the graph's order) and the bits of
/// its kernel's result.
inline std::uint64_t task_value(unsigned t, unsigned i, const std::uint64_t* in, unsigned n,
                                std::uint64_t kernel_bits) noexcept {
    std::uint64_t h = mix((static_cast<std::uint64_t>(t) << 32 | i) ^ kernel_bits);
    for (unsigned k = 0; k < n; ++k) h = mix(h ^ (in[k] + 0x9e3779b97f4a7c15ULL * (k + 1)));
    return h;
}

/// Runs task (t, i): its kernel, then its value. What every implementation's task does.
inline std::uint64_t run_task(const graph& g, unsigned t, unsigned i, const std::uint64_t* in, unsigned n) noexcept {
    return task_value(t, i, in, n, std::bit_cast<std::uint64_t>(kernel(g.iterations)));
}

/// The graph's result from the last step's values (values[0..width_at(steps-1))).
inline std::uint64_t result_hash(const graph& g, const std::uint64_t* last) noexcept {
    std::uint64_t h = mix(0x7467u ^ g.width);
    for (unsigned i = 0, n = g.width_at(g.steps - 1); i < n; ++i) h = mix(h ^ last[i]);
    return h;
}

/// Evaluates the graph step by step on one thread; `value(t, i, in, n)` gives a task's
/// value. Returns the result hash.
template <class Value>
std::uint64_t evaluate_serially(const graph& g, Value&& value) {
    std::vector<std::uint64_t> prev(g.width), cur(g.width);
    unsigned idx[max_inputs];
    std::uint64_t in[max_inputs];
    for (unsigned t = 0; t < g.steps; ++t) {
        for (unsigned i = 0, n = g.width_at(t); i < n; ++i) {
            const unsigned k = t == 0 ? 0 : g.inputs(t, i, idx);
            for (unsigned j = 0; j < k; ++j) in[j] = prev[idx[j]];
            cur[i] = value(t, i, in, k);
        }
        prev.swap(cur);
    }
    return result_hash(g, prev.data());
}

/// The result every implementation must reach: the serial evaluation with the kernel run
/// once (its result does not depend on the task).
inline std::uint64_t reference_result(const graph& g) {
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(kernel(g.iterations));
    return evaluate_serially(g, [bits](unsigned t, unsigned i, const std::uint64_t* in, unsigned n) {
        return task_value(t, i, in, n, bits);
    });
}

/// One value per cache line, for the implementations that keep values in shared arrays
/// (OpenMP, oneTBB): neighbouring points written by different workers do not share a line.
struct alignas(64) cell {
    std::uint64_t value = 0;
};

// ---------------------------------------------------------------------------------------
// The serial peak

/// Nanoseconds per kernel iteration on this thread: the median of `samples` runs of about
/// `sample_seconds` each, after growing the iteration count until a run takes 1 ms.
/// Short samples, because with other load on a shared machine a few long ones all come
/// out slow (with 3 runnable threads per core, 10 ms samples were all 2.4x slow) while
/// most short ones still find a time slice of their own. The median, not the best: on
/// this 2-vCPU guest the fastest of 500 quiet 2 ms samples was 5 % faster than their
/// median and mean, a rate no sustained run reaches (the serial program itself ran at
/// 94-96 % of the best sample), so a peak taken from the best would cap every
/// implementation near 95 %. scripts/taskgraph_tables takes the lowest of these medians
/// over a program's processes, which drops the processes that measured under load.
inline double measure_ns_per_iteration(unsigned samples = 21, double sample_seconds = 0.002) {
    volatile double sink = 0;
    auto time_kernel = [&](std::uint64_t n) {
        const auto t0 = std::chrono::steady_clock::now();
        sink = sink + kernel(n);
        const auto t1 = std::chrono::steady_clock::now();
        return std::chrono::duration<double>(t1 - t0).count();
    };
    std::uint64_t n = 1024;
    double s = time_kernel(n);
    while (s < 1e-3 && n < (std::uint64_t{1} << 40)) {
        n *= 4;
        s = time_kernel(n);
    }
    n = std::max<std::uint64_t>(n, static_cast<std::uint64_t>(static_cast<double>(n) * sample_seconds / s));
    std::vector<double> ns(samples);
    for (double& x : ns) x = time_kernel(n) / static_cast<double>(n) * 1e9;
    std::nth_element(ns.begin(), ns.begin() + samples / 2, ns.end());
    return ns[samples / 2];
}

// ---------------------------------------------------------------------------------------
// Options

struct options {
    graph g;
    unsigned workers = 0;  ///< 0: not given
    unsigned reps = 3;
    unsigned warmup = 1;
    double budget = 0;  ///< seconds; 0: none (see next_run)
};

namespace detail {

[[noreturn]] inline void usage(char const* program, int status, char const* extra = "") {
    std::fprintf(status == 0 ? stdout : stderr,
                 "usage: %s [--shape=S] [--width=N] [--steps=N] [--radix=N] [--iterations=N]\n"
                 "       [--workers=N] [--reps=N] [--warmup=N] [--budget=S]%s [--weft:...]\n"
                 "  --shape=S       stencil (default), nearest, no_comm, fft, tree\n"
                 "  --width=N       points per step (default: the workers or ranks; fft: a power of two)\n"
                 "  --steps=N       time steps (default 1000)\n"
                 "  --radix=N       nearest: points read per task, 1..%u (default 3)\n"
                 "  --iterations=N  kernel iterations per task (default 1000)\n"
                 "  --workers=N     worker threads (default: hardware concurrency)\n"
                 "  --reps=N        measured runs (default 3)\n"
                 "  --warmup=N      untimed runs before them (default 1)\n"
                 "  --budget=S      once S seconds have passed since the first run, skip the\n"
                 "                  warm-ups left and stop after one timed run (default 0: none)\n"
                 "%s"
                 "  --weft:*        runtime options, ignored by the anchors\n",
                 program, extra[0] != '\0' ? " [...]" : "", max_radix, extra);
    std::exit(status);
}

}  // namespace detail

/// Parses the command line (bench_common.hpp's parse_command_line: exit 2 naming a bad
/// argument, exit 1 from a non-release build). `extra(name, value)` is asked about the
/// names this function does not know; `extra_usage` is their help text ("" if none).
/// The width stays 0 unless given: call finish() once the worker count is known.
template <class Extra>
options parse_options(int argc, char** argv, Extra extra, const char* extra_usage) {
    options o;
    bool radix_given = false;
    auto usage = [extra_usage](char const* program, int status) { detail::usage(program, status, extra_usage); };
    parse_command_line(argc, argv, usage, [&](std::string_view name, std::string_view v) {
        using weft::bench::detail::parse_number;
        if (name == "--shape") return shape_of(v, o.g.kind);
        if (name == "--width") return parse_number(v, o.g.width) && o.g.width >= 1 && o.g.width <= (1u << 24);
        if (name == "--steps") return parse_number(v, o.g.steps) && o.g.steps >= 1;
        if (name == "--radix") {
            radix_given = true;
            if (!parse_number(v, o.g.radix)) return false;
            if (o.g.radix >= 1 && o.g.radix <= max_radix) return true;
            std::fprintf(stderr, "%s: --radix: 1 to %u points (got %u)\n", argc > 0 ? argv[0] : "bench", max_radix,
                         o.g.radix);
            return false;
        }
        if (name == "--iterations") return parse_number(v, o.g.iterations);
        if (name == "--workers") return parse_number(v, o.workers) && o.workers >= 1;
        if (name == "--reps") return parse_number(v, o.reps) && o.reps >= 1;
        if (name == "--warmup") return parse_number(v, o.warmup) && o.warmup <= 100;
        if (name == "--budget") return parse_number(v, o.budget) && o.budget >= 0;
        return extra(name, v);
    });
    char const* program = argc > 0 ? argv[0] : "bench";
    if (radix_given && o.g.kind != shape::nearest) {
        std::fprintf(stderr, "%s: --radix applies to --shape=nearest only (got --shape=%s)\n", program,
                     shape_name(o.g.kind));
        usage(program, 2);
    }
    return o;
}

inline options parse_options(int argc, char** argv) {
    return parse_options(argc, argv, [](std::string_view, std::string_view) { return false; }, "");
}

/// Sets the width to `workers` if none was given and checks what needs the width: fft
/// takes a power of two. Prints why and returns false otherwise (the caller exits with
/// status 2, after stopping its runtime).
inline bool finish(options& o, unsigned workers, char const* program) {
    if (o.g.width == 0) o.g.width = workers;
    if (o.g.kind == shape::fft && !std::has_single_bit(o.g.width)) {
        std::fprintf(stderr, "%s: --shape=fft needs a power-of-two --width (butterflies pair i with i xor 2^k); got %u\n",
                     program, o.g.width);
        return false;
    }
    return true;
}

/// Cores used: the workers, capped at the hardware threads (an oversubscribed run has no
/// more peak than the machine).
inline unsigned cores_used(unsigned workers) noexcept {
    const unsigned hc = std::thread::hardware_concurrency();
    return hc == 0 ? workers : std::min(workers, hc);
}

// ---------------------------------------------------------------------------------------
// Reporting

/// Prints one result line (see the head of this file) and flushes it.
inline void print_result(const char* impl, unsigned workers, const graph& g, double seconds, std::uint64_t result,
                         double ns_per_iteration) {
    const unsigned cores = cores_used(workers);
    const std::uint64_t tasks = g.tasks();
    const double flops = static_cast<double>(tasks) * static_cast<double>(g.iterations) * flops_per_iteration;
    const double peak = flops_per_iteration / ns_per_iteration * cores;  // Gflop/s
    const double gflops = flops / seconds * 1e-9;
    std::printf("weft-bench problem=taskgraph impl=%s workers=%u n=%llu calls=%llu seconds=%.6f ns_per_call=%.3f "
                "result=%llu shape=%s width=%u steps=%u radix=%u iterations=%llu cores=%u task_us=%.5f "
                "ns_per_iteration=%.5f gflops=%.4f peak_gflops=%.4f efficiency=%.4f granularity_us=%.5f\n",
                impl, workers, static_cast<unsigned long long>(g.iterations), static_cast<unsigned long long>(tasks),
                seconds, seconds * 1e9 / static_cast<double>(tasks), static_cast<unsigned long long>(result),
                shape_name(g.kind), g.width, g.steps, g.radix, static_cast<unsigned long long>(g.iterations), cores,
                static_cast<double>(g.iterations) * ns_per_iteration * 1e-3, ns_per_iteration, gflops, peak,
                gflops / peak, seconds * cores / static_cast<double>(tasks) * 1e6);
    std::fflush(stdout);
}

/// Reports a wrong result and exits with status 1.
[[noreturn]] inline void fail(const char* impl, const graph& g, std::uint64_t got, std::uint64_t expected) {
    std::fprintf(stderr,
                 "weft-bench problem=taskgraph impl=%s shape=%s width=%u steps=%u iterations=%llu: WRONG RESULT %llu, "
                 "expected %llu (the serial evaluation)\n",
                 impl, shape_name(g.kind), g.width, g.steps, static_cast<unsigned long long>(g.iterations),
                 static_cast<unsigned long long>(got), static_cast<unsigned long long>(expected));
    std::exit(1);
}

/// The run after run `rep` (0-based: o.warmup untimed runs, then o.reps timed ones), or
/// o.warmup + o.reps to stop, `elapsed` seconds after the first run started. Past
/// o.budget, the warm-ups left are skipped and one timed run is enough: a sweep point far
/// below a runtime's METG (libgomp took 27 s for a run meant to take 50 ms) then costs
/// two runs, not four.
inline unsigned next_run(const options& o, unsigned rep, double elapsed) noexcept {
    if (o.budget > 0 && elapsed >= o.budget) return rep >= o.warmup ? o.warmup + o.reps : o.warmup;
    return rep + 1;
}

/// o.warmup untimed and o.reps timed runs of `run()` (fewer past o.budget, see next_run),
/// which computes the graph once and returns its result hash; every result is checked,
/// the timed ones are printed.
template <class Run>
void measure(const char* impl, unsigned workers, const options& o, double ns_per_iteration, Run&& run) {
    const std::uint64_t expected = reference_result(o.g);
    const auto start = std::chrono::steady_clock::now();
    for (unsigned rep = 0; rep < o.warmup + o.reps;) {
        std::uint64_t result = 0;
        const double seconds = time_seconds([&] { result = run(); });
        if (result != expected) fail(impl, o.g, result, expected);
        if (rep >= o.warmup) print_result(impl, workers, o.g, seconds, result, ns_per_iteration);
        rep = next_run(o, rep, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
}

}  // namespace weft::bench::taskgraph
