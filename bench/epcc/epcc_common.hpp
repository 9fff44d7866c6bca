// Shared by the EPCC-taskbench-inspired scheduler microbenchmarks (issue #7, seed 001
// §5.10): the delay task and its calibration, the options, per-worker task counts, the
// measurement loop and the result lines. bench/epcc/{weft,omp,tbb}.cpp supply only how
// their runtime creates and waits for tasks; scripts/epcc runs them and prints the tables.
//
// The four benchmarks (every task is a delay loop calibrated to last delay_us):
//   overhead      every worker creates --tasks-per-worker tasks of each --delays length
//                 and waits for them; per-task overhead = (wall * W - tasks * d) / tasks
//   distribution  the same with 0.1 us tasks; the spread of the per-worker task counts
//   stealing      one task (the master) creates --stealing-tasks 0.1 us tasks; delta =
//                 mean over workers of |count_i - ideal| / ideal, ideal = tasks / W
//   mixed         the master also creates 2 * W coarse tasks of --coarse-ms; wall time
//                 against the ideal, (2 * W * coarse + W * tasks-per-worker * 0.1 us) / W
//
// One line per measured repetition (after one warm-up per measurement):
//   weft-epcc bench=<b> impl=<i> workers=<W> delay_us=<d> iters=<loop iterations>
//             tasks=<n> seconds=<wall> overhead_ns=<x> mean=<x> stddev=<x> delta=<x>
//             counts=<c0,c1,...>          (mixed: ideal_seconds=<x> ratio=<x>, no overhead)
// and once, before them:
//   weft-epcc-calibration impl=<i> iters_per_us=<x> source=<measured|given>
#pragma once

#include "common/bench_common.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace weft::bench::epcc {

// ---------------------------------------------------------------------------------------
// The delay task

/// Spins `iters` iterations of a dependent add that the compiler can neither fold nor
/// remove: the empty asm claims to read and change the counter every iteration.
inline void delay(std::uint64_t iters) noexcept {
    std::uint64_t counter = 0;
    for (std::uint64_t i = 0; i < iters; ++i) {
        counter += 1;
        asm volatile("" : "+r"(counter));
    }
}

/// Loop iterations per microsecond on the calling thread: the loop is grown until one
/// run lasts 100 us, then run in such blocks for about 20 ms in all; the fastest block
/// counts (short blocks, so that some run between two preemptions on a busy machine).
inline double calibrate_iters_per_us() {
    std::uint64_t n = 256;
    double seconds = time_seconds([&] { delay(n); });
    while (seconds < 100e-6) {
        n *= 2;
        seconds = time_seconds([&] { delay(n); });
    }
    double best = seconds;
    for (double spent = seconds; spent < 20e-3; spent += seconds) {
        seconds = time_seconds([&] { delay(n); });
        best = std::min(best, seconds);
    }
    return static_cast<double>(n) / (best * 1e6);
}

/// Iterations for a delay of `us` microseconds (at least one).
inline std::uint64_t iters_for(double us, double iters_per_us) {
    return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(us * iters_per_us)));
}

// ---------------------------------------------------------------------------------------
// Options

enum bench_kind : unsigned { overhead = 1, distribution = 2, stealing = 4, mixed = 8 };
inline constexpr unsigned all_benches = overhead | distribution | stealing | mixed;
inline constexpr double fine_us = 0.1;  ///< the fixed task length of distribution, stealing, mixed

struct options {
    unsigned workers = 0;  ///< 0: not given (weft: the runtime's; others: hardware threads)
    unsigned reps = 5;
    std::uint64_t tasks_per_worker = 200000;
    std::vector<double> delays{0.001, 0.01, 0.1, 1.0};
    unsigned benches = all_benches;
    double coarse_ms = 20;
    std::uint64_t stealing_tasks = 65536;
    double iters_per_us = 0;  ///< 0: calibrate at start
};

namespace detail {

[[noreturn]] inline void usage(char const* program, int status) {
    std::fprintf(status == 0 ? stdout : stderr,
                 "usage: %s [options] [--weft:...]\n"
                 "  --workers=N           worker threads, >= 1 (default: hardware threads; weft:\n"
                 "                        must match --weft:threads)\n"
                 "  --reps=N              measured repetitions after one warm-up, >= 1 (default 5)\n"
                 "  --tasks-per-worker=N  tasks each worker creates, >= 1 (default 200000)\n"
                 "  --delays=LIST         overhead task lengths in us, comma-separated, each in\n"
                 "                        (0, 1000000] (default 0.001,0.01,0.1,1)\n"
                 "  --benches=LIST        any of overhead,distribution,stealing,mixed (default all)\n"
                 "  --coarse-ms=X         coarse task length of mixed in ms, in (0, 60000] (default 20)\n"
                 "  --stealing-tasks=N    tasks the master creates in stealing, >= 1 (default 65536)\n"
                 "  --iters-per-us=X      delay loop iterations per us, > 0 (default: calibrate)\n"
                 "  --weft:*              runtime options, ignored by the anchors\n",
                 program);
    std::exit(status);
}

inline bool parse_double(std::string_view text, double& out) {
    double value = 0;
    auto const* first = text.data();
    auto const* last = text.data() + text.size();
    auto const [end, ec] = std::from_chars(first, last, value);
    if (ec != std::errc{} || end != last || text.empty() || !std::isfinite(value)) return false;
    out = value;
    return true;
}

/// Prints why `name=value` is refused; returns false for parse_command_line.
inline bool refuse(std::string_view name, std::string_view value, char const* wanted) {
    std::fprintf(stderr, "epcc: bad %.*s=%.*s: want %s\n", static_cast<int>(name.size()), name.data(),
                 static_cast<int>(value.size()), value.data(), wanted);
    return false;
}

}  // namespace detail

/// Parses the command line (see detail::usage); a build that is not a release build
/// refuses to run (weft::bench::parse_command_line). Exits 2 on an unknown or malformed
/// option, naming it and what is accepted.
inline options parse_options(int argc, char** argv) {
    options o;
    parse_command_line(argc, argv, detail::usage, [&](std::string_view name, std::string_view v) {
        using weft::bench::detail::parse_number;
        if (name == "--workers") {
            return (parse_number(v, o.workers) && o.workers >= 1) ||
                   detail::refuse(name, v, "a positive integer");
        }
        if (name == "--reps") {
            return (parse_number(v, o.reps) && o.reps >= 1) || detail::refuse(name, v, "a positive integer");
        }
        if (name == "--tasks-per-worker") {
            return (parse_number(v, o.tasks_per_worker) && o.tasks_per_worker >= 1) ||
                   detail::refuse(name, v, "a positive integer");
        }
        if (name == "--stealing-tasks") {
            return (parse_number(v, o.stealing_tasks) && o.stealing_tasks >= 1) ||
                   detail::refuse(name, v, "a positive integer");
        }
        if (name == "--coarse-ms") {
            return (detail::parse_double(v, o.coarse_ms) && o.coarse_ms > 0 && o.coarse_ms <= 60000) ||
                   detail::refuse(name, v, "milliseconds in (0, 60000]");
        }
        if (name == "--iters-per-us") {
            return (detail::parse_double(v, o.iters_per_us) && o.iters_per_us > 0 && o.iters_per_us < 1e7) ||
                   detail::refuse(name, v, "a positive number of iterations per us");
        }
        if (name == "--delays") {
            std::vector<double> delays;
            std::string_view rest = v;
            while (true) {
                std::size_t const comma = rest.find(',');
                double d = 0;
                if (!detail::parse_double(rest.substr(0, comma), d) || d <= 0 || d > 1e6) {
                    return detail::refuse(name, v, "comma-separated delays in us, each in (0, 1000000]");
                }
                delays.push_back(d);
                if (comma == std::string_view::npos) break;
                rest.remove_prefix(comma + 1);
            }
            o.delays = std::move(delays);
            return true;
        }
        if (name == "--benches") {
            unsigned benches = 0;
            std::string_view rest = v;
            while (true) {
                std::size_t const comma = rest.find(',');
                std::string_view const b = rest.substr(0, comma);
                if (b == "overhead") benches |= overhead;
                else if (b == "distribution") benches |= distribution;
                else if (b == "stealing") benches |= stealing;
                else if (b == "mixed") benches |= mixed;
                else return detail::refuse(name, v, "a comma-separated list of overhead,distribution,stealing,mixed");
                if (comma == std::string_view::npos) break;
                rest.remove_prefix(comma + 1);
            }
            o.benches = benches;
            return true;
        }
        std::fprintf(stderr, "epcc: unknown option %.*s\n", static_cast<int>(name.size()), name.data());
        return false;
    });
    return o;
}

// ---------------------------------------------------------------------------------------
// Per-worker task counts

/// One counter per worker, each on its own cache line, plus one for a task that ran
/// outside any worker (which the check then reports). A worker only ever bumps its own
/// counter, so a relaxed load and store suffice; the join that ends a run orders them
/// before the reads.
class counters {
public:
    explicit counters(unsigned workers) : workers_(workers), slots_(new slot[workers + 1]) {}

    void reset() noexcept {
        for (unsigned i = 0; i <= workers_; ++i) slots_[i].n.store(0, std::memory_order_relaxed);
    }

    /// Counts a task run by worker `index` (anything out of 0..W-1: outside).
    void add(long index) noexcept {
        if (index >= 0 && index < static_cast<long>(workers_)) {
            std::atomic<std::uint64_t>& n = slots_[static_cast<std::size_t>(index)].n;
            n.store(n.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        } else {
            slots_[workers_].n.fetch_add(1, std::memory_order_relaxed);
        }
    }

    std::vector<std::uint64_t> per_worker() const {
        std::vector<std::uint64_t> v(workers_);
        for (unsigned i = 0; i < workers_; ++i) v[i] = slots_[i].n.load(std::memory_order_relaxed);
        return v;
    }
    std::uint64_t outside() const noexcept { return slots_[workers_].n.load(std::memory_order_relaxed); }

private:
    struct alignas(128) slot {
        std::atomic<std::uint64_t> n{0};
    };
    unsigned workers_;
    std::unique_ptr<slot[]> slots_;
};

// ---------------------------------------------------------------------------------------
// The measurement loop

/// What one run asks the runtime for. generate: every worker creates `fine` tasks of
/// `fine_iters`, worker 0 (the master) first `coarse` tasks of `coarse_iters`; all are
/// awaited. master_only: the master alone creates `fine` tasks.
struct run_spec {
    bool master_only = false;
    std::uint64_t fine = 0;
    std::uint64_t fine_iters = 0;
    std::uint64_t coarse = 0;
    std::uint64_t coarse_iters = 0;
};

inline char const* bench_name(bench_kind b) {
    switch (b) {
    case overhead: return "overhead";
    case distribution: return "distribution";
    case stealing: return "stealing";
    case mixed: return "mixed";
    }
    return "?";
}

/// Prints the calibration line; returns the iterations per us to use.
inline double announce_calibration(std::string const& impl, options const& o, double measured) {
    double const rate = o.iters_per_us > 0 ? o.iters_per_us : measured;
    std::printf("weft-epcc-calibration impl=%s iters_per_us=%.3f source=%s\n", impl.c_str(), rate,
                o.iters_per_us > 0 ? "given" : "measured");
    std::fflush(stdout);
    return rate;
}

/// Runs every selected benchmark: one warm-up and o.reps measured runs each, checks
/// that every task ran exactly once on a worker (else exits 1), prints the lines.
/// `run(spec, counters&)` executes one run on the runtime with `workers` workers.
template <class Run>
void run_all(options const& o, std::string const& impl, unsigned workers, double iters_per_us, Run run) {
    counters c(workers);
    double const w = workers;

    auto const measure = [&](bench_kind b, double delay_us, run_spec const& s) {
        std::uint64_t const expected = s.master_only ? s.fine : workers * s.fine + s.coarse;
        double const d_eff = static_cast<double>(s.fine_iters) / iters_per_us;  // us, as run
        for (unsigned rep = 0; rep <= o.reps; ++rep) {  // rep 0: the warm-up
            c.reset();
            double const seconds = time_seconds([&] { run(s, c); });
            std::vector<std::uint64_t> const counts = c.per_worker();
            std::uint64_t total = 0;
            for (std::uint64_t n : counts) total += n;
            if (total != expected || c.outside() != 0) {
                std::fprintf(stderr,
                             "weft-epcc bench=%s impl=%s workers=%u delay_us=%g: %llu tasks ran on the "
                             "workers and %llu outside them, expected %llu on the workers\n",
                             bench_name(b), impl.c_str(), workers, delay_us,
                             static_cast<unsigned long long>(total),
                             static_cast<unsigned long long>(c.outside()),
                             static_cast<unsigned long long>(expected));
                std::exit(1);
            }
            if (rep == 0) continue;

            double const mean = static_cast<double>(total) / w;
            double var = 0;
            double delta = 0;
            std::string list;
            for (std::uint64_t n : counts) {
                double const x = static_cast<double>(n);
                var += (x - mean) * (x - mean);
                delta += std::fabs(x - mean) / mean;
                if (!list.empty()) list += ',';
                list += std::to_string(n);
            }
            double const stddev = std::sqrt(var / w);
            delta /= w;

            char extra[160];
            if (b == mixed) {
                double const coarse_s = static_cast<double>(s.coarse * s.coarse_iters) / iters_per_us * 1e-6;
                double const fine_s = static_cast<double>(workers * s.fine) * d_eff * 1e-6;
                double const ideal = (coarse_s + fine_s) / w;
                std::snprintf(extra, sizeof extra, "ideal_seconds=%.6f ratio=%.4f", ideal, seconds / ideal);
            } else {
                double const tasks = static_cast<double>(expected);
                double const overhead_ns = (seconds * w - tasks * d_eff * 1e-6) / tasks * 1e9;
                std::snprintf(extra, sizeof extra, "overhead_ns=%.3f", overhead_ns);
            }
            std::printf("weft-epcc bench=%s impl=%s workers=%u delay_us=%g iters=%llu tasks=%llu "
                        "seconds=%.6f %s mean=%.1f stddev=%.1f delta=%.5f counts=%s\n",
                        bench_name(b), impl.c_str(), workers, delay_us,
                        static_cast<unsigned long long>(s.fine_iters), static_cast<unsigned long long>(expected),
                        seconds, extra, mean, stddev, delta, list.c_str());
            std::fflush(stdout);
        }
    };

    std::uint64_t const fine_iters = iters_for(fine_us, iters_per_us);
    if (o.benches & overhead) {
        for (double d : o.delays) {
            measure(overhead, d, run_spec{false, o.tasks_per_worker, iters_for(d, iters_per_us), 0, 0});
        }
    }
    if (o.benches & distribution) {
        measure(distribution, fine_us, run_spec{false, o.tasks_per_worker, fine_iters, 0, 0});
    }
    if (o.benches & stealing) {
        measure(stealing, fine_us, run_spec{true, o.stealing_tasks, fine_iters, 0, 0});
    }
    if (o.benches & mixed) {
        measure(mixed, fine_us,
                run_spec{false, o.tasks_per_worker, fine_iters, 2 * static_cast<std::uint64_t>(workers),
                         iters_for(o.coarse_ms * 1000, iters_per_us)});
    }
}

}  // namespace weft::bench::epcc
