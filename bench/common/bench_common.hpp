// Shared by weft's benchmarks and their anchors: options, timing, the result line.
//
// Every benchmark program prints one line per measurement, parsed by scripts/bench:
//   weft-bench problem=<p> impl=<name> workers=<W> n=<n> calls=<count> seconds=<wall>
//              ns_per_call=<value> result=<checked value>
// Options: --workers=N --n=N --tasks=N --reps=N; arguments starting with --weft: are
// left to the weft runtime and ignored here.
#pragma once

#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <system_error>
#include <thread>

namespace weft::bench {

// A figure from an unoptimised, assertion-carrying or sanitized build is worse than none:
// such a build still compiles and runs, but refuses to report (see parse_options).
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define WEFT_BENCH_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define WEFT_BENCH_SANITIZED 1
#endif

#if !defined(NDEBUG) || (defined(__GNUC__) && !defined(__OPTIMIZE__)) || \
    defined(WEFT_BENCH_SANITIZED)
inline constexpr bool release_build = false;
#else
inline constexpr bool release_build = true;
#endif

struct options {
    unsigned workers = 0;          ///< 0 until parsed: then std::thread::hardware_concurrency()
    unsigned n = 30;               ///< problem size for fib
    std::uint64_t tasks = 1000000; ///< problem size for tiny_tasks
    unsigned reps = 3;             ///< measured repetitions, after one warm-up
};

namespace detail {

template <class T>
bool parse_number(std::string_view text, T& out) {
    T value{};
    auto const* first = text.data();
    auto const* last = text.data() + text.size();
    auto const [end, ec] = std::from_chars(first, last, value);
    if (ec != std::errc{} || end != last || text.empty()) {
        return false;
    }
    out = value;
    return true;
}

[[noreturn]] inline void usage(char const* program, int status) {
    std::fprintf(status == 0 ? stdout : stderr,
                 "usage: %s [--workers=N] [--n=N] [--tasks=N] [--reps=N] [--weft:...]\n"
                 "  --workers=N  worker threads (default: hardware concurrency)\n"
                 "  --n=N        fib argument (default 30)\n"
                 "  --tasks=N    number of tiny tasks (default 1000000)\n"
                 "  --reps=N     measured repetitions after one warm-up (default 3)\n"
                 "  --weft:*     runtime options, ignored by the anchors\n",
                 program);
    std::exit(status);
}

}  // namespace detail

/// The two options most programs' own parsers share: --workers=N and --reps=N, each an
/// integer >= 1. True if `name` is one of them and `v` a good value for it; a parser ends
/// with `return parse_run_option(name, v, o.workers, o.reps);` after its own names.
inline bool parse_run_option(std::string_view name, std::string_view v, unsigned& workers, unsigned& reps) {
    if (name == "--workers") return detail::parse_number(v, workers) && workers >= 1;
    if (name == "--reps") return detail::parse_number(v, reps) && reps >= 1;
    return false;
}

/// The command-line loop every benchmark shares: refuses to report from a non-release
/// build (exit 1, saying why); skips --weft:* (the runtime's); answers --help/-h with
/// usage(program, 0); passes every other argument, split at its first '=', to
/// set(name, value), which returns false for an unknown name or a bad value: then it
/// names the argument and exits through usage(program, 2).
template <class Usage, class Set>
void parse_command_line(int argc, char** argv, Usage usage, Set set) {
    char const* program = argc > 0 ? argv[0] : "bench";
    if constexpr (!release_build) {
        std::fprintf(stderr, "%s: refusing to report from a non-release build "
                             "(build with -O3 -DNDEBUG and no sanitizer: the `bench` preset)\n",
                     program);
        std::exit(1);
    }
    for (int i = 1; i < argc; ++i) {
        std::string_view const arg = argv[i];
        if (arg.starts_with("--weft:")) continue;
        if (arg == "--help" || arg == "-h") usage(program, 0);
        std::size_t const eq = arg.find('=');
        bool const ok = eq != std::string_view::npos && eq + 1 < arg.size() && set(arg.substr(0, eq), arg.substr(eq + 1));
        if (!ok) {
            std::fprintf(stderr, "%s: bad argument '%s'\n", program, argv[i]);
            usage(program, 2);
        }
    }
}

/// --workers=0 (not given) means one per hardware thread.
inline unsigned default_workers(unsigned workers) {
    if (workers != 0) return workers;
    unsigned const hc = std::thread::hardware_concurrency();
    return hc == 0 ? 1 : hc;
}

/// Parses the command line over the given defaults (see parse_command_line).
inline options parse_options(int argc, char** argv, options defaults = {}) {
    options o = defaults;
    parse_command_line(argc, argv, detail::usage, [&](std::string_view name, std::string_view v) {
        using detail::parse_number;
        // fib(n+1) must fit the call count in 64 bits; past ~45 a run takes hours anyway.
        if (name == "--n") return parse_number(v, o.n) && o.n <= 90;
        if (name == "--tasks") return parse_number(v, o.tasks) && o.tasks >= 1;
        return parse_run_option(name, v, o.workers, o.reps);
    });
    o.workers = default_workers(o.workers);
    return o;
}

/// Wall-clock seconds taken by f(), on the steady clock.
template <class F>
double time_seconds(F&& f) {
    auto const start = std::chrono::steady_clock::now();
    static_cast<F&&>(f)();
    auto const stop = std::chrono::steady_clock::now();
    return std::chrono::duration<double>(stop - start).count();
}

/// Prints one result line in the format scripts/bench parses, and flushes it.
inline void print_result(char const* problem, char const* impl, unsigned workers,
                         std::uint64_t n, std::uint64_t calls, double seconds,
                         std::uint64_t result) {
    double const ns_per_call = seconds * 1e9 / static_cast<double>(calls);
    std::printf("weft-bench problem=%s impl=%s workers=%u n=%llu calls=%llu seconds=%.6f "
                "ns_per_call=%.3f result=%llu\n",
                problem, impl, workers, static_cast<unsigned long long>(n),
                static_cast<unsigned long long>(calls), seconds, ns_per_call,
                static_cast<unsigned long long>(result));
    std::fflush(stdout);
}

/// Reports a failed check after timing and exits with status 1.
[[noreturn]] inline void fail_check(char const* problem, char const* impl,
                                    std::uint64_t got, std::uint64_t expected) {
    std::fprintf(stderr, "weft-bench problem=%s impl=%s: WRONG RESULT %llu, expected %llu\n",
                 problem, impl, static_cast<unsigned long long>(got),
                 static_cast<unsigned long long>(expected));
    std::exit(1);
}

/// fib(n), computed iteratively: the value the benchmarks check against.
constexpr std::uint64_t fib_expected(unsigned n) noexcept {
    std::uint64_t a = 0;
    std::uint64_t b = 1;
    for (unsigned i = 0; i < n; ++i) {
        std::uint64_t const next = a + b;
        a = b;
        b = next;
    }
    return a;
}

/// Number of calls the naive recursion makes for fib(n): calls(n) = 2 * fib(n + 1) - 1.
constexpr std::uint64_t fib_calls(unsigned n) noexcept { return 2 * fib_expected(n + 1) - 1; }

static_assert(fib_expected(30) == 832040);
static_assert(fib_calls(30) == 2692537);

}  // namespace weft::bench
