// The task graph (Task Bench's method, issue #22; see common.hpp) on OpenMP tasks: one
// thread of the team creates one `omp task` per point and step, with depend(in:) on the
// cells of its inputs at step t-1 and depend(out:) on its own cell at step t (OpenMP 5.0's
// iterator modifier lists a variable number of inputs), so the runtime orders the tasks
// by the graph and no barrier separates the steps; the end of the parallel region waits
// for all. Task Bench's OpenMP implementation has the same shape.
//
// Values live in a ring of 4 rows of cells (one value per cache line). The runtime also
// orders a step's writes after the last reads of the row it overwrites (write-after-read
// on the cell's address), so the ring only needs to be deep enough that those extra
// edges (from step t-3 to step t) rarely bind; a row per step would cost memory for
// nothing. The runtime throttles creation its own way (libgomp runs a new task itself
// once 64 per thread are queued).
//
// Built twice (scripts/taskgraph): g++ and libgomp (omp-libgomp), clang++ and libomp
// (omp-libomp); WEFT_BENCH_OMP_IMPL names the runtime.
#include "taskgraph/common.hpp"

#include <omp.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "omp_impl.hpp"

namespace {

namespace tg = weft::bench::taskgraph;

constexpr unsigned ring_rows = 4;

std::uint64_t run_graph(const tg::graph& g, std::vector<tg::cell>& cells, int threads) {
    tg::cell* const base = cells.data();
    const unsigned width = g.width;
#pragma omp parallel num_threads(threads)
#pragma omp single
    for (unsigned t = 0; t < g.steps; ++t) {
        tg::cell* const cur = base + static_cast<std::size_t>(t % ring_rows) * width;
        const tg::cell* const prev = base + static_cast<std::size_t>((t + ring_rows - 1) % ring_rows) * width;
        for (unsigned i = 0, n = g.width_at(t); i < n; ++i) {
            unsigned idx[tg::max_inputs];
            const int k = t == 0 ? 0 : static_cast<int>(g.inputs(t, i, idx));
#pragma omp task firstprivate(t, i, cur, prev) depend(iterator(j = 0 : k), in : prev[idx[j]].value) \
    depend(out : cur[i].value)
            {
                unsigned inputs[tg::max_inputs];
                std::uint64_t values[tg::max_inputs];
                const unsigned count = t == 0 ? 0 : g.inputs(t, i, inputs);
                for (unsigned j = 0; j < count; ++j) values[j] = prev[inputs[j]].value;
                cur[i].value = tg::run_task(g, t, i, values, count);
            }
        }
    }
    const tg::cell* const last = base + static_cast<std::size_t>((g.steps - 1) % ring_rows) * width;
    std::vector<std::uint64_t> values(g.width_at(g.steps - 1));
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = last[i].value;
    return tg::result_hash(g, values.data());
}

}  // namespace

int main(int argc, char** argv) {
    tg::options o = tg::parse_options(argc, argv);
    // Before the first parallel region: the team's threads spin between regions.
    const double ns_per_iteration = tg::measure_ns_per_iteration();
    const unsigned workers = weft::bench::default_workers(o.workers);
    if (!tg::finish(o, workers, argv[0])) return 2;
    omp_set_dynamic(0);
    const int threads = static_cast<int>(workers);
    unsigned team = 0;
#pragma omp parallel num_threads(threads)
#pragma omp single
    team = static_cast<unsigned>(omp_get_num_threads());

    std::vector<tg::cell> cells(static_cast<std::size_t>(ring_rows) * o.g.width);
    tg::measure(WEFT_BENCH_OMP_IMPL, team, o, ns_per_iteration, [&] { return run_graph(o.g, cells, threads); });
    return 0;
}
