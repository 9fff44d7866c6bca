// Heat diffusion on a ring over several localities: the distributed counterpart of
// stencil_1d.cpp, in the shape of HPX's 1d_stencil_8 (issue #25; seed 000 §5.1.1). The
// ring of nx points is cut into partitions of np points (the last one takes the rest);
// each partition is a component living on one locality, the partitions dealt to the
// localities in contiguous blocks. Each time step of a partition is a weft::dataflow over
// its own future and its two neighbours' of the previous step; a neighbour on another
// locality is reached through an action that returns just the point needed. No barrier
// separates the steps.
//
// The time loop runs on every locality for its own partitions (not SPMD: the main task on
// locality 0 starts each locality's driver with an action, waits for all of them, then
// gathers every partition's data through actions and checks it against the serial
// computation, bit for bit). stencil_distributed.hpp explains the layout, the exchange
// and the gather; the kernel and the initial values are bench/stencil/common.hpp's.
//
//   mpirun -np L weft_stencil_distributed [--nx=N] [--np=N] [--nt=N] [--weft:threads=N]
//   weft_stencil_distributed ...          (one locality, without mpirun)
//
// Prints one summary line (points, partitions, localities, time per step). With fewer
// partitions than localities the last localities hold none and only serve. Exits 1 when
// the result does not match the serial one, 2 on a bad option.
#include "example_options.hpp"
#include "stencil_distributed.hpp"

#include <weft/weft.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    namespace st = weft::bench::stencil;
    namespace ws = weft::examples::stencil;
    std::size_t nx = 1'000'000;  // points on the ring
    std::size_t np = 10'000;     // points per partition
    std::size_t nt = 100;        // time steps
    constexpr std::size_t max_points = 100'000'000;
    weft::examples::options opts("weft_stencil_distributed",
                                 "heat diffusion on a ring over every locality, as HPX's 1d_stencil_8 (partitions as "
                                 "components, dataflow, boundary values through actions)");
    opts.number("--nx", nx, std::size_t{1}, max_points, "points on the ring")
        .number("--np", np, std::size_t{1}, max_points, "points per partition, at most --nx")
        .number("--nt", nt, std::size_t{1}, std::size_t{1'000'000}, "time steps");
    opts.parse(argc, argv);
    if (np > nx)
        opts.fail("bad value '" + std::to_string(np) + "' for --np: expected a whole number from 1 to --nx (" +
                  std::to_string(nx) + ")");
    return weft::run(argc, argv, [=](int, char**) -> int {
        if (weft::get_locality_id() != 0) return 0;  // under --weft:spmd too, locality 0 drives
        st::problem p;
        p.nx = nx;
        p.np = np;
        p.nt = static_cast<unsigned>(nt);
        const ws::outcome run = ws::run_distributed(p);
        const std::vector<double> expected = st::reference_grid(p);

        std::size_t differ = 0, first_differ = 0;
        for (std::size_t x = 0; x < expected.size(); ++x) {
            const bool same = x < run.grid.size() &&
                              std::bit_cast<std::uint64_t>(run.grid[x]) == std::bit_cast<std::uint64_t>(expected[x]);
            if (!same && differ++ == 0) first_differ = x;
        }
        const bool ok = differ == 0 && run.grid.size() == expected.size();
        const double updates = static_cast<double>(nx) * static_cast<double>(nt);
        std::printf("distributed 1D heat stencil: %zu points in %zu partitions of %zu over %u localities (%u workers), "
                    "%zu steps: %.3f s, %.3f ms per step, %.1f M points per second; result matches serial: %s\n",
                    nx, p.partitions(), np, weft::get_num_localities(), ws::total_workers(), nt, run.seconds,
                    run.seconds * 1e3 / static_cast<double>(nt), updates / run.seconds / 1e6, ok ? "yes" : "NO");
        if (!ok) {
            if (run.grid.size() != expected.size())
                std::fprintf(stderr, "weft_stencil_distributed: gathered %zu points, expected %zu\n", run.grid.size(),
                             expected.size());
            if (differ > 0)
                std::fprintf(stderr,
                             "weft_stencil_distributed: %zu points differ from the serial result; the first at %zu: "
                             "%.17g, expected %.17g\n",
                             differ, first_differ, first_differ < run.grid.size() ? run.grid[first_differ] : 0.0,
                             expected[first_differ]);
        }
        return ok ? 0 : 1;
    });
}
