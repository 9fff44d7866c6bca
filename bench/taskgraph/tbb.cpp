// The task graph (Task Bench's method, issue #22; see common.hpp) on a oneTBB flow graph:
// one continue_node per point and step, with an edge from each input's node, built once
// and run for all steps.
//
// The choice: continue_nodes carry no data, only "my predecessors are done", which is
// exactly a task graph's edge; values go through arrays of cells (one per cache line).
// function_nodes with join_nodes would copy the values through messages and add a join
// per task. A node per point and step of the whole run is too many nodes for 10^5 steps,
// and a cycle would need a node that counts its own rounds, so the graph is a block of D
// steps (D * width ~ 4,096 nodes, at least the tree's first full step plus one, a multiple
// of the fft's levels so that every block has the same edges) run ceil(steps / D) times:
// each run starts by putting a message to the first layer and ends with wait_for_all, so
// the run has a barrier every D steps (at 2 points per step, every 2,048 steps: a few
// microseconds per 2,048 steps). A node whose step is past the end, or a point not yet
// active (the tree's first steps), does nothing but still signals its successors.
// Two banks of D rows of values alternate between blocks, so a block's first layer reads
// the previous block's last row while no node of this block overwrites it.
#include "taskgraph/common.hpp"

#include <tbb/flow_graph.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace {

namespace tg = weft::bench::taskgraph;
namespace flow = tbb::flow;
using node = flow::continue_node<flow::continue_msg>;

class block_graph {
public:
    explicit block_graph(const tg::graph& g) : g_(g), depth_(depth_for(g)) {
        values_.resize(2 * static_cast<std::size_t>(depth_) * g.width);
        nodes_.reserve(static_cast<std::size_t>(depth_) * g.width);
        for (unsigned s = 0; s < depth_; ++s) {
            for (unsigned i = 0; i < g.width; ++i) {
                nodes_.push_back(std::make_unique<node>(fg_, [this, s, i](const flow::continue_msg&) {
                    run_point(s, i);
                    return flow::continue_msg();
                }));
            }
        }
        // Edges of a steady step with the same layer (see depth_for): the fft's level of
        // step D + s is that of s, and the tree is at full width from step D on.
        unsigned idx[tg::max_inputs];
        for (unsigned s = 1; s < depth_; ++s) {
            for (unsigned i = 0; i < g.width; ++i) {
                const unsigned k = g.inputs(depth_ + s, i, idx);
                for (unsigned j = 0; j < k; ++j) flow::make_edge(at(s - 1, idx[j]), at(s, i));
            }
        }
    }

    /// Runs the whole graph once; returns the result hash.
    std::uint64_t run() {
        for (unsigned b = 0; static_cast<std::uint64_t>(b) * depth_ < g_.steps; ++b) {
            base_ = b * depth_;
            bank_ = b % 2;
            for (unsigned i = 0; i < g_.width; ++i) at(0, i).try_put(flow::continue_msg());
            fg_.wait_for_all();
        }
        const unsigned t = g_.steps - 1;
        const tg::cell* const last = row((t / depth_) % 2, t % depth_);
        std::vector<std::uint64_t> values(g_.width_at(t));
        for (std::size_t i = 0; i < values.size(); ++i) values[i] = last[i].value;
        return tg::result_hash(g_, values.data());
    }

private:
    /// About 4,096 nodes; at least the tree's depth + 1 layers; a multiple of the fft's
    /// levels; no more layers than steps need (rounded up to that multiple).
    static unsigned depth_for(const tg::graph& g) {
        const unsigned period = std::max(1u, g.kind == tg::shape::fft ? g.levels() : 1u);
        unsigned d = std::max(1u, 4096u / g.width);
        d = std::min(d, g.steps);
        d = std::max(d, g.tree_depth() + 1);
        return (d + period - 1) / period * period;
    }

    node& at(unsigned s, unsigned i) { return *nodes_[static_cast<std::size_t>(s) * g_.width + i]; }
    tg::cell* row(unsigned bank, unsigned s) {
        return values_.data() + (static_cast<std::size_t>(bank) * depth_ + s) * g_.width;
    }

    void run_point(unsigned s, unsigned i) {
        // base_ and bank_ were written before the first try_put of this block, which
        // happens before every node of it runs.
        const unsigned t = base_ + s;
        if (t >= g_.steps || i >= g_.width_at(t)) return;
        const tg::cell* const in = s == 0 ? row(1 - bank_, depth_ - 1) : row(bank_, s - 1);
        unsigned idx[tg::max_inputs];
        std::uint64_t values[tg::max_inputs];
        const unsigned k = t == 0 ? 0 : g_.inputs(t, i, idx);
        for (unsigned j = 0; j < k; ++j) values[j] = in[idx[j]].value;
        row(bank_, s)[i].value = tg::run_task(g_, t, i, values, k);
    }

    const tg::graph& g_;
    const unsigned depth_;
    flow::graph fg_;
    std::vector<std::unique_ptr<node>> nodes_;
    std::vector<tg::cell> values_;
    unsigned base_ = 0;
    unsigned bank_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
    tg::options o = tg::parse_options(argc, argv);
    // Before the arena exists: its threads would spin beside the measurement at first.
    const double ns_per_iteration = tg::measure_ns_per_iteration();
    const unsigned workers = weft::bench::default_workers(o.workers);
    if (!tg::finish(o, workers, argv[0])) return 2;

    // The arena's slot for the calling thread counts as one of the workers.
    tbb::global_control const limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(workers));
    tbb::task_arena arena(static_cast<int>(workers));
    arena.initialize();
    const auto team = static_cast<unsigned>(arena.max_concurrency());
    arena.execute([&] {
        block_graph bg(o.g);  // built in the arena, so its tasks run there
        tg::measure("tbb-flow_graph", team, o, ns_per_iteration, [&] { return bg.run(); });
    });
    return 0;
}
