// STREAM on one thread: plain loops, the first touch included; the floor the parallel
// versions are measured against. Ignores --workers (reports workers=1).
#include "stream/common.hpp"

#include <cstddef>

namespace {

namespace sm = weft::bench::stream;

struct serial_kernels {
    void fill(double* x, std::size_t n, double v) const {
        for (std::size_t j = 0; j < n; ++j) x[j] = v;
    }
    void copy(const double* a, double* c, std::size_t n) const {
        for (std::size_t j = 0; j < n; ++j) c[j] = a[j];
    }
    void scale(const double* c, double* b, std::size_t n) const {
        for (std::size_t j = 0; j < n; ++j) b[j] = sm::scalar * c[j];
    }
    void add(const double* a, const double* b, double* c, std::size_t n) const {
        for (std::size_t j = 0; j < n; ++j) c[j] = a[j] + b[j];
    }
    void triad(const double* b, const double* c, double* a, std::size_t n) const {
        for (std::size_t j = 0; j < n; ++j) a[j] = b[j] + sm::scalar * c[j];
    }
};

}  // namespace

int main(int argc, char** argv) {
    const sm::problem p = sm::parse_problem(argc, argv);
    serial_kernels k;
    sm::run("serial", 1, p, k);
    return 0;
}
