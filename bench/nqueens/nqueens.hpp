// N-queens in the shape of the Barcelona OpenMP Tasks Suite's nqueens: count every way of
// placing n queens on an n x n board, one row at a time; at every row, one task per
// column tried. A task copies its parent's board, puts the queen in, checks it against
// the queens above and, if it is safe, goes on to the next row. Shared by
// bench/nqueens/{serial,weft,omp,tbb}.cpp: the board, the check, the serial search, the
// options, the known answers and the result line.
//
// Options: --n=N (board size 1..16, default 11), --cutoff=D (rows 0..D-1 spawn a task per
// column, rows from D on are searched serially inside the task that reaches them; default
// none: every row spawns), --workers=N, --reps=N; --weft:* is left to the weft runtime.
//
// Result line: bench_common.hpp's format with problem=nqueens, n=<board size>,
// calls=<tasks created> (the serial program: placements tried, which is the task count
// without a cutoff), result=<solutions>, then cutoff=<D or none>. A count other than the
// known one fails the run (exit 1).
#pragma once

#include "common/bench_common.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace weft::bench::nqueens {

inline constexpr int max_n = 16;

/// col[r] is the column of the queen in row r, for the rows filled so far.
struct board {
    std::int8_t col[max_n];
};

/// Solutions of n-queens for n = 0..16 (OEIS A000170).
inline constexpr std::array<std::uint64_t, max_n + 1> solutions{
    1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512};

/// Whether the queen in row `row` is attacked by one of the queens in rows 0..row-1.
inline bool safe(const board& b, int row) noexcept {
    const int col = b.col[row];
    for (int r = 0; r < row; ++r) {
        const int d = col - b.col[r];
        if (d == 0 || d == row - r || d == r - row) return false;
    }
    return true;
}

/// Solutions below `b`, whose rows 0..row-1 hold safe queens, without tasks.
inline std::uint64_t search(int n, int row, const board& b) noexcept {
    if (row == n) return 1;
    std::uint64_t found = 0;
    for (int col = 0; col < n; ++col) {
        board next = b;
        next.col[row] = static_cast<std::int8_t>(col);
        if (safe(next, row)) found += search(n, row + 1, next);
    }
    return found;
}

namespace detail {

// Safe partial boards by rows filled, by bitmasks (columns and both diagonals taken).
inline void partial_boards(int n, int row, std::uint32_t cols, std::uint32_t left, std::uint32_t right,
                           std::uint64_t* per_row) noexcept {
    ++per_row[row];
    if (row == n) return;
    const std::uint32_t all = (std::uint32_t{1} << n) - 1;
    for (std::uint32_t open = all & ~(cols | left | right); open != 0; open &= open - 1) {
        const std::uint32_t bit = open & (~open + 1);
        partial_boards(n, row + 1, cols | bit, ((left | bit) << 1) & all, (right | bit) >> 1, per_row);
    }
}

}  // namespace detail

/// Tasks the parallel versions create: n per safe partial board with fewer than
/// min(cutoff, n) rows filled. With cutoff >= n, also the serial search's placements tried.
inline std::uint64_t tasks_created(int n, int cutoff) noexcept {
    std::uint64_t per_row[max_n + 1] = {};
    detail::partial_boards(n, 0, 0, 0, 0, per_row);
    std::uint64_t tasks = 0;
    for (int row = 0; row < n && row < cutoff; ++row) tasks += per_row[row] * static_cast<std::uint64_t>(n);
    return tasks;
}

struct options {
    int n = 11;
    int cutoff = 0;  ///< 0: none
    unsigned workers = 0;
    unsigned reps = 3;

    /// The first row searched serially: n when there is no cutoff (no row spawns past it).
    int serial_from() const noexcept { return cutoff == 0 || cutoff > n ? n : cutoff; }
};

[[noreturn]] inline void usage(const char* program, int status) {
    std::fprintf(status == 0 ? stdout : stderr,
                 "usage: %s [--n=N] [--cutoff=D] [--workers=N] [--reps=N] [--weft:...]\n"
                 "  --n=N        board size, 1..16 (default 11)\n"
                 "  --cutoff=D   rows from D on are searched serially (default: none, a task\n"
                 "               per column tried at every row)\n"
                 "  --workers=N  worker threads (default: hardware concurrency)\n"
                 "  --reps=N     measured repetitions after one warm-up (default 3)\n"
                 "  --weft:*     runtime options, ignored by the anchors\n",
                 program);
    std::exit(status);
}

inline options parse_options(int argc, char** argv) {
    options o;
    parse_command_line(argc, argv, usage, [&](std::string_view name, std::string_view v) {
        using weft::bench::detail::parse_number;
        if (name == "--n") return parse_number(v, o.n) && o.n >= 1 && o.n <= max_n;
        if (name == "--cutoff") return parse_number(v, o.cutoff) && o.cutoff >= 1;
        return parse_run_option(name, v, o.workers, o.reps);
    });
    o.workers = default_workers(o.workers);
    return o;
}

/// One warm-up run, then o.reps timed ones, each checked against the known solution
/// count and reported with `calls` (tasks created). `count()` returns the solutions found.
/// One task per placement tried, with a fork-join task group (weft::task_group,
/// tbb::task_group: run and wait); rows from `serial_from` on are searched serially. Each
/// child writes its count into its own slot; the parent sums them after the join.
template <class TaskGroup>
std::uint64_t place_fork_join(int n, int row, const board& b, int serial_from) {
    if (row == n) return 1;
    if (row >= serial_from) return search(n, row, b);
    std::uint64_t found[max_n] = {};
    TaskGroup g;
    for (int col = 0; col < n; ++col) {
        g.run([&found, &b, n, row, col, serial_from] {
            board next = b;
            next.col[row] = static_cast<std::int8_t>(col);
            found[col] = safe(next, row) ? place_fork_join<TaskGroup>(n, row + 1, next, serial_from) : 0;
        });
    }
    g.wait();
    std::uint64_t total = 0;
    for (int col = 0; col < n; ++col) total += found[col];
    return total;
}

template <class Count>
void measure(const char* impl, unsigned workers, const options& o, std::uint64_t calls, Count count) {
    const std::uint64_t expected = solutions[static_cast<std::size_t>(o.n)];
    std::uint64_t found = 0;
    (void)time_seconds([&] { found = count(); });
    if (found != expected) fail_check("nqueens", impl, found, expected);
    char cutoff[16] = "none";
    if (o.serial_from() < o.n) std::snprintf(cutoff, sizeof cutoff, "%d", o.cutoff);
    for (unsigned rep = 0; rep < o.reps; ++rep) {
        found = 0;
        const double seconds = time_seconds([&] { found = count(); });
        if (found != expected) fail_check("nqueens", impl, found, expected);
        std::printf("weft-bench problem=nqueens impl=%s workers=%u n=%d calls=%llu seconds=%.6f "
                    "ns_per_call=%.3f result=%llu cutoff=%s\n",
                    impl, workers, o.n, static_cast<unsigned long long>(calls), seconds,
                    seconds * 1e9 / static_cast<double>(calls), static_cast<unsigned long long>(found), cutoff);
        std::fflush(stdout);
    }
}

}  // namespace weft::bench::nqueens
