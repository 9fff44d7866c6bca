// Shared by bench/distributed/mpi_probe.cpp and weft_probe.cpp (issue #23): the options,
// the batch statistics and the result lines of the two probes, so that both measure and
// print the same way.
//
// Latency: for each message size, a round trip from rank/locality 0 to 1 and back. After
// a warm-up (which also estimates the round trip), `batches` batches of `reps` round trips
// each, reps chosen so that one batch lasts about --batch-ms; each batch gives its mean
// round trip; the line reports the median and the minimum of those batch means, in us:
//   latency size=<bytes> impl=<name> ranks=<n> median_us=<x> min_us=<x> reps=<r> batches=<b>
// Rate: 8-byte messages (MPI) or empty posted actions (weft) one way from each of the
// lower half of the ranks to its partner in the upper half (rank r -> r + n/2), measured
// from the start of the stream until the sender knows the receiver has taken them all;
// `rate_reps` timed runs of --rate-seconds / rate_reps each after a warm-up; the rate of a
// run is the sum over the pairs of messages / seconds; the line reports the median run
// and the best:
//   rate impl=<name> ranks=<n> pairs=<p> msgs_per_s=<median> best_msgs_per_s=<max> msgs=<per pair>
#pragma once

#include "bench_common.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <vector>

namespace weft::bench::distributed {

struct probe_options {
    std::vector<std::size_t> sizes{8, 64, 1024, 64 * 1024, 1024 * 1024, 16 * 1024 * 1024};
    unsigned batches = 9;        ///< timed batches per size
    double batch_ms = 20;        ///< the wall time one batch aims at
    unsigned max_reps = 10000;   ///< round trips per batch at most
    double rate_seconds = 1.0;   ///< the timed part of the rate measurement, in all
    unsigned rate_reps = 3;      ///< timed rate runs (each rate_seconds / rate_reps)
    unsigned window = 64;        ///< MPI: messages in flight per window
    bool latency = true;
    bool rate = true;
};

namespace detail {

[[noreturn]] inline void usage(char const* program, int status) {
    std::fprintf(status == 0 ? stdout : stderr,
                 "usage: mpirun -np N %s [--what=latency,rate] [--sizes=8,64,...] [--batches=9]\n"
                 "          [--batch-ms=20] [--max-reps=10000] [--rate-seconds=1] [--rate-reps=3]\n"
                 "          [--window=64] [--weft:...]\n"
                 "  --what=LIST        latency and/or rate (default both)\n"
                 "  --sizes=LIST       round-trip message sizes in bytes (default 8,64,1024,65536,\n"
                 "                     1048576,16777216; a K or M suffix multiplies by 1024 or 1024^2)\n"
                 "  --batches=N        timed batches per size (default 9): median and min of their means\n"
                 "  --batch-ms=MS      the length one batch aims at (default 20)\n"
                 "  --max-reps=N       round trips per batch at most (default 10000)\n"
                 "  --rate-seconds=S   timed part of the rate measurement (default 1)\n"
                 "  --rate-reps=N      timed rate runs, each S/N seconds (default 3)\n"
                 "  --window=N         MPI rate: messages in flight per window (default 64)\n"
                 "  --weft:*           runtime options (weft_probe), ignored by mpi_probe\n",
                 program);
    std::exit(status);
}

inline bool parse_size(std::string_view text, std::size_t& out) {
    std::size_t mult = 1;
    if (!text.empty() && (text.back() == 'K' || text.back() == 'k')) {
        mult = 1024;
        text.remove_suffix(1);
    } else if (!text.empty() && (text.back() == 'M' || text.back() == 'm')) {
        mult = 1024 * 1024;
        text.remove_suffix(1);
    }
    std::size_t v = 0;
    if (!weft::bench::detail::parse_number(text, v) || v == 0 || v > (std::size_t{1} << 30) / mult) return false;
    out = v * mult;
    return true;
}

inline bool parse_double(std::string_view text, double& out) {
    double v = 0;
    auto const [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size() || !(v > 0)) return false;
    out = v;
    return true;
}

}  // namespace detail

/// Parses the probes' command line (see detail::usage); refuses a non-release build.
inline probe_options parse_probe_options(int argc, char** argv) {
    probe_options o;
    parse_command_line(argc, argv, detail::usage, [&](std::string_view name, std::string_view v) {
        using weft::bench::detail::parse_number;
        if (name == "--what") {
            o.latency = o.rate = false;
            while (!v.empty()) {
                std::size_t const comma = v.find(',');
                std::string_view const item = v.substr(0, comma);
                if (item == "latency") o.latency = true;
                else if (item == "rate") o.rate = true;
                else return false;
                v = comma == std::string_view::npos ? std::string_view{} : v.substr(comma + 1);
            }
            return o.latency || o.rate;
        }
        if (name == "--sizes") {
            o.sizes.clear();
            while (!v.empty()) {
                std::size_t const comma = v.find(',');
                std::size_t s = 0;
                if (!detail::parse_size(v.substr(0, comma), s)) return false;
                o.sizes.push_back(s);
                v = comma == std::string_view::npos ? std::string_view{} : v.substr(comma + 1);
            }
            return !o.sizes.empty();
        }
        if (name == "--batches") return parse_number(v, o.batches) && o.batches >= 1;
        if (name == "--batch-ms") return detail::parse_double(v, o.batch_ms);
        if (name == "--max-reps") return parse_number(v, o.max_reps) && o.max_reps >= 1;
        if (name == "--rate-seconds") return detail::parse_double(v, o.rate_seconds);
        if (name == "--rate-reps") return parse_number(v, o.rate_reps) && o.rate_reps >= 1;
        if (name == "--window") return parse_number(v, o.window) && o.window >= 1 && o.window <= 4096;
        return false;
    });
    return o;
}

/// Round trips per batch for an estimated round trip of `rtt_s` seconds.
inline unsigned reps_for(probe_options const& o, double rtt_s) {
    double const want = o.batch_ms * 1e-3 / std::max(rtt_s, 1e-9);
    return static_cast<unsigned>(std::clamp(want, 2.0, static_cast<double>(o.max_reps)));
}

/// The warm-up of one latency measurement: timed(k) (seconds per round trip over k round
/// trips) for k = 1, 2, 4, ... until k >= 4 and a group lasts a quarter of --batch-ms,
/// then once more as many; the round trips per batch from the faster of the last two
/// groups (one slow group on a noisy machine, or the first round trip's connection setup,
/// does not decide it; --max-reps bounds the other error).
template <class Timed>
unsigned warm_up(probe_options const& o, Timed timed) {
    unsigned k = 1;
    double last = timed(k);
    while (k < o.max_reps && (k < 4 || last * k < o.batch_ms * 1e-3 / 4)) {
        k *= 2;
        last = timed(k);
    }
    return reps_for(o, std::min(last, timed(k)));
}

/// Messages per pair for one timed rate run, from a measured rate of one pair.
inline std::uint64_t rate_messages_for(probe_options const& o, double pair_msgs_per_s) {
    double const want = pair_msgs_per_s * o.rate_seconds / o.rate_reps;
    return static_cast<std::uint64_t>(std::clamp(want, 1e4, 2e7));
}

inline double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    std::size_t const n = v.size();
    if (n == 0) return 0;
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Prints a latency line from the batch means (seconds per round trip).
inline void print_latency(std::size_t size, char const* impl, unsigned ranks, std::vector<double> const& batch_means,
                          unsigned reps) {
    double const lo = *std::min_element(batch_means.begin(), batch_means.end());
    std::printf("latency size=%zu impl=%s ranks=%u median_us=%.3f min_us=%.3f reps=%u batches=%zu\n", size, impl, ranks,
                median_of(batch_means) * 1e6, lo * 1e6, reps, batch_means.size());
    std::fflush(stdout);
}

/// Prints a rate line from the runs' summed rates (messages per second).
inline void print_rate(char const* impl, unsigned ranks, unsigned pairs, std::vector<double> const& runs,
                       std::uint64_t msgs_per_pair) {
    double const hi = *std::max_element(runs.begin(), runs.end());
    std::printf("rate impl=%s ranks=%u pairs=%u msgs_per_s=%.0f best_msgs_per_s=%.0f msgs=%llu runs=%zu\n", impl, ranks,
                pairs, median_of(runs), hi, static_cast<unsigned long long>(msgs_per_pair), runs.size());
    std::fflush(stdout);
}

}  // namespace weft::bench::distributed
