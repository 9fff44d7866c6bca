// Shared by issue #6's chunk-size benchmark (bench_adapt_chunk_weft, bench_adapt_chunk_tbb):
// the workloads, their element functions, the reference results and the options.
//
// Three workloads of different cost per element, each run as three algorithms:
//   cheap      2 rounds of xorshift per element (a few ns), n = 2^20
//   1us        570 rounds per element (about 1 us on the machine of bench/RESULTS.md;
//              the program prints what one element costs here), n = 4000
//   irregular  0 to 6 us per element, 1 us on average: 4 (i/n)^3 us times a hashed
//              factor in [0.5, 1.5): skewed toward the end of the range, uneven
//              between neighbours; n = 4000
// so that one call takes a few ms on one core. The algorithms:
//   for_each   a[i] = burn(seed(i), cost(i))               (the element's own index)
//   transform  out[i] = burn(in[i], cost(in[i]))           (in[i] = i, out != a)
//   reduce     the sum of burn(in[i], cost(in[i])) in 64-bit wrapping arithmetic
//              (weft::transform_reduce: reduce itself has no element function to cost)
// Every call computes the same values; every result is checked against a serial one
// after the timed calls (a wrong result ends the process, status 1).
//
// Options: --workers=N (oneTBB; weft takes --weft:threads=N), --reps=N timed calls per
// variant (default 11; the median is reported), --workloads=LIST (cheap,1us,irregular),
// --max-warmup=N calls the adaptive learner gets to converge (default 3000).
#pragma once

#include "common/bench_common.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace weft::bench::adapt_chunk {

/// xorshift rounds of about 1 us on an AMD EPYC at ~2.5 GHz (1.75 ns a round, measured).
inline constexpr std::uint32_t units_per_us = 570;

/// `units` dependent xorshift64 rounds: work the compiler cannot skip or shorten.
inline std::uint64_t burn(std::uint64_t x, std::uint32_t units) noexcept {
    x |= 1;
    for (std::uint32_t i = 0; i < units; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return x;
}

enum workload_kind : unsigned { cheap, one_us, irregular, workload_count };
inline constexpr std::array<const char*, workload_count> workload_names{"cheap", "1us", "irregular"};
enum algorithm_kind : unsigned { for_each_algo, transform_algo, reduce_algo, algorithm_count };
inline constexpr std::array<const char*, algorithm_count> algorithm_names{"for_each", "transform", "reduce"};

/// One workload: its size and the cost of each element (in xorshift rounds).
struct workload {
    workload_kind kind;
    std::size_t n;
    std::vector<std::uint32_t> units;  // per element
    std::vector<std::uint64_t> in;     // in[i] = i
    std::uint64_t expected_sum = 0;    // of burn(i, units[i])
    std::uint64_t expected_hash = 0;   // of the array burn(i, units[i]), order-sensitive

    std::uint64_t value(std::uint64_t i) const noexcept { return burn(i, units[i]); }
};

inline std::uint64_t mix(std::uint64_t h, std::uint64_t v) noexcept { return (h ^ v) * 0x100000001b3ULL; }

inline std::uint64_t hash_of(const std::vector<std::uint64_t>& v) noexcept {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (const std::uint64_t x : v) h = mix(h, x);
    return h;
}

inline workload make_workload(workload_kind k) {
    workload w{k, k == cheap ? std::size_t{1} << 20 : std::size_t{4000}, {}, {}, 0, 0};
    w.units.resize(w.n);
    w.in.resize(w.n);
    for (std::size_t i = 0; i < w.n; ++i) {
        w.in[i] = i;
        if (k == cheap) {
            w.units[i] = 2;
        } else if (k == one_us) {
            w.units[i] = units_per_us;
        } else {
            const double t = static_cast<double>(i) / static_cast<double>(w.n);
            const double jitter = 0.5 + static_cast<double>((i * 2654435761ULL >> 7) % 1024) / 1024.0;
            w.units[i] = static_cast<std::uint32_t>(4.0 * t * t * t * jitter * units_per_us);
        }
    }
    std::vector<std::uint64_t> out(w.n);
    for (std::size_t i = 0; i < w.n; ++i) {
        out[i] = w.value(i);
        w.expected_sum += out[i];
    }
    w.expected_hash = hash_of(out);
    return w;
}

struct options {
    unsigned workers = 0;
    unsigned reps = 11;
    unsigned max_warmup = 3000;
    std::array<bool, workload_count> run{true, true, true};
};

[[noreturn]] inline void usage(char const* program, int status) {
    std::fprintf(status == 0 ? stdout : stderr,
                 "usage: %s [--workers=N] [--reps=N] [--workloads=cheap,1us,irregular] [--max-warmup=N] [--weft:...]\n",
                 program);
    std::exit(status);
}

inline options parse_options(int argc, char** argv) {
    options o;
    weft::bench::parse_command_line(argc, argv, usage, [&](std::string_view name, std::string_view v) {
        using weft::bench::detail::parse_number;
        if (name == "--workers") return parse_number(v, o.workers) && o.workers >= 1;
        if (name == "--reps") return parse_number(v, o.reps) && o.reps >= 1 && o.reps <= 10000;
        if (name == "--max-warmup") return parse_number(v, o.max_warmup) && o.max_warmup >= 1;
        if (name == "--workloads") {
            o.run = {false, false, false};
            while (!v.empty()) {
                const std::size_t comma = v.find(',');
                const std::string_view item = v.substr(0, comma);
                bool known = false;
                for (unsigned k = 0; k < workload_count; ++k)
                    if (item == workload_names[k]) o.run[k] = known = true;
                if (!known) return false;
                v = comma == std::string_view::npos ? std::string_view{} : v.substr(comma + 1);
            }
            return true;
        }
        return false;
    });
    o.workers = weft::bench::default_workers(o.workers);
    return o;
}

/// Milliseconds f() took, on the steady clock.
template <class F>
double time_ms(F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

inline double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}

/// Checks one algorithm's result after its timed calls; a wrong one ends the process.
inline void check(const workload& w, algorithm_kind a, const char* impl, const std::vector<std::uint64_t>& array,
                  std::uint64_t sum) {
    const std::uint64_t got = a == reduce_algo ? sum : hash_of(array);
    const std::uint64_t want = a == reduce_algo ? w.expected_sum : w.expected_hash;
    if (got != want) weft::bench::fail_check("adapt_chunk", impl, got, want);
}

/// One result line (scripts/adapt_chunk parses them):
///   weft-bench problem=adapt_chunk impl=<impl> workers=<W> workload=<w> algorithm=<a>
///              n=<n> ms=<median ms per call> <extra>
inline void print_line(const char* impl, unsigned workers, const workload& w, algorithm_kind a, double ms,
                       const std::string& extra = {}) {
    std::printf("weft-bench problem=adapt_chunk impl=%s workers=%u workload=%s algorithm=%s n=%zu ms=%.4f%s%s\n", impl,
                workers, workload_names[w.kind], algorithm_names[a], w.n, ms, extra.empty() ? "" : " ", extra.c_str());
    std::fflush(stdout);
}

}  // namespace weft::bench::adapt_chunk
