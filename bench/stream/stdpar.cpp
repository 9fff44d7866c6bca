// STREAM with the C++17 parallel algorithms of libstdc++ (its PSTL, on the oneTBB
// backend): std::copy and std::transform with std::execution::par, and std::fill with it
// for the first touch, called as a program would call them, from the main thread.
// The worker count is capped with tbb::global_control(max_allowed_parallelism, W); the
// partitioning is the PSTL's own (TBB's default auto_partitioner).
#include "stream/common.hpp"

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstddef>
#include <execution>
#include <functional>

#if !defined(_PSTL_PAR_BACKEND_TBB)
#error "libstdc++'s parallel algorithms are not on the oneTBB backend (no <tbb/tbb.h>?): std::execution::par would run serially"
#endif

namespace {

namespace sm = weft::bench::stream;

struct stdpar_kernels {
    void fill(double* x, std::size_t n, double v) const { std::fill(std::execution::par, x, x + n, v); }
    void copy(const double* a, double* c, std::size_t n) const { std::copy(std::execution::par, a, a + n, c); }
    void scale(const double* c, double* b, std::size_t n) const {
        std::transform(std::execution::par, c, c + n, b, [](double x) { return sm::scalar * x; });
    }
    void add(const double* a, const double* b, double* c, std::size_t n) const {
        std::transform(std::execution::par, a, a + n, b, c, std::plus<>{});
    }
    void triad(const double* b, const double* c, double* a, std::size_t n) const {
        std::transform(std::execution::par, b, b + n, c, a, [](double x, double y) { return x + sm::scalar * y; });
    }
};

}  // namespace

int main(int argc, char** argv) {
    const sm::problem p = sm::parse_problem(argc, argv);

    // The calling thread counts as one of the --workers.
    tbb::global_control const limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(p.workers));
    // The default arena has one slot per hardware thread: more workers than that are
    // allowed but not used.
    const auto hardware = static_cast<unsigned>(tbb::this_task_arena::max_concurrency());
    const unsigned workers = std::min(p.workers, hardware);

    stdpar_kernels k;
    sm::run("std-par", workers, p, k);
    return 0;
}
