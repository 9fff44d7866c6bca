// Shared by the task-management overhead benchmark of seed 004 Fig. 9 (issue #27):
// the artificial work, the per-task job and its check, the options, the task count per
// point and the measurement loop. bench/overhead/{weft,std_async,tbb,omp}.cpp supply only
// how their runtime spawns the tasks and waits for them; bench/overhead/run prints the
// figure's shape.
//
// The method (seed 004 L170 and L138): "one million threads", each executing "a
// different amount of artificial workload", from none to "115 us of wait time"; the
// figure plots "the average overhead of HPX-thread management" against the cores used.
// Per point we take the definition that caption implies,
//     overhead per task = wall * W / n - work per task,
// with W the workers, n the tasks and the work per task measured, not assumed: the same
// job in a plain loop on one thread before any runtime starts, the fastest of blocks of
// about 1 ms (so that the serial cost of writing the task's result is not charged to
// the runtime either, nor a preemption during the measurement to the work).
//
// Deviation: 10^6 tasks of 115 us are 115 s of work per point. By default a point runs
// n = min(--max-tasks, --budget-s / work) tasks (10^6 at zero work); --tasks=N forces
// the seed's count (--tasks=1000000) or any other.
//
// One line per measured repetition (after one warm-up per point), the shared format of
// bench_common.hpp plus the point's keys:
//   weft-bench problem=overhead impl=<i> workers=<W> n=<n> calls=<n> seconds=<wall>
//              ns_per_call=<wall/n> result=<sum of the task results> shape=<flat|tree>
//              work_kind=<spin|loop> work_us=<asked> work_measured_us=<serial, per task>
//              overhead_us=<wall*W/n - measured> [wave=<K>]
#pragma once

#include "common/bench_common.hpp"

#include <algorithm>
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

namespace weft::bench::overhead {

// ---------------------------------------------------------------------------------------
// The artificial work

/// How a task spends its work: `spin` polls the steady clock until the time is up, as
/// HPX's own timed-task benchmarks do (the seed's "wait time", L170); `loop` runs a
/// calibrated dependent add, whose length is CPU work rather than wall time (a task
/// preempted by another process takes longer, which then shows as overhead).
enum class work_kind : unsigned char { spin, loop };

inline char const* to_string(work_kind k) noexcept { return k == work_kind::spin ? "spin" : "loop"; }

/// A dependent add the compiler can neither fold nor remove: the empty asm claims to
/// read and change the counter every iteration. Returns the iterations run.
inline std::uint64_t add_loop(std::uint64_t iters) noexcept {
    std::uint64_t counter = 0;
    for (std::uint64_t i = 0; i < iters; ++i) {
        counter += 1;
        asm volatile("" : "+r"(counter));
    }
    return counter;
}

/// Polls the steady clock until `ns` nanoseconds have passed (none: returns at once,
/// without reading the clock). Returns `ns`, so that the result does not depend on how
/// many polls it took.
inline std::uint64_t spin_for(std::int64_t ns) noexcept {
    if (ns <= 0) return 0;
    auto const end = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
    while (std::chrono::steady_clock::now() < end) {
    }
    return static_cast<std::uint64_t>(ns);
}

/// Loop iterations per microsecond on the calling thread: the loop grows until one run
/// lasts 100 us, then runs in such blocks for about 20 ms; the fastest block counts
/// (short blocks, so that some fall between two preemptions on a shared machine).
inline double calibrate_iters_per_us() {
    std::uint64_t n = 256;
    double seconds = time_seconds([&] { (void)add_loop(n); });
    while (seconds < 100e-6) {
        n *= 2;
        seconds = time_seconds([&] { (void)add_loop(n); });
    }
    double best = seconds;
    for (double spent = seconds; spent < 20e-3; spent += seconds) {
        seconds = time_seconds([&] { (void)add_loop(n); });
        best = std::min(best, seconds);
    }
    return static_cast<double>(n) / (best * 1e6);
}

/// One task's work, the same in every implementation.
struct work {
    work_kind kind = work_kind::spin;
    std::int64_t ns = 0;      ///< spin: the length asked for
    std::uint64_t iters = 0;  ///< loop: the calibrated iterations

    std::uint64_t run() const noexcept { return kind == work_kind::spin ? spin_for(ns) : add_loop(iters); }
    /// What run() returns.
    std::uint64_t expected() const noexcept { return kind == work_kind::spin ? static_cast<std::uint64_t>(ns) : iters; }
};

// ---------------------------------------------------------------------------------------
// The job every task runs, and its check

/// A well-mixed, odd value per task index (splitmix64's finaliser, | 1 so it is never 0).
constexpr std::uint64_t task_value(std::uint64_t i) noexcept {
    std::uint64_t z = i + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (z ^ (z >> 31)) | 1u;
}

/// Task i runs the work, then adds task_value(i) plus the work's result to its own slot.
/// After a run every slot must hold exactly that once: an untouched slot is a task that
/// never ran, a doubled one a task that ran twice.
class job {
public:
    job(std::uint64_t* slots, work w) noexcept : slots_(slots), work_(w) {}

    void operator()(std::uint64_t i) const noexcept { slots_[i] += task_value(i) + work_.run(); }

private:
    std::uint64_t* slots_;
    work work_;
};

/// The slots of the runs (as many as the largest point needs), the job, and the check.
class task_slots {
public:
    explicit task_slots(std::uint64_t capacity) : capacity_(capacity), slots_(new std::uint64_t[capacity]) {}

    /// Zeroes the first n slots (n <= capacity).
    void clear(std::uint64_t n) noexcept {
        std::fill(slots_.get(), slots_.get() + std::min(n, capacity_), std::uint64_t{0});
    }
    job make_job(work const& w) const noexcept { return job(slots_.get(), w); }

    /// The sum of the first n slots when each of tasks 0..n-1 ran exactly once; otherwise
    /// names the first wrong task and what its slot holds, and exits 1.
    std::uint64_t check(char const* impl, work const& w, std::uint64_t n) const {
        std::uint64_t sum = 0;
        std::uint64_t const extra = w.expected();
        for (std::uint64_t i = 0; i < n; ++i) {
            std::uint64_t const want = task_value(i) + extra;
            if (slots_[i] != want) {
                std::fprintf(stderr,
                             "weft-bench problem=overhead impl=%s: WRONG RESULT: task %llu of %llu left %llu in "
                             "its slot, expected %llu (0: it never ran; twice the value: it ran twice)\n",
                             impl, static_cast<unsigned long long>(i), static_cast<unsigned long long>(n),
                             static_cast<unsigned long long>(slots_[i]), static_cast<unsigned long long>(want));
                std::exit(1);
            }
            sum += want;
        }
        return sum;
    }

private:
    std::uint64_t capacity_;
    std::unique_ptr<std::uint64_t[]> slots_;
};

// ---------------------------------------------------------------------------------------
// Options

/// How the tasks are spawned: `flat`, one task spawns all n in a loop and waits (the
/// seed's: its figure is one producer of 10^6 HPX threads); `tree`, a recursive binary
/// split of [0, n) in which every split spawns its left half and recurses into the right
/// (n - 1 extra spawns, all of them waits).
enum class shape : unsigned char { flat, tree };

inline char const* to_string(shape s) noexcept { return s == shape::flat ? "flat" : "tree"; }

/// What one program offers: its implementations (impl= names; all run by default), the
/// default --max-tasks, and whether it takes --wave (std::async's bound on live threads).
struct program {
    char const* name = "bench_overhead";
    std::vector<std::string> impls;
    std::uint64_t max_tasks = 1000000;
    bool has_wave = false;
};

struct options {
    unsigned workers = 0;  ///< 0: not given
    std::vector<double> work_us{0, 1, 2, 5, 10, 20, 50, 115};
    std::uint64_t tasks = 0;  ///< 0: min(max_tasks, budget_s / work)
    std::uint64_t max_tasks = 1000000;
    double budget_s = 0.5;
    unsigned reps = 3;
    std::vector<shape> shapes{shape::flat};
    work_kind kind = work_kind::spin;
    double iters_per_us = 0;  ///< 0: calibrate at start (loop only)
    std::vector<std::string> impls;
    std::uint64_t wave = 256;
};

namespace detail {

[[noreturn]] inline void usage(program const& p, char const* argv0, int status) {
    std::string impls;
    for (std::string const& i : p.impls) impls += (impls.empty() ? "" : ",") + i;
    std::FILE* const out = status == 0 ? stdout : stderr;
    std::fprintf(out,
                 "usage: %s [options] [--weft:...]\n"
                 "Task-management overhead, seed 004 Fig. 9: n tasks, each with an artificial work of\n"
                 "--work-us, spawned by one task; overhead per task = wall * W / n - work per task.\n"
                 "  --workers=N        worker threads, >= 1 (default: hardware threads%s)\n"
                 "  --work-us=LIST     work per task in us, comma-separated, each in [0, 1000000]\n"
                 "                     (default 0,1,2,5,10,20,50,115)\n"
                 "  --tasks=N          tasks per point, >= 1 (default: min(--max-tasks, --budget-s / work);\n"
                 "                     the seed's is 1000000)\n"
                 "  --max-tasks=N      the default's upper bound, >= 1 (default %llu)\n"
                 "  --budget-s=S       work in seconds per point for the default count, in (0, 3600]\n"
                 "                     (default 0.5)\n"
                 "  --reps=N           measured repetitions per point after one warm-up, >= 1 (default 3)\n"
                 "  --shapes=LIST      flat (one task spawns all, the seed's) and/or tree (recursive\n"
                 "                     binary split) (default flat)\n"
                 "  --work-kind=K      spin (poll the steady clock, the seed's wait time; default) or\n"
                 "                     loop (a calibrated dependent add)\n"
                 "  --iters-per-us=X   loop iterations per us, > 0 (default: calibrated at start)\n"
                 "  --impls=LIST       any of %s (default all)\n",
                 argv0, p.has_wave ? "; the process is bound to the first N CPUs it may use" : "",
                 static_cast<unsigned long long>(p.max_tasks), impls.c_str());
    if (p.has_wave) {
        std::fprintf(out, "  --wave=K           at most K tasks (OS threads) alive at once: the tasks run in\n"
                          "                     waves of K, each joined before the next (default 256)\n");
    }
    std::fprintf(out, "  --weft:*           weft's runtime options (--weft:threads=N ...); the anchors ignore them\n"
                      "  --help             this text\n");
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
    std::fprintf(stderr, "overhead: bad %.*s=%.*s: want %s\n", static_cast<int>(name.size()), name.data(),
                 static_cast<int>(value.size()), value.data(), wanted);
    return false;
}

/// Calls item(text) for every comma-separated item of `list`; false when one is refused.
template <class Item>
bool for_each_item(std::string_view list, Item item) {
    while (true) {
        std::size_t const comma = list.find(',');
        if (!item(list.substr(0, comma))) return false;
        if (comma == std::string_view::npos) return true;
        list.remove_prefix(comma + 1);
    }
}

}  // namespace detail

/// Parses the command line (see detail::usage); a non-release build refuses to run
/// (weft::bench::parse_command_line). An unknown or malformed option exits 2, naming it
/// and what is accepted.
inline options parse_options(int argc, char** argv, program const& p) {
    options o;
    o.max_tasks = p.max_tasks;
    o.impls = p.impls;
    auto const usage = [&p](char const* argv0, int status) { detail::usage(p, argv0, status); };
    parse_command_line(argc, argv, usage, [&](std::string_view name, std::string_view v) {
        using weft::bench::detail::parse_number;
        if (name == "--workers") {
            return (parse_number(v, o.workers) && o.workers >= 1) || detail::refuse(name, v, "a positive integer");
        }
        if (name == "--tasks") {
            return (parse_number(v, o.tasks) && o.tasks >= 1) || detail::refuse(name, v, "a positive integer");
        }
        if (name == "--max-tasks") {
            return (parse_number(v, o.max_tasks) && o.max_tasks >= 1) ||
                   detail::refuse(name, v, "a positive integer");
        }
        if (name == "--reps") {
            return (parse_number(v, o.reps) && o.reps >= 1) || detail::refuse(name, v, "a positive integer");
        }
        if (name == "--budget-s") {
            return (detail::parse_double(v, o.budget_s) && o.budget_s > 0 && o.budget_s <= 3600) ||
                   detail::refuse(name, v, "seconds in (0, 3600]");
        }
        if (name == "--iters-per-us") {
            return (detail::parse_double(v, o.iters_per_us) && o.iters_per_us > 0 && o.iters_per_us < 1e7) ||
                   detail::refuse(name, v, "a positive number of loop iterations per us");
        }
        if (name == "--work-kind") {
            if (v == "spin") o.kind = work_kind::spin;
            else if (v == "loop") o.kind = work_kind::loop;
            else return detail::refuse(name, v, "spin or loop");
            return true;
        }
        if (name == "--work-us") {
            std::vector<double> list;
            bool const ok = detail::for_each_item(v, [&](std::string_view item) {
                double us = 0;
                if (!detail::parse_double(item, us) || us < 0 || us > 1e6) return false;
                list.push_back(us);
                return true;
            });
            if (!ok) return detail::refuse(name, v, "comma-separated microseconds, each in [0, 1000000]");
            o.work_us = std::move(list);
            return true;
        }
        if (name == "--shapes") {
            std::vector<shape> list;
            bool const ok = detail::for_each_item(v, [&](std::string_view item) {
                if (item == "flat") list.push_back(shape::flat);
                else if (item == "tree") list.push_back(shape::tree);
                else return false;
                return true;
            });
            if (!ok) return detail::refuse(name, v, "a comma-separated list of flat,tree");
            o.shapes = std::move(list);
            return true;
        }
        if (name == "--impls") {
            std::vector<std::string> list;
            bool const ok = detail::for_each_item(v, [&](std::string_view item) {
                if (std::find(p.impls.begin(), p.impls.end(), item) == p.impls.end()) return false;
                list.emplace_back(item);
                return true;
            });
            if (!ok) {
                std::string wanted = "a comma-separated list of";
                for (std::string const& i : p.impls) wanted += " " + i;
                return detail::refuse(name, v, wanted.c_str());
            }
            o.impls = std::move(list);
            return true;
        }
        if (name == "--wave" && p.has_wave) {
            return (parse_number(v, o.wave) && o.wave >= 1 && o.wave <= 100000) ||
                   detail::refuse(name, v, "a number of threads in [1, 100000]");
        }
        std::fprintf(stderr, "overhead: unknown option %.*s\n", static_cast<int>(name.size()), name.data());
        return false;
    });
    return o;
}

// ---------------------------------------------------------------------------------------
// Points and the measurement loop

/// One work length: its task count, its work and the work's serial cost per task.
struct point {
    double work_us = 0;
    std::uint64_t n = 0;
    work w;
    double measured_us = 0;  ///< the job's serial time per task (work + slot update)
};

/// The task count for a work length (see the head comment).
inline std::uint64_t tasks_for(options const& o, double work_us) {
    if (o.tasks != 0) return o.tasks;
    if (work_us <= 0) return o.max_tasks;
    double const fit = std::floor(o.budget_s * 1e6 / work_us);
    if (fit >= static_cast<double>(o.max_tasks)) return o.max_tasks;
    return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(fit));
}

/// The job's serial time per task: a plain loop over blocks of the point's first tasks
/// (as many as take about 1 ms, at least 8, at most n), at least 5 blocks and then more
/// until about 20 ms are spent; the fastest block counts, since whatever else the machine
/// runs can only add to it (short blocks, so that some fall between two preemptions).
inline double measure_serial_us(point const& p) {
    double const per_task_guess = std::max(p.work_us, 1e-3);
    auto const wanted = static_cast<std::uint64_t>(std::ceil(1e3 / per_task_guess));
    std::uint64_t const m = std::min(p.n, std::max<std::uint64_t>(8, wanted));
    task_slots slots(m);
    job const j = slots.make_job(p.w);
    double best = 0;
    double spent = 0;
    for (int block = 0; block < 5 || (spent < 20e-3 && block < 200); ++block) {
        slots.clear(m);
        double const t = time_seconds([&] {
            for (std::uint64_t i = 0; i < m; ++i) j(i);
        });
        (void)slots.check("serial", p.w, m);
        best = block == 0 ? t : std::min(best, t);
        spent += t;
    }
    return best * 1e6 / static_cast<double>(m);
}

/// Calibrates the loop if needed and measures every point's serial work: call it before
/// a runtime starts its workers, which would share the cores with the measurement.
inline std::vector<point> prepare(options const& o) {
    double rate = o.iters_per_us;
    if (o.kind == work_kind::loop && rate <= 0) rate = calibrate_iters_per_us();
    std::vector<point> points;
    for (double us : o.work_us) {
        point p;
        p.work_us = us;
        p.n = tasks_for(o, us);
        p.w.kind = o.kind;
        p.w.ns = static_cast<std::int64_t>(std::llround(us * 1e3));
        p.w.iters = us <= 0 ? 0 : std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(us * rate)));
        p.measured_us = measure_serial_us(p);
        points.push_back(p);
    }
    if (o.kind == work_kind::loop) {
        std::printf("weft-bench-calibration problem=overhead iters_per_us=%.3f source=%s\n", rate,
                    o.iters_per_us > 0 ? "given" : "measured");
        std::fflush(stdout);
    }
    return points;
}

/// For every shape, implementation and point: one warm-up and o.reps measured runs of
/// run(impl, shape, n, job), each checked (a wrong run exits 1) and printed. `extra` is
/// appended to every line (e.g. "wave=256").
template <class Run>
void run_all(options const& o, std::vector<point> const& points, unsigned workers, std::string const& extra,
             Run run) {
    std::uint64_t largest = 1;
    for (point const& p : points) largest = std::max(largest, p.n);
    task_slots slots(largest);
    for (shape const s : o.shapes) {
        for (std::string const& impl : o.impls) {
            for (point const& p : points) {
                job const j = slots.make_job(p.w);
                for (unsigned rep = 0; rep <= o.reps; ++rep) {  // rep 0: the warm-up
                    slots.clear(p.n);
                    double const seconds = time_seconds([&] { run(impl, s, p.n, j); });
                    std::uint64_t const sum = slots.check(impl.c_str(), p.w, p.n);
                    if (rep == 0) continue;
                    double const overhead_us =
                        seconds * static_cast<double>(workers) * 1e6 / static_cast<double>(p.n) - p.measured_us;
                    std::printf("weft-bench problem=overhead impl=%s workers=%u n=%llu calls=%llu seconds=%.6f "
                                "ns_per_call=%.3f result=%llu shape=%s work_kind=%s work_us=%g "
                                "work_measured_us=%.4f overhead_us=%.4f%s%s\n",
                                impl.c_str(), workers, static_cast<unsigned long long>(p.n),
                                static_cast<unsigned long long>(p.n), seconds,
                                seconds * 1e9 / static_cast<double>(p.n), static_cast<unsigned long long>(sum),
                                to_string(s), to_string(p.w.kind), p.work_us, p.measured_us, overhead_us,
                                extra.empty() ? "" : " ", extra.c_str());
                    std::fflush(stdout);
                }
            }
        }
    }
}

}  // namespace weft::bench::overhead
