// STREAM on oneTBB: one tbb::parallel_for per kernel over the index range with
// tbb::static_partitioner (one contiguous block per thread, as OpenMP's schedule(static);
// the partitioner also gives the same block to the same arena slot from loop to loop),
// and the same for the first touch. Everything runs in one task arena of --workers slots,
// the calling thread's included.
#include "stream/common.hpp"

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <cstddef>

namespace {

namespace sm = weft::bench::stream;

/// body(j) for every j of [0, n), split statically over the arena's threads.
template <class Body>
void static_for(std::size_t n, const Body& body) {
    tbb::parallel_for(
        tbb::blocked_range<std::size_t>(0, n),
        [&body](const tbb::blocked_range<std::size_t>& r) {
            const std::size_t e = r.end();
            for (std::size_t j = r.begin(); j != e; ++j) body(j);
        },
        tbb::static_partitioner{});
}

struct tbb_kernels {
    void fill(double* x, std::size_t n, double v) const {
        static_for(n, [=](std::size_t j) { x[j] = v; });
    }
    void copy(const double* a, double* c, std::size_t n) const {
        static_for(n, [=](std::size_t j) { c[j] = a[j]; });
    }
    void scale(const double* c, double* b, std::size_t n) const {
        static_for(n, [=](std::size_t j) { b[j] = sm::scalar * c[j]; });
    }
    void add(const double* a, const double* b, double* c, std::size_t n) const {
        static_for(n, [=](std::size_t j) { c[j] = a[j] + b[j]; });
    }
    void triad(const double* b, const double* c, double* a, std::size_t n) const {
        static_for(n, [=](std::size_t j) { a[j] = b[j] + sm::scalar * c[j]; });
    }
};

}  // namespace

int main(int argc, char** argv) {
    const sm::problem p = sm::parse_problem(argc, argv);

    // The arena's slot for the calling thread counts as one of the --workers.
    tbb::global_control const limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(p.workers));
    tbb::task_arena arena(static_cast<int>(p.workers));
    arena.initialize();
    const auto workers = static_cast<unsigned>(arena.max_concurrency());

    tbb_kernels k;
    sm::run("tbb-static", workers, p, k, [&arena](auto&& body) { arena.execute(body); });
    return 0;
}
