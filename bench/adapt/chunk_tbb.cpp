// Issue #6's chunk-size benchmark on oneTBB, the anchor: each workload and algorithm of
// chunk_common.hpp as oneTBB's documentation writes them, tbb::parallel_for (for_each,
// transform) and tbb::parallel_reduce (reduce) over a blocked_range with the default
// auto_partitioner (grain size 1), which splits ranges on demand as thieves appear. One
// untimed call, then --reps timed calls; the median. Every call runs in one task arena of
// --workers slots, the calling thread's included; every result is checked outside the
// clock. Result lines: impl=tbb-auto (chunk_common.hpp's print_line).
#include "adapt/chunk_common.hpp"

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <cstddef>
#include <functional>
#include <vector>

namespace {

namespace ac = weft::bench::adapt_chunk;
using range = tbb::blocked_range<std::size_t>;

void call(const ac::workload& w, ac::algorithm_kind alg, std::vector<std::uint64_t>& a, std::vector<std::uint64_t>& out,
          std::uint64_t& sum) {
    switch (alg) {
        case ac::for_each_algo:
            tbb::parallel_for(range(0, w.n), [&](const range& r) {
                for (std::size_t i = r.begin(); i != r.end(); ++i) a[i] = w.value(i);
            }, tbb::auto_partitioner());
            break;
        case ac::transform_algo:
            tbb::parallel_for(range(0, w.n), [&](const range& r) {
                for (std::size_t i = r.begin(); i != r.end(); ++i) out[i] = w.value(w.in[i]);
            }, tbb::auto_partitioner());
            break;
        case ac::reduce_algo:
            sum = tbb::parallel_reduce(
                range(0, w.n), std::uint64_t{0},
                [&](const range& r, std::uint64_t acc) {
                    for (std::size_t i = r.begin(); i != r.end(); ++i) acc += w.value(w.in[i]);
                    return acc;
                },
                std::plus<>{}, tbb::auto_partitioner());
            break;
        case ac::algorithm_count: break;
    }
}

}  // namespace

int main(int argc, char** argv) {
    const ac::options o = ac::parse_options(argc, argv);
    tbb::global_control const limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(o.workers));
    tbb::task_arena arena(static_cast<int>(o.workers));
    arena.initialize();
    const auto workers = static_cast<unsigned>(arena.max_concurrency());
    arena.execute([&] {
        for (unsigned k = 0; k < ac::workload_count; ++k) {
            if (!o.run[k]) continue;
            const ac::workload w = ac::make_workload(static_cast<ac::workload_kind>(k));
            for (unsigned a = 0; a < ac::algorithm_count; ++a) {
                const auto alg = static_cast<ac::algorithm_kind>(a);
                std::vector<std::uint64_t> arr(w.n), out(w.n);
                std::uint64_t sum = 0;
                std::vector<double> t;
                for (unsigned r = 0; r <= o.reps; ++r) {
                    std::fill(arr.begin(), arr.end(), 0);
                    std::fill(out.begin(), out.end(), 0);
                    sum = 0;
                    const double ms = ac::time_ms([&] { call(w, alg, arr, out, sum); });
                    ac::check(w, alg, "tbb-auto", alg == ac::for_each_algo ? arr : out, sum);
                    if (r > 0) t.push_back(ms);  // the first call warms up
                }
                ac::print_line("tbb-auto", workers, w, alg, ac::median(t));
            }
        }
    });
    return 0;
}
