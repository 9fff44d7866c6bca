// The 1D heat stencil over localities (issue #25): examples/stencil_distributed.hpp's
// partitions as components in contiguous blocks, a dataflow per partition and step, a
// neighbour on another locality reached through an action for its one boundary point, no
// barrier between steps. Run under `mpirun -np L` (or alone: one locality).
//   weft-distributed  the above; workers = the workers of every locality together
//                     (localities x --weft:threads)
//
// Locality 0 runs everything else: the warm-up and the --reps measured runs, each of which
// creates the partitions (every locality makes its own initial points), times the time
// loop (from starting every locality's driver to the last one's end), gathers the grid
// through actions and destroys the partitions, then checks the grid against the serial
// reference outside the timed region (bench/stencil/common.hpp: exit 1 on a mismatch).
// The other localities only serve. The result line is common.hpp's, so that a script can
// set it beside the MPI reference's (bench/stencil/mpi.cpp) at the same nx, np and nt.
#include "../../examples/stencil_distributed.hpp"
#include "stencil/common.hpp"

#include <weft/weft.hpp>

#include <utility>
#include <vector>

int main(int argc, char** argv) {
    namespace st = weft::bench::stencil;
    namespace ws = weft::examples::stencil;
    const st::problem p = st::parse_problem(argc, argv);  // every rank: exits alike on a bad option
    return weft::run(argc, argv, [&p](int, char**) -> int {
        if (weft::get_locality_id() != 0) return 0;  // under --weft:spmd too, locality 0 drives
        const unsigned workers = ws::total_workers();
        st::measure("weft-distributed", workers, p, [&p](std::vector<double>& grid) {
            ws::outcome run = ws::run_distributed(p);
            grid = std::move(run.grid);
            return run.seconds;
        });
        return 0;
    });
}
