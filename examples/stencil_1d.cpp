// Heat diffusion on a ring, the way HPX's 1d_stencil_4 computes it (seed 000 §5.1.1):
// the ring of nx points is cut into partitions of np points, and each partition's next
// time step is a task that runs as soon as the partition and its two neighbours are ready
// at the current step. No barrier separates the steps: weft::dataflow wires the tasks
// together through futures, and the result is checked against a plain serial loop.
//
// With --adapt=OBJECTIVE the stencil runs --trials times while weft's policy engine tunes
// np between runs, as seed 000 §7.1 tuned HPX's stencil with APEX: np is a tunable over
// the divisors of nx, and each run ends with an event on which the engine reports the
// objective (a performance counter or the wall time) to the tunable's search. With
// --samples=K each trial is K runs at one size, and the search sees their median (on a
// noisy machine one run says little).
//
//   weft_stencil_1d [--nx=N] [--np=N] [--nt=N] [--adapt=OBJECTIVE [--trials=N] [--samples=K]]
//                   [--weft:threads=N]
//
// Exits 1 when a result does not match the serial one, 2 on a bad option.
#include "example_options.hpp"

#include <weft/adapt/policy.hpp>
#include <weft/weft.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using partition = std::vector<double>;

// The heat equation, explicit in time: k = 0.5, dt = 1, dx = 1, as in HPX.
constexpr double k = 0.5;
constexpr double dt = 1.0;
constexpr double dx = 1.0;

double heat(double left, double middle, double right) {
    return middle + (k * dt / (dx * dx)) * (left - 2.0 * middle + right);
}

/// Partition m one step later; l and r are its neighbours on the ring.
partition heat_part(const partition& l, const partition& m, const partition& r) {
    const std::size_t n = m.size();
    partition next(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double left = i == 0 ? l.back() : m[i - 1];
        const double right = i + 1 == n ? r.front() : m[i + 1];
        next[i] = heat(left, m[i], right);
    }
    return next;
}

/// The same nt steps on the whole ring, one point after the other.
std::vector<double> serial_heat(std::vector<double> cur, std::size_t nt) {
    const std::size_t n = cur.size();
    std::vector<double> next(n);
    for (std::size_t t = 0; t < nt; ++t) {
        for (std::size_t x = 0; x < n; ++x) next[x] = heat(cur[(x + n - 1) % n], cur[x], cur[(x + 1) % n]);
        cur.swap(next);
    }
    return cur;
}

/// Same values, or within 1e-12 relative: the two computations do the same arithmetic
/// per point, but a compiler may still contract it differently (into FMAs) in each.
bool same(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t x = 0; x < a.size(); ++x) {
        if (!(std::fabs(a[x] - b[x]) <= 1e-12 * std::fabs(b[x]))) return false;
    }
    return true;
}

/// nt steps of the ring `initial`, cut into partitions of np points (the last one takes
/// the rest); returns the ring after them.
std::vector<double> heat_dataflow(const std::vector<double>& initial, std::size_t np, std::size_t nt) {
    const std::size_t nx = initial.size();
    const std::size_t parts = (nx + np - 1) / np;

    // U[i]: partition i at the current step, as a future that is ready once computed.
    std::vector<weft::shared_future<partition>> U(parts);
    for (std::size_t i = 0; i < parts; ++i) {
        const auto first = initial.begin() + static_cast<std::ptrdiff_t>(i * np);
        const auto last = initial.begin() + static_cast<std::ptrdiff_t>(std::min(nx, (i + 1) * np));
        U[i] = weft::make_ready_future(partition(first, last));
    }

    std::vector<weft::shared_future<partition>> next(parts);
    // U[j] is read by partitions j-1, j and j+1 of the next step. Its last reader (in
    // the order the loop below builds them) takes it out of U instead of a copy, so
    // the loop keeps no reference of its own and each partition is freed as soon as
    // its three readers have run: memory stays small and warm. U[j] is last read by
    // partition j+1, except U[0], U[n-2] and U[n-1], all last read by partition n-1.
    const auto input = [&U, parts](std::size_t j, bool last_read) {
        return last_read && parts >= 3 ? std::move(U[j]) : U[j];
    };
    for (std::size_t t = 0; t < nt; ++t) {
        for (std::size_t i = 0; i < parts; ++i) {
            const bool last = i + 1 == parts;
            const std::size_t left = i == 0 ? parts - 1 : i - 1;
            const std::size_t right = last ? 0 : i + 1;
            auto l = input(left, i >= 2);
            auto m = input(i, last);
            auto r = input(right, last);
            // Runs heat_part once the three are ready; unwrapping hands it their
            // values. Each dataflow lets go of its inputs as soon as it has run.
            next[i] = weft::dataflow(weft::unwrapping(heat_part), std::move(l), std::move(m), std::move(r)).share();
        }
        U.swap(next);  // the whole graph is built ahead; the tasks run as it grows
    }

    std::vector<double> result;
    result.reserve(nx);
    for (const auto& f : U) result.insert(result.end(), f.get().begin(), f.get().end());
    return result;
}

// --adapt: the policy engine tunes np between runs (seed 000 §7.1, HPX's
// 1d_stencil_4_repart). It minimizes one of the seed's counters or the wall time.

/// What --adapt=NAME minimizes (NAME is one of the words --adapt accepts).
weft::adapt::objective objective_named(const std::string& name) {
    if (name == "wall-time") return weft::adapt::objective::wall_time();
    if (name == "idle-rate") return weft::adapt::objective::counter("/threads/idle-rate");
    return weft::adapt::objective::counter("/threads/time/" + name);  // cumulative, cumulative-overhead, overall
}

/// The partition sizes to try: the divisors of nx from 1000 points (nx/1000 if smaller)
/// up to nx/workers, so that every worker gets a partition; doublings if nx has few.
std::vector<double> partition_sizes(std::size_t nx, std::size_t workers) {
    const std::size_t lo = std::max<std::size_t>(1, std::min<std::size_t>(1000, nx / 1000));
    const std::size_t hi = std::max(lo, nx / workers);
    std::vector<double> sizes;
    for (std::size_t d = 1; d * d <= nx; ++d) {
        if (nx % d != 0) continue;
        for (const std::size_t s : {d, nx / d})
            if (lo <= s && s <= hi) sizes.push_back(static_cast<double>(s));
    }
    if (sizes.size() < 8) {
        sizes.clear();
        for (std::size_t s = lo; s < hi; s *= 2) sizes.push_back(static_cast<double>(s));
        sizes.push_back(static_cast<double>(hi));
    }
    return sizes;  // domain::ordered sorts them
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t nx = 1'000'000;  // points on the ring
    std::size_t np = 10'000;     // points per partition
    std::size_t nt = 100;        // time steps
    std::string adapt;           // --adapt: the objective; empty: one run at np
    std::size_t trials = 20;     // --adapt: the search's budget in trials
    std::size_t samples = 1;     // --adapt: runs per trial
    constexpr std::size_t max_points = 100'000'000;
    weft::examples::options opts("weft_stencil_1d", "heat diffusion on a ring, as HPX's 1d_stencil_4 (dataflow)");
    opts.number("--nx", nx, std::size_t{1}, max_points, "points on the ring")
        .number("--np", np, std::size_t{1}, max_points, "points per partition, at most --nx")
        .number("--nt", nt, std::size_t{1}, std::size_t{1'000'000}, "time steps")
        .word("--adapt", adapt, {"idle-rate", "cumulative", "cumulative-overhead", "overall", "wall-time"},
              "tune np between runs, minimizing this objective")
        .number("--trials", trials, std::size_t{1}, std::size_t{1000}, "--adapt: the search's budget in trials")
        .number("--samples", samples, std::size_t{1}, std::size_t{100}, "--adapt: runs per trial (their median counts)");
    opts.parse(argc, argv);
    if (np > nx)
        opts.fail("bad value '" + std::to_string(np) + "' for --np: expected a whole number from 1 to --nx (" +
                  std::to_string(nx) + ")");
    return weft::run(argc, argv, [=](int, char**) {
        std::vector<double> initial(nx);
        for (std::size_t x = 0; x < nx; ++x) initial[x] = std::sin(static_cast<double>(x));
        const std::vector<double> expected = serial_heat(initial, nt);
        const double updates = static_cast<double>(nx) * static_cast<double>(nt);

        if (adapt.empty()) {
            const auto start = std::chrono::steady_clock::now();
            const std::vector<double> result = heat_dataflow(initial, np, nt);
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            const bool ok = same(result, expected);
            std::printf("1D heat stencil: %zu points in %zu partitions of %zu, %zu time steps, %u worker(s)\n", nx,
                        (nx + np - 1) / np, np, nt, weft::num_workers());
            std::printf("time: %.3f s, %.3f ms per step, %.1f M points per second\n", seconds,
                        seconds * 1e3 / static_cast<double>(nt), updates / seconds / 1e6);
            std::printf("result matches serial: %s\n", ok ? "yes" : "NO");
            return ok ? 0 : 1;
        }

        // The tunable np, over the candidate sizes; tune() makes each "end-iteration"
        // event report the objective over the interval since "start-iteration" (one run)
        // to the search (a U-shape bracket: time against grain size is U-shaped), which
        // then moves np.value() to the next size to try, or to the best once done.
        const auto sizes = weft::adapt::domain::ordered(partition_sizes(nx, weft::num_workers()));
        weft::adapt::tunable_options options;
        options.search.max_trials = trials;
        options.samples = samples;  // runs per trial: the search sees their median
        weft::adapt::tunable np_tuned("stencil-np", sizes, options);
        const weft::adapt::policy_handle policy = weft::adapt::tune(np_tuned, objective_named(adapt), "end-iteration",
                                                                    "start-iteration");
        std::printf("1D heat stencil: %zu points, %zu time steps, %u worker(s); tuning np for %s over %zu sizes\n", nx,
                    nt, weft::num_workers(), adapt.c_str(), np_tuned.range().size());
        bool ok = true;
        for (std::size_t run = 1; run <= trials * samples; ++run) {
            const auto size = static_cast<std::size_t>(np_tuned.integer());
            const bool trial = np_tuned.searching();
            weft::adapt::trigger("start-iteration");
            const auto start = std::chrono::steady_clock::now();
            const std::vector<double> result = heat_dataflow(initial, size, nt);
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            weft::adapt::end_iteration();
            const bool same_result = same(result, expected);
            ok = ok && same_result;
            std::printf("run %zu: np %zu, %.3f ms per step%s%s\n", run, size, seconds * 1e3 / static_cast<double>(nt),
                        trial ? " (trial)" : "", same_result ? "" : ", result does NOT match serial");
        }
        std::printf("chosen np: %lld after %zu trials (%s)\n", std::llround(np_tuned.best()), np_tuned.trials(),
                    np_tuned.converged() ? "converged" : np_tuned.searching() ? "still searching" : "budget spent");
        std::printf("results match serial: %s\n", ok ? "yes" : "NO");
        return ok ? 0 : 1;
    });
}
