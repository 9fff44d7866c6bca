// The 1D heat stencil on weft in HPX's shape (1d_stencil_4, seed 000 §5.1.1; digest §3.1):
// one shared_future per partition per step; partition i of step t+1 is
//   weft::dataflow(heat_step, U[i-1], U[i], U[i+1]).share()
// so a partition's task starts as soon as its three inputs are ready, with no barrier
// between steps. Every partition of every step is a fresh, uninitialised array, as in HPX
// (heat_part allocates `new double[n]`). One task builds the whole graph (nt steps) up
// front, then waits for the last step; the timing covers both.
//   weft-dataflow  the above
//
// heat_step takes its three futures by value, not through weft::unwrapping(heat_part):
// dataflow passes the futures it stored to the function as rvalues but keeps them in its
// block until its own result is released, so with unwrapping (which only borrows them)
// each step's block holds the previous step alive and a run keeps all nt steps (at 10^7
// points and 20 steps: 1.8 GB instead of 0.35 GB, and 5-7x the time per step, mostly in
// page faults). Moved into parameters, they are released as soon as the task has run,
// as HPX releases a dataflow's inputs.
//
// --adapt=OBJECTIVE (issue #6; seed 000 §7.1's 1d_stencil_4_repart, digest 000 §1.17):
// instead of --reps runs at --np, --trials runs in which the policy engine tunes the
// partition size. The candidates are the divisors of nx from 1000 points (nx/1000 if
// smaller) up to nx/workers, so that every worker has a partition, as the seed's divisors
// of nx (a doubling sequence if nx has fewer than 8 such divisors); the tunable
// "stencil-np" searches them in order (weft::adapt::domain::ordered). Each run fires
// "start-iteration", computes nt steps at np = the tunable's value, fires "end-iteration";
// the engine then reports the objective over that interval to the tunable; after
// --samples such runs at one size (a trial) the search gets their median and moves the
// tunable. --trials x --samples runs in all; every run's result is checked.
//
// --warmup=N (default 1): N untimed runs at a size whenever the size changes, in --adapt;
// the first size of a process gets 3 more. In one process, the first run at a new size
// costs what the previous sizes left behind (glibc's heaps grow, with page faults, or are
// carved differently), and a fresh process's first runs are slower still while its heaps
// grow to their steady size: the first timed runs of a process at 2 workers were 15-25 %
// slower than its later ones, which made the search's first trial (the start size) look
// worse than the next and biased it towards larger sizes (bench/RESULTS.md, 2026-11-25).
// A trial then measures the size itself, as a program that settles on it would see it.
// Lines (besides weft-bench's):
//   weft-adapt-candidates count=<n> np=<a,b,...>
//   weft-adapt run=<i> np=<np> seconds=<wall> searching=<0|1> result=<hash>
//   weft-adapt-summary objective=... strategy=... samples=... workers=... nx=... nt=... candidates=...
//     warmup=<N> chosen_np=<the search's answer> trials=... converged=<0|1> runs_after=<k>
//     seconds_after=<mean> warmup_runs=<untimed runs in all>
// searching=1: the run was a trial; seconds_after: the mean of the runs that were not
// (nan if none). --trials=0 prints the candidates only.
#include "stencil/weft_partition.hpp"

#include <weft/adapt/policy.hpp>
#include <weft/weft.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace st = weft::bench::stencil;
using st::partition;
using st::shared_partition;

namespace {

namespace wa = weft::adapt;

struct adapt_options {
    std::string objective;  // empty: no --adapt, the --reps mode
    unsigned warmup = 1;  // untimed runs after each change of size (3 more for the first)
    bool warmup_given = false;
    unsigned trials = 20;
    unsigned samples = 1;
    wa::strategy kind = wa::strategy::u_shape;
    std::string strategy_name = "u_shape";
    const char* tuning_option = nullptr;  // --trials, --samples or --strategy, if given
};

constexpr const char* objectives = "idle-rate, cumulative, cumulative-overhead, overall, wall-time";
constexpr const char* strategies = "u_shape, golden_section, nelder_mead, exhaustive";

/// What --adapt=NAME minimizes: one of seed 000 §7.1's four counters, or the wall time.
bool objective_of(std::string_view name, wa::objective& out) {
    if (name == "wall-time") out = wa::objective::wall_time();
    else if (name == "idle-rate") out = wa::objective::counter("/threads/idle-rate");
    else if (name == "cumulative") out = wa::objective::counter("/threads/time/cumulative");
    else if (name == "cumulative-overhead") out = wa::objective::counter("/threads/time/cumulative-overhead");
    else if (name == "overall") out = wa::objective::counter("/threads/time/overall");
    else return false;
    return true;
}

bool strategy_of(std::string_view name, wa::strategy& out) {
    if (name == "u_shape") out = wa::strategy::u_shape;
    else if (name == "golden_section") out = wa::strategy::golden_section;
    else if (name == "nelder_mead") out = wa::strategy::nelder_mead;
    else if (name == "exhaustive") out = wa::strategy::exhaustive;
    else return false;
    return true;
}

/// The partition sizes --adapt chooses from (see the head of this file).
std::vector<std::size_t> candidate_sizes(std::size_t nx, unsigned workers) {
    const std::size_t lo = std::max<std::size_t>(1, std::min<std::size_t>(1000, nx / 1000));
    const std::size_t hi = std::max(lo, nx / std::max(1u, workers));
    std::vector<std::size_t> sizes;
    for (std::size_t d = 1; d * d <= nx; ++d) {
        if (nx % d != 0) continue;
        for (const std::size_t v : {d, nx / d})
            if (v >= lo && v <= hi) sizes.push_back(v);
    }
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    if (sizes.size() >= 8) return sizes;
    sizes.clear();
    for (std::size_t v = lo; v < hi; v *= 2) sizes.push_back(v);
    sizes.push_back(hi);
    return sizes;
}

/// One run of p.nt steps at p.np from the initial grid; leaves the final grid in `grid`.
/// `around(step)` calls step() once: it times it, or fires events around it.
template <class Around>
void run_once(const st::problem& p, std::vector<double>& grid, Around&& around) {
    std::vector<shared_partition> U = st::make_partitions(p, grid);
    around([&] { st::run_steps(p, U); });
    for (std::size_t i = 0; i < p.partitions(); ++i) {
        const partition& v = U[i].get();
        std::copy(v.data(), v.data() + v.size(), grid.data() + p.begin(i));
    }
}

/// n runs of p, untimed but checked (warm-ups).
void untimed_runs(const st::problem& p, st::checker& check, unsigned n) {
    for (unsigned i = 0; i < n; ++i) {
        std::vector<double> grid = st::initial_grid(p);
        run_once(p, grid, [](auto&& step) { step(); });
        (void)check.check(grid);
    }
}

int run_adaptive(const st::problem& base, const adapt_options& a, unsigned workers) {
    namespace wb = weft::bench;
    const std::vector<std::size_t> sizes = candidate_sizes(base.nx, workers);
    std::printf("weft-adapt-candidates count=%zu np=", sizes.size());
    for (std::size_t i = 0; i < sizes.size(); ++i) std::printf("%s%zu", i ? "," : "", sizes[i]);
    std::printf("\n");
    std::fflush(stdout);
    if (a.trials == 0) return 0;

    wa::objective what;
    objective_of(a.objective, what);
    wa::tunable_options options;
    options.kind = a.kind;
    options.search.max_trials = a.trials;
    options.samples = a.samples;
    wa::tunable np("stencil-np", wa::domain::ordered(std::vector<double>(sizes.begin(), sizes.end())), options);
    const wa::policy_handle policy = wa::tune(np, what, "end-iteration", "start-iteration");

    st::checker check("weft-dataflow-adapt", base);
    double after_sum = 0;
    unsigned after = 0, warmup_runs = 0;
    std::size_t warm_np = 0;  // the size the last runs were at (0: none yet)
    const unsigned runs = a.trials * a.samples;
    for (unsigned run = 1; run <= runs; ++run) {
        st::problem p = base;
        p.np = static_cast<std::size_t>(np.integer());
        const bool searching = np.searching();
        if (p.np != warm_np) {
            const unsigned n = a.warmup + (warm_np == 0 ? 3 : 0);  // a fresh process warms up longer
            untimed_runs(p, check, n);
            warmup_runs += n;
            warm_np = p.np;
        }
        std::vector<double> grid = st::initial_grid(p);
        double seconds = 0;
        run_once(p, grid, [&](auto&& step) {
            wa::trigger("start-iteration");
            seconds = wb::time_seconds(step);
            wa::end_iteration();
        });
        const std::uint64_t hash = check.check(grid);
        if (!searching) {
            after_sum += seconds;
            ++after;
        }
        std::printf("weft-adapt run=%u np=%zu seconds=%.6f searching=%d result=%llu\n", run, p.np, seconds,
                    searching ? 1 : 0, static_cast<unsigned long long>(hash));
        std::fflush(stdout);
    }
    std::printf("weft-adapt-summary objective=%s strategy=%s samples=%u workers=%u nx=%zu nt=%u candidates=%zu "
                "warmup=%u chosen_np=%lld trials=%zu converged=%d runs_after=%u seconds_after=%.6f warmup_runs=%u\n",
                a.objective.c_str(), a.strategy_name.c_str(), a.samples, workers, base.nx, base.nt, sizes.size(),
                a.warmup, std::llround(np.best()), np.trials(), np.converged() ? 1 : 0, after,
                after > 0 ? after_sum / after : std::numeric_limits<double>::quiet_NaN(), warmup_runs);
    std::fflush(stdout);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    namespace wb = weft::bench;
    weft::runtime rt(argc, argv);  // --weft:threads=W (scripts/bench passes it)
    adapt_options a;
    const st::problem p = st::parse_problem(
        argc, argv,
        [&](std::string_view name, std::string_view v) {
            wa::objective unused;
            wa::strategy kind{};
            if (name == "--adapt") {
                if (!objective_of(v, unused)) {
                    std::fprintf(stderr, "%s: --adapt: unknown objective '%.*s' (accepted: %s)\n", argv[0],
                                 static_cast<int>(v.size()), v.data(), objectives);
                    return false;
                }
                a.objective = v;
                return true;
            }
            if (name == "--warmup") {
                a.warmup_given = true;
                if (!wb::detail::parse_number(v, a.warmup)) return false;
                if (a.warmup > 10) {
                    std::fprintf(stderr, "%s: --warmup: 0 to 10 untimed runs per size change (got %u)\n", argv[0],
                                 a.warmup);
                    return false;
                }
                return true;
            }
            if (name == "--trials") {
                a.tuning_option = "--trials";
                return wb::detail::parse_number(v, a.trials);
            }
            if (name == "--samples") {
                a.tuning_option = "--samples";
                if (!wb::detail::parse_number(v, a.samples)) return false;
                if (a.samples == 0 || a.samples > 100) {
                    std::fprintf(stderr, "%s: --samples: need 1 to 100 runs per trial (got %u)\n", argv[0], a.samples);
                    return false;
                }
                return true;
            }
            if (name == "--strategy") {
                if (!strategy_of(v, kind)) {
                    std::fprintf(stderr, "%s: --strategy: unknown strategy '%.*s' (accepted: %s)\n", argv[0],
                                 static_cast<int>(v.size()), v.data(), strategies);
                    return false;
                }
                a.kind = kind;
                a.strategy_name = v;
                a.tuning_option = "--strategy";
                return true;
            }
            return false;
        },
        "  --adapt=OBJ  tune --np over --trials runs, minimizing OBJ: idle-rate, cumulative,\n"
        "               cumulative-overhead, overall (the counters /threads/idle-rate,\n"
        "               /threads/time/{cumulative,cumulative-overhead,overall}) or wall-time\n"
        "  --trials=N   with --adapt: the search's budget in trials, one --samples runs each, after\n"
        "               one warm-up run; runs left after convergence repeat the chosen size\n"
        "               (default 20; 0: list the candidates)\n"
        "  --samples=N  with --adapt: runs per trial, the search sees their median (default 1)\n"
        "  --strategy=S with --adapt: u_shape (default), golden_section, nelder_mead, exhaustive\n"
        "  --warmup=N   with --adapt: untimed runs after each change of size, 3 more for the\n"
        "               first (default 1)\n");
    if (!a.objective.empty()) return run_adaptive(p, a, rt.num_workers());
    if (a.tuning_option != nullptr || a.warmup_given) {
        std::fprintf(stderr, "%s: %s needs --adapt=OBJECTIVE (%s)\n", argv[0],
                     a.tuning_option != nullptr ? a.tuning_option : "--warmup", objectives);
        return 2;
    }

    st::measure("weft-dataflow", rt.num_workers(), p, [&](std::vector<double>& grid) {
        double seconds = 0;
        run_once(p, grid, [&](auto&& step) { seconds = wb::time_seconds(step); });
        return seconds;
    });
    return 0;
}
