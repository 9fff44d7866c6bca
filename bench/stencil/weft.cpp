// The 1D heat stencil on weft in HPX's shape (1d_stencil_4, seed 000 §5.1.1; digest §3.1):
// one shared_future per partition per step; partition i of step t+1 is
//   weft::dataflow(heat_step, U[i-1], U[i], U[i+1]).share()
// so a partition's task starts as soon as its three inputs are ready, with no barrier
// between steps. Every partition of every step is a fresh, uninitialised array, as in HPX
// (heat_part allocates `new double[n]`). One task builds the whole graph (nt steps) up
// front, then waits for the last step; the timing covers both.
//   weft-dataflow  the above
//
// heat_step takes its three futures by value, not through weft::unwrapping(heat_part):
// dataflow passes the futures it stored to the function as rvalues but keeps them in its
// block until its own result is released, so with unwrapping (which only borrows them)
// each step's block holds the previous step alive and a run keeps all nt steps (at 10^7
// points and 20 steps: 1.8 GB instead of 0.35 GB, and 5-7x the time per step, mostly in
// page faults). Moved into parameters, they are released as soon as the task has run,
// as HPX releases a dataflow's inputs.
#include "stencil/weft_partition.hpp"

#include <weft/weft.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace st = weft::bench::stencil;
using st::partition;
using st::shared_partition;

int main(int argc, char** argv) {
    namespace wb = weft::bench;
    weft::runtime rt(argc, argv);  // --weft:threads=W (scripts/bench passes it)
    const st::problem p = st::parse_problem(argc, argv);
    const std::size_t parts = p.partitions();

    st::measure("weft-dataflow", rt.num_workers(), p, [&](std::vector<double>& grid) {
        std::vector<shared_partition> U = st::make_partitions(p, grid);
        const double seconds = wb::time_seconds([&] { st::run_steps(p, U); });

        for (std::size_t i = 0; i < parts; ++i) {
            const partition& v = U[i].get();
            std::copy(v.data(), v.data() + v.size(), grid.data() + p.begin(i));
        }
        return seconds;
    });
    return 0;
}
