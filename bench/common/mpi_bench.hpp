// Shared by the MPI reference programs of issue #25 (bench/stencil/mpi.cpp,
// bench/stream/mpi.cpp, bench/transpose/mpi.cpp): starting MPI after the problem's own
// option parser has run, and the rank count standing in for --workers.
//
// The programs parse their options before MPI_Init, with the problem's common.hpp, so
// that a bad option (or a non-release build) ends every rank the same way before MPI
// starts. Their worker count is mpirun's -np: --workers=N is accepted only if it says the
// same, so that a script passing both cannot report a figure for the wrong count.
//
// Run as root: OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1, and
// OMPI_MCA_rmaps_base_oversubscribe=1 for more ranks than cores.
#pragma once

#include "common/bench_common.hpp"

#include <mpi.h>

#include <cstdio>
#include <string_view>

namespace weft::bench::mpi {

/// The value of the last --workers=N on the command line, 0 if there is none. (The
/// problem's parser has already rejected a malformed one, and turns a missing one into
/// the hardware concurrency, which says nothing about -np.)
inline unsigned workers_option(int argc, char** argv) {
    unsigned workers = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg.starts_with("--workers=")) {
            unsigned w = 0;
            if (weft::bench::detail::parse_number(arg.substr(10), w)) workers = w;
        }
    }
    return workers;
}

/// MPI_COMM_WORLD's rank and size once MPI has started.
struct world {
    int rank = 0;
    int ranks = 1;
    unsigned workers() const noexcept { return static_cast<unsigned>(ranks); }
    bool root() const noexcept { return rank == 0; }
};

/// MPI_Init, then this rank and the rank count. `workers` is workers_option(): if it is
/// not 0 and differs from the rank count, rank 0 says so, MPI is finalized and the
/// result is false (the caller returns 2, as for a bad argument).
inline bool start(int& argc, char**& argv, unsigned workers, world& w) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w.ranks);
    if (workers != 0 && workers != w.workers()) {
        if (w.root())
            std::fprintf(stderr, "%s: --workers=%u, but mpirun started %d ranks (-np)\n",
                         argc > 0 ? argv[0] : "bench", workers, w.ranks);
        MPI_Finalize();
        return false;
    }
    return true;
}

}  // namespace weft::bench::mpi
