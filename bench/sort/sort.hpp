// Sort in the shape of the Barcelona OpenMP Tasks Suite's sort (Duran et al. 2009; the
// Cilk project's `cilksort`, seed 001 ch.3 "Multisort"): a 4-way merge sort whose merges
// are themselves parallel. Shared by bench/sort/{serial,weft,tbb,omp}.cpp and by INNCABS's
// Sort (bench/inncabs/sort.cpp): the sequential pieces, one recursion step of the sort and
// of the merge, the fork-join recursion on a task group, the input, the check, the options
// and the result line.
//
// The algorithm, on n elements of `elm` with a scratch array of the same size:
//   sort(in, tmp, n): if n < quick cutoff: sequential quicksort (median-of-3 pivot; ranges
//       of fewer than `insertion` elements go to insertion sort); else split `in` into
//       quarters A B C D (the last takes the remainder) and
//         sort A, B, C, D                  four tasks, then wait
//         merge A+B -> tmp, C+D -> tmp     two tasks, then wait
//         merge tmp -> in                  in the caller
//   merge(X, Y, dest): let X be the longer range; if Y is empty, copy X; if Y has fewer
//       than `merge` elements, merge sequentially; else take X's middle element x, find by
//       binary search where x falls in Y, put x at its final place in dest, and merge the
//       two lower parts and the two upper parts: two tasks, then wait.
// Every task writes a range of its own (its quarter, its part of dest), so the result
// does not depend on the schedule. Task count: 6 per sort step plus 2 per merge step; the
// merge steps depend on the data (binary search), so the programs count them.
//
// The input, as in BOTS and INNCABS: the integers 0 .. n-1, scrambled by n transpositions
// (position i with position j = r mod n, r the next state of the 64-bit ANSI C
// linear congruential generator x' = 1103515245 x + 12345 seeded with 1). Its low bits are
// weakly random, so for a power-of-two n the result is a structured, not a uniform,
// permutation; it is the suites' input all the same. The check needs no reference: the
// sorted array must be 0, 1, ..., n-1 exactly, which is both "sorted" and "the same
// multiset" (the program names the first element out of place and exits 1).
//
// Arrays have one element of padding before the first: the merge's binary search can
// return "one before the range", and with the padding that is always a valid pointer.
//
// Options (BOTS's sort: -n, -y, -a, -b): --n=N (default 32Mi = 33554432, BOTS's default,
// ~5 s serially here; seed 001 Table 3.1 runs 134M..1B), --merge-cutoff=N (BOTS -y,
// default 2048), --quick-cutoff=N (BOTS -a, default 2048), --insertion-cutoff=N (BOTS -b,
// default 20), --workers=N, --reps=N; --weft:* is left to the weft runtime. As in BOTS, a
// cutoff above n counts as n and an insertion cutoff above the quicksort one as that.
//
// Result line: bench_common.hpp's format with problem=sort, n=<elements>, calls=<tasks
// per run> (counted during the warm-up run; the serial program counts the calls it makes
// in place of tasks), result=<elements in place, = n>, then merge=, quick=, insertion=.
#pragma once

#include "common/bench_common.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>

namespace weft::bench::sort {

using elm = long;

struct cutoffs {
    long merge = 2048;     ///< a merge whose shorter range has fewer elements runs sequentially
    long quick = 2048;     ///< a sort of fewer elements runs the sequential quicksort
    long insertion = 20;   ///< the quicksort leaves ranges of fewer elements to insertion sort
};

// --- The sequential pieces -------------------------------------------------------------

inline elm median_of_3(elm a, elm b, elm c) noexcept {
    if (a < b) return b < c ? b : (a < c ? c : a);
    return b > c ? b : (a > c ? c : a);
}

/// Partitions [low, high] around the median of its first, middle and last elements;
/// returns p with every element of [low, p] <= every element of [p + 1, high].
inline elm* partition(elm* low, elm* high) noexcept {
    const elm pivot = median_of_3(*low, *high, low[(high - low) / 2]);
    elm* lo = low;
    elm* hi = high;
    for (;;) {
        while (*hi > pivot) --hi;
        while (*lo < pivot) ++lo;
        if (lo >= hi) break;
        std::swap(*lo, *hi);
        --hi;
        ++lo;
    }
    // A trivial partition (everything at or below the pivot) leaves hi at high: then
    // *high is a largest element and stays where it is.
    return hi < high ? hi : hi - 1;
}

inline void insertion_sort(elm* low, elm* high) noexcept {
    for (elm* q = low + 1; q <= high; ++q) {
        const elm a = *q;
        elm* p = q - 1;
        while (p >= low && *p > a) {
            p[1] = *p;
            --p;
        }
        p[1] = a;
    }
}

/// Sorts [low, high]: quicksort, recursing on the lower part and looping on the upper,
/// insertion sort below `insertion` elements.
inline void quicksort(elm* low, elm* high, long insertion) noexcept {
    while (high - low >= insertion) {
        elm* p = partition(low, high);
        quicksort(low, p, insertion);
        low = p + 1;
    }
    insertion_sort(low, high);
}

/// Merges the sorted ranges [low1, high1] and [low2, high2] (either may be empty) into dest.
inline void merge_sequential(const elm* low1, const elm* high1, const elm* low2, const elm* high2, elm* dest) noexcept {
    while (low1 <= high1 && low2 <= high2) *dest++ = *low1 < *low2 ? *low1++ : *low2++;
    if (low1 <= high1) std::memcpy(dest, low1, sizeof(elm) * static_cast<std::size_t>(high1 - low1 + 1));
    if (low2 <= high2) std::memcpy(dest, low2, sizeof(elm) * static_cast<std::size_t>(high2 - low2 + 1));
}

/// The last position in the sorted, non-empty [low, high] whose element is <= val, or
/// low - 1 if every element is greater.
inline elm* binary_split(elm val, elm* low, elm* high) noexcept {
    while (low != high) {
        elm* mid = low + ((high - low + 1) >> 1);
        if (val <= *mid) high = mid - 1;
        else low = mid;
    }
    return *low > val ? low - 1 : low;
}

// --- One recursion step ----------------------------------------------------------------

/// Merge [low1, high1] with [low2, high2] into [dest, ...).
struct merge_range {
    elm* low1;
    elm* high1;
    elm* low2;
    elm* high2;
    elm* dest;
};

/// One step of the parallel merge: merges `r` at once and returns false when it is below
/// the cutoff; otherwise places the split element and returns true with the two halves,
/// which the caller merges (in parallel) to finish `r`.
inline bool split_merge(const cutoffs& c, merge_range r, merge_range& lower, merge_range& upper) noexcept {
    if (r.high2 - r.low2 > r.high1 - r.low1) {
        std::swap(r.low1, r.low2);
        std::swap(r.high1, r.high2);
    }
    if (r.high2 < r.low2) {  // the shorter range is empty (the suites' copy here drops one element)
        std::memcpy(r.dest, r.low1, sizeof(elm) * static_cast<std::size_t>(r.high1 - r.low1 + 1));
        return false;
    }
    if (r.high2 - r.low2 < c.merge) {
        merge_sequential(r.low1, r.high1, r.low2, r.high2, r.dest);
        return false;
    }
    elm* split1 = r.low1 + (r.high1 - r.low1 + 1) / 2;
    elm* split2 = binary_split(*split1, r.low2, r.high2);
    const long below = (split1 - r.low1) + (split2 - r.low2);  // elements below x, minus 1
    r.dest[below + 1] = *split1;
    lower = {r.low1, split1 - 1, r.low2, split2, r.dest};
    upper = {split1 + 1, r.high1, split2 + 1, r.high2, r.dest + below + 2};
    return true;
}

/// Sort [low, low + size) using [tmp, tmp + size).
struct sort_range {
    elm* low;
    elm* tmp;
    long size;
};

/// The work of one sort step above the quicksort cutoff: its four quarters, its two
/// first merges (A+B and C+D into tmp) and its last merge (tmp back into low).
struct sort_step {
    sort_range quarter[4];
    merge_range first[2];
    merge_range last;
};

/// One step of the parallel sort: sorts `r` at once (quicksort) and returns false when it
/// is below the cutoff; otherwise returns true with the step's pieces.
inline bool split_sort(const cutoffs& c, sort_range r, sort_step& s) noexcept {
    if (r.size < c.quick) {
        quicksort(r.low, r.low + r.size - 1, c.insertion);
        return false;
    }
    const long q = r.size / 4;
    elm* const a = r.low;
    elm* const b = a + q;
    elm* const cc = b + q;
    elm* const d = cc + q;
    elm* const ta = r.tmp;
    elm* const tc = ta + 2 * q;
    s.quarter[0] = {a, ta, q};
    s.quarter[1] = {b, ta + q, q};
    s.quarter[2] = {cc, tc, q};
    s.quarter[3] = {d, tc + q, r.size - 3 * q};
    s.first[0] = {a, b - 1, b, cc - 1, ta};
    s.first[1] = {cc, d - 1, d, r.low + r.size - 1, tc};
    s.last = {ta, tc - 1, tc, ta + r.size - 1, a};
    return true;
}

// --- The fork-join recursion -----------------------------------------------------------

/// A "task group" that runs every task at once, on the caller: the serial sort.
struct inline_group {
    template <class F>
    void run(F&& f) {
        f();
    }
    void wait() noexcept {}
};

/// Tasks run through counted<Group>, for the run that counts them.
inline std::atomic<std::uint64_t> tasks_counted{0};

template <class Group>
struct counted {
    Group group;
    template <class F>
    void run(F&& f) {
        tasks_counted.fetch_add(1, std::memory_order_relaxed);  // relaxed: read after the run joins
        group.run(std::forward<F>(f));
    }
    void wait() { group.wait(); }
};

/// The parallel merge on a fork-join task group (weft::task_group, tbb::task_group,
/// inline_group, counted<...>): one group per step, two children.
template <class Group>
void merge(const cutoffs& c, const merge_range& r) {
    merge_range lower{}, upper{};
    if (!split_merge(c, r, lower, upper)) return;
    Group g;
    g.run([&c, lower] { merge<Group>(c, lower); });
    g.run([&c, upper] { merge<Group>(c, upper); });
    g.wait();
}

/// The parallel sort on a fork-join task group: four sorts, wait, two merges, wait, the
/// last merge in the caller.
template <class Group>
void sort(const cutoffs& c, const sort_range& r) {
    sort_step s{};
    if (!split_sort(c, r, s)) return;
    {
        Group g;
        for (const sort_range& q : s.quarter) g.run([&c, q] { sort<Group>(c, q); });
        g.wait();
    }
    {
        Group g;
        for (const merge_range& m : s.first) g.run([&c, m] { merge<Group>(c, m); });
        g.wait();
    }
    merge<Group>(c, s.last);
}

// --- The input and the check -----------------------------------------------------------

/// n elements plus one of padding in front (see the file comment); data() is the first.
class array {
public:
    explicit array(std::size_t n) : storage_(std::make_unique_for_overwrite<elm[]>(n + 1)), n_(n) { storage_[0] = -1; }
    elm* data() noexcept { return storage_.get() + 1; }
    const elm* data() const noexcept { return storage_.get() + 1; }
    std::size_t size() const noexcept { return n_; }

private:
    std::unique_ptr<elm[]> storage_;
    std::size_t n_;
};

/// Fills a with the suites' input: 0 .. n-1 scrambled (see the file comment).
inline void fill_input(array& a) noexcept {
    elm* v = a.data();
    const std::size_t n = a.size();
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<elm>(i);
    std::uint64_t state = 1;
    for (std::size_t i = 0; i < n; ++i) {
        state = state * 1103515245u + 12345u;
        std::swap(v[i], v[state % n]);
    }
}

/// The first index i with a[i] != i, or n if the array is 0, 1, ..., n-1.
inline std::size_t first_out_of_place(const elm* a, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i) {
        if (a[i] != static_cast<elm>(i)) return i;
    }
    return n;
}

// --- Options and the measurement -------------------------------------------------------

struct options {
    long n = 32L * 1024 * 1024;
    cutoffs cut;
    unsigned workers = 0;
    unsigned reps = 3;
};

[[noreturn]] inline void usage(const char* program, int status) {
    std::fprintf(status == 0 ? stdout : stderr,
                 "usage: %s [--n=N] [--merge-cutoff=N] [--quick-cutoff=N] [--insertion-cutoff=N]\n"
                 "          [--workers=N] [--reps=N] [--weft:...]\n"
                 "  --n=N                 elements to sort, 4..2^31 (default 33554432, BOTS's)\n"
                 "  --merge-cutoff=N      merges with a shorter range below N run sequentially\n"
                 "                        (BOTS -y; at least 2, at most n; default 2048)\n"
                 "  --quick-cutoff=N      sorts below N elements run the sequential quicksort\n"
                 "                        (BOTS -a; at least 4, at most n; default 2048)\n"
                 "  --insertion-cutoff=N  the quicksort leaves ranges below N to insertion sort\n"
                 "                        (BOTS -b; at least 2, at most quick; default 20)\n"
                 "  --workers=N           worker threads (default: hardware concurrency)\n"
                 "  --reps=N              measured repetitions after one warm-up (default 3)\n"
                 "  --weft:*              runtime options, ignored by the anchors\n",
                 program);
    std::exit(status);
}

inline options parse_options(int argc, char** argv) {
    options o;
    parse_command_line(argc, argv, usage, [&](std::string_view name, std::string_view v) {
        using weft::bench::detail::parse_number;
        if (name == "--n") return parse_number(v, o.n) && o.n >= 4 && o.n <= (1L << 31);
        if (name == "--merge-cutoff") return parse_number(v, o.cut.merge) && o.cut.merge >= 2;
        if (name == "--quick-cutoff") return parse_number(v, o.cut.quick) && o.cut.quick >= 4;
        if (name == "--insertion-cutoff") return parse_number(v, o.cut.insertion) && o.cut.insertion >= 2;
        return parse_run_option(name, v, o.workers, o.reps);
    });
    // As BOTS: a cutoff above the array size is the size, an insertion cutoff above the
    // quicksort cutoff is the quicksort cutoff (the result line shows the values used).
    o.cut.merge = std::min(o.cut.merge, o.n);
    o.cut.quick = std::min(o.cut.quick, o.n);
    o.cut.insertion = std::min(o.cut.insertion, o.cut.quick);
    o.workers = default_workers(o.workers);
    return o;
}

/// One warm-up run that counts its tasks, then o.reps timed ones of
/// `run(counting, sort_range)`: it sorts the range, through counted<Group> when
/// `counting`. Each run sorts a fresh copy of the input (copied untimed) and is checked.
template <class Run>
void measure(const char* impl, unsigned workers, const options& o, Run run) {
    const auto n = static_cast<std::size_t>(o.n);
    array input(n);
    fill_input(input);
    array a(n);
    array tmp(n);
    std::uint64_t tasks = 0;
    for (unsigned rep = 0; rep <= o.reps; ++rep) {  // rep 0: the warm-up, which counts
        std::memcpy(a.data(), input.data(), n * sizeof(elm));
        const sort_range r{a.data(), tmp.data(), o.n};
        tasks_counted.store(0, std::memory_order_relaxed);
        const double seconds = time_seconds([&] { run(rep == 0, r); });
        if (rep == 0) tasks = tasks_counted.load(std::memory_order_relaxed);
        if (const std::size_t bad = first_out_of_place(a.data(), n); bad != n) {
            std::fprintf(stderr, "weft-bench problem=sort impl=%s: WRONG RESULT: a[%zu] = %ld, expected %zu\n", impl,
                         bad, a.data()[bad], bad);
            std::exit(1);
        }
        if (rep == 0) continue;
        std::printf("weft-bench problem=sort impl=%s workers=%u n=%ld calls=%llu seconds=%.6f ns_per_call=%.3f "
                    "result=%zu merge=%ld quick=%ld insertion=%ld\n",
                    impl, workers, o.n, static_cast<unsigned long long>(tasks), seconds,
                    tasks != 0 ? seconds * 1e9 / static_cast<double>(tasks) : 0.0, n, o.cut.merge, o.cut.quick,
                    o.cut.insertion);
        std::fflush(stdout);
    }
}

}  // namespace weft::bench::sort
