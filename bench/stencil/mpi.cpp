// The 1D heat stencil (common.hpp) as an MPI program (issue #25): one rank per core and
// no threads, the distributed-memory reference the other versions are read against. The
// ring's partitions are dealt to the ranks in contiguous blocks (rank r owns partitions
// [r*P/R, (r+1)*P/R) of the P in all, hence a contiguous run of points), each rank
// holding only its own points. At every time step a rank
//   1. posts MPI_Irecv for the point left of its first one and the point right of its
//      last one, from the ranks that own them,
//   2. MPI_Isends its first point to the left neighbour and its last to the right one,
//   3. updates every point whose neighbours are all its own (heat_range per partition,
//      without the rank's two end points) while the messages travel,
//   4. MPI_Waitalls and updates its two end points (heat_range on one point each),
//   5. swaps its two buffers.
// Every point goes through the same heat() expression as in the serial reference, so the
// final grid is bit for bit the same. Ranks with no partition (more ranks than
// partitions) sit out the steps and the neighbours are the nearest ranks that own points;
// a rank that owns the whole ring (one rank, or one partition) takes its ghost points
// from itself without messages. Two neighbours that are the same rank (two ranks on the
// ring) are told apart by the tag, which says which way a point travels.
//
// Timing follows common.hpp's measure(): one warm-up and --reps measured repetitions,
// each from the initial grid (every rank writing its own points: the first touch is
// the owner's). A repetition is timed as MPI_Barrier, MPI_Wtime, the steps, MPI_Barrier,
// MPI_Wtime on rank 0 (the slowest rank's time). After each one the grid is gathered to
// rank 0 (MPI_Gatherv), checked there with common.hpp's checker against the serial
// reference (a failure ends rank 0 with status 1, and mpirun then ends the job) and the
// measured ones are printed by rank 0 with common.hpp's result line: impl=mpi,
// workers=<ranks>. --workers, if given, must equal the rank count.
//
// Run as root: OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np N
// bench_stencil_mpi --nx=... (OMPI_MCA_rmaps_base_oversubscribe=1 past the core count).
#include "stencil/common.hpp"

#include "common/mpi_bench.hpp"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

namespace {

namespace st = weft::bench::stencil;
namespace wm = weft::bench::mpi;

/// The first partition of rank r: r * P / R.
std::size_t first_partition(const st::problem& p, int r, int ranks) {
    return static_cast<std::size_t>(static_cast<unsigned long long>(p.partitions()) * static_cast<unsigned>(r) /
                                    static_cast<unsigned>(ranks));
}

/// The rank that owns partition `part`.
int owner(const st::problem& p, std::size_t part, int ranks) {
    int r = 0;
    while (first_partition(p, r + 1, ranks) <= part) ++r;
    return r;
}

/// One rank's run of the ring: points [lo, hi) in partitions [part_lo, part_hi).
class ring_share {
public:
    ring_share(const st::problem& p, int rank, int ranks) : p_(p), rank_(rank) {
        const std::size_t part_lo = first_partition(p, rank, ranks);
        const std::size_t part_hi = first_partition(p, rank + 1, ranks);
        lo_ = p.begin(part_lo);
        hi_ = part_hi > part_lo ? p.end(part_hi - 1) : lo_;
        for (std::size_t part = part_lo; part < part_hi; ++part) bounds_.push_back(p.begin(part) - lo_);
        bounds_.push_back(hi_ - lo_);
        if (part_hi > part_lo) {
            const std::size_t parts = p.partitions();
            left_ = owner(p, part_lo == 0 ? parts - 1 : part_lo - 1, ranks);
            right_ = owner(p, part_hi == parts ? 0 : part_hi, ranks);
        }
        cur_.resize(hi_ - lo_);  // written (first touched) here, by this rank
        next_.resize(hi_ - lo_);
    }

    std::size_t lo() const noexcept { return lo_; }
    std::size_t size() const noexcept { return hi_ - lo_; }
    const double* result() const noexcept { return cur_.data(); }

    /// This rank's points of the initial grid.
    void init() {
        for (std::size_t x = lo_; x < hi_; ++x) cur_[x - lo_] = st::initial_value(x);
    }

    /// p.nt time steps (collective among the ranks that own points; no barrier).
    void run() {
        const std::size_t m = size();
        if (m == 0) return;
        const bool alone = left_ == rank_;  // this rank owns the whole ring
        for (unsigned t = 0; t < p_.nt; ++t) {
            double* const cur = cur_.data();
            double* const nxt = next_.data();
            if (alone) {
                ghost_[0] = cur[m - 1];
                ghost_[1] = cur[0];
            } else {
                MPI_Irecv(&ghost_[0], 1, MPI_DOUBLE, left_, rightward, MPI_COMM_WORLD, &requests_[0]);
                MPI_Irecv(&ghost_[1], 1, MPI_DOUBLE, right_, leftward, MPI_COMM_WORLD, &requests_[1]);
                MPI_Isend(cur, 1, MPI_DOUBLE, left_, leftward, MPI_COMM_WORLD, &requests_[2]);
                MPI_Isend(cur + m - 1, 1, MPI_DOUBLE, right_, rightward, MPI_COMM_WORLD, &requests_[3]);
            }
            // The interior: each partition without the rank's end points 0 and m - 1.
            for (std::size_t k = 0; k + 1 < bounds_.size(); ++k) {
                const std::size_t b = std::max<std::size_t>(bounds_[k], 1);
                const std::size_t e = std::min(bounds_[k + 1], m - 1);
                if (b < e) st::heat_range(cur + b, cur[b - 1], cur[e], nxt + b, e - b);
            }
            if (!alone) MPI_Waitall(4, requests_, MPI_STATUSES_IGNORE);
            if (m == 1) {
                st::heat_range(cur, ghost_[0], ghost_[1], nxt, 1);
            } else {
                st::heat_range(cur, ghost_[0], cur[1], nxt, 1);
                st::heat_range(cur + m - 1, cur[m - 2], ghost_[1], nxt + m - 1, 1);
            }
            cur_.swap(next_);
        }
    }

private:
    // The tags say which way a point travels, so that a left and right neighbour that are
    // the same rank (two ranks on the ring) do not mix up the two points.
    static constexpr int leftward = 0;
    static constexpr int rightward = 1;

    const st::problem& p_;
    const int rank_;
    std::size_t lo_ = 0;
    std::size_t hi_ = 0;
    std::vector<std::size_t> bounds_;  // local offsets: partition k is [bounds_[k], bounds_[k+1])
    int left_ = -1;                    // owners of points lo - 1 and hi on the ring (if any points)
    int right_ = -1;
    std::vector<double> cur_;
    std::vector<double> next_;
    double ghost_[2] = {0.0, 0.0};  // the points left of lo and right of hi - 1
    MPI_Request requests_[4] = {};
};

}  // namespace

int main(int argc, char** argv) {
    // Parsed before MPI_Init (see mpi_bench.hpp).
    const st::problem p = st::parse_problem(argc, argv);
    wm::world w;
    if (!wm::start(argc, argv, wm::workers_option(argc, argv), w)) return 2;
    if (p.nx > static_cast<std::size_t>(INT_MAX)) {  // MPI_Gatherv's counts and offsets are ints
        if (w.root()) std::fprintf(stderr, "%s: --nx=%zu is too large for MPI_Gatherv (at most %d)\n", argv[0], p.nx, INT_MAX);
        MPI_Finalize();
        return 2;
    }

    ring_share share(p, w.rank, w.ranks);
    std::vector<int> counts(static_cast<std::size_t>(w.ranks));
    std::vector<int> displs(static_cast<std::size_t>(w.ranks));
    for (int r = 0; r < w.ranks; ++r) {
        const std::size_t part_lo = first_partition(p, r, w.ranks);
        const std::size_t part_hi = first_partition(p, r + 1, w.ranks);
        const std::size_t lo = p.begin(part_lo);
        const std::size_t hi = part_hi > part_lo ? p.end(part_hi - 1) : lo;
        counts[static_cast<std::size_t>(r)] = static_cast<int>(hi - lo);
        displs[static_cast<std::size_t>(r)] = static_cast<int>(lo);
    }

    // common.hpp's measure(), with the grid spread over the ranks and checked on rank 0.
    st::checker c("mpi", p);
    std::vector<double> grid(w.root() ? p.nx : 0);
    for (unsigned rep = 0; rep <= p.reps; ++rep) {
        share.init();
        MPI_Barrier(MPI_COMM_WORLD);
        const double start = MPI_Wtime();
        share.run();
        MPI_Barrier(MPI_COMM_WORLD);
        const double seconds = MPI_Wtime() - start;
        MPI_Gatherv(share.result(), static_cast<int>(share.size()), MPI_DOUBLE, grid.data(), counts.data(),
                    displs.data(), MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (w.root()) {
            const std::uint64_t hash = c.check(grid);
            if (rep > 0) st::print_result("mpi", w.workers(), p, seconds, hash);
        }
    }
    MPI_Finalize();
    return 0;
}
