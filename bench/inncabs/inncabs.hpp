// The Innsbruck C++11 Async Benchmark Suite (INNCABS; seed 000 ch.6, Table 7): each
// benchmark is written once, against the C++ standard's names through this header, and
// built twice: plainly (std::async, one OS thread per task: the seed's baseline) and with
// -DINNCABS_WEFT, which maps the same names to weft's: the mechanical port of seed 000
// Table 4 (std::async -> weft::async, std::future -> weft::future, std::mutex ->
// weft::mutex, launch policies kept). The weft build's unchanged main runs as weft's
// first task through <weft/main.hpp>.
//
// Each program calls inncabs::run(name, argc, argv, options, body, check): it parses the
// common options, runs the body --reps times after a warm-up, checks every result and
// prints one weft-bench line per run (median time), plus, in the weft build, the counters
// of seed 000 Table 6-7 for the measured runs: task duration, task overhead, idle rate.
//
// Common options: --launch=async|deferred|optional (and, weft only, sync|fork|all),
// --reps=N (measured runs, default 3), --help; the std build ignores --weft:* options. The launch policy reaches the benchmark
// as inncabs::launch, passed down its recursion as std::async programs do.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include <sched.h>

#if defined(INNCABS_WEFT)
#include <weft/main.hpp>
#include <weft/counters/counters.hpp>
#else
#include <future>
#endif

namespace inncabs {

#if defined(INNCABS_WEFT)
#define INNCABS_WEFT_POLICIES ", sync, fork, all"
using weft::async;
using weft::future;
using weft::launch;
using weft::mutex;
using weft::promise;
using weft::shared_future;
inline constexpr const char* backend = "weft";
inline unsigned workers() { return weft::num_workers(); }
#else
#define INNCABS_WEFT_POLICIES ""
using std::async;
using std::future;
using std::launch;
using std::mutex;
using std::promise;
using std::shared_future;
inline constexpr const char* backend = "std";
/// std::async makes a thread per task: the processors it may use are the affinity mask's
/// (the run script restricts it with taskset, as the seed did).
inline unsigned workers() {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return std::thread::hardware_concurrency();
    return static_cast<unsigned>(CPU_COUNT(&set));
}
#endif

/// Exit codes: 1 wrong result, 2 bad option, 3 the std build could not make its threads
/// ("AF" in the seed's Table 7).
inline constexpr int exit_wrong = 1, exit_usage = 2, exit_failed = 3;

struct common_options {
    launch policy = launch::async;
    std::string policy_name = "async";
    unsigned reps = 3;
};

[[noreturn]] inline void usage_error(const char* program, std::string_view arg, std::string_view accepted) {
    std::fprintf(stderr, "%s: bad option '%.*s': %.*s (--help lists the options)\n", program,
                 static_cast<int>(arg.size()), arg.data(), static_cast<int>(accepted.size()), accepted.data());
    std::exit(exit_usage);
}

inline bool parse_launch(std::string_view v, common_options& o) {
    o.policy_name = std::string(v);
    if (v == "async") o.policy = launch::async;
    else if (v == "deferred") o.policy = launch::deferred;
    else if (v == "optional") o.policy = launch::async | launch::deferred;
#if defined(INNCABS_WEFT)
    else if (v == "sync") o.policy = launch::sync;
    else if (v == "fork") o.policy = launch::fork;
    else if (v == "all") o.policy = launch::all;
#endif
    else return false;
    return true;
}

/// One benchmark-specific option: `--name=value` handed to `set`, which returns false for
/// a value it does not accept (described by `accepted`).
struct option {
    const char* name;
    const char* accepted;
    std::function<bool(std::string_view)> set;
};

/// Parses argv: the common options and `extra`; exits with code 2 on anything else.
inline common_options parse(int argc, char** argv, const char* help, const std::vector<option>& extra) {
    common_options o;
    const char* program = argc > 0 ? argv[0] : "inncabs";
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "--help") {
            std::printf("%s\n  --launch=POLICY  async (default), deferred, optional%s\n  --reps=N  measured runs after a "
                        "warm-up (default 3)\n",
                        help, INNCABS_WEFT_POLICIES);
            for (const option& x : extra) std::printf("  --%s=%s\n", x.name, x.accepted);
            std::exit(0);
        }
        // The weft build's runtime options: gone from argv before main in that build;
        // ignored by the std build, so that both take the same command line.
        if (a.substr(0, 7) == "--weft:") continue;
        const auto eq = a.find('=');
        const std::string_view key = a.substr(0, eq), value = eq == std::string_view::npos ? "" : a.substr(eq + 1);
        if (key == "--launch") {
            if (!parse_launch(value, o)) usage_error(program, a, "async, deferred, optional" INNCABS_WEFT_POLICIES);
            continue;
        }
        if (key == "--reps") {
            char* end = nullptr;
            const unsigned long n = std::strtoul(std::string(value).c_str(), &end, 10);
            if (value.empty() || *end != '\0' || n == 0 || n > 1000) usage_error(program, a, "a count from 1 to 1000");
            o.reps = static_cast<unsigned>(n);
            continue;
        }
        bool known = false;
        for (const option& x : extra) {
            if (key.size() > 2 && key.substr(2) == x.name) {
                if (!x.set(value)) usage_error(program, a, x.accepted);
                known = true;
                break;
            }
        }
        if (!known) usage_error(program, a, "unknown option");
    }
    return o;
}

/// Parses a whole number in [lo, hi] into `out`.
template <class T>
bool parse_number(std::string_view v, T& out, T lo, T hi) {
    if (v.empty()) return false;
    char* end = nullptr;
    const std::string s(v);
    const long long n = std::strtoll(s.c_str(), &end, 10);
    if (*end != '\0' || n < static_cast<long long>(lo) || n > static_cast<long long>(hi)) return false;
    out = static_cast<T>(n);
    return true;
}

/// What a benchmark's check says of one result: right or not, and the value to print
/// (result=...) or why it is wrong.
struct verdict {
    bool ok;
    std::string value;
};

/// Runs `body()` once to warm up, then o.reps times, checking each result with
/// `check(result)` (an inncabs::verdict), and prints
/// `weft-bench problem=inncabs_<name> impl=<std|weft>-<policy> workers=W n=<size>
/// calls=<tasks> seconds=<median> ... result=<what check printed>` and, in the weft build,
/// `inncabs-counters problem=... task_us=... overhead_us=... idle_rate=... tasks=...`
/// over the measured runs. `tasks` is the benchmark's task count per run (0: unknown).
/// A std build whose threads the system refuses prints the line with result=AF and
/// exits 3.
template <class Body, class Check>
int run(const char* name, const common_options& o, const std::string& size, std::uint64_t tasks, Body&& body,
        Check&& check) {
    using clock = std::chrono::steady_clock;
    std::vector<double> seconds;
    std::string shown;
    try {
#if defined(INNCABS_WEFT)
        (void)check(body());  // warm-up (its verdict is the measured runs')
        auto counters = weft::counters::query({"/threads/time/average", "/threads/time/average-overhead",
                                               "/threads/idle-rate", "/threads/count/cumulative"});
        counters.reset();
#else
        (void)check(body());
#endif
        for (unsigned r = 0; r < o.reps; ++r) {
            const auto t0 = clock::now();
            auto result = body();
            seconds.push_back(std::chrono::duration<double>(clock::now() - t0).count());
            const verdict v = check(result);
            if (!v.ok) {
                std::fprintf(stderr, "inncabs %s (%s, %s): WRONG RESULT: %s\n", name, backend, o.policy_name.c_str(),
                             v.value.c_str());
                return exit_wrong;
            }
            shown = v.value;
        }
#if defined(INNCABS_WEFT)
        double task_ns = 0, overhead_ns = 0, idle = 0, count = 0;
        for (const auto& v : counters.evaluate()) {
            if (v.name.find("/time/average-overhead") != std::string::npos) overhead_ns = v.value;
            else if (v.name.find("/time/average") != std::string::npos) task_ns = v.value;
            else if (v.name.find("idle-rate") != std::string::npos) idle = v.value;
            else if (v.name.find("count/cumulative") != std::string::npos) count = v.value;
        }
        std::printf("inncabs-counters problem=inncabs_%s impl=weft-%s workers=%u task_us=%.3f overhead_us=%.3f "
                    "idle_rate=%.2f tasks=%.0f\n",
                    name, o.policy_name.c_str(), workers(), task_ns / 1e3, overhead_ns / 1e3, idle, count / o.reps);
#endif
    } catch (const std::system_error& e) {
        std::printf("weft-bench problem=inncabs_%s impl=%s-%s workers=%u n=%s calls=%llu seconds=0 ns_per_call=0 "
                    "result=AF why=\"%s\"\n",
                    name, backend, o.policy_name.c_str(), workers(), size.c_str(),
                    static_cast<unsigned long long>(tasks), e.what());
        std::fflush(stdout);
        std::_Exit(exit_failed);  // threads may still hold the rest of the program
    }
    std::sort(seconds.begin(), seconds.end());
    const double median = seconds[seconds.size() / 2];
    std::printf("weft-bench problem=inncabs_%s impl=%s-%s workers=%u n=%s calls=%llu seconds=%.6f ns_per_call=%.3f "
                "result=%s\n",
                name, backend, o.policy_name.c_str(), workers(), size.c_str(), static_cast<unsigned long long>(tasks),
                median, tasks != 0 ? median * 1e9 / static_cast<double>(tasks) : 0.0,
                shown.empty() ? "ok" : shown.c_str());
    return 0;
}

}  // namespace inncabs
