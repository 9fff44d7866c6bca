// The grain-size study of seed 000 ch.5 (digest §2, §3.1, §4.1) measured with weft's own
// counters: the dataflow stencil of bench/stencil/weft.cpp (HPX's 1d_stencil_4) at every
// partition size of a sweep, with the same total work at every size, so that execution
// time traces the U-curve and the counters say where the time goes at each end.
//
//   bench_grain_size [--nx=N] [--nt=N] [--reps=N] [--np=LIST] --weft:threads=W
//
// Per partition size: one unmeasured warm-up (its result checked against the serial
// reference of stencil/common.hpp; exit 1 on a mismatch), then --reps measured runs. Around
// each: weft::counters::snapshot() before and after (the seed's Eq.1-4 from the
// difference) and the pending-queue counters over the same interval. One CSV line per
// measured run goes to stdout, progress to stderr. scripts/grain_size runs this at 1 and 2
// workers and bench/grain_size/analyze.py turns the CSVs into the tables and the plot.
#include "stencil/weft_partition.hpp"

#include <weft/counters/counters.hpp>
#include <weft/weft.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

namespace st = weft::bench::stencil;
namespace wc = weft::counters;

using st::partition;
using st::shared_partition;

// --- options ---

struct options {
    std::size_t nx = 10'000'000;
    unsigned nt = 10;
    unsigned reps = 5;
    std::vector<std::size_t> nps;  ///< empty: every divisor of nx in [100, nx / workers]
};

[[noreturn]] void usage(const char* program, int status) {
    std::fprintf(status == 0 ? stdout : stderr,
                 "usage: %s [--nx=N] [--nt=N] [--reps=N] [--np=LIST] [--weft:...]\n"
                 "  --nx=N      points on the ring (default 10000000)\n"
                 "  --nt=N      time steps per run (default 10)\n"
                 "  --reps=N    measured runs per partition size, after one warm-up (default 5)\n"
                 "  --np=LIST   points per partition, comma-separated, each 1..nx (default: every\n"
                 "              divisor d of nx with 100 <= d <= nx / workers)\n"
                 "  --weft:*    runtime options; --weft:threads=W sets the worker count\n"
                 "CSV on stdout, one line per measured run (header first); progress on stderr.\n",
                 program);
    std::exit(status);
}

/// "a,b,c" into numbers >= 1; false on anything else (empty items included).
bool parse_list(std::string_view text, std::vector<std::size_t>& out) {
    std::vector<std::size_t> values;
    while (true) {
        const std::size_t comma = text.find(',');
        std::size_t v = 0;
        if (!weft::bench::detail::parse_number(text.substr(0, comma), v) || v == 0) return false;
        values.push_back(v);
        if (comma == std::string_view::npos) break;
        text.remove_prefix(comma + 1);
    }
    out = std::move(values);
    return true;
}

[[noreturn]] void bad_input(const char* program, const std::string& message) {
    std::fprintf(stderr, "%s: %s\n", program, message.c_str());
    std::exit(2);
}

options parse_options(int argc, char** argv) {
    options o;
    // Exits 2 naming the argument for an unknown option or a malformed value, and 1 from a
    // non-release build (figures from one would mislead).
    weft::bench::parse_command_line(argc, argv, usage, [&](std::string_view name, std::string_view v) {
        using weft::bench::detail::parse_number;
        if (name == "--nx") return parse_number(v, o.nx) && o.nx >= 1;
        if (name == "--nt") return parse_number(v, o.nt) && o.nt >= 1;
        if (name == "--reps") return parse_number(v, o.reps) && o.reps >= 1;
        if (name == "--np") return parse_list(v, o.nps);
        return false;
    });
    const char* program = argc > 0 ? argv[0] : "bench_grain_size";
    for (const std::size_t np : o.nps) {
        if (np > o.nx) {
            bad_input(program, "--np: " + std::to_string(np) + " is larger than --nx=" + std::to_string(o.nx));
        }
    }
    std::sort(o.nps.begin(), o.nps.end());
    o.nps.erase(std::unique(o.nps.begin(), o.nps.end()), o.nps.end());
    return o;
}

/// The seed's sweep (digest §3.1): divisors of the total, so every partition is full.
/// At most nx / workers points each, so that every worker can hold one partition.
std::vector<std::size_t> default_sizes(std::size_t nx, unsigned workers) {
    std::vector<std::size_t> out;
    const std::size_t hi = nx / workers;
    for (std::size_t d = 1; d <= nx / d; ++d) {
        if (nx % d != 0) continue;
        for (const std::size_t v : {d, nx / d}) {
            if (v >= 100 && v <= hi) out.push_back(v);
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// --- one run ---

struct sample {
    double seconds = 0;
    wc::scheduler_totals delta;
    double pending_accesses = std::numeric_limits<double>::quiet_NaN();
    double pending_misses = std::numeric_limits<double>::quiet_NaN();
};

/// The value of the counter whose name ends with `suffix`, NaN if it is unavailable (said
/// once on stderr, since an empty column needs an explanation).
double pending_value(const std::vector<wc::counter_value>& values, std::string_view suffix) {
    for (const wc::counter_value& v : values) {
        if (!std::string_view(v.name).ends_with(suffix)) continue;
        if (v.available) return v.value;
        static bool said = false;
        if (!said) {
            said = true;
            std::fprintf(stderr, "bench_grain_size: %s unavailable (%s): column left as nan\n", v.name.c_str(),
                         v.reason.c_str());
        }
        return std::numeric_limits<double>::quiet_NaN();
    }
    return std::numeric_limits<double>::quiet_NaN();
}

/// One run of p from `init`. The graph is built inside one task, as in
/// bench/stencil/weft.cpp; the counters and the clock cover that task from post to finish.
/// With `final_grid`, the result is copied there (outside every measured interval).
sample run_once(const st::problem& p, const std::vector<double>& init, std::vector<double>* final_grid) {
    const std::size_t parts = p.partitions();
    std::vector<shared_partition> U = st::make_partitions(p, init);

    sample s;
    // Made before the timed region: query() resolves names, which is no part of the run.
    // The pending-queue counters (digest §2: "Pending queue accesses"), all workers.
    wc::counter_set pending = wc::query(
        {"/threads{locality#0/total}/count/pending-accesses", "/threads{locality#0/total}/count/pending-misses"});
    const wc::scheduler_totals before = wc::snapshot();
    const auto start = std::chrono::steady_clock::now();
    st::run_steps(p, U);
    const auto stop = std::chrono::steady_clock::now();
    const wc::scheduler_totals after = wc::snapshot();
    const std::vector<wc::counter_value> values = pending.evaluate(true);

    s.seconds = std::chrono::duration<double>(stop - start).count();
    s.delta = after - before;
    s.pending_accesses = pending_value(values, "/count/pending-accesses");
    s.pending_misses = pending_value(values, "/count/pending-misses");

    if (final_grid != nullptr) {
        final_grid->resize(p.nx);
        for (std::size_t i = 0; i < parts; ++i) {
            const partition& v = U[i].get();
            std::copy(v.data(), v.data() + v.size(), final_grid->data() + p.begin(i));
        }
    }
    return s;
}

void print_header() {
    std::printf("workers,np,partitions,rep,seconds,idle_rate,task_duration_ns,task_overhead_ns,tasks,phases,"
                "func_ns,exec_ns,mgmt_overhead_per_core_ns,pending_accesses,pending_misses\n");
    std::fflush(stdout);
}

void print_sample(unsigned workers, const st::problem& p, unsigned rep, const sample& s) {
    const wc::scheduler_totals& d = s.delta;
    std::printf("%u,%zu,%zu,%u,%.9f,%.6f,%.3f,%.3f,%.0f,%.0f,%.0f,%.0f,%.1f,%.0f,%.0f\n", workers, p.np,
                p.partitions(), rep, s.seconds, wc::idle_rate(d), wc::task_duration(d), wc::task_overhead(d),
                d.tasks, d.phases, d.func_ns, d.exec_ns, wc::management_overhead_per_core(d),
                s.pending_accesses, s.pending_misses);
}

int study(const options& o, unsigned workers) {
    st::problem base;
    base.nx = o.nx;
    base.nt = o.nt;
    base.np = o.nx;
    base.workers = workers;
    base.reps = o.reps;

    const std::vector<std::size_t> sizes = o.nps.empty() ? default_sizes(o.nx, workers) : o.nps;
    if (sizes.empty()) {
        std::fprintf(stderr, "bench_grain_size: --nx=%zu has no divisor in [100, %zu] (nx / workers): give --np\n",
                     o.nx, o.nx / workers);
        return 2;
    }

    const std::vector<double> init = st::initial_grid(base);
    // The reference depends on nx and nt only: one checker serves every partition size.
    st::checker checker("weft-grain-size", base);
    std::vector<double> result;

    print_header();
    for (std::size_t k = 0; k < sizes.size(); ++k) {
        st::problem p = base;
        p.np = sizes[k];
        run_once(p, init, &result);  // warm-up: unmeasured, but checked
        checker.check(result);       // exits 1 on a mismatch
        double sum = 0;
        for (unsigned rep = 1; rep <= o.reps; ++rep) {
            const sample s = run_once(p, init, nullptr);
            print_sample(workers, p, rep, s);
            sum += s.seconds;
        }
        std::fflush(stdout);
        std::fprintf(stderr, "bench_grain_size: workers=%u np=%zu (%zu/%zu): %zu partitions, mean %.4f s\n",
                     workers, p.np, k + 1, sizes.size(), p.partitions(), sum / o.reps);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    // The application options first, so that a bad one exits before any worker starts.
    const options o = parse_options(argc, argv);
    st::keep_freed_memory();  // the allocator settings every stencil benchmark runs under
    try {
        weft::runtime rt(argc, argv);  // --weft:threads=W (scripts/grain_size passes it)
        if (!wc::timing_enabled()) {
            std::fprintf(stderr, "bench_grain_size: task timing is off (--weft:counter-timing): idle-rate, "
                                 "task duration and overhead need it\n");
            return 2;
        }
        return study(o, rt.num_workers());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_grain_size: %s\n", e.what());
        return 1;
    }
}
