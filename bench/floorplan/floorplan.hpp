// Floorplan in the shape of the Barcelona OpenMP Tasks Suite's floorplan (from Cray's
// Application Kernel Matrix): place the cells of a chip on a board so that the bounding
// box of the placement (the footprint) has the least area, by branch and bound. Shared by
// bench/floorplan/{serial,weft,omp,tbb}.cpp and by INNCABS's Floorplan
// (bench/inncabs/floorplan.cpp): the inputs, the board, the rules, the serial search, the
// fork-join search, the checks, the options and the result line.
//
// The problem: cells 1..k are placed in order. Each has 1 to 4 alternative shapes
// (rows x cols, about the same area) and is tied to cells placed before it: to the one on
// its left (it starts in the column after that cell's right edge, its rows overlapping
// that cell's), to the one above it (it starts in the row after that cell's bottom edge,
// its columns overlapping that cell's), or to both (then its corner is fixed, and it must
// touch both). Cell 1 sits at the corner (0, 0). A placement is legal if the cell fits on
// the 64 x 64 board without overlapping a cell already placed. For every shape and every
// legal start, the search places the cell and goes on with the next one, unless the
// footprint so far already has an area no smaller than the best complete placement found
// (the bound); a complete placement with a smaller area becomes the best. The search is
// exact: whatever the order of the tries and the moment the bound is read, the least area
// is the same, so every version must find each input's known optimum.
//
// The inputs: BOTS reads a file (input.5, input.15, input.20: the first 5, 15 and 20 cells
// of one chip, with the optimum on the last line). Here they are built in, in the same
// style but written for this benchmark (not BOTS's numbers): one 20-cell chip whose first
// 5, 15 and 20 cells are the inputs "5" (small: optimum 208, 965 placements tried by the
// serial search), "15" (medium: 550, 392,874; INNCABS's standard input is input.15) and
// "20" (large: 675, 14,062,573; the default of the BOTS versions here, ~1-2 s serially).
// The optima were found by the serial search below; every run is checked against them.
//
// Tasks (BOTS's shape, seed 000 Table 7 "recursive unbalanced, atomic pruning, very
// fine"): one task per (shape, start) tried for a cell; the task copies its parent's board
// and placements (4.4 KB: a 64 x 64 byte board and 21 rectangles), lays the cell down, and
// either offers a complete placement (under a lock, rechecking the bound) or, within the
// bound, tries the next cell, making its own tasks and joining them. The number of tasks
// depends on the run: the bound prunes what it has seen so far. --cutoff=D (BOTS's manual
// cut-off): only cells 1..D make tasks; from cell D+1 on, the search goes on serially in
// the task that reaches it (search_serial: the same copy per try, into scratch space on
// the heap).
//
// Options: --input=5|15|20 (default 20), --cutoff=D (default none: every cell makes
// tasks), --workers=N, --reps=N; --weft:* is left to the weft runtime.
//
// Result line: bench_common.hpp's format with problem=floorplan, n=<cells>,
// calls=<tasks created> (the serial program: placements tried), result=<least area>, then
// input=<name> cutoff=<D or none>. An area other than the input's optimum, or a best
// placement that breaks a rule or has another area, fails the run (exit 1).
#pragma once

#include "common/bench_common.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace weft::bench::floorplan {

inline constexpr int board_rows = 64;
inline constexpr int board_cols = 64;
inline constexpr int max_cells = 20;
inline constexpr int max_shapes = 4;
/// The bound before any complete placement: the whole board.
inline constexpr int no_area = board_rows * board_cols;

struct shape {
    int rows;
    int cols;
};

struct cell {
    int shapes;
    shape alt[max_shapes];
    int left;   ///< the cell to its left (0: the board's left edge at row 0), or -1
    int above;  ///< the cell above it, or -1
};

// The chip (cells 1..20; see the file comment). Written for this benchmark in the style of
// BOTS's inputs: alternatives of about the same area, mostly single ties (many starts),
// some double ties (one start, or none).
inline constexpr std::array<cell, max_cells + 1> chip{{
    {0, {}, -1, -1},                                 // 0: the sentinel, never placed
    {2, {{4, 9}, {6, 6}}, 0, -1},                    // 1: at the corner
    {2, {{2, 12}, {4, 6}}, -1, 1},                   // 2: below 1
    {2, {{5, 10}, {7, 7}}, 2, 1},                    // 3: right of 2, below 1
    {3, {{3, 9}, {4, 7}, {7, 4}}, -1, 3},            // 4: below 3
    {2, {{4, 8}, {8, 4}}, -1, 2},                    // 5: below 2
    {1, {{4, 4}}, -1, 5},                            // 6: below 5
    {3, {{2, 15}, {5, 6}, {6, 5}}, 6, 5},            // 7: right of 6, below 5
    {3, {{2, 7}, {3, 5}, {5, 3}}, -1, 4},            // 8: below 4
    {1, {{3, 4}}, 8, 4},                             // 9: right of 8, below 4
    {2, {{4, 6}, {6, 4}}, 9, 4},                     // 10: right of 9, below 4
    {1, {{5, 3}}, -1, 6},                            // 11: below 6
    {4, {{2, 11}, {3, 8}, {8, 3}, {11, 2}}, 7, 8},   // 12: right of 7, below 8
    {3, {{3, 10}, {5, 6}, {10, 3}}, -1, 9},          // 13: below 9
    {1, {{4, 8}}, 13, 10},                           // 14: right of 13, below 10
    {1, {{4, 5}}, -1, 14},                           // 15: below 14
    {4, {{3, 7}, {4, 6}, {6, 4}, {7, 3}}, -1, 14},   // 16: below 14
    {1, {{3, 4}}, -1, 15},                           // 17: below 15
    {4, {{2, 8}, {8, 2}, {4, 4}, {3, 5}}, 17, 15},   // 18: right of 17, below 15
    {1, {{3, 4}}, 18, 16},                           // 19: right of 18, below 16
    {1, {{1, 3}}, -1, 19},                           // 20: below 19
}};

struct input {
    const char* name;
    int cells;    ///< cells 1..cells of the chip
    int optimum;  ///< the least footprint area (found by search_serial)
};

inline constexpr std::array<input, 3> inputs{{{"5", 5, 208}, {"15", 15, 550}, {"20", 20, 675}}};

inline const input* find_input(std::string_view name) noexcept {
    for (const input& i : inputs) {
        if (name == i.name) return &i;
    }
    return nullptr;
}

/// A cell's place on the board, edges included.
struct rect {
    int top;
    int bot;
    int lhs;
    int rhs;
};

/// The bounding box of the cells placed so far.
struct footprint {
    int rows;
    int cols;
    int area() const noexcept { return rows * cols; }
};

/// The board (0: free, else the cell's number) and where each cell placed so far lies.
struct layout {
    std::array<std::array<std::uint8_t, board_cols>, board_rows> board{};
    std::array<rect, max_cells + 1> at{};

    layout() noexcept { at[0] = {0, 0, -1, -1}; }  // the sentinel: the left edge, row 0
};

/// The starts of one shape of a cell: count corners (top + i, lhs) (down) or (top, lhs + i).
struct starts {
    int top;
    int lhs;
    int count;
    bool down;

    rect place(int i, shape s) const noexcept {
        const int t = down ? top + i : top;
        const int l = down ? lhs : lhs + i;
        return {t, t + s.rows - 1, l, l + s.cols - 1};
    }
};

/// Where shape s of cell c may start, given the cells placed in p (see the file comment).
inline starts starts_of(const cell& c, shape s, const layout& p) noexcept {
    if (c.left >= 0 && c.above >= 0) {
        const rect& l = p.at[static_cast<std::size_t>(c.left)];
        const rect& a = p.at[static_cast<std::size_t>(c.above)];
        const int top = a.bot + 1;
        const int lhs = l.rhs + 1;
        const bool touches = top <= l.bot && top + s.rows - 1 >= l.top && lhs <= a.rhs && lhs + s.cols - 1 >= a.lhs;
        return {top, lhs, touches ? 1 : 0, true};
    }
    if (c.left >= 0) {
        const rect& l = p.at[static_cast<std::size_t>(c.left)];
        const int first = std::max(l.top - s.rows + 1, 0);
        return {first, l.rhs + 1, l.bot - first + 1, true};
    }
    const rect& a = p.at[static_cast<std::size_t>(c.above)];
    const int first = std::max(a.lhs - s.cols + 1, 0);
    return {a.bot + 1, first, a.rhs - first + 1, false};
}

/// Lays cell `id` down on r if r is on the board and free (then records it in p.at);
/// otherwise leaves p as it was and returns false.
inline bool lay_down(layout& p, int id, const rect& r) noexcept {
    if (r.bot >= board_rows || r.rhs >= board_cols) return false;
    const auto width = static_cast<std::size_t>(r.rhs - r.lhs + 1);
    for (int i = r.top; i <= r.bot; ++i) {
        const std::uint8_t* row = p.board[static_cast<std::size_t>(i)].data() + r.lhs;
        for (std::size_t j = 0; j < width; ++j) {
            if (row[j] != 0) return false;
        }
    }
    for (int i = r.top; i <= r.bot; ++i) {
        std::fill_n(p.board[static_cast<std::size_t>(i)].data() + r.lhs, width, static_cast<std::uint8_t>(id));
    }
    p.at[static_cast<std::size_t>(id)] = r;
    return true;
}

inline footprint grow(footprint f, const rect& r) noexcept {
    return {std::max(f.rows, r.bot + 1), std::max(f.cols, r.rhs + 1)};
}

/// The best complete placement so far: its area, read without a lock to prune (a stale
/// value only prunes less), and the placement itself, replaced under the lock (Mutex:
/// std::mutex, or inncabs::mutex in INNCABS's port). Read best_layout() and best_footprint()
/// after the search has joined.
template <class Mutex>
class best_placement {
public:
    int area() const noexcept { return area_.load(std::memory_order_relaxed); }

    /// Keeps p (footprint f) if its area is below the best so far.
    void offer(const layout& p, footprint f) {
        const int a = f.area();
        if (a >= area()) return;
        const std::lock_guard<Mutex> lock(mutex_);
        if (a >= area()) return;  // another task got there first
        layout_ = p;
        footprint_ = f;
        area_.store(a, std::memory_order_relaxed);  // the lock orders it with the layout
    }

    const layout& best_layout() const noexcept { return layout_; }
    footprint best_footprint() const noexcept { return footprint_; }

private:
    std::atomic<int> area_{no_area};
    Mutex mutex_;
    layout layout_{};
    footprint footprint_{0, 0};
};

/// The placements tried below cell id (1-based), whose predecessors lie in `parent`,
/// without tasks, as BOTS's serial search: each try copies the parent's layout (into
/// scratch[0], so that the copies are the tasks' but the stack stays small), lays the cell
/// down on the copy and goes on from it. scratch: one layout per cell from id to `cells`.
template <class Best>
std::uint64_t search_serial(int cells, const layout& parent, int id, footprint f, Best& best, layout* scratch) {
    const cell& c = chip[static_cast<std::size_t>(id)];
    std::uint64_t tried = 0;
    for (int s = 0; s < c.shapes; ++s) {
        const shape sh = c.alt[s];
        const starts st = starts_of(c, sh, parent);
        for (int i = 0; i < st.count; ++i) {
            ++tried;
            layout& p = scratch[0];
            p = parent;
            const rect r = st.place(i, sh);
            if (!lay_down(p, id, r)) continue;
            const footprint g = grow(f, r);
            if (id == cells) {
                best.offer(p, g);
            } else if (g.area() < best.area()) {
                tried += search_serial(cells, p, id + 1, g, best, scratch + 1);
            }
        }
    }
    return tried;
}

/// search_serial with scratch space of its own.
template <class Best>
std::uint64_t search_serial(int cells, const layout& parent, int id, footprint f, Best& best) {
    const std::unique_ptr<layout[]> scratch(new layout[static_cast<std::size_t>(cells - id + 1)]);
    return search_serial(cells, parent, id, f, best, scratch.get());
}

template <class Group, class Best>
std::uint64_t search_fork_join(int cells, const layout& p, int id, footprint f, Best& best, int serial_from);

namespace detail {

/// One task of search_fork_join: tries cell `id` at r on its own copy of the parent's
/// layout. (A class rather than a lambda: tbb::task_group calls its tasks as const, and
/// the copy is laid down on in place.)
template <class Group, class Best>
struct try_placement {
    mutable layout child;
    rect r;
    int cells;
    int id;
    footprint f;
    int serial_from;
    Best* best;
    std::atomic<std::uint64_t>* below;

    void operator()() const {
        if (!lay_down(child, id, r)) return;
        const footprint g = grow(f, r);
        if (id == cells) {
            best->offer(child, g);
        } else if (g.area() < best->area()) {
            if (id + 1 >= serial_from) {
                (void)search_serial(cells, child, id + 1, g, *best);
            } else {
                below->fetch_add(search_fork_join<Group>(cells, child, id + 1, g, *best, serial_from),
                                 std::memory_order_relaxed);
            }
        }
    }
};

}  // namespace detail

/// The fork-join search below cell id with a task group (weft::task_group,
/// tbb::task_group): one child per (shape, start), each on its own copy of p (held in the
/// task, not on a stack); cells from serial_from on are searched by search_serial inside
/// the child that reaches them. Returns the tasks created (children and descendants).
template <class Group, class Best>
std::uint64_t search_fork_join(int cells, const layout& p, int id, footprint f, Best& best, int serial_from) {
    const cell& c = chip[static_cast<std::size_t>(id)];
    std::atomic<std::uint64_t> below{0};
    std::uint64_t children = 0;
    Group g;
    for (int s = 0; s < c.shapes; ++s) {
        const shape sh = c.alt[s];
        const starts st = starts_of(c, sh, p);
        for (int i = 0; i < st.count; ++i) {
            ++children;
            g.run(detail::try_placement<Group, Best>{p, st.place(i, sh), cells, id, f, serial_from, &best, &below});
        }
    }
    g.wait();
    return children + below.load(std::memory_order_relaxed);
}

/// Whether (p, f) is a legal complete placement of cells 1..cells with area `area`: every
/// cell a solid rectangle of one of its shapes where its ties allow it, nothing else on
/// the board, f the bounding box. Empty if so, else why not.
inline std::string check_placement(int cells, const layout& p, footprint f, int area) {
    if (f.area() != area) return "the footprint's area is not the area found";
    int rows = 0;
    int cols = 0;
    layout replay;  // lay the cells down again, in order, by the rules
    for (int id = 1; id <= cells; ++id) {
        const rect r = p.at[static_cast<std::size_t>(id)];
        const cell& c = chip[static_cast<std::size_t>(id)];
        bool legal = false;
        for (int s = 0; s < c.shapes && !legal; ++s) {
            const starts st = starts_of(c, c.alt[s], replay);
            for (int i = 0; i < st.count && !legal; ++i) {
                const rect q = st.place(i, c.alt[s]);
                legal = q.top == r.top && q.bot == r.bot && q.lhs == r.lhs && q.rhs == r.rhs;
            }
        }
        if (!legal || !lay_down(replay, id, r)) return "cell " + std::to_string(id) + " is not placed legally";
        rows = std::max(rows, r.bot + 1);
        cols = std::max(cols, r.rhs + 1);
    }
    if (rows != f.rows || cols != f.cols) return "the footprint is not the cells' bounding box";
    if (replay.board != p.board) return "the board holds something else than the cells";
    return {};
}

// ---- Options and measurement (the BOTS versions).

struct options {
    const input* in = &inputs[2];
    int cutoff = 0;  ///< 0: none
    unsigned workers = 0;
    unsigned reps = 3;

    /// The first cell searched serially: past the last one when there is no cutoff.
    int serial_from() const noexcept { return cutoff == 0 ? in->cells + 1 : cutoff + 1; }
};

[[noreturn]] inline void usage(const char* program, int status) {
    std::fprintf(status == 0 ? stdout : stderr,
                 "usage: %s [--input=5|15|20] [--cutoff=D] [--workers=N] [--reps=N] [--weft:...]\n"
                 "  --input=NAME  the built-in chip's first 5 (small), 15 (medium) or 20\n"
                 "                (large, default) cells\n"
                 "  --cutoff=D    only cells 1..D make tasks, the rest is searched serially\n"
                 "                (default: none, a task per shape and start of every cell)\n"
                 "  --workers=N   worker threads (default: hardware concurrency)\n"
                 "  --reps=N      measured repetitions after one warm-up (default 3)\n"
                 "  --weft:*      runtime options, ignored by the anchors\n",
                 program);
    std::exit(status);
}

inline options parse_options(int argc, char** argv) {
    options o;
    parse_command_line(argc, argv, usage, [&](std::string_view name, std::string_view v) {
        using weft::bench::detail::parse_number;
        if (name == "--input") return (o.in = find_input(v)) != nullptr;
        if (name == "--cutoff") return parse_number(v, o.cutoff) && o.cutoff >= 1 && o.cutoff <= max_cells;
        return parse_run_option(name, v, o.workers, o.reps);
    });
    o.workers = default_workers(o.workers);
    return o;
}

/// One warm-up run and o.reps timed ones of `run(best)`, which searches the input with a
/// fresh best_placement<std::mutex> and returns the tasks it created (the serial program:
/// placements tried); each checked (the optimum, a legal placement) and reported.
template <class Run>
void measure(const char* impl, unsigned workers, const options& o, Run run) {
    const int expected = o.in->optimum;
    char cutoff[16] = "none";
    if (o.serial_from() <= o.in->cells) std::snprintf(cutoff, sizeof cutoff, "%d", o.cutoff);
    for (unsigned rep = 0; rep <= o.reps; ++rep) {  // rep 0: the warm-up
        best_placement<std::mutex> best;
        std::uint64_t calls = 0;
        const double seconds = time_seconds([&] { calls = run(best); });
        const int area = best.area();
        if (area != expected) {
            fail_check("floorplan", impl, static_cast<std::uint64_t>(area), static_cast<std::uint64_t>(expected));
        }
        const std::string why = check_placement(o.in->cells, best.best_layout(), best.best_footprint(), area);
        if (!why.empty()) {
            std::fprintf(stderr, "weft-bench problem=floorplan impl=%s: WRONG RESULT: %s\n", impl, why.c_str());
            std::exit(1);
        }
        if (rep == 0) continue;
        std::printf("weft-bench problem=floorplan impl=%s workers=%u n=%d calls=%llu seconds=%.6f "
                    "ns_per_call=%.3f result=%d input=%s cutoff=%s\n",
                    impl, workers, o.in->cells, static_cast<unsigned long long>(calls), seconds,
                    calls != 0 ? seconds * 1e9 / static_cast<double>(calls) : 0.0, area, o.in->name, cutoff);
        std::fflush(stdout);
    }
}

}  // namespace weft::bench::floorplan
