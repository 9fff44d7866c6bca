// STREAM (common.hpp) on weft's partitioned_vector and segmented algorithms (issue #25;
// seed 003 Listing 4), compared with bench/stream/mpi.cpp (one rank per core, plain loops
// on each rank's share) by scripts/distributed_apps.
//
// Three partitioned_vector<double> a, b and c of n elements with the same layout: one
// partition per locality by default (--parts=P: P partitions in blocks over the
// localities), so partition i of each vector lives on the same locality. Locality 0 runs
// everything (weft::run); the other localities only serve the partitions' actions. The
// first touch is the segmented weft::fill by each partition's locality (the partition's
// constructor, on its locality, zeroes the elements first: std::vector<double>(n)); then
// one warm-up and --reps measured iterations of
//   copy   weft::copy(par, a.begin(), a.end(), c.begin())
//   scale  weft::transform(par, c..., b.begin(), k * x)
//   add    weft::transform(par, a..., b.begin(), c.begin(), x + y)
//   triad  weft::transform(par, b..., c.begin(), a.begin(), x + k * y)
// each partition's part running where it lives with weft's local par algorithm. A
// kernel's time is locality 0's wall time around the call, which returns when every
// partition's part is done (as mpi.cpp's barrier-to-barrier time on rank 0).
//
// The check and the hash are common.hpp's, on the whole arrays gathered on locality 0
// (v.gather(), after the timings): the result= is bench_stream_serial's for the same --n
// and --reps. Result lines with impl=weft-distributed, workers = localities x
// --weft:threads per locality. --workers, if given, must equal that product.
//
// Run as root: OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np N
// bench_stream_weft_distributed --n=... --weft:threads=T (OMPI_MCA_rmaps_base_oversubscribe=1
// past the core count).
#include "stream/common.hpp"

#include <weft/distributed.hpp>
#include <weft/weft.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <vector>

namespace {

namespace sm = weft::bench::stream;
namespace ex = weft::execution;
using dvector = weft::partitioned_vector<double>;

/// A gathered vector copied into common.hpp's array (check() reads those).
sm::array to_array(const dvector& v) {
    const std::vector<double> all = v.gather();
    sm::array out(all.size());
    if (!all.empty()) std::memcpy(out.data(), all.data(), all.size() * sizeof(double));
    return out;
}

int run(const sm::problem& p, std::size_t parts, bool workers_given) {
    const std::size_t localities = weft::get_num_localities();
    const unsigned workers = static_cast<unsigned>(localities) * weft::num_workers();
    if (workers_given && p.workers != workers) {
        std::fprintf(stderr, "bench_stream_weft_distributed: --workers=%u but %zu localities x %u threads = %u\n",
                     p.workers, localities, weft::num_workers(), workers);
        return 2;
    }
    const weft::container_layout layout(parts == 0 ? localities : parts);
    dvector a(p.n, layout), b(p.n, layout), c(p.n, layout);

    sm::timings t;
    for (auto& s : t.seconds) s.reserve(p.reps);
    // The first touch, by each partition's locality.
    weft::fill(ex::par, a.begin(), a.end(), sm::initial_a);
    weft::fill(ex::par, b.begin(), b.end(), sm::initial_b);
    weft::fill(ex::par, c.begin(), c.end(), sm::initial_c);
    for (unsigned it = 0; it <= p.reps; ++it) {
        const std::array<double, sm::kernels.size()> s{
            weft::bench::time_seconds([&] { weft::copy(ex::par, a.begin(), a.end(), c.begin()); }),
            weft::bench::time_seconds([&] {
                weft::transform(ex::par, c.begin(), c.end(), b.begin(), [](double x) { return sm::scalar * x; });
            }),
            weft::bench::time_seconds([&] {
                weft::transform(ex::par, a.begin(), a.end(), b.begin(), c.begin(), [](double x, double y) { return x + y; });
            }),
            weft::bench::time_seconds([&] {
                weft::transform(ex::par, b.begin(), b.end(), c.begin(), a.begin(),
                                [](double x, double y) { return x + sm::scalar * y; });
            }),
        };
        if (it == 0) continue;  // the warm-up
        for (std::size_t k = 0; k < sm::kernels.size(); ++k) t.seconds[k].push_back(s[k]);
    }

    const char* impl = "weft-distributed";
    std::uint64_t hash = 0;
    {
        // One array at a time would not change check()'s order; it wants all three.
        const sm::array ga = to_array(a), gb = to_array(b), gc = to_array(c);
        hash = sm::check(impl, p, ga, gb, gc, p.reps + 1);
    }
    for (std::size_t k = 0; k < sm::kernels.size(); ++k)
        sm::print_result(impl, workers, p, sm::kernels[k], t.seconds[k], hash);
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
