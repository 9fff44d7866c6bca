// STREAM (common.hpp) as an MPI program (issue #25): one rank per core and no threads,
// the distributed-memory reference. Rank r of R owns a contiguous n/R elements of each
// of a, b and c (the first n % R ranks one more), allocated and first written by itself,
// and runs the kernels as the serial version's plain loops on them; no message moves
// during a kernel. Each kernel is timed as
//   MPI_Barrier, MPI_Wtime, the kernel, MPI_Barrier, MPI_Wtime
// on rank 0, so a time is the slowest rank's (as STREAM's MPI variants do); the warm-up,
// --reps and best/avg/max are common.hpp's, and the byte counts are for the global n.
//
// The check: every rank compares its own elements with common.hpp's expected values
// (STREAM's epsilon); a rank that finds a wrong element prints common.hpp's message with
// global indices (and its own share), and then every rank ends with status 1. The result
// hash is the one common.hpp computes over the whole arrays (FNV-1a over a, then b, then
// c, element by element), so it is carried from rank to rank in that order: rank 0 hashes
// its part of a and sends the state to rank 1, and so on around the ranks three times;
// rank 0 ends with the hash of the whole arrays, equal to the single-process versions'
// for the same --n and --reps. Rank 0 prints common.hpp's result lines with impl=mpi,
// workers=<ranks>. --workers, if given, must equal the rank count.
//
// Run as root: OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np N
// bench_stream_mpi --n=... (OMPI_MCA_rmaps_base_oversubscribe=1 past the core count).
#include "stream/common.hpp"

#include "common/mpi_bench.hpp"

#include <mpi.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

namespace sm = weft::bench::stream;
namespace wm = weft::bench::mpi;

// The serial version's loops, on this rank's share.
void fill(double* x, std::size_t n, double v) {
    for (std::size_t j = 0; j < n; ++j) x[j] = v;
}
void copy(const double* a, double* c, std::size_t n) {
    for (std::size_t j = 0; j < n; ++j) c[j] = a[j];
}
void scale(const double* c, double* b, std::size_t n) {
    for (std::size_t j = 0; j < n; ++j) b[j] = sm::scalar * c[j];
}
void add(const double* a, const double* b, double* c, std::size_t n) {
    for (std::size_t j = 0; j < n; ++j) c[j] = a[j] + b[j];
}
void triad(const double* b, const double* c, double* a, std::size_t n) {
    for (std::size_t j = 0; j < n; ++j) a[j] = b[j] + sm::scalar * c[j];
}

/// Wall seconds of f() between two barriers, on this rank's clock (rank 0's is reported).
template <class F>
double timed(F&& f) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    f();
    MPI_Barrier(MPI_COMM_WORLD);
    return MPI_Wtime() - start;
}

/// Checks this rank's elements [first, first + count) of the three arrays (common.hpp's
/// check, on a share); prints what is wrong and returns false if anything is.
bool check_share(const sm::problem& p, const wm::world& w, const std::array<const sm::array*, 3>& arrays,
                 std::size_t first, unsigned iterations) {
    const std::array<double, 3> expect = sm::expected_final(iterations);
    const std::array<char, 3> names{'a', 'b', 'c'};
    bool ok = true;
    for (std::size_t k = 0; k < arrays.size(); ++k) {
        const double* x = arrays[k]->data();
        const double e = expect[k];
        std::size_t wrong = 0;
        std::size_t first_wrong = 0;
        for (std::size_t j = 0; j < arrays[k]->size(); ++j) {
            // Written so that a NaN counts as wrong.
            if (!(std::fabs(x[j] - e) <= sm::check_epsilon * std::fabs(e))) {
                if (wrong++ == 0) first_wrong = j;
            }
        }
        if (wrong > 0) {
            ok = false;
            std::fprintf(stderr,
                         "weft-bench problem=stream impl=mpi: WRONG RESULT: %zu of %zu elements of %c differ from "
                         "%.17g after %u iterations; first at %zu: %.17g (rank %d, elements [%zu, %zu))\n",
                         wrong, p.n, names[k], e, iterations, first + first_wrong, x[first_wrong], w.rank, first,
                         first + arrays[k]->size());
        }
    }
    return ok;
}

/// common.hpp's hash of the whole arrays, carried through the ranks' shares in order: the
/// result on rank 0 (meaningless elsewhere). Collective.
std::uint64_t chained_hash(const wm::world& w, const std::array<const sm::array*, 3>& arrays) {
    std::uint64_t h = sm::hash_basis;
    const int last = w.ranks - 1;
    for (std::size_t k = 0; k < arrays.size(); ++k) {
        const int tag = static_cast<int>(k);
        if (w.rank > 0) {
            MPI_Recv(&h, 1, MPI_UINT64_T, w.rank - 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (k > 0 && last > 0) {  // array k starts where the last rank ended array k - 1
            MPI_Recv(&h, 1, MPI_UINT64_T, last, tag - 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        const double* x = arrays[k]->data();
        for (std::size_t j = 0; j < arrays[k]->size(); ++j) sm::hash_step(h, x[j]);
        if (w.rank < last) {
            MPI_Send(&h, 1, MPI_UINT64_T, w.rank + 1, tag, MPI_COMM_WORLD);
        } else if (last > 0) {
            MPI_Send(&h, 1, MPI_UINT64_T, 0, tag, MPI_COMM_WORLD);
        }
    }
    if (w.root() && last > 0)
        MPI_Recv(&h, 1, MPI_UINT64_T, last, static_cast<int>(arrays.size()) - 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return h;
}

}  // namespace

int main(int argc, char** argv) {
    // Parsed before MPI_Init (see mpi_bench.hpp).
    const sm::problem p = sm::parse_problem(argc, argv);
    wm::world w;
    if (!wm::start(argc, argv, wm::workers_option(argc, argv), w)) return 2;

    // Rank r: elements [first, first + count) of each array.
    const auto ranks = static_cast<std::size_t>(w.ranks);
    const auto rank = static_cast<std::size_t>(w.rank);
    const std::size_t base = p.n / ranks;
    const std::size_t extra = p.n % ranks;
    const std::size_t count = base + (rank < extra ? 1 : 0);
    const std::size_t first = rank * base + (rank < extra ? rank : extra);

    sm::array a(count), b(count), c(count);
    sm::timings t;
    for (auto& s : t.seconds) s.reserve(p.reps);
    // The first touch, by the rank that computes afterwards.
    fill(a.data(), count, sm::initial_a);
    fill(b.data(), count, sm::initial_b);
    fill(c.data(), count, sm::initial_c);
    for (unsigned it = 0; it <= p.reps; ++it) {
        const std::array<double, sm::kernels.size()> s{
            timed([&] { copy(a.data(), c.data(), count); }),
            timed([&] { scale(c.data(), b.data(), count); }),
            timed([&] { add(a.data(), b.data(), c.data(), count); }),
            timed([&] { triad(b.data(), c.data(), a.data(), count); }),
        };
        if (it == 0) continue;  // the warm-up
        for (std::size_t k = 0; k < sm::kernels.size(); ++k) t.seconds[k].push_back(s[k]);
    }

    const std::array<const sm::array*, 3> arrays{&a, &b, &c};
    int wrong = check_share(p, w, arrays, first, p.reps + 1) ? 0 : 1;
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (wrong != 0) {
        MPI_Finalize();
        return 1;
    }
    const std::uint64_t hash = chained_hash(w, arrays);
    if (w.root())
        for (std::size_t k = 0; k < sm::kernels.size(); ++k)
            sm::print_result("mpi", w.workers(), p, sm::kernels[k], t.seconds[k], hash);
    MPI_Finalize();
    return 0;
}
