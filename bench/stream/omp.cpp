// STREAM with OpenMP as STREAM itself is written: one `parallel for schedule(static)` per
// kernel, and the same for the first touch, so that thread t writes, then reads and
// writes, the same contiguous block of every array.
// The runtime's name comes from WEFT_BENCH_OMP_IMPL; otherwise "omp-static".
#include "stream/common.hpp"

#include <omp.h>

#include <cstddef>

#if !defined(WEFT_BENCH_OMP_IMPL)
#define WEFT_BENCH_OMP_IMPL "omp-static"
#endif

namespace {

namespace sm = weft::bench::stream;

struct omp_kernels {
    void fill(double* x, std::size_t n, double v) const {
#pragma omp parallel for schedule(static)
        for (std::size_t j = 0; j < n; ++j) x[j] = v;
    }
    void copy(const double* a, double* c, std::size_t n) const {
#pragma omp parallel for schedule(static)
        for (std::size_t j = 0; j < n; ++j) c[j] = a[j];
    }
    void scale(const double* c, double* b, std::size_t n) const {
#pragma omp parallel for schedule(static)
        for (std::size_t j = 0; j < n; ++j) b[j] = sm::scalar * c[j];
    }
    void add(const double* a, const double* b, double* c, std::size_t n) const {
#pragma omp parallel for schedule(static)
        for (std::size_t j = 0; j < n; ++j) c[j] = a[j] + b[j];
    }
    void triad(const double* b, const double* c, double* a, std::size_t n) const {
#pragma omp parallel for schedule(static)
        for (std::size_t j = 0; j < n; ++j) a[j] = b[j] + sm::scalar * c[j];
    }
};

}  // namespace

int main(int argc, char** argv) {
    const sm::problem p = sm::parse_problem(argc, argv);
    omp_set_dynamic(0);
    omp_set_num_threads(static_cast<int>(p.workers));

    unsigned team = 0;
#pragma omp parallel
#pragma omp single
    team = static_cast<unsigned>(omp_get_num_threads());

    omp_kernels k;
    sm::run(WEFT_BENCH_OMP_IMPL, team, p, k);
    return 0;
}
