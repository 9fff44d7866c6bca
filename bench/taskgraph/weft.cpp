// The task graph (Task Bench's method, issue #22; see common.hpp) on weft: one task per
// point and step, each a weft::dataflow over the shared_futures of its inputs, so a task
// starts as soon as its inputs are ready and no barrier separates the steps.
//   --impl=dataflow         weft-dataflow: weft::dataflow(f, inputs...), scheduled where
//                           the policy puts it (stolen freely)
//   --impl=pinned           weft-pinned: owner computes, as the MPI program does: column i
//                           belongs to worker floor(i * workers / width) (contiguous blocks
//                           of columns), and each of its tasks is a dataflow launched with
//                           launch::async(task_attributes{.worker = owner}): a pinned task,
//                           never stolen. One block per task, as for weft-dataflow.
//   --impl=pinned-executor  weft-pinned-executor: the same placement through
//                           weft::dataflow(executor, f, inputs...) with one
//                           execution::thread_pool_executor of one worker per worker. That
//                           form goes through a sync dataflow that calls the executor's
//                           async_execute, so each task costs two blocks and an unwrapping
//                           instead of one; kept to compare the two routes.
//
// One task builds the graph step by step (the main thread waits for it). It keeps the
// shared_futures of the last 2 * chunk steps in a ring (chunk = max(1, 2048 / width)
// steps, so 2,048-4,096 tasks in flight) and, every chunk steps, waits for the oldest
// chunk before overwriting it: memory stays bounded however many steps a run has (a
// 0.1 us kernel needs 10^5 steps for a 50 ms run), and the builder suspends at most once
// per chunk. A task takes its input futures by value, so they are released as soon as it
// has run (bench/stencil/weft.cpp says why that matters).
#include "taskgraph/common.hpp"

#include <weft/execution/placed_executors.hpp>
#include <weft/weft.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <utility>
#include <vector>

namespace {

namespace tg = weft::bench::taskgraph;
using value_future = weft::shared_future<std::uint64_t>;

/// The function of task (t, i): its inputs' futures arrive by value, ready.
struct task_body {
    const tg::graph* g;
    unsigned t;
    unsigned i;

    template <class... Futures>
    std::uint64_t operator()(Futures... in) const noexcept {
        if constexpr (sizeof...(Futures) == 0) {
            return tg::run_task(*g, t, i, nullptr, 0);
        } else {
            const std::uint64_t values[] = {in.get()...};
            return tg::run_task(*g, t, i, values, sizeof...(Futures));
        }
    }
};

/// dataflow(how, body, row[idx[0]], ..., row[idx[N-1]]) for a count N known at compile time.
template <class How, std::size_t... I>
value_future spawn_n(const How& how, task_body body, const value_future* row, const unsigned* idx,
                     std::index_sequence<I...>) {
    return weft::dataflow(how, body, row[idx[I]]...).share();
}

/// The same for a count k known at run time, 0 <= k <= max_inputs.
template <class How, std::size_t... N>
value_future spawn_k(const How& how, task_body body, const value_future* row, const unsigned* idx, unsigned k,
                     std::index_sequence<N...>) {
    value_future out;
    (void)((k == N && (out = spawn_n(how, body, row, idx, std::make_index_sequence<N>{}), true)) || ...);
    return out;
}

/// Waits until every task of steps [first, last) has run, newest first.
template <class Row>
void wait_steps(const tg::graph& g, Row&& row, unsigned first, unsigned last) {
    for (unsigned s = last; s-- > first;)
        for (unsigned i = g.width_at(s); i-- > 0;) row(s)[i].wait();
}

/// Builds and runs the whole graph once; `how(i)` is the launch policy or executor of
/// column i. Returns the result hash. Runs as a task.
template <class How>
std::uint64_t run_graph(const tg::graph& g, std::vector<value_future>& ring, unsigned chunk, How&& how) {
    const unsigned span = 2 * chunk;  // steps in the ring
    auto row = [&](unsigned t) { return ring.data() + static_cast<std::size_t>(t % span) * g.width; };
    unsigned idx[tg::max_inputs];
    for (unsigned t = 0; t < g.steps; ++t) {
        if (t >= span && t % chunk == 0) {
            // The steps this chunk will overwrite: every task of them has run before they go.
            // Newest first: once those are ready the older ones mostly are too, so the
            // builder suspends about once per column instead of once per task (oldest
            // first, each completion resumed it only to wait for the next task: 13 % of
            // the time at a near-empty kernel went to suspending and resuming it).
            wait_steps(g, row, t - span, t - span + chunk);
        }
        value_future* const out = row(t);
        const value_future* const in = t == 0 ? nullptr : row(t - 1);
        for (unsigned i = 0, n = g.width_at(t); i < n; ++i) {
            const unsigned k = t == 0 ? 0 : g.inputs(t, i, idx);
            out[i] = spawn_k(how(i), task_body{&g, t, i}, in, idx, k,
                             std::make_index_sequence<tg::max_inputs + 1>{});
        }
    }
    // The steps still in the ring (the older ones were waited for above). Not only the
    // last step: in a tree, most tasks of a step have no descendant in it.
    wait_steps(g, row, g.steps > span ? g.steps - span : 0, g.steps);
    std::vector<std::uint64_t> last(g.width_at(g.steps - 1));
    for (unsigned i = 0; i < last.size(); ++i) last[i] = row(g.steps - 1)[i].get();
    return tg::result_hash(g, last.data());
}

}  // namespace

int main(int argc, char** argv) {
    std::string_view impl = "dataflow";
    tg::options o = tg::parse_options(
        argc, argv,
        [&](std::string_view name, std::string_view v) {
            if (name != "--impl") return false;
            if (v != "dataflow" && v != "pinned" && v != "pinned-executor") {
                std::fprintf(stderr, "%s: --impl: unknown implementation '%.*s' (dataflow, pinned, pinned-executor)\n",
                             argv[0], static_cast<int>(v.size()), v.data());
                return false;
            }
            impl = v;
            return true;
        },
        "  --impl=I        dataflow (default: weft-dataflow), pinned (weft-pinned: column i's\n"
        "                  tasks pinned to its owner), pinned-executor (the same through a\n"
        "                  thread_pool_executor of one worker per worker)\n");
    // Before the runtime starts: its workers would spin beside the measurement at first.
    const double ns_per_iteration = tg::measure_ns_per_iteration();

    weft::runtime rt(argc, argv);  // --weft:threads=W, --weft:scheduler=NAME
    const unsigned workers = rt.num_workers();
    if (o.workers != 0 && o.workers != workers) {
        std::fprintf(stderr, "%s: --workers=%u, but the runtime has %u workers (set --weft:threads=%u)\n", argv[0],
                     o.workers, workers, o.workers);
        return 2;
    }
    if (!tg::finish(o, workers, argv[0])) return 2;
    const tg::graph& g = o.g;

    const unsigned chunk = std::max(1u, 2048u / g.width);
    std::vector<value_future> ring(static_cast<std::size_t>(2 * chunk) * g.width);
    // Owner computes: contiguous blocks of columns, one per worker.
    auto owner = [&](unsigned i) {
        return static_cast<unsigned>(static_cast<std::uint64_t>(i) * workers / g.width);
    };
    auto measure = [&](const char* name, auto how) {
        tg::measure(name, workers, o, ns_per_iteration, [&] {
            return weft::async([&] { return run_graph(g, ring, chunk, how); }).get();
        });
    };

    if (impl == "dataflow") {
        measure("weft-dataflow", [](unsigned) { return weft::launch::async; });
    } else if (impl == "pinned") {
        std::vector<weft::launch::async_policy> pinned(workers);
        for (unsigned w = 0; w < workers; ++w) {
            weft::task_attributes a;
            a.worker = w;
            pinned[w] = weft::launch::async(a);
        }
        std::vector<weft::launch::async_policy> by_column(g.width);
        for (unsigned i = 0; i < g.width; ++i) by_column[i] = pinned[owner(i)];
        measure("weft-pinned", [&](unsigned i) -> const weft::launch::async_policy& { return by_column[i]; });
    } else {
        std::vector<weft::execution::thread_pool_executor> executors;
        executors.reserve(workers);
        for (unsigned w = 0; w < workers; ++w) executors.emplace_back(w, 1u);
        std::vector<const weft::execution::thread_pool_executor*> by_column(g.width);
        for (unsigned i = 0; i < g.width; ++i) by_column[i] = &executors[owner(i)];
        measure("weft-pinned-executor",
                [&](unsigned i) -> const weft::execution::thread_pool_executor& { return *by_column[i]; });
    }
    return 0;
}
