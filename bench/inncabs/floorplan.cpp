// INNCABS Floorplan (seed 000 Table 7: recursive unbalanced, atomic pruning, ~5 us tasks,
// very fine): BOTS's branch-and-bound floorplanning, as the suite took it from BOTS, with
// an async per alternative: for every shape and start of the next cell, an async that
// copies its parent's board and placements, lays the cell down and, within the bound,
// goes on with the next cell, joining its own asyncs. The bound is an atomic read without
// a lock; a better complete placement is recorded under an inncabs::mutex. The launch
// policy is passed down the recursion. The chip, the rules and the checks are
// bench/floorplan/floorplan.hpp's.
//
// The task limit (seed 000 §6.3): "a fixed limit on the number of total tasks executed is
// added to ensure a fair comparison between the two runtimes", since the order in which a
// runtime runs the tasks decides how early the bound prunes (the seed's HPX port tried two
// orders of magnitude more placements than std::async). --task-limit=N (default 5000, the
// HPX port's; 0: none) caps the asyncs made in a run, counted on one atomic as they are
// made. What happens to an alternative past the limit: --over-limit=inline (default) tries
// it in the task that reached it, serially (floorplan.hpp's search_serial), so every run
// still finds the optimum; --over-limit=drop skips it, as the HPX port does, so the search
// is cut short and the area found depends on the run.
//
// Sizes: --input=5|15|20 (default 15: the suite's standard input is BOTS's input.15; these
// are floorplan.hpp's built-in inputs, not BOTS's files; small: --input=5).
//
// Check: the least area must be the input's known optimum (--over-limit=drop: no smaller
// than it, or no complete placement at all), and the best placement must follow the rules
// and have that area.
#include "inncabs/inncabs.hpp"

#include "floorplan/floorplan.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace fp = weft::bench::floorplan;

struct search {
    int cells = 0;
    std::uint64_t limit = 0;  ///< 0: none
    bool drop = false;        ///< past the limit: skip the alternative (else try it inline)
    fp::best_placement<inncabs::mutex> best;
    std::atomic<std::uint64_t> tasks{0};
};

// Whether one more async may be made (counts it if so).
bool take_task(search& s) {
    if (s.limit == 0) {
        s.tasks.fetch_add(1, std::memory_order_relaxed);
        return true;
    }
    if (s.tasks.load(std::memory_order_relaxed) >= s.limit) return false;  // stop hammering once reached
    return s.tasks.fetch_add(1, std::memory_order_relaxed) < s.limit;
}

void add_cell(search& s, const fp::layout& p, int id, fp::footprint f, const inncabs::launch l);

// One alternative, on the task's own copy of the layout.
void place(search& s, fp::layout& p, int id, fp::rect r, fp::footprint f, const inncabs::launch l) {
    if (!fp::lay_down(p, id, r)) return;
    const fp::footprint g = fp::grow(f, r);
    if (id == s.cells) {
        s.best.offer(p, g);
    } else if (g.area() < s.best.area()) {
        add_cell(s, p, id + 1, g, l);
    }
}

// An async per (shape, start) of cell id, then the joins.
void add_cell(search& s, const fp::layout& p, int id, fp::footprint f, const inncabs::launch l) {
    const fp::cell& c = fp::chip[static_cast<std::size_t>(id)];
    std::vector<inncabs::future<void>> alternatives;
    std::unique_ptr<fp::layout[]> scratch;  // for alternatives tried inline, past the limit
    for (int k = 0; k < c.shapes; ++k) {
        const fp::shape sh = c.alt[k];
        const fp::starts st = fp::starts_of(c, sh, p);
        for (int i = 0; i < st.count; ++i) {
            const fp::rect r = st.place(i, sh);
            if (take_task(s)) {
                alternatives.push_back(inncabs::async(
                    l, [&s, child = p, id, r, f, l]() mutable { place(s, child, id, r, f, l); }));
            } else if (!s.drop) {
                if (!scratch) scratch.reset(new fp::layout[static_cast<std::size_t>(s.cells - id + 1)]);
                fp::layout& q = scratch[0];
                q = p;
                if (!fp::lay_down(q, id, r)) continue;
                const fp::footprint g = fp::grow(f, r);
                if (id == s.cells) {
                    s.best.offer(q, g);
                } else if (g.area() < s.best.area()) {
                    (void)fp::search_serial(s.cells, q, id + 1, g, s.best, scratch.get() + 1);
                }
            }
        }
    }
    for (inncabs::future<void>& a : alternatives) a.get();
}

}  // namespace

int main(int argc, char** argv) {
    const fp::input* in = fp::find_input("15");
    std::uint64_t limit = 5000;
    bool drop = false;
    const inncabs::common_options o = inncabs::parse(
        argc, argv, "inncabs floorplan: branch-and-bound floorplanning, an async per shape and start of every cell",
        {{"input", "5, 15 or 20 (the built-in chip's first cells)",
          [&in](std::string_view v) { return (in = fp::find_input(v)) != nullptr; }},
         {"task-limit", "a count of asyncs per run, 0 for none (default 5000)",
          [&limit](std::string_view v) {
              return inncabs::parse_number(v, limit, std::uint64_t{0}, std::uint64_t{1} << 40);
          }},
         {"over-limit", "inline (default: try it serially) or drop (skip it, as the seed's port)",
          [&drop](std::string_view v) {
              drop = v == "drop";
              return drop || v == "inline";
          }}});

    const int optimum = in->optimum;
    // n=<input>:limit<N>[:drop] (or :nolimit) on the result line.
    std::string size = std::string(in->name) + (limit == 0 ? ":nolimit" : ":limit" + std::to_string(limit));
    if (drop && limit != 0) size += ":drop";
    return inncabs::run(
        "floorplan", o, size, 0,
        [&] {
            auto s = std::make_unique<search>();
            s->cells = in->cells;
            s->limit = limit;
            s->drop = drop;
            add_cell(*s, fp::layout{}, 1, fp::footprint{0, 0}, o.policy);
            return s;
        },
        [&](const std::unique_ptr<search>& s) {
            const int area = s->best.area();
            if (drop && area == fp::no_area) return inncabs::verdict{true, "none"};
            const bool right = drop ? area >= optimum : area == optimum;
            if (!right) {
                return inncabs::verdict{false, std::to_string(area) + (drop ? " < the optimum " : " != the optimum ") +
                                                   std::to_string(optimum)};
            }
            const std::string why = fp::check_placement(in->cells, s->best.best_layout(), s->best.best_footprint(), area);
            return inncabs::verdict{why.empty(), why.empty() ? std::to_string(area) : why};
        });
}
