// Issue #25's segmented reduce against MPI_Allreduce, in the same run: the sum of n
// doubles spread over the localities. Shared by bench/distributed/reduce.cpp (the
// benchmark, default n = 10^8) and tests/distributed/apps.cpp (ctest at 1, 2 and 4
// ranks, sanitizers included).
//   weft-segmented  weft::reduce(execution::par, v.begin(), v.end(), 0.0) on a
//                   partitioned_vector<double> with one partition per locality, called on
//                   locality 0 (each partition's part runs where it lives; the partial
//                   sums come back to locality 0)
//   mpi             every rank std::reduce of its own std::vector (the same share as its
//                   partition), then MPI_Allreduce on MPI_COMM_WORLD
// Partition (and rank) k holds n/L elements (one more for k < n % L), all equal to
// k % 8 + 1: the sum is exact in doubles, and both results must equal it (a wrong one:
// a message, and every locality exits 1).
//
// Every locality calls body() (under --weft:spmd). One warm-up of each, then o.reps
// repetitions alternating the order (weft first in even ones). Each is timed on locality 0 between MPI barriers on MPI_COMM_WORLD: for weft,
// the barrier (non-blocking, waited for with this_task::yield, so the others serve their
// partition's action while they wait), the reduce on locality 0, the barrier; for MPI, as
// bench/stream/mpi.cpp: MPI_Barrier, MPI_Wtime, std::reduce and MPI_Allreduce, MPI_Wtime.
// Lines, on locality 0, one per repetition per implementation:
//   weft-bench problem=reduce impl=<weft-segmented|mpi> ranks=<L> workers=<L x threads>
//              n=<n> rep=<i> seconds=<s> gbytes_per_second=<8 n / s / 1e9> sum=<sum>
//              ratio=<weft seconds / mpi seconds of the same repetition>
// (the target: ratio <= 1.11, i.e. weft at least 0.9x MPI's speed.)
#pragma once

#include "bench_common.hpp"

#include <weft/distributed.hpp>
#include <weft/weft.hpp>

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <vector>

namespace weft::bench::distributed_reduce {

namespace ex = weft::execution;

struct options {
    std::uint64_t n = 100'000'000;
    unsigned reps = 10;
};

/// Partition (rank) k's share of n over L, and its elements' value.
inline std::uint64_t share(std::uint64_t n, std::uint64_t L, std::uint64_t k) { return n / L + (k < n % L ? 1 : 0); }
inline double value_of(std::uint64_t k) { return static_cast<double>(k % 8 + 1); }

inline void wait_yielding(MPI_Request& r) {
    for (int done = 0; MPI_Test(&r, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done == 0;) weft::this_task::yield();
}

/// A barrier on MPI_COMM_WORLD that keeps this locality's worker serving weft's actions.
inline void barrier_yielding() {
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Ibarrier(MPI_COMM_WORLD, &r);
    wait_yielding(r);
}

/// The whole comparison, on every locality (SPMD); 0 if both sums were right everywhere,
/// 1 if not (on every locality).
inline int body(const options& o) {
    const std::uint32_t me = weft::get_locality_id();
    const std::uint64_t L = weft::get_num_localities();
    const unsigned workers = static_cast<unsigned>(L) * weft::num_workers();

    double expected = 0;
    for (std::uint64_t k = 0; k < L; ++k) expected += static_cast<double>(share(o.n, L, k)) * value_of(k);

    // The MPI reference's data: this rank's share, written by itself.
    std::vector<double> mine(static_cast<std::size_t>(share(o.n, L, me)), value_of(me));
    // weft's: locality 0 makes the vector (one partition per locality) and fills each
    // partition where it lives.
    weft::partitioned_vector<double> v;
    if (me == 0) {
        v = weft::partitioned_vector<double>(o.n, weft::container_layout(L));
        std::uint64_t k = 0;
        for (const auto& s : v.segments()) {
            weft::fill(ex::par, v.begin() + static_cast<std::ptrdiff_t>(s.begin),
                       v.begin() + static_cast<std::ptrdiff_t>(s.end), value_of(k++));
        }
    }

    bool wrong = false;
    auto run_weft = [&]() -> double {
        barrier_yielding();
        double seconds = 0, sum = 0;
        if (me == 0) seconds = weft::bench::time_seconds([&] { sum = weft::reduce(ex::par, v.begin(), v.end(), 0.0); });
        barrier_yielding();
        if (me == 0 && sum != expected) {
            std::fprintf(stderr, "weft-bench problem=reduce impl=weft-segmented: WRONG RESULT %.17g, expected %.17g\n",
                         sum, expected);
            wrong = true;
        }
        return seconds;
    };
    auto run_mpi = [&]() -> double {
        MPI_Barrier(MPI_COMM_WORLD);
        const double start = MPI_Wtime();
        double part = std::reduce(mine.begin(), mine.end(), 0.0);
        double sum = 0;
        MPI_Allreduce(&part, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        const double seconds = MPI_Wtime() - start;
        if (sum != expected) {
            std::fprintf(stderr, "weft-bench problem=reduce impl=mpi: WRONG RESULT %.17g, expected %.17g (rank %u)\n", sum,
                         expected, me);
            wrong = true;
        }
        return seconds;
    };
    auto print = [&](const char* impl, unsigned rep, double seconds, double sum, double ratio) {
        std::printf("weft-bench problem=reduce impl=%s ranks=%llu workers=%u n=%llu rep=%u seconds=%.9f "
                    "gbytes_per_second=%.3f sum=%.17g ratio=%.4f\n",
                    impl, static_cast<unsigned long long>(L), workers, static_cast<unsigned long long>(o.n), rep,
                    seconds, 8.0 * static_cast<double>(o.n) / seconds / 1e9, sum, ratio);
        std::fflush(stdout);
    };

    (void)run_weft();  // the warm-ups
    (void)run_mpi();
    for (unsigned rep = 0; rep < o.reps; ++rep) {
        double tw = 0, tm = 0;
        if (rep % 2 == 0) {
            tw = run_weft();
            tm = run_mpi();
        } else {
            tm = run_mpi();
            tw = run_weft();
        }
        if (me == 0 && !wrong) {
            print("weft-segmented", rep, tw, expected, tw / tm);
            print("mpi", rep, tm, expected, tw / tm);
        }
    }

    // Everyone learns whether anything was wrong; the partitions go before anyone leaves.
    int any_wrong = wrong ? 1 : 0, every = 0;
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Iallreduce(&any_wrong, &every, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &r);
    wait_yielding(r);
    v = weft::partitioned_vector<double>();
    barrier_yielding();
    return every != 0 ? 1 : 0;
}

}  // namespace weft::bench::distributed_reduce
