// reduce, inclusive_scan and sort with the C++17 parallel algorithms of libstdc++ (its
// PSTL, on the oneTBB backend): std::reduce, std::inclusive_scan and std::sort with
// std::execution::par, called from the main thread as a program would call them.
// The worker count is capped with tbb::global_control(max_allowed_parallelism, W).
#include "algorithms/common.hpp"

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstddef>
#include <execution>
#include <numeric>

#if !defined(_PSTL_PAR_BACKEND_TBB)
#error "libstdc++'s parallel algorithms are not on the oneTBB backend (no <tbb/tbb.h>?): std::execution::par would run serially"
#endif

namespace {

namespace al = weft::bench::algorithms;
using al::value_type;

struct stdpar_algorithms {
    value_type reduce(const value_type* first, const value_type* last) const {
        return std::reduce(std::execution::par, first, last, value_type{0});
    }
    void inclusive_scan(const value_type* first, const value_type* last, value_type* out) const {
        std::inclusive_scan(std::execution::par, first, last, out);
    }
    void sort(value_type* first, value_type* last) const { std::sort(std::execution::par, first, last); }
};

}  // namespace

int main(int argc, char** argv) {
    const al::problem p = al::parse_problem(argc, argv);

    // The calling thread counts as one of the --workers.
    tbb::global_control const limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(p.workers));
    // The default arena has one slot per hardware thread: more workers than that are
    // allowed but not used.
    const auto hardware = static_cast<unsigned>(tbb::this_task_arena::max_concurrency());
    const unsigned workers = std::min(p.workers, hardware);

    stdpar_algorithms a;
    al::run("std-par", workers, p, a);
    return 0;
}
