// Fork-join versus dataflow for recursive divide-and-conquer dynamic programs (2-way R-DP),
// seed 001 chapter 5 (L892-1292): Gaussian elimination without pivoting (GE, ge.hpp),
// Smith-Waterman local alignment (SW, sw.hpp) and Floyd-Warshall all-pairs shortest paths
// (FW, fw.hpp), each over one n x n table, in four forms that share this header:
//   serial.cpp         the serial recursion (the seed's A/B/C/D functions), plus the
//                      plain loop that every program uses as its oracle (impl=serial-loop)
//   weft_forkjoin.cpp  the same recursion on weft::task_group, with the seed's joins
//   weft_dataflow.cpp  one weft::dataflow task per base-case kernel, started when the tiles
//                      it reads and writes are ready: only the recurrence's dependencies
//   omp.cpp            the recursion on `omp task` + `omp taskwait` (the seed's OMP-Tasking)
//
// The recursion stops at a tile of side --base=B and runs the loop kernel there, so every
// form runs the same base-case kernels on the same tiles; they differ only in what may run
// at the same time. The recursion is written once per problem, over a `fork` policy:
// fork(f1, ..., fm) runs f1..fm, possibly in parallel, and returns when all have finished
// (one join). serial_fork calls them in order; the parallel forms spawn f1..f(m-1) as
// tasks, run fm themselves, then join (taskwait / task_group::wait); count_fork counts.
//
// Options (every program): --problem=ge|sw|fw, --n=N (table side; for SW the length of
// both sequences), --base=B (tile side of the base case; n must be B times a power of
// two), --reps=N, --workers=N (OpenMP threads; the weft programs take --weft:threads=N),
// --verify-order=1 (the order checker below, for tests: it slows every kernel down).
//
// The check: every process computes the plain-loop oracle on the same input (untimed
// outside serial.cpp), checks the oracle itself where a cheap independent test exists
// (GE: the backward error of its LU factors; FW: Bellman's equations on the graph), then
// compares every timed table with the oracle: SW and FW exactly (integers), GE within
// 1e-9 relative (it is bit for bit today: every cell receives the same operations in the
// same order in every form). With --verify-order=1 every kernel also checks the versions
// of the tiles it touches (order_checker): FW's final table cannot show a kernel that read
// a tile too late, after its next write. A failed check prints why and exits 1.
//
// Result line: bench_common.hpp's shape, problem=rdp_<ge|sw|fw>, n=<n>, calls=<base-case
// kernels> (seed eq. 5.1 for GE), result=<64-bit hash of the table>, then base=<B>,
// tiles=<n/B>, tasks=<tasks spawned>, joins=<joins waited>, fanins=<when_alls made>
// (the dataflow FW's write-after-read joins of readers), check=exact|tolerance
// max_err=<GE's largest relative difference> and, for SW, score=<best local score>.
#pragma once

#include "common/bench_common.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <string_view>

namespace weft::bench::rdp {

using idx = std::size_t;

enum class problem_id { ge, sw, fw };

struct options {
    problem_id problem = problem_id::ge;
    idx n = 0;     ///< 0 until parsed: then the problem's default
    idx base = 64;
    unsigned reps = 3;
    unsigned workers = 0;
    bool verify_order = false;  ///< check every kernel's tile versions (order_checker)
};

/// An n x n table (side `side`), row-major, rows padded to a cache line plus one more
/// line, so that a power-of-two side does not map a tile's column onto one cache set.
template <class T>
class table {
public:
    explicit table(idx side)
        : side_(side), ld_(round_up(side, line) + line),
          data_(static_cast<T*>(::operator new[](side * ld_ * sizeof(T), alignment))) {
        std::memset(data_.get(), 0, side_ * ld_ * sizeof(T));
    }

    idx side() const noexcept { return side_; }
    idx ld() const noexcept { return ld_; }
    T* data() noexcept { return data_.get(); }
    const T* data() const noexcept { return data_.get(); }
    T* row(idx i) noexcept { return data_.get() + i * ld_; }
    const T* row(idx i) const noexcept { return data_.get() + i * ld_; }
    T& at(idx i, idx j) noexcept { return data_.get()[i * ld_ + j]; }
    const T& at(idx i, idx j) const noexcept { return data_.get()[i * ld_ + j]; }

    void copy_from(const table& other) noexcept {
        std::memcpy(data_.get(), other.data_.get(), side_ * ld_ * sizeof(T));
    }

private:
    static constexpr std::align_val_t alignment{64};
    static constexpr idx line = 64 / sizeof(T);
    static idx round_up(idx v, idx m) noexcept { return (v + m - 1) / m * m; }
    struct deleter {
        void operator()(T* p) const noexcept { ::operator delete[](p, alignment); }
    };

    idx side_;
    idx ld_;
    std::unique_ptr<T[], deleter> data_;
};

/// FNV-1a over the bytes of rows [first, side), columns [first, side) of a table.
template <class T>
std::uint64_t hash(const table<T>& t, idx first = 0) noexcept {
    std::uint64_t h = 14695981039346656037ULL;
    for (idx i = first; i < t.side(); ++i) {
        const auto* bytes = reinterpret_cast<const unsigned char*>(t.row(i) + first);
        const idx count = (t.side() - first) * sizeof(T);
        for (idx b = 0; b < count; ++b) h = (h ^ bytes[b]) * 1099511628211ULL;
    }
    return h;
}

/// What a comparison with the oracle found.
struct verdict {
    bool ok = true;
    bool exact = true;
    double max_err = 0;  ///< GE only: the largest |got - want| / (1 + |want|)
    std::string why;     ///< when !ok: the first difference
};

/// Which kind of program calls measure: the serial one (the recursion, and the loop
/// reported too), a parallel recursion, or the dataflow graph (blocked order).
enum class form { serial, recursion, dataflow };

/// Tasks spawned, joins waited and fan-ins (when_all) made by one run of a form (0 for
/// serial); the one final wait of a parallel form is not counted.
struct form_counts {
    std::uint64_t tasks = 0;
    std::uint64_t joins = 0;
    std::uint64_t fanins = 0;
};

// ---- fork policies -------------------------------------------------------------------

/// fork(f1, ..., fm): runs each function in order on the caller (the serial recursion).
struct serial_fork {
    template <class... F>
    void operator()(F&&... f) const {
        (f(), ...);
    }
};

/// fork(f1, ..., fm) in order, counting what a parallel fork would do: m - 1 spawned
/// tasks (the last runs on the caller) and one join.
struct count_fork {
    form_counts* counts;
    template <class... F>
    void operator()(F&&... f) const {
        counts->tasks += sizeof...(F) - 1;
        counts->joins += 1;
        (f(), ...);
    }
};

/// True when n = base * 2^r for some r >= 0 (the recursion halves down to the base).
constexpr bool halves_to_base(idx n, idx base) noexcept {
    if (base == 0 || n < base || n % base != 0) return false;
    const idx tiles = n / base;
    return (tiles & (tiles - 1)) == 0;
}

// ---- the order checker ----------------------------------------------------------------

/// With --verify-order=1: every base-case kernel, whatever form runs it, first checks that
/// the tile it writes has had exactly K updates (K = its pivot tile; SW: 0) and that each
/// tile it reads holds exactly the version the recurrence prescribes (P::tile_reads),
/// with no kernel writing it at that moment, checks the read tiles again when it is done
/// (a write that overlapped the reads shows), then publishes its own tile's next version.
/// This catches what the final table cannot show for FW: a read of a newer version
/// (a missing write-after-read edge still gives the exact distances), and, for every
/// problem, any kernel run out of the recurrence's order. Each tile's version is
/// 2 * updates, + 1 while a kernel writes it.
class order_checker {
public:
    /// exact_reads: a read tile must hold exactly the prescribed version; otherwise at
    /// least that one (never one being written, either way).
    order_checker(idx tiles, idx base, bool exact_reads)
        : t_(tiles), base_(base), exact_reads_(exact_reads), versions_(new std::atomic<std::uint32_t>[tiles * tiles]) {
        for (idx x = 0; x < tiles * tiles; ++x) versions_[x].store(0, std::memory_order_relaxed);
    }

    template <class P>
    void before(idx i, idx j, idx k) noexcept {
        const idx ti = i / base_, tj = j / base_, tk = k / base_;
        std::atomic<std::uint32_t>& own = at(ti, tj);
        // acquire: the writes of the kernels that produced the versions seen here.
        const std::uint32_t v = own.load(std::memory_order_acquire);
        if (v != 2 * tk) report("writes", ti, tj, tk, ti, tj, v, 2 * tk);
        own.store(v + 1, std::memory_order_relaxed);  // relaxed: only a marker for readers
        check_reads<P>(ti, tj, tk);
    }

    template <class P>
    void after(idx i, idx j, idx k) noexcept {
        const idx ti = i / base_, tj = j / base_, tk = k / base_;
        check_reads<P>(ti, tj, tk);
        // release: publishes this kernel's writes with the new version.
        at(ti, tj).store(static_cast<std::uint32_t>(2 * tk + 2), std::memory_order_release);
    }

    /// After the run: no violation, and every tile got P::final_version updates.
    template <class P>
    bool finish(std::string& why) const {
        if (failed_.load(std::memory_order_acquire)) {
            why = message_;
            return false;
        }
        for (idx ti = 0; ti < t_; ++ti) {
            for (idx tj = 0; tj < t_; ++tj) {
                const std::uint32_t v = versions_[ti * t_ + tj].load(std::memory_order_acquire);
                if (v != 2 * P::final_version(ti, tj, t_)) {
                    why = "tile (" + std::to_string(ti) + ", " + std::to_string(tj) + ") got " + std::to_string(v / 2) +
                          " updates, not " + std::to_string(P::final_version(ti, tj, t_));
                    return false;
                }
            }
        }
        return true;
    }

private:
    std::atomic<std::uint32_t>& at(idx ti, idx tj) noexcept { return versions_[ti * t_ + tj]; }

    template <class P>
    void check_reads(idx ti, idx tj, idx tk) noexcept {
        P::tile_reads(ti, tj, tk, [&](idx ri, idx rj, idx updates) {
            if (ri == ti && rj == tj) return;  // its own tile: checked as the one it writes
            const std::uint32_t v = at(ri, rj).load(std::memory_order_acquire);
            const bool ok = exact_reads_ ? v == 2 * updates : v % 2 == 0 && v >= 2 * updates;
            if (!ok) report("reads", ti, tj, tk, ri, rj, v, 2 * updates);
        });
    }

    void report(const char* what, idx ti, idx tj, idx tk, idx ri, idx rj, std::uint32_t got, idx want) noexcept {
        bool expected = false;
        if (!claimed_.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) return;
        std::snprintf(message_, sizeof message_,
                      "kernel (%zu, %zu, K=%zu) %s tile (%zu, %zu) at version %u%s, expected %s%zu (versions count "
                      "updates; +1/2 means a kernel was writing it)",
                      ti, tj, tk, what, ri, rj, got / 2, got % 2 != 0 ? " + 1/2" : "",
                      exact_reads_ || what[0] == 'w' ? "" : "at least ", want / 2);
        failed_.store(true, std::memory_order_release);  // release: the message
    }

    idx t_;
    idx base_;
    bool exact_reads_;
    std::unique_ptr<std::atomic<std::uint32_t>[]> versions_;
    std::atomic<bool> claimed_{false};
    std::atomic<bool> failed_{false};
    char message_[256] = {};
};

/// The checker of the current run, or null (the default: no check, one branch per kernel).
inline order_checker* active_order_checker = nullptr;

/// Runs P's base-case kernel on tile (i, j) by pivots [k, k + s): what every form calls.
template <class P>
void run_kernel(const P& problem, table<typename P::value_type>& t, idx i, idx j, idx k, idx s) noexcept {
    order_checker* const checker = active_order_checker;
    if (checker != nullptr) checker->before<P>(i, j, k);
    problem.kernel(t, i, j, k, s);
    if (checker != nullptr) checker->after<P>(i, j, k);
}

// ---- command line --------------------------------------------------------------------

[[noreturn]] inline void usage(const char* program, int status) {
    std::fprintf(status == 0 ? stdout : stderr,
                 "usage: %s [--problem=ge|sw|fw] [--n=N] [--base=B] [--reps=N] [--workers=N] [--weft:...]\n"
                 "  --problem=P  ge: Gaussian elimination without pivoting (doubles)\n"
                 "               sw: Smith-Waterman local alignment, linear gaps (int32)\n"
                 "               fw: Floyd-Warshall all-pairs shortest paths (int32)\n"
                 "               (default ge)\n"
                 "  --n=N        table side (SW: length of both sequences); must be B times a\n"
                 "               power of two; GE 1..8192, SW and FW 1..16384\n"
                 "               (default: 1024 for ge and fw, 8192 for sw)\n"
                 "  --base=B     side of the base-case tile, 1..n (default 64)\n"
                 "  --reps=N     measured repetitions after one warm-up, 1..1000 (default 3)\n"
                 "  --workers=N  OpenMP threads (default: hardware concurrency); the weft\n"
                 "               programs take --weft:threads=N and ignore it\n"
                 "  --verify-order=0|1  1: also check that every base-case kernel sees exactly\n"
                 "               the tile versions the recurrence prescribes (slower; default 0)\n"
                 "  --weft:*     runtime options, ignored by the serial and OpenMP programs\n",
                 program);
    std::exit(status);
}

inline options parse_options(int argc, char** argv) {
    options o;
    parse_command_line(argc, argv, usage, [&](std::string_view name, std::string_view v) {
        using weft::bench::detail::parse_number;
        if (name == "--problem") {
            if (v == "ge") o.problem = problem_id::ge;
            else if (v == "sw") o.problem = problem_id::sw;
            else if (v == "fw") o.problem = problem_id::fw;
            else return false;
            return true;
        }
        if (name == "--n") return parse_number(v, o.n) && o.n >= 1 && o.n <= 16384;
        if (name == "--base") return parse_number(v, o.base) && o.base >= 1 && o.base <= 16384;
        if (name == "--reps") return parse_number(v, o.reps) && o.reps >= 1 && o.reps <= 1000;
        if (name == "--workers") return parse_number(v, o.workers) && o.workers >= 1 && o.workers <= 4096;
        if (name == "--verify-order") {
            if (v != "0" && v != "1") return false;
            o.verify_order = v == "1";
            return true;
        }
        return false;
    });
    const char* program = argc > 0 ? argv[0] : "bench_rdp";
    if (o.n == 0) o.n = o.problem == problem_id::sw ? 8192 : 1024;
    if (o.problem == problem_id::ge && o.n > 8192) {
        std::fprintf(stderr, "%s: --n=%zu is too large for ge (1..8192: three tables of n^2 doubles)\n", program, o.n);
        usage(program, 2);
    }
    if (!halves_to_base(o.n, o.base)) {
        std::fprintf(stderr, "%s: --n=%zu is not --base=%zu times a power of two (e.g. --n=1024 --base=64)\n",
                     program, o.n, o.base);
        usage(program, 2);
    }
    o.workers = default_workers(o.workers);
    return o;
}

/// Calls body.template operator()<P>() with P the problem type the options name:
/// ge, sw or fw from the headers the program included (declared in the caller).
template <class Ge, class Sw, class Fw, class Body>
void with_problem(const options& o, Body&& body) {
    switch (o.problem) {
    case problem_id::ge: body.template operator()<Ge>(); break;
    case problem_id::sw: body.template operator()<Sw>(); break;
    case problem_id::fw: body.template operator()<Fw>(); break;
    }
}

// ---- the measurement loop ------------------------------------------------------------

/// Makes the problem (its input), computes and checks the oracle (printing it as
/// impl=serial-loop for form::serial), then one warm-up and o.reps timed runs of
/// run(problem, table&) on fresh copies of the input, each compared with the oracle and
/// reported. Only `run` is timed. P is ge, sw or fw (ge.hpp describes the interface).
template <class P, class Run>
void measure(const char* impl, unsigned workers, const options& o, form kind, form_counts counts, Run&& run) {
    const bool report_loop = kind == form::serial;
    const bool exact_reads = kind == form::dataflow || P::recursion_reads_exact;
    using value_type = typename P::value_type;
    const P problem(o.n);
    const table<value_type>& input = problem.input();
    table<value_type> oracle(input.side());
    oracle.copy_from(input);
    const double loop_seconds = time_seconds([&] { problem.iterative(oracle); });
    if (std::string why; !problem.validate_oracle(oracle, why)) {
        std::fprintf(stderr, "weft-bench problem=%s impl=%s: the loop oracle fails its own check: %s\n", P::name,
                     impl, why.c_str());
        std::exit(1);
    }
    const std::uint64_t expected = hash(oracle, P::first_cell);
    const std::uint64_t calls = P::base_calls(o.n, o.base);
    const std::uint64_t tiles = o.n / o.base;
    if (report_loop) {
        // calls = cell updates of the loop (eq. 5.1 with m = 1 for GE): its ns_per_call
        // is per cell update, not per base case.
        const std::uint64_t updates = P::base_calls(o.n, 1);
        std::printf("weft-bench problem=%s impl=serial-loop workers=1 n=%zu calls=%llu seconds=%.6f "
                    "ns_per_call=%.3f result=%llu base=1 tiles=%zu tasks=0 joins=0 fanins=0 check=oracle%s\n",
                    P::name, o.n, static_cast<unsigned long long>(updates), loop_seconds,
                    loop_seconds * 1e9 / static_cast<double>(updates), static_cast<unsigned long long>(expected),
                    o.n, problem.extra(oracle).c_str());
        std::fflush(stdout);
    }

    table<value_type> work(input.side());
    for (unsigned rep = 0; rep <= o.reps; ++rep) {  // rep 0: the warm-up
        work.copy_from(input);
        std::unique_ptr<order_checker> checker;
        if (o.verify_order) checker = std::make_unique<order_checker>(o.n / o.base, o.base, exact_reads);
        active_order_checker = checker.get();
        const double seconds = time_seconds([&] { run(problem, work); });
        active_order_checker = nullptr;
        if (std::string why; checker && !checker->finish<P>(why)) {
            std::fprintf(stderr, "weft-bench problem=%s impl=%s n=%zu base=%zu: WRONG ORDER: %s\n", P::name, impl,
                         o.n, o.base, why.c_str());
            std::exit(1);
        }
        const verdict v = problem.compare(work, oracle);
        if (!v.ok) {
            std::fprintf(stderr, "weft-bench problem=%s impl=%s n=%zu base=%zu: WRONG TABLE: %s\n", P::name, impl,
                         o.n, o.base, v.why.c_str());
            std::exit(1);
        }
        if (rep == 0) continue;
        std::printf("weft-bench problem=%s impl=%s workers=%u n=%zu calls=%llu seconds=%.6f ns_per_call=%.3f "
                    "result=%llu base=%zu tiles=%llu tasks=%llu joins=%llu fanins=%llu check=%s",
                    P::name, impl, workers, o.n, static_cast<unsigned long long>(calls), seconds,
                    seconds * 1e9 / static_cast<double>(calls),
                    static_cast<unsigned long long>(hash(work, P::first_cell)), o.base,
                    static_cast<unsigned long long>(tiles), static_cast<unsigned long long>(counts.tasks),
                    static_cast<unsigned long long>(counts.joins), static_cast<unsigned long long>(counts.fanins),
                    v.exact ? "exact" : "tolerance");
        if constexpr (P::has_tolerance) std::printf(" max_err=%.3g", v.max_err);
        std::printf("%s%s\n", problem.extra(work).c_str(), o.verify_order ? " order=verified" : "");
        std::fflush(stdout);
    }
}

/// The recursion of P over table t, with base-case tiles of side `base` and the given
/// fork policy, each base case running P's loop kernel.
template <class P, class Fork>
void run_recursive(const P& problem, table<typename P::value_type>& t, idx base, Fork& fork) {
    P::recurse(problem.n(), base, fork, [&problem, &t](idx i, idx j, idx k, idx s) { run_kernel(problem, t, i, j, k, s); });
}

/// Tasks and joins of the fork-join forms: the recursion run with count_fork and no kernel.
template <class P>
form_counts fork_join_counts(const options& o) {
    form_counts c;
    count_fork fork{&c};
    P::recurse(o.n, o.base, fork, [](idx, idx, idx, idx) noexcept {});
    return c;
}

/// Exact comparison of two integer tables over rows and columns [first, side).
template <class T>
verdict compare_exact(const table<T>& got, const table<T>& want, idx first) {
    verdict v;
    for (idx i = first; i < want.side(); ++i) {
        if (std::memcmp(got.row(i) + first, want.row(i) + first, (want.side() - first) * sizeof(T)) == 0) continue;
        for (idx j = first; j < want.side(); ++j) {
            if (got.at(i, j) == want.at(i, j)) continue;
            v.ok = false;
            v.exact = false;
            v.why = "cell (" + std::to_string(i) + ", " + std::to_string(j) + ") is " + std::to_string(got.at(i, j)) +
                    ", the loop oracle has " + std::to_string(want.at(i, j));
            return v;
        }
    }
    return v;
}

}  // namespace weft::bench::rdp
