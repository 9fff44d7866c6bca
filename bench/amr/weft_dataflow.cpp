// Seed 004's AMR application on weft without a barrier (seed L106-L128): one task per
// block per level step, started by weft::dataflow once the blocks of its domain of
// dependence at the previous step are ready; the injections and the buffer interpolations
// are tasks of their own, started when the blocks they read are ready. Each block's step
// is a shared_future of a freshly allocated block (as HPX's stencil does), so a block may
// run many steps ahead of a distant one: only causality orders the work (seed L128).
//
// One task builds the graph in Berger-Oliger order (amr.hpp), coarse step by coarse step.
// So that a --wall run does not build an unbounded graph, it keeps at most --window coarse
// steps in flight: before building coarse step m it waits until every level-0 block has
// finished step m - window (a wait of the builder only; no worker waits). The window
// bounds how far a point can run ahead of the slowest one; the default is small, for
// the cache's sake (see default_window and README.md).
//
// --wall: a task that starts after the deadline returns an empty "skipped" block, and so
// do the tasks that read one: the graph drains in no time, and every block's last final
// step is the step it reached.
//   weft-dataflow  --steps (timed, checked bit for bit against the serial reference) or --wall
#include "amr/harness.hpp"

#include <weft/weft.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

namespace wb = weft::bench;
namespace amr = weft::bench::amr;
using amr::block_data;
using shared_block = weft::shared_future<block_data>;
using inputs = std::span<const block_data* const>;

/// A task running body(inputs) once the futures `in` are ready: up to four inputs as
/// separate arguments (no allocation beyond the task's block), more (grains below 3
/// points, injections of many child blocks) as one vector argument, whose every element
/// weft::dataflow waits for.
template <class Body>
shared_block spawn(std::vector<shared_block>& in, Body body, std::uint64_t& tasks) {
    ++tasks;
    switch (in.size()) {
    case 1:
        return weft::dataflow([body](shared_block a) {
                   const block_data* v[] = {&a.get()};
                   return body(inputs(v));
               }, std::move(in[0])).share();
    case 2:
        return weft::dataflow([body](shared_block a, shared_block b) {
                   const block_data* v[] = {&a.get(), &b.get()};
                   return body(inputs(v));
               }, std::move(in[0]), std::move(in[1])).share();
    case 3:
        return weft::dataflow([body](shared_block a, shared_block b, shared_block c) {
                   const block_data* v[] = {&a.get(), &b.get(), &c.get()};
                   return body(inputs(v));
               }, std::move(in[0]), std::move(in[1]), std::move(in[2])).share();
    case 4:
        return weft::dataflow([body](shared_block a, shared_block b, shared_block c, shared_block d) {
                   const block_data* v[] = {&a.get(), &b.get(), &c.get(), &d.get()};
                   return body(inputs(v));
               }, std::move(in[0]), std::move(in[1]), std::move(in[2]), std::move(in[3])).share();
    default:
        return weft::dataflow([body](std::vector<shared_block> f) {
                   std::vector<const block_data*> v;
                   v.reserve(f.size());
                   for (const auto& x : f) v.push_back(&x.get());
                   return body(inputs(v));
               }, std::move(in)).share();
    }
}

/// The graph builder: `fin[l][b]` is block b of level l at the last step built.
class graph {
public:
    graph(const amr::hierarchy& h, amr::reached_steps& reached, const amr::alarm& alarm)
        : h_(h), reached_(reached), alarm_(alarm), fin_(h.levels.size()) {
        const amr::grid_state g = amr::initial_state(h);
        for (std::size_t l = 0; l < h.levels.size(); ++l)
            for (const block_data& b : g[l]) fin_[l].push_back(weft::make_ready_future(copy(b)).share());
    }

    /// Coarse steps 1 ... count, at most `window` in flight, until the deadline; waits
    /// for the last. Returns the number of tasks.
    std::uint64_t run(unsigned count, unsigned window) {
        // Each coarse step in flight is a future<void>: when_all's vector of the step's
        // blocks is dropped as soon as the step is complete, so the window itself keeps
        // no block's data alive.
        std::deque<weft::future<void>> in_flight;
        for (unsigned m = 1; m <= count; ++m) {
            if (in_flight.size() >= window) {
                in_flight.front().wait();
                in_flight.pop_front();
            }
            if (past_deadline()) break;
            build_seconds_ += wb::time_seconds([&] { step(0, m); });
            in_flight.push_back(weft::when_all(fin_[0]).then(
                weft::launch::sync, [](weft::future<std::vector<shared_block>> done) { done.get(); }));
        }
        for (const auto& level : fin_)
            for (const auto& b : level) b.wait();
        return tasks_;
    }

    /// Seconds the builder spent building (a serial part of every run).
    double build_seconds() const noexcept { return build_seconds_; }

    /// The blocks at the last step (call after run).
    amr::grid_state state() const {
        amr::grid_state g(fin_.size());
        for (std::size_t l = 0; l < fin_.size(); ++l)
            for (const auto& b : fin_[l]) g[l].push_back(copy(b.get()));
        return g;
    }

private:
    static block_data copy(const block_data& b) {
        block_data c(b.begin, b.end);
        std::copy_n(b.v.get(), 3 * b.size(), c.v.get());
        return c;
    }
    bool past_deadline() const { return alarm_.rung(); }
    bool skip(inputs in) const {
        return std::any_of(in.begin(), in.end(), [](const block_data* b) { return !b->valid; }) || past_deadline();
    }
    /// The futures of blocks `which` of level l, in in_ (reused: no allocation per task).
    std::vector<shared_block>& pick(std::size_t l, const std::vector<unsigned>& which) {
        in_.clear();
        for (unsigned b : which) in_.push_back(fin_[l][b]);
        return in_;
    }

    // Step s of level l, then (if l has a child) its two steps, the injections and the
    // buffer interpolations: amr.hpp's order. A block's task writes reached_[l][b] with
    // plain stores: the tasks that write one entry are ordered by the futures (each reads
    // the block's previous step, directly or through the injection chain), and the
    // builder reads the entries only after waiting for every final block.
    void step(unsigned l, unsigned s) {
        const amr::level_layout& ll = h_.levels[l];
        const bool has_child = l + 1 < h_.levels.size();
        const auto& deps = ll.compute_deps[s % 2];
        std::vector<shared_block> computed(ll.blocks.size());
        for (std::size_t b = 0; b < ll.blocks.size(); ++b) {
            if (deps[b].empty()) continue;
            std::vector<shared_block>& in = pick(l, deps[b]);
            const bool final_here = !has_child || ll.inject_deps[b].empty();
            computed[b] = spawn(in, [this, &ll, l, s, b, final_here](inputs v) {
                if (skip(v)) return block_data::skipped();
                block_data out(ll.blocks[b].lo, ll.blocks[b].hi);
                amr::compute_block(ll.geom, s, v, out);
                if (final_here) reached_[l][b] = s;
                return out;
            }, tasks_);
        }
        for (std::size_t b = 0; b < ll.blocks.size(); ++b)
            if (computed[b].valid()) fin_[l][b] = std::move(computed[b]);
        if (!has_child) return;
        step(l + 1, 2 * s - 1);
        step(l + 1, 2 * s);
        const amr::level_layout& child = h_.levels[l + 1];
        for (std::size_t b = 0; b < ll.blocks.size(); ++b) {
            if (ll.inject_deps[b].empty()) continue;
            std::vector<shared_block>& in = pick(l + 1, ll.inject_deps[b]);
            in.insert(in.begin(), fin_[l][b]);
            fin_[l][b] = spawn(in, [this, &child, l, s, b](inputs v) {
                if (skip(v)) return block_data::skipped();
                block_data out = copy(*v[0]);
                amr::inject(child.geom, v.subspan(1), out);
                reached_[l][b] = s;
                return out;
            }, tasks_);
        }
        for (int side = 0; side < 2; ++side) {
            const unsigned buf = child.buffer_block(side);
            std::vector<shared_block>& in = pick(l, child.interp_deps[side]);
            fin_[l + 1][buf] = spawn(in, [this, &child, l, s, buf](inputs v) {
                if (skip(v)) return block_data::skipped();
                block_data out(child.blocks[buf].lo, child.blocks[buf].hi);
                amr::interpolate(child.geom, v, out);
                reached_[l + 1][buf] = 2 * s;
                return out;
            }, tasks_);
        }
    }

    const amr::hierarchy& h_;
    amr::reached_steps& reached_;
    const amr::alarm& alarm_;
    std::vector<std::vector<shared_block>> fin_;
    std::vector<shared_block> in_;
    std::uint64_t tasks_ = 0;
    double build_seconds_ = 0;
};

/// Default --window: 4 coarse steps. A wider window lets the workers run far ahead in one
/// region (newest ready task first), and the blocks they read are then out of cache: at
/// 2 workers, on 5,121-20,481 points with grains of 64-1,024, a window of 64 reached
/// 0.41-0.98 of the barrier schedule's steps, a window of 4 0.65-1.00; 2 and 8 were each
/// better in some cells and worse in others (bench/RESULTS.md, "2026-12-07 10:25-11:30",
/// the AMR window table). The cone of Fig. 5 is still there: a finer level takes 2^l
/// steps per coarse step, and within a level points still spread by up to the window.
constexpr unsigned default_window = 4;

}  // namespace

int main(int argc, char** argv) {
    weft::runtime rt(argc, argv);  // --weft:threads=W
    unsigned window = 0;
    const amr::params p = amr::parse_params(
        argc, argv,
        [&](amr::params&, std::string_view name, std::string_view v) {
            if (name == "--window") return amr::detail::number_in(name, v, window, 1u, 1'000'000u, "an integer >= 1");
            return false;
        },
        "  --window=D     coarse steps of task graph in flight (default: 4)\n",
        false);
    const unsigned workers = rt.num_workers();
    amr::hierarchy h;
    amr::build_hierarchy(p, h);
    if (window == 0) window = default_window;

    // Builds and runs `count` coarse steps (for `wall` seconds if > 0) on a weft task;
    // returns the seconds.
    double build = 0;  // the last run's build_seconds
    auto run = [&](amr::reached_steps& reached, unsigned count, double wall, std::uint64_t& tasks,
                   amr::grid_state* final_state) {
        return weft::async([&] {
                   const amr::alarm alarm(wall);
                   graph gr(h, reached, alarm);
                   const double seconds = wb::time_seconds([&] { tasks = gr.run(count, window); });
                   build = gr.build_seconds();
                   if (final_state != nullptr) *final_state = gr.state();
                   return seconds;
               })
            .get();
    };
    auto keys = [&] {
        char buf[96];
        std::snprintf(buf, sizeof buf, " window=%u build_seconds=%.6f", window, build);
        return std::string(buf);
    };

    if (p.wall > 0) {
        std::uint64_t tasks = 0;
        {  // warm-up, discarded
            amr::reached_steps rw = amr::no_steps(h);
            run(rw, 20, 0.0, tasks, nullptr);
        }
        amr::reached_steps reached = amr::no_steps(h);
        const double seconds = run(reached, amr::wall_step_limit, p.wall, tasks, nullptr);
        amr::check_causality("weft-dataflow", h, reached);
        const std::uint64_t updates = amr::updates_done(h, reached);
        const auto [lo, hi] = std::minmax_element(reached[0].begin(), reached[0].end());
        const bool limited = *hi - *lo + 1 >= window;  // a block got as far ahead as the builder allowed
        amr::print_result("weft-dataflow", workers, h, updates, seconds, updates, tasks,
                          " wall=" + std::to_string(p.wall) + keys() + " window_limited=" + (limited ? "1" : "0") +
                              amr::wall_report("weft-dataflow", workers, h, reached, p.wall));
        return 0;
    }

    const amr::grid_state ref = amr::reference_state(p, p.steps);
    for (unsigned rep = 0; rep <= p.reps; ++rep) {
        amr::reached_steps reached = amr::no_steps(h);
        amr::grid_state g;
        std::uint64_t tasks = 0;
        const double seconds = run(reached, p.steps, 0.0, tasks, &g);
        amr::check_against_reference("weft-dataflow", h, g, ref);
        if (rep > 0)
            amr::print_result("weft-dataflow", workers, h, h.updates_per_coarse_step() * p.steps, seconds,
                              amr::solution_hash(h, g), tasks, " steps=" + std::to_string(p.steps) + keys());
    }
    return 0;
}
