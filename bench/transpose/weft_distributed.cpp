// The transpose (common.hpp) on several localities (issue #25): seed 003 §6.2's
// distributed transpose, with the row blocks of PRK's MPI1 algorithm (bench/transpose/
// mpi.cpp). Every locality holds row blocks of A and B as components; each block of B is
// computed where it lives, by transposing, tile by tile, the matching column piece of
// every block of A as it arrives: the local one in place, the others fetched through an
// action that returns them as a weft::serialization::buffer<double> (zero copy on the
// wire), all requested at once. weft_distributed.hpp has the design.
//
// Locality 0 drives (weft::run; the other localities serve the blocks' actions): it
// creates the blocks, has each first-touch its rows, runs one warm-up and --iterations
// measured iterations, each timed from the first iterate call to the last block's answer
// (every block done, so every piece of A read and incremented, before the next starts),
// then sums each block's PRK error (common.hpp's abs_error_rows), checks it (status 1 on a
// failure) and prints the result line with impl=weft-distributed and workers = the sum of
// every locality's --weft:threads (localities x threads).
//
// Options: common.hpp's (--order, --tile, --iterations; --workers is not used: give
// --weft:threads=N), --blocks-per-locality=K (default 1) and --slices=S (default 16: each
// remote piece is asked for in S requests of whole bands of tile rows, transposed as each
// arrives). --order must be a multiple
// of localities x K; otherwise locality 0 says so and ends with status 2 (mpirun then
// reports it), as PRK refuses such an order.
//
// Run as root: OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np N
// bench_transpose_weft_distributed --order=... --weft:threads=T
// (OMPI_MCA_rmaps_base_oversubscribe=1 past the core count).
#include "transpose/weft_distributed.hpp"

#include "transpose/common.hpp"

#include <weft/weft.hpp>

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace tr = weft::bench::transpose;

int main(int argc, char** argv) {
    std::size_t per_locality = 1;
    std::size_t slices = tr::distributed::default_slices;
    const tr::problem p = tr::parse_problem(
        argc, argv,
        [&](std::string_view name, std::string_view v) {
            using weft::bench::detail::parse_number;
            if (name == "--blocks-per-locality") return parse_number(v, per_locality) && per_locality >= 1 && per_locality <= 4096;
            if (name == "--slices") return parse_number(v, slices) && slices >= 1 && slices <= 4096;
            return false;
        },
        "  --blocks-per-locality=K  row blocks of A and B on each locality (default 1)\n"
        "  --slices=S      requests per remote piece, each whole bands of tile rows (default 16)\n");
    bool measured = false;  // on locality 0, once the run is done
    tr::distributed::outcome out;
    const int rc = weft::run(argc, argv, [&](int, char** args) -> int {
        const std::size_t blocks = std::size_t{weft::get_num_localities()} * per_locality;
        if (const std::string why = tr::distributed::check_blocks(p.order, blocks); !why.empty()) {
            std::fprintf(stderr, "%s: %s\n", args[0], why.c_str());
            return 2;
        }
        out = tr::distributed::run(p, per_locality, slices);
        measured = true;
        return 0;
    });
    if (rc != 0 || !measured) return rc;
    // After the runtime stopped: check_error ends the process (status 1) on a failure.
    tr::check_error("weft-distributed", p, out.error);
    tr::print_result("weft-distributed", out.workers, p, out.seconds, out.error);
    return 0;
}
