// STREAM (common.hpp) on weft's partitioned_vector and segmented algorithms (issue #25;
// seed 003 Listing 4), shared by bench/stream/weft_distributed.cpp (the benchmark,
// compared with bench/stream/mpi.cpp by scripts/distributed_apps) and
// tests/distributed/apps.cpp (ctest at 1, 2 and 4 ranks, sanitizers included).
//
// Three partitioned_vector<double> a, b and c of n elements with the same layout: `parts`
// partitions in blocks over the localities (0: one per locality), so partition i of each
// vector lives on the same locality. Locality 0 calls run(); the other localities only
// serve the partitions' actions. The first touch is the segmented weft::fill by each
// partition's locality (the partition's constructor, on its locality, zeroes the elements
// first: std::vector<double>(n)); then one warm-up and p.reps measured iterations of
//   copy   weft::copy(par, a.begin(), a.end(), c.begin())
//   scale  weft::transform(par, c..., b.begin(), k * x)
//   add    weft::transform(par, a..., b.begin(), c.begin(), x + y)
//   triad  weft::transform(par, b..., c.begin(), a.begin(), x + k * y)
// each partition's part running where it lives with weft's local par algorithm. A
// kernel's time is locality 0's wall time around the call, which returns when every
// partition's part is done (as mpi.cpp's barrier-to-barrier time on rank 0).
#pragma once

#include "stream/common.hpp"

#include <weft/distributed.hpp>
#include <weft/weft.hpp>

#include <array>
#include <cstddef>
#include <cstring>
#include <vector>

namespace weft::bench::stream::distributed {

using dvector = weft::partitioned_vector<double>;

/// What a run leaves: every measured iteration's times and the three arrays gathered on
/// locality 0 after p.reps + 1 iterations (for common.hpp's check()).
struct outcome {
    timings t;
    array a{0}, b{0}, c{0};
};

/// A gathered vector copied into common.hpp's array (check() reads those).
inline array to_array(const dvector& v) {
    const std::vector<double> all = v.gather();
    array out(all.size());
    if (!all.empty()) std::memcpy(out.data(), all.data(), all.size() * sizeof(double));
    return out;
}

/// Runs STREAM on every locality's partitions (from locality 0; see above). `parts`: 0 for
/// one partition per locality.
inline outcome run(const problem& p, std::size_t parts) {
    namespace ex = weft::execution;
    const weft::container_layout layout(parts == 0 ? weft::get_num_localities() : parts);
    dvector a(p.n, layout), b(p.n, layout), c(p.n, layout);

    outcome out;
    for (auto& s : out.t.seconds) s.reserve(p.reps);
    // The first touch, by each partition's locality.
    weft::fill(ex::par, a.begin(), a.end(), initial_a);
    weft::fill(ex::par, b.begin(), b.end(), initial_b);
    weft::fill(ex::par, c.begin(), c.end(), initial_c);
    for (unsigned it = 0; it <= p.reps; ++it) {
        const std::array<double, kernels.size()> s{
            time_seconds([&] { weft::copy(ex::par, a.begin(), a.end(), c.begin()); }),
            time_seconds([&] {
                weft::transform(ex::par, c.begin(), c.end(), b.begin(), [](double x) { return scalar * x; });
            }),
            time_seconds([&] {
                weft::transform(ex::par, a.begin(), a.end(), b.begin(), c.begin(), [](double x, double y) { return x + y; });
            }),
            time_seconds([&] {
                weft::transform(ex::par, b.begin(), b.end(), c.begin(), a.begin(),
                                [](double x, double y) { return x + scalar * y; });
            }),
        };
        if (it == 0) continue;  // the warm-up
        for (std::size_t k = 0; k < kernels.size(); ++k) out.t.seconds[k].push_back(s[k]);
    }
    out.a = to_array(a);
    out.b = to_array(b);
    out.c = to_array(c);
    return out;
}

}  // namespace weft::bench::stream::distributed
