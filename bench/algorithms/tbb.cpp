// reduce, inclusive_scan and sort on oneTBB's own algorithms, as its documentation
// shows them: tbb::parallel_reduce and tbb::parallel_scan over a blocked_range with the
// default (auto) partitioner, tbb::parallel_sort. Every call runs in one task arena of
// --workers slots, the calling thread's included.
#include "algorithms/common.hpp"

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_reduce.h>
#include <tbb/parallel_scan.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include <cstddef>
#include <functional>
#include <numeric>

namespace {

namespace al = weft::bench::algorithms;
using al::value_type;

struct tbb_algorithms {
    value_type reduce(const value_type* first, const value_type* last) const {
        return tbb::parallel_reduce(
            tbb::blocked_range<const value_type*>(first, last), value_type{0},
            [](const tbb::blocked_range<const value_type*>& r, value_type acc) {
                return std::reduce(r.begin(), r.end(), acc);
            },
            std::plus<value_type>());
    }
    void inclusive_scan(const value_type* first, const value_type* last, value_type* out) const {
        const auto n = static_cast<std::size_t>(last - first);
        tbb::parallel_scan(
            tbb::blocked_range<std::size_t>(0, n), value_type{0},
            [first, out](const tbb::blocked_range<std::size_t>& r, value_type sum, bool is_final) {
                // Two loops rather than a test per element: the pre-scan only sums.
                if (is_final) {
                    for (std::size_t i = r.begin(); i != r.end(); ++i) out[i] = sum += first[i];
                } else {
                    for (std::size_t i = r.begin(); i != r.end(); ++i) sum += first[i];
                }
                return sum;
            },
            std::plus<value_type>());
    }
    void sort(value_type* first, value_type* last) const { tbb::parallel_sort(first, last); }
};

}  // namespace

int main(int argc, char** argv) {
    const al::problem p = al::parse_problem(argc, argv);

    // The arena's slot for the calling thread counts as one of the --workers.
    tbb::global_control const limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(p.workers));
    tbb::task_arena arena(static_cast<int>(p.workers));
    arena.initialize();
    const auto workers = static_cast<unsigned>(arena.max_concurrency());

    tbb_algorithms a;
    al::run("tbb", workers, p, a, [&arena](auto&& body) { arena.execute(body); });
    return 0;
}
