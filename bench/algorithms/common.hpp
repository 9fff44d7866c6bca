// Shared by the parallel-algorithm benchmarks of issue #5: reduce, inclusive_scan and
// sort of std::int64_t, each implementation behind the same three calls; the options,
// the data, the timing, the checks and the result lines.
//
// The data (the same for every implementation: counter-based SplitMix64 from fixed
// seeds, generated serially outside every timed region):
//   reduce, scan  x[i] in [0, 2^20), generated once per process; sums stay below 2^47
//                 for n <= 2^27, so they are exact (n is bounded by that)
//   sort          full-range int64, a new array per repetition r (its own seed)
// What is timed:
//   reduce        sum = impl.reduce(x, x + n)            (from 0, std::plus)
//   scan          impl.inclusive_scan(x, x + n, y)       (std::plus; y first-touched
//                                                         beforehand)
//   sort          impl.sort(s, s + n), s a fresh copy of repetition r's array, copied
//                 outside the timed region before every call
// Every timing runs enough calls to last --min-ms (default 10 ms), so that a small n
// (the fine-grained case, 10^4) is not measured at the clock's resolution: reduce and scan
// repeat the call back to back inside one timing (the call count is calibrated first,
// by doubling from one call; the calibration is also the warm-up); sort times each call
// alone, restores the input between calls outside the clock, and sums the calls' times
// until they reach --min-ms (its warm-up: sorts of the first min(n, 2^20) elements for
// --min-ms). At n = 10^8 every call exceeds 10 ms, so a repetition is one call.
// --reps repetitions (reduce, scan) or --sort-reps (sort) are measured; each algorithm is
// reported at its best repetition, as seconds per call.
//
// Checks, after every repetition (outside the timed region): reduce's every result equals
// a plain loop's sum; y[0] = x[0] and y[i] = y[i-1] + x[i] for the scan; the sorted array
// is ascending and a permutation of its input (an order-independent hash of the values
// matches). A failure ends the process with status 1 before that algorithm's line is
// printed. `result` is a checksum that must be equal across implementations (the sum;
// an FNV-1a hash of the scan's output; of the last sorted array); scripts/algorithms
// compares them with the serial one.
//
// Options: --n=N (default 10^8), --reps=N (default 5), --sort-reps=N (default 1),
// --min-ms=N (default 10), --algorithms=LIST (reduce,scan,sort; default all),
// --workers=N; --weft:* is the runtime's.
//
// Result lines, one per algorithm, in bench_common.hpp's style with problem=algorithms:
//   weft-bench problem=algorithms impl=<name> workers=<W> algorithm=<reduce|scan|sort>
//              n=<n> calls=<calls in the best repetition> seconds=<best per call>
//              ns_per_call=<best ns per call> result=<checksum> reps=<reps>
//              best_seconds=<per call> avg_seconds=<per call, mean of reps>
//              max_seconds=<per call, worst rep> us_per_call=<best us per call>
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
#include <string_view>
#include <vector>

namespace weft::bench::algorithms {

using value_type = std::int64_t;

enum algorithm : unsigned { reduce_algo, scan_algo, sort_algo, algorithm_count };
inline constexpr std::array<const char*, algorithm_count> algorithm_names{"reduce", "scan", "sort"};

struct problem {
    std::size_t n = 100'000'000;  ///< elements
    unsigned reps = 5;            ///< measured repetitions of reduce and scan
    unsigned sort_reps = 1;       ///< measured repetitions of sort (10 s a call serially at 10^8)
    unsigned min_ms = 10;         ///< each repetition's timed calls last at least this
    std::array<bool, algorithm_count> run{true, true, true};
    unsigned workers = 0;  ///< 0 until parsed: then std::thread::hardware_concurrency()
};

/// Forces the compiler to assume memory changed: a repeated call on unchanged input
/// cannot be hoisted out of the timing loop.
inline void clobber_memory() noexcept { asm volatile("" : : : "memory"); }

/// SplitMix64's output function: a counter-based generator, so the data depends on the
/// seed and the index only, whoever generates it.
constexpr std::uint64_t mix64(std::uint64_t z) noexcept {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

inline constexpr std::uint64_t sum_seed = 0x5eed0001;
inline constexpr std::uint64_t sort_seed = 0x5eed0002;

/// FNV-1a over the values' bits, in order.
inline std::uint64_t ordered_hash(const value_type* x, std::size_t n) noexcept {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (std::size_t i = 0; i < n; ++i) {
        h ^= static_cast<std::uint64_t>(x[i]);
        h *= 0x100000001b3ULL;
    }
    return h;
}

/// A hash of the multiset of values: equal for any permutation.
inline std::uint64_t multiset_hash(const value_type* x, std::size_t n) noexcept {
    std::uint64_t h = 0;
    for (std::size_t i = 0; i < n; ++i) h += mix64(static_cast<std::uint64_t>(x[i]));
    return h;
}

namespace detail {

[[noreturn]] inline void usage(char const* program, int status) {
    std::fprintf(status == 0 ? stdout : stderr,
                 "usage: %s [--n=N] [--reps=N] [--sort-reps=N] [--min-ms=N] [--algorithms=LIST] [--workers=N] "
                 "[--weft:...]\n"
                 "  --n=N             elements, at most 2^27 (default 100000000)\n"
                 "  --reps=N          measured repetitions of reduce and scan (default 5)\n"
                 "  --sort-reps=N     measured repetitions of sort, each on new data (default 1)\n"
                 "  --min-ms=N        a repetition's timed calls last at least N ms (default 10)\n"
                 "  --algorithms=L    comma-separated subset of reduce,scan,sort (default all)\n"
                 "  --workers=N       worker threads (default: hardware concurrency)\n"
                 "  --weft:*          runtime options, ignored by the anchors\n",
                 program);
    std::exit(status);
}

inline bool parse_algorithms(std::string_view v, std::array<bool, algorithm_count>& run) {
    run.fill(false);
    while (!v.empty()) {
        const std::size_t comma = v.find(',');
        const std::string_view name = v.substr(0, comma);
        bool known = false;
        for (unsigned a = 0; a < algorithm_count; ++a)
            if (name == algorithm_names[a]) run[a] = known = true;
        if (!known) return false;
        v = comma == std::string_view::npos ? std::string_view{} : v.substr(comma + 1);
    }
    return std::find(run.begin(), run.end(), true) != run.end();
}

}  // namespace detail

/// Parses the command line (bench_common.hpp's parse_command_line: exit 2 on a bad
/// argument, exit 1 from a non-release build).
inline problem parse_problem(int argc, char** argv) {
    problem p;
    parse_command_line(argc, argv, detail::usage, [&](std::string_view name, std::string_view v) {
        using weft::bench::detail::parse_number;
        if (name == "--n") return parse_number(v, p.n) && p.n >= 1 && p.n <= (std::size_t{1} << 27);
        if (name == "--reps") return parse_number(v, p.reps) && p.reps >= 1;
        if (name == "--sort-reps") return parse_number(v, p.sort_reps) && p.sort_reps >= 1;
        if (name == "--min-ms") return parse_number(v, p.min_ms) && p.min_ms <= 10'000;
        if (name == "--algorithms") return detail::parse_algorithms(v, p.run);
        if (name == "--workers") return parse_number(v, p.workers) && p.workers >= 1;
        return false;
    });
    p.workers = default_workers(p.workers);
    return p;
}

/// Seconds per call of each measured repetition, and the calls each made.
struct measurement {
    std::vector<double> per_call;
    std::vector<std::size_t> calls;
};

[[noreturn]] inline void wrong(const char* impl, const char* algo, std::size_t n, const char* what) {
    std::fprintf(stderr, "weft-bench problem=algorithms impl=%s algorithm=%s n=%zu: WRONG RESULT: %s\n", impl, algo, n,
                 what);
    std::exit(1);
}

inline void print_result(const char* impl, unsigned workers, const problem& p, algorithm a, const measurement& m,
                         std::uint64_t result) {
    const auto best_it = std::min_element(m.per_call.begin(), m.per_call.end());
    const double best = *best_it;
    const std::size_t best_calls = m.calls[static_cast<std::size_t>(best_it - m.per_call.begin())];
    const double worst = *std::max_element(m.per_call.begin(), m.per_call.end());
    double sum = 0.0;
    for (const double s : m.per_call) sum += s;
    const double avg = sum / static_cast<double>(m.per_call.size());
    std::printf("weft-bench problem=algorithms impl=%s workers=%u algorithm=%s n=%zu calls=%zu seconds=%.9f "
                "ns_per_call=%.3f result=%llu reps=%zu best_seconds=%.9f avg_seconds=%.9f max_seconds=%.9f "
                "us_per_call=%.4f\n",
                impl, workers, algorithm_names[a], p.n, best_calls, best, best * 1e9,
                static_cast<unsigned long long>(result), m.per_call.size(), best, avg, worst, best * 1e6);
    std::fflush(stdout);
}

namespace detail {

/// Repeats `call` back to back in one timing: first calibrates the count by doubling
/// from one call until a timing lasts min_s (the warm-up), then times `reps` timings of
/// that many calls; `check()` runs after each, outside the clock.
template <class Call, class Check>
measurement batched(double min_s, unsigned reps, Call&& call, Check&& check) {
    const auto timed = [&](std::size_t calls) {
        return time_seconds([&] {
            for (std::size_t c = 0; c < calls; ++c) {
                call();
                clobber_memory();
            }
        });
    };
    std::size_t calls = 1;
    for (double t = timed(calls); t < min_s; t = timed(calls)) {
        // Aim 20 % past the target, at most 10x more calls at a time.
        const double want = t > 0.0 ? std::ceil(static_cast<double>(calls) * 1.2 * min_s / t) : 10.0 * static_cast<double>(calls);
        calls = std::max(calls + 1, std::min(calls * 10, static_cast<std::size_t>(want)));
    }
    check();
    measurement m;
    for (unsigned r = 0; r < reps; ++r) {
        m.per_call.push_back(timed(calls) / static_cast<double>(calls));
        m.calls.push_back(calls);
        check();
    }
    return m;
}

}  // namespace detail

/// Runs the chosen algorithms with `impl`, an object with
///   value_type reduce(const value_type* first, const value_type* last)      sum from 0
///   void inclusive_scan(const value_type* first, const value_type* last, value_type* out)
///   void sort(value_type* first, value_type* last)
/// and, optionally, `bool has(algorithm)` (false: that algorithm is skipped, saying so on
/// stderr). `in_context(body)` runs body() where the calls must run (a task arena, a weft
/// worker, ...); each algorithm's result line is printed after its runs, outside it.
template <class Impl, class Context>
void run(const char* impl_name, unsigned workers, const problem& p, Impl& impl, Context&& in_context) {
    const std::size_t n = p.n;
    const double min_s = static_cast<double>(p.min_ms) * 1e-3;
    const auto available = [&](algorithm a) {
        if constexpr (requires { impl.has(a); }) {
            if (!impl.has(a)) {
                std::fprintf(stderr, "weft-bench problem=algorithms impl=%s: no %s in this build, skipped\n", impl_name,
                             algorithm_names[a]);
                return false;
            }
        }
        return true;
    };

    if (p.run[reduce_algo] || p.run[scan_algo]) {
        std::vector<value_type> x(n);
        for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<value_type>(mix64(sum_seed + i) >> 44);
        const value_type* const first = x.data();
        const value_type* const last = first + n;

        if (p.run[reduce_algo] && available(reduce_algo)) {
            value_type expect = 0;
            for (std::size_t i = 0; i < n; ++i) expect += x[i];
            std::size_t bad = 0;
            value_type got = 0;
            measurement m;
            in_context([&] {
                m = detail::batched(min_s, p.reps, [&] {
                    got = impl.reduce(first, last);
                    if (got != expect) ++bad;
                }, [&] {
                    if (bad != 0) wrong(impl_name, "reduce", n, "a sum differs from the serial loop's");
                });
            });
            print_result(impl_name, workers, p, reduce_algo, m, static_cast<std::uint64_t>(got));
        }

        if (p.run[scan_algo] && available(scan_algo)) {
            std::vector<value_type> y(n);  // zeroed here: the first touch is not timed
            measurement m;
            const auto check = [&] {
                bool ok = y[0] == x[0];
                for (std::size_t i = 1; i < n && ok; ++i) ok = y[i] == y[i - 1] + x[i];
                if (!ok) wrong(impl_name, "scan", n, "out[i] != out[i-1] + in[i] somewhere");
                std::fill(y.begin(), y.end(), value_type{-1});  // the next calls must write it all again
            };
            std::uint64_t result = 0;
            in_context([&] {
                m = detail::batched(min_s, p.reps, [&] { impl.inclusive_scan(first, last, y.data()); }, [&] {
                    result = ordered_hash(y.data(), n);
                    check();
                });
            });
            print_result(impl_name, workers, p, scan_algo, m, result);
        }
    }

    if (p.run[sort_algo] && available(sort_algo)) {
        std::vector<value_type> source(n), s(n);
        std::uint64_t result = 0;
        measurement m;
        // Repetition `rep`'s data in source[0, count); returns its multiset hash.
        const auto generate = [&](std::uint64_t rep, std::size_t count) {
            const std::uint64_t seed = mix64(sort_seed + rep);
            for (std::size_t i = 0; i < count; ++i) source[i] = static_cast<value_type>(mix64(seed + i));
            return multiset_hash(source.data(), count);
        };
        const auto check = [&](std::size_t count, std::uint64_t want) {
            if (!std::is_sorted(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(count)))
                wrong(impl_name, "sort", n, "not ascending");
            if (multiset_hash(s.data(), count) != want) wrong(impl_name, "sort", n, "not a permutation of its input");
        };
        in_context([&] {
            // Warm-up: the first min(n, 2^20) elements of a separate array, for min_s.
            const std::size_t warm = std::min<std::size_t>(n, std::size_t{1} << 20);
            const std::uint64_t warm_hash = generate(~std::uint64_t{0}, warm);
            for (double spent = 0.0; spent < min_s;) {
                std::copy(source.begin(), source.begin() + static_cast<std::ptrdiff_t>(warm), s.begin());
                spent += time_seconds([&] { impl.sort(s.data(), s.data() + warm); });
                check(warm, warm_hash);
            }
            for (unsigned r = 0; r < p.sort_reps; ++r) {
                const std::uint64_t want = generate(r, n);
                double spent = 0.0;
                std::size_t calls = 0;
                while (spent < min_s || calls == 0) {
                    std::copy(source.begin(), source.end(), s.begin());
                    spent += time_seconds([&] { impl.sort(s.data(), s.data() + n); });
                    ++calls;
                    check(n, want);
                }
                m.per_call.push_back(spent / static_cast<double>(calls));
                m.calls.push_back(calls);
            }
            result = ordered_hash(s.data(), n);
        });
        print_result(impl_name, workers, p, sort_algo, m, result);
    }
}

/// run() on the calling thread.
template <class Impl>
void run(const char* impl_name, unsigned workers, const problem& p, Impl& impl) {
    run(impl_name, workers, p, impl, [](auto&& body) { body(); });
}

}  // namespace weft::bench::algorithms
