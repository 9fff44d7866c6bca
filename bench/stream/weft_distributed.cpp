// STREAM (common.hpp) on weft's partitioned_vector and segmented algorithms (issue #25;
// seed 003 Listing 4), compared with bench/stream/mpi.cpp (one rank per core, plain loops
// on each rank's share) by scripts/distributed_apps.
//
// The run itself is weft_distributed.hpp's (shared with tests/distributed/apps.cpp).
//
// The check and the hash are common.hpp's, on the whole arrays gathered on locality 0
// (v.gather(), after the timings): the result= is bench_stream_serial's for the same --n
// and --reps. Result lines with impl=weft-distributed, workers = localities x
// --weft:threads per locality. --workers, if given, must equal that product.
//
// Run as root: OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np N
// bench_stream_weft_distributed --n=... --weft:threads=T (OMPI_MCA_rmaps_base_oversubscribe=1
// past the core count).
#include "stream/weft_distributed.hpp"

#include <weft/distributed.hpp>
#include <weft/weft.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>

namespace {

namespace sm = weft::bench::stream;

int run(const sm::problem& p, std::size_t parts, bool workers_given) {
    const std::size_t localities = weft::get_num_localities();
    const unsigned workers = static_cast<unsigned>(localities) * weft::num_workers();
    if (workers_given && p.workers != workers) {
        std::fprintf(stderr, "bench_stream_weft_distributed: --workers=%u but %zu localities x %u threads = %u\n",
                     p.workers, localities, weft::num_workers(), workers);
        return 2;
    }
    const sm::distributed::outcome out = sm::distributed::run(p, parts);
    const char* impl = "weft-distributed";
    const std::uint64_t hash = sm::check(impl, p, out.a, out.b, out.c, p.reps + 1);
    for (std::size_t k = 0; k < sm::kernels.size(); ++k)
        sm::print_result(impl, workers, p, sm::kernels[k], out.t.seconds[k], hash);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t parts = 0;  // 0: one per locality
    bool workers_given = false;
    for (int i = 1; i < argc; ++i)
        if (std::string_view(argv[i]).starts_with("--workers=")) workers_given = true;
    const sm::problem p = sm::parse_problem(
        argc, argv,
        [&](std::string_view name, std::string_view v) {
            if (name != "--parts") return false;
            return weft::bench::detail::parse_number(v, parts) && parts >= 1;
        },
        "  --parts=P    partitions per vector, in blocks over the localities (default: one\n"
        "               per locality)\n");
    return weft::run(argc, argv, [&](int, char**) { return run(p, parts, workers_given); });
}
