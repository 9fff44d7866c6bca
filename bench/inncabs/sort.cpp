// INNCABS Sort (seed 000 Table 7: recursive, balanced, fine and variable, ~52 us a task,
// 328,000 tasks): `cilksort`, a 4-way merge sort with a parallel merge, taken by INNCABS
// from BOTS's sort. A sort step asyncs its four quarters and waits, asyncs the two merges
// of A+B and C+D into the scratch array and waits, then merges the halves back itself; a
// merge step finds the longer range's middle element in the other by binary search and
// asyncs the lower and the upper merge, then waits. Below the cutoffs: the sequential
// quicksort (insertion sort below the third cutoff) and the sequential merge. The steps
// are bench/sort/sort.hpp's (BOTS's sort, on the same kernel).
//
// Sizes: --n=N (default 100,000,000, the suite's standard input "100000000 8192 2048 128"),
// --merge-cutoff=N (8192: a merge whose shorter range is below it runs sequentially),
// --quick-cutoff=N (2048: a sort below it runs the sequential quicksort),
// --insertion-cutoff=N (128). Small: --n=100000 (160 tasks). The input is the suite's:
// 0 .. n-1 scrambled by the ANSI C generator seeded with 1 (sort.hpp). The check: the
// result must be 0, 1, ..., n-1 exactly (sorted and the same multiset); the warm-up's copy
// of the input is made before inncabs::run and each later one by the check, so no copy is
// timed.
// Task count: 6 per sort step and 2 per merge step above the cutoffs; the merge steps
// depend on the data, so a serial pass counts them before the runs (untimed; 327,680 for
// the default input). Deviation: the suite sorts below the quicksort cutoff with the C
// library's qsort and leaves its third cutoff unused; here BOTS's quicksort, with
// insertion sort below the third cutoff.
#include "inncabs/inncabs.hpp"
#include "sort/sort.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace {

namespace srt = weft::bench::sort;

// Set once by main before any task runs, read by every task (the suite's globals).
srt::cutoffs cut{8192, 2048, 128};

void merge_par(const srt::merge_range r, const inncabs::launch l) {
    srt::merge_range lower{}, upper{};
    if (!srt::split_merge(cut, r, lower, upper)) return;
    inncabs::future<void> a = inncabs::async(l, merge_par, lower, l);
    inncabs::future<void> b = inncabs::async(l, merge_par, upper, l);
    a.get();
    b.get();
}

void sort_par(const srt::sort_range r, const inncabs::launch l) {
    srt::sort_step s{};
    if (!srt::split_sort(cut, r, s)) return;
    inncabs::future<void> a = inncabs::async(l, sort_par, s.quarter[0], l);
    inncabs::future<void> b = inncabs::async(l, sort_par, s.quarter[1], l);
    inncabs::future<void> c = inncabs::async(l, sort_par, s.quarter[2], l);
    inncabs::future<void> d = inncabs::async(l, sort_par, s.quarter[3], l);
    a.get();
    b.get();
    c.get();
    d.get();
    inncabs::future<void> ab = inncabs::async(l, merge_par, s.first[0], l);
    inncabs::future<void> cd = inncabs::async(l, merge_par, s.first[1], l);
    ab.get();
    cd.get();
    merge_par(s.last, l);
}

}  // namespace

int main(int argc, char** argv) {
    long n = 100000000;
    const inncabs::common_options o = inncabs::parse(
        argc, argv, "inncabs sort: cilksort, a 4-way merge sort with a parallel merge, an async per step",
        {{"n", "the elements to sort, 4 to 2^31 (default 100000000)",
          [&n](std::string_view v) { return inncabs::parse_number(v, n, 4L, 1L << 31); }},
         {"merge-cutoff", "at least 2: a merge whose shorter range is below it runs sequentially (default 8192)",
          [](std::string_view v) { return inncabs::parse_number(v, cut.merge, 2L, 1L << 31); }},
         {"quick-cutoff", "at least 4: a sort below it runs the sequential quicksort (default 2048)",
          [](std::string_view v) { return inncabs::parse_number(v, cut.quick, 4L, 1L << 31); }},
         {"insertion-cutoff", "at least 2: the quicksort leaves ranges below it to insertion sort (default 128)",
          [](std::string_view v) { return inncabs::parse_number(v, cut.insertion, 2L, 1L << 31); }}});
    // As the suite: a cutoff above the array size is the size, an insertion cutoff above
    // the quicksort cutoff is the quicksort cutoff.
    cut.merge = std::min(cut.merge, n);
    cut.quick = std::min(cut.quick, n);
    cut.insertion = std::min(cut.insertion, cut.quick);

    const auto size = static_cast<std::size_t>(n);
    srt::array input(size);
    srt::fill_input(input);
    srt::array a(size);
    srt::array tmp(size);
    const auto fresh = [&] { std::memcpy(a.data(), input.data(), size * sizeof(srt::elm)); };

    // The task count: the serial recursion, counting what the parallel one makes tasks.
    fresh();
    srt::tasks_counted.store(0, std::memory_order_relaxed);
    srt::sort<srt::counted<srt::inline_group>>(cut, srt::sort_range{a.data(), tmp.data(), n});
    const std::uint64_t tasks = srt::tasks_counted.load(std::memory_order_relaxed);
    if (srt::first_out_of_place(a.data(), size) != size) {
        std::fprintf(stderr, "inncabs sort: the serial sort is wrong\n");
        return inncabs::exit_wrong;
    }

    fresh();
    return inncabs::run(
        "sort", o, std::to_string(n), tasks,
        [&] {
            sort_par(srt::sort_range{a.data(), tmp.data(), n}, o.policy);
            return srt::first_out_of_place(a.data(), size);
        },
        [&](std::size_t bad) {
            if (bad != size) {
                return inncabs::verdict{false, "a[" + std::to_string(bad) + "] = " + std::to_string(a.data()[bad]) +
                                                   ", expected " + std::to_string(bad)};
            }
            fresh();  // the next run's input, untimed
            return inncabs::verdict{true, std::to_string(size)};
        });
}
