// The transpose (common.hpp) as an MPI program (issue #25), with the algorithm of the
// Parallel Research Kernels' MPI1 Transpose: one rank per core and no threads, the
// distributed-memory reference. PRK stores its matrices column-major and gives each rank
// a block of columns; here they are row-major (common.hpp's A(i, j) = A[i * order + j],
// with the same initial values: a value is its index in memory), so the same contiguous
// blocks are blocks of rows: with bo = order / R, rank r owns rows [r*bo, (r+1)*bo) of
// both A and B, allocated and first written by itself. B(j, i) += A(i, j) then needs, for
// the rows of B that rank r owns, the bo x bo block of every rank's A that lies in
// columns [r*bo, (r+1)*bo). An iteration runs in R phases:
//   phase 0   the diagonal block: B(j, i) += A(i, j) within the rank, tile by tile;
//   phase s   with to = (r + s) % R and from = (r - s) % R: MPI_Irecv a bo x bo block
//             from `from` into a work buffer, transpose (tile by tile) the block of A in
//             `to`'s columns into a second work buffer, MPI_Isend it to `to`, wait for
//             both, and add the received block into B's columns [from*bo, (from+1)*bo).
// Every element of A lies in exactly one of those blocks, and A(i, j) += 1 is done in the
// same loop that reads it (the diagonal transpose or the packing), as PRK does. (PRK's
// phases go the other way round the ranks, to (r - s) % R; the pairs are the same.) The
// tiles (--tile, the last ones partial) cut the bo x bo blocks as PRK's local transposes
// do. --order must be a multiple of the rank count; otherwise rank 0 says so and every
// rank ends with status 2, as PRK refuses such an order.
//
// Timing follows common.hpp's run(): one warm-up iteration and --iterations measured
// ones, each timed on its own as MPI_Barrier, MPI_Wtime, the iteration, MPI_Barrier,
// MPI_Wtime on rank 0 (the slowest rank's time). PRK instead times the whole loop once,
// from a barrier after its warm-up to each rank's end, and takes the maximum over ranks;
// the barrier per iteration here is what gives common.hpp's best, average and worst. Then PRK's check: each rank sums |B - expected| over its rows
// (common.hpp's abs_error_rows), MPI_Reduce adds the sums on rank 0, which applies
// common.hpp's check (a failure ends rank 0 with status 1, and mpirun then ends the job)
// and prints its result line with impl=mpi, workers=<ranks>. --workers, if given, must
// equal the rank count.
//
// Run as root: OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np N
// bench_transpose_mpi --order=... (OMPI_MCA_rmaps_base_oversubscribe=1 past the core
// count).
#include "transpose/common.hpp"

#include "common/mpi_bench.hpp"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <vector>

namespace {

namespace tr = weft::bench::transpose;
namespace wm = weft::bench::mpi;

/// dst(jj, ii) = src(ii, jj) (or +=, with `accumulate`) and then src(ii, jj) += 1, for a
/// bo x bo block of A, tile by tile; src's rows are `src_stride` apart, dst's `dst_stride`.
void transpose_block(double* src, std::size_t src_stride, double* dst, std::size_t dst_stride,
                     std::size_t bo, std::size_t tile, bool accumulate) noexcept {
    for (std::size_t it = 0; it < bo; it += tile) {
        const std::size_t i1 = std::min(bo, it + tile);
        for (std::size_t jt = 0; jt < bo; jt += tile) {
            const std::size_t j1 = std::min(bo, jt + tile);
            if (accumulate) {
                for (std::size_t i = it; i < i1; ++i)
                    for (std::size_t j = jt; j < j1; ++j) {
                        dst[j * dst_stride + i] += src[i * src_stride + j];
                        src[i * src_stride + j] += 1.0;
                    }
            } else {
                for (std::size_t i = it; i < i1; ++i)
                    for (std::size_t j = jt; j < j1; ++j) {
                        dst[j * dst_stride + i] = src[i * src_stride + j];
                        src[i * src_stride + j] += 1.0;
                    }
            }
        }
    }
}

/// One rank's rows of A and B and the work buffers of the phases.
class row_block {
public:
    row_block(const tr::problem& p, int rank, int ranks)
        : p_(p), rank_(rank), ranks_(ranks), bo_(p.order / static_cast<std::size_t>(ranks)),
          // Allocated without being written: init() is the first touch, by this rank.
          a_(std::make_unique_for_overwrite<double[]>(std::max<std::size_t>(bo_ * p.order, 1))),
          b_(std::make_unique_for_overwrite<double[]>(std::max<std::size_t>(bo_ * p.order, 1))) {
        if (ranks > 1) {
            work_in_ = std::make_unique_for_overwrite<double[]>(bo_ * bo_);
            work_out_ = std::make_unique_for_overwrite<double[]>(bo_ * bo_);
        }
    }

    std::size_t first_row() const noexcept { return static_cast<std::size_t>(rank_) * bo_; }
    std::size_t rows() const noexcept { return bo_; }
    const double* b() const noexcept { return b_.get(); }

    /// PRK's initial values: A(i, j) = i * order + j, B = 0.
    void init() noexcept {
        const std::size_t order = p_.order;
        for (std::size_t ii = 0; ii < bo_; ++ii)
            for (std::size_t j = 0; j < order; ++j) {
                a_[ii * order + j] = static_cast<double>((first_row() + ii) * order + j);
                b_[ii * order + j] = 0.0;
            }
    }

    /// One iteration: B(j, i) += A(i, j) over this rank's rows of B and A(i, j) += 1 over
    /// its rows of A (collective; no barrier).
    void iterate() {
        const std::size_t order = p_.order;
        const std::size_t r = static_cast<std::size_t>(rank_);
        double* const a = a_.get();
        double* const b = b_.get();
        transpose_block(a + r * bo_, order, b + r * bo_, order, bo_, p_.tile, true);
        const int count = static_cast<int>(bo_ * bo_);
        for (int phase = 1; phase < ranks_; ++phase) {
            const int to = (rank_ + phase) % ranks_;
            const int from = (rank_ - phase + ranks_) % ranks_;
            MPI_Irecv(work_in_.get(), count, MPI_DOUBLE, from, phase, MPI_COMM_WORLD, &requests_[0]);
            transpose_block(a + static_cast<std::size_t>(to) * bo_, order, work_out_.get(), bo_, bo_, p_.tile, false);
            MPI_Isend(work_out_.get(), count, MPI_DOUBLE, to, phase, MPI_COMM_WORLD, &requests_[1]);
            MPI_Waitall(2, requests_, MPI_STATUSES_IGNORE);
            const double* const in = work_in_.get();
            double* const cols = b + static_cast<std::size_t>(from) * bo_;
            for (std::size_t jj = 0; jj < bo_; ++jj)
                for (std::size_t ii = 0; ii < bo_; ++ii) cols[jj * order + ii] += in[jj * bo_ + ii];
        }
    }

private:
    const tr::problem& p_;
    const int rank_;
    const int ranks_;
    const std::size_t bo_;  // rows per rank: order / ranks
    std::unique_ptr<double[]> a_;  // rows [rank * bo, (rank + 1) * bo) of A, row-major
    std::unique_ptr<double[]> b_;  // and of B
    std::unique_ptr<double[]> work_in_;   // the block received in a phase
    std::unique_ptr<double[]> work_out_;  // the transposed block sent in a phase
    MPI_Request requests_[2] = {};
};

}  // namespace

int main(int argc, char** argv) {
    // Parsed before MPI_Init (see mpi_bench.hpp).
    const tr::problem p = tr::parse_problem(argc, argv);
    wm::world w;
    if (!wm::start(argc, argv, wm::workers_option(argc, argv), w)) return 2;
    const auto ranks = static_cast<std::size_t>(w.ranks);
    if (p.order % ranks != 0) {
        if (w.root())
            std::fprintf(stderr,
                         "%s: --order=%zu is not a multiple of the %d ranks (each rank owns order/ranks rows, "
                         "as in PRK's MPI transpose)\n",
                         argv[0], p.order, w.ranks);
        MPI_Finalize();
        return 2;
    }
    const std::size_t bo = p.order / ranks;
    if (w.ranks > 1 && bo * bo > static_cast<std::size_t>(INT_MAX)) {  // one message per block
        if (w.root())
            std::fprintf(stderr, "%s: blocks of %zu x %zu doubles are too large for one MPI message\n", argv[0], bo,
                         bo);
        MPI_Finalize();
        return 2;
    }

    row_block rb(p, w.rank, w.ranks);
    std::vector<double> seconds;
    seconds.reserve(p.iterations);
    rb.init();
    for (unsigned it = 0; it <= p.iterations; ++it) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double start = MPI_Wtime();
        rb.iterate();
        MPI_Barrier(MPI_COMM_WORLD);
        const double s = MPI_Wtime() - start;
        if (it > 0) seconds.push_back(s);  // iteration 0 is the warm-up
    }

    const double mine = tr::abs_error_rows(p, rb.b(), rb.first_row(), rb.first_row() + rb.rows(), p.iterations + 1);
    double err = 0.0;
    MPI_Reduce(&mine, &err, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (w.root()) {
        tr::check_error("mpi", p, err);
        tr::print_result("mpi", w.workers(), p, seconds, err);
    }
    MPI_Finalize();
    return 0;
}
