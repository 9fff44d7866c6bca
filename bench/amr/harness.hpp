// Shared by the AMR programs: their options, the alarm that ends a --wall run, and the
// output (the result line, the --wall report of the steps reached and its per-point CSV).
#pragma once

#include "amr/amr.hpp"
#include "common/bench_common.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <malloc.h>
#include <mutex>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

namespace weft::bench::amr {

/// The steps reached per proper point of one level: min, mean, max.
struct spread {
    double min = 0, mean = 0, max = 0;
};

/// The --wall report: the result line's extra keys (steps reached per level, the
/// simulated time reached over the finest points) and the per-point CSV.
inline std::string wall_report(const char* impl, unsigned workers, const hierarchy& h, const reached_steps& r,
                               double wall) {
    std::string keys;
    std::FILE* csv = nullptr;
    if (!h.p.csv.empty()) {
        csv = std::fopen(h.p.csv.c_str(), "w");
        if (csv == nullptr) {
            std::fprintf(stderr, "weft-bench problem=amr impl=%s: cannot write --csv=%s\n", impl, h.p.csv.c_str());
            std::exit(1);
        }
        std::fprintf(csv, "impl,workers,grain,wall,level,r,steps,time,finest\n");
    }
    spread t{std::numeric_limits<double>::infinity(), 0, 0};
    std::size_t finest_points = 0;
    char buf[160];
    for (std::size_t l = 0; l < h.levels.size(); ++l) {
        const level_layout& ll = h.levels[l];
        const bool has_child = l + 1 < h.levels.size();
        const range under = has_child ? h.levels[l + 1].geom.parent_cover() : range{0, 0};
        spread st{std::numeric_limits<double>::infinity(), 0, 0};
        for (std::size_t b = 0; b < ll.blocks.size(); ++b) {
            const range o = intersect(ll.blocks[b], {0, ll.geom.n});
            for (int i = o.lo; i < o.hi; ++i) {
                const double steps = r[l][b];
                const double time = steps * ll.geom.dt;
                const bool finest = i < under.lo || i >= under.hi;
                st.min = std::min(st.min, steps);
                st.max = std::max(st.max, steps);
                st.mean += steps;
                if (finest) {
                    t.min = std::min(t.min, time);
                    t.max = std::max(t.max, time);
                    t.mean += time;
                    ++finest_points;
                }
                if (csv != nullptr)
                    std::fprintf(csv, "%s,%u,%d,%g,%zu,%.17g,%u,%.17g,%d\n", impl, workers, h.p.grain, wall, l,
                                 ll.geom.r(i), r[l][b], time, finest ? 1 : 0);
            }
        }
        st.mean /= ll.geom.n;
        std::snprintf(buf, sizeof buf, " steps_l%zu=%.0f:%.1f:%.0f", l, st.min, st.mean, st.max);
        keys += buf;
    }
    t.mean /= static_cast<double>(finest_points);
    std::snprintf(buf, sizeof buf, " time_reached=%.4f:%.4f:%.4f", t.min, t.mean, t.max);
    keys += buf;
    if (csv != nullptr && std::fclose(csv) != 0) {
        std::fprintf(stderr, "weft-bench problem=amr impl=%s: cannot write --csv=%s\n", impl, h.p.csv.c_str());
        std::exit(1);
    }
    return keys;
}

/// Prints the result line: bench_common.hpp's format, problem=amr, n=<grain>,
/// calls=<proper-point updates> (ns_per_call: ns per point update), then `extra`.
inline void print_result(const char* impl, unsigned workers, const hierarchy& h, std::uint64_t updates,
                         double seconds, std::uint64_t result, std::uint64_t tasks, const std::string& extra) {
    const double ns = updates == 0 ? 0.0 : seconds * 1e9 / static_cast<double>(updates);
    std::printf("weft-bench problem=amr impl=%s workers=%u n=%d calls=%llu seconds=%.6f ns_per_call=%.4f "
                "result=%llu levels=%u nr=%d mode=%s tasks=%llu ns_per_task=%.1f%s\n",
                impl, workers, h.p.grain, static_cast<unsigned long long>(updates), seconds, ns,
                static_cast<unsigned long long>(result), h.p.levels, h.p.nr, h.p.wall > 0 ? "wall" : "steps",
                static_cast<unsigned long long>(tasks), tasks == 0 ? 0.0 : seconds * 1e9 / static_cast<double>(tasks),
                extra.c_str());
    std::fflush(stdout);
}

/// Lets glibc keep freed memory: the dataflow schedule allocates every block of every
/// step afresh, and with glibc's default thresholds the kernel would clear returned
/// pages again on the next page faults. Called for every schedule alike.
inline void keep_freed_memory() noexcept {
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, INT_MAX);
}

namespace detail {

template <class T>
bool number_in(std::string_view name, std::string_view v, T& out, T lo, T hi, const char* what) {
    T x{};
    bool ok = false;
    if constexpr (std::is_floating_point_v<T>) {
        const std::string s(v);
        char* end = nullptr;
        x = std::strtod(s.c_str(), &end);
        ok = !s.empty() && end == s.c_str() + s.size() && std::isfinite(x);
    } else {
        ok = weft::bench::detail::parse_number(v, x);
    }
    if (ok && x >= lo && x <= hi) {
        out = x;
        return true;
    }
    std::fprintf(stderr, "%.*s: expected %s (got '%.*s')\n", static_cast<int>(name.size()), name.data(), what,
                 static_cast<int>(v.size()), v.data());
    return false;
}

}  // namespace detail

/// Parses the options shared by the AMR programs plus those `extra(name, value)`
/// accepts (`extra_usage`: their help lines). Exits 2 on an unknown or bad option (naming
/// it and what it accepts), 0 after --help, 1 from a non-release build. A bare
/// `--convergence` is accepted when `allow_convergence`.
template <class Extra>
params parse_params(int argc, char** argv, Extra extra, const char* extra_usage, bool allow_convergence) {
    keep_freed_memory();
    params p;
    std::vector<char*> args;
    for (int i = 0; i < argc; ++i) {
        if (allow_convergence && i > 0 && std::string_view(argv[i]) == "--convergence") {
            p.convergence = true;
            continue;
        }
        args.push_back(argv[i]);
    }
    auto usage = [&](const char* program, int status) {
        std::fprintf(status == 0 ? stdout : stderr,
                     "usage: %s [options] [--weft:...]\n"
                     "  --nr=N         points of the coarsest level on [0, rmax], 16..10^7 (default 641)\n"
                     "  --rmax=R       outer radius, > 8 (default 32)\n"
                     "  --levels=L     refined levels, 0..8 (default 2: three meshes, seed Fig. 5)\n"
                     "  --width=W      half-width of level 1 around r = 8; level l: W/2^(l-1) (default 4)\n"
                     "  --grain=G      points per block, >= 1 (default 32)\n"
                     "  --steps=S      coarse time steps, >= 1 (default 200)\n"
                     "  --wall=SEC     run for SEC seconds instead of --steps; report the steps each\n"
                     "                 point reached (seed Figs. 5-6)\n"
                     "  --csv=FILE     with --wall: write the steps reached per point to FILE\n"
                     "  --amp=A        pulse amplitude, 0..1 (default 0.02)\n"
                     "  --cfl=C        dt/h, 0..1 (default 0.25)\n"
                     "  --reps=N       with --steps: measured runs after one warm-up, 1..100 (default 3)\n"
                     "%s"
                     "  --weft:*       runtime options (--weft:threads=N)\n",
                     program, extra_usage);
        std::exit(status);
    };
    parse_command_line(static_cast<int>(args.size()), args.data(), usage, [&](std::string_view name, std::string_view v) {
        using detail::number_in;
        if (name == "--nr") return number_in(name, v, p.nr, 16, 10'000'000, "an integer 16..10000000");
        if (name == "--rmax") return number_in(name, v, p.rmax, 8.5, 1e6, "a radius > 8");
        if (name == "--levels") return number_in(name, v, p.levels, 0u, 8u, "0..8");
        if (name == "--width") return number_in(name, v, p.width, 1e-6, 1e6, "a positive half-width");
        if (name == "--grain") return number_in(name, v, p.grain, 1, INT_MAX / 4, "an integer >= 1");
        if (name == "--steps") return number_in(name, v, p.steps, 1u, 100'000'000u, "an integer >= 1");
        if (name == "--wall") return number_in(name, v, p.wall, 1e-3, 3600.0, "seconds, 0.001..3600");
        if (name == "--amp") return number_in(name, v, p.amp, 0.0, 1.0, "0..1");
        if (name == "--cfl") return number_in(name, v, p.cfl, 1e-3, 1.0, "0.001..1");
        if (name == "--reps") return number_in(name, v, p.reps, 1u, 100u, "1..100");
        if (name == "--csv") {
            p.csv = v;
            return true;
        }
        return extra(p, name, v);
    });
    const char* program = argc > 0 ? argv[0] : "bench_amr";
    if (!p.csv.empty() && p.wall <= 0) {
        std::fprintf(stderr, "%s: --csv needs --wall=SECONDS\n", program);
        std::exit(2);
    }
    hierarchy h;
    if (const std::string why = build_hierarchy(p, h); !why.empty()) {
        std::fprintf(stderr, "%s: bad geometry: %s\n", program, why.c_str());
        std::exit(2);
    }
    return p;
}

/// A flag that becomes true `seconds` after construction (never, for seconds <= 0), set by
/// a thread that sleeps until then. Checking it is one load, where steady_clock::now()
/// costs ~90 ns on the VM this was written on (kvm-clock), and the dataflow schedule checks
/// once per task, the barrier schedule once per phase: the check must not tilt the
/// comparison.
class alarm {
public:
    explicit alarm(double seconds) {
        if (seconds <= 0) return;
        const auto at = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                               std::chrono::duration<double>(seconds));
        thread_ = std::jthread([this, at](std::stop_token stop) {
            std::mutex m;
            std::condition_variable_any cv;
            std::unique_lock lock(m);
            cv.wait_until(lock, stop, at, [] { return false; });
            // relaxed: only a request to stop; nothing is published with it.
            if (!stop.stop_requested()) rung_.store(true, std::memory_order_relaxed);
        });
    }
    alarm(const alarm&) = delete;
    alarm& operator=(const alarm&) = delete;

    bool rung() const noexcept { return rung_.load(std::memory_order_relaxed); }  // relaxed: see above

private:
    std::atomic<bool> rung_{false};
    std::jthread thread_;  // after rung_: joined before rung_ goes
};

/// Steps a --wall run may take at most (the dataflow schedule builds its graph ahead).
inline constexpr unsigned wall_step_limit = 100'000'000;

}  // namespace weft::bench::amr
