// The task graph (Task Bench's method, issue #22; see common.hpp) as an MPI program: one
// rank per core, each owning a contiguous block of columns (rank r: [r*W/P, (r+1)*W/P)),
// as Task Bench's MPI implementation distributes its points. Per step t, a rank
//   1. posts one MPI_Irecv per rank it needs values from (the step t-1 values of that
//      rank's columns its own points read, packed in column order),
//   2. packs and MPI_Isends, to each rank that reads some of its columns, those values,
//   3. computes its interior points (all inputs local) while the messages travel,
//   4. waits for its receives and computes the points that read remote values,
//   5. waits for its sends (their buffer is packed again next step).
// Which values go where depends on the step only through the shape's pattern (the fft's
// level, the tree's first steps), so it is computed once per pattern before timing; the
// steps allocate nothing. Messages carry the step in their tag (mod 2^15, the smallest
// MPI_TAG_UB allowed), and MPI's non-overtaking order between a pair of ranks keeps the
// steps apart in any case.
//
// Timing: a barrier, the steps, a barrier, on rank 0's MPI_Wtime. The last step's values
// are gathered to rank 0 afterwards and checked there against the serial evaluation.
// Rank 0 measures the kernel's serial rate while the others wait for its broadcast.
//
// Run as root: mpirun --allow-run-as-root --oversubscribe -np N bench_taskgraph_mpi ...
// (scripts/taskgraph does; in a container without CMA add
// OMPI_MCA_btl_vader_single_copy_mechanism=none).
#include "taskgraph/common.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

namespace {

namespace tg = weft::bench::taskgraph;

/// What a rank sends, receives and computes at every step of one pattern.
struct plan {
    // Receives: from ranks src[k], count[k] values at offset[k] of the remote area.
    std::vector<int> recv_rank;
    std::vector<int> recv_count;
    std::vector<unsigned> recv_offset;
    // Sends: to ranks send_rank[k], the local columns send_cols[send_offset[k] ..
    // send_offset[k] + send_count[k]) (offsets from the rank's first column).
    std::vector<int> send_rank;
    std::vector<int> send_count;
    std::vector<unsigned> send_offset;
    std::vector<unsigned> send_cols;
    // Points (offsets from the first column) with every input local, and the others.
    std::vector<unsigned> interior;
    std::vector<unsigned> boundary;
    // The inputs of local point p, in the graph's order: in_index[in_begin[p] ..
    // in_begin[p + 1]), each an index into [local values of t-1 | remote area].
    std::vector<unsigned> in_begin;
    std::vector<unsigned> in_index;
};

class distributed_graph {
public:
    distributed_graph(const tg::graph& g, int rank, int ranks) : g_(g), rank_(rank), ranks_(ranks) {
        first_.resize(static_cast<std::size_t>(ranks) + 1);
        for (int r = 0; r <= ranks; ++r)
            first_[static_cast<std::size_t>(r)] = static_cast<unsigned>(static_cast<std::uint64_t>(g.width) *
                                                                        static_cast<unsigned>(r) /
                                                                        static_cast<unsigned>(ranks));
        owner_.resize(g.width);
        for (int r = 0; r < ranks; ++r)
            for (unsigned j = first(r); j < first(r + 1); ++j) owner_[j] = r;
        lo_ = first(rank);
        local_ = first(rank + 1) - lo_;
        std::size_t remote_max = 0, send_max = 0, requests = 0;
        for (unsigned p = 0; p < g.patterns(); ++p) {
            plans_.push_back(make_plan(g.first_step(p)));
            const plan& pl = plans_.back();
            std::size_t remote = 0;
            for (int c : pl.recv_count) remote += static_cast<std::size_t>(c);
            remote_max = std::max(remote_max, remote);
            send_max = std::max(send_max, pl.send_cols.size());
            requests = std::max(requests, pl.recv_rank.size() + pl.send_rank.size());
        }
        for (auto& b : values_) b.resize(local_ + remote_max);
        send_buffer_.resize(send_max);
        requests_.resize(requests);
    }

    /// Runs every step once (collective; no barrier).
    void run() {
        std::uint64_t* prev = values_[0].data();
        std::uint64_t* cur = values_[1].data();
        const unsigned active0 = active_here(0);
        for (unsigned p = 0; p < active0; ++p) cur[p] = tg::run_task(g_, 0, lo_ + p, nullptr, 0);
        std::swap(prev, cur);
        for (unsigned t = 1; t < g_.steps; ++t) {
            const plan& pl = plans_[g_.pattern(t)];
            const int tag = static_cast<int>(t & 0x7fffu);
            const std::size_t nrecv = pl.recv_rank.size();
            const std::size_t nsend = pl.send_rank.size();
            for (std::size_t k = 0; k < nrecv; ++k)
                MPI_Irecv(prev + local_ + pl.recv_offset[k], pl.recv_count[k], MPI_UINT64_T, pl.recv_rank[k], tag,
                          MPI_COMM_WORLD, &requests_[k]);
            for (std::size_t k = 0; k < nsend; ++k) {
                std::uint64_t* const out = send_buffer_.data() + pl.send_offset[k];
                const unsigned* const cols = pl.send_cols.data() + pl.send_offset[k];
                for (int c = 0; c < pl.send_count[k]; ++c) out[c] = prev[cols[c]];
                MPI_Isend(out, pl.send_count[k], MPI_UINT64_T, pl.send_rank[k], tag, MPI_COMM_WORLD,
                          &requests_[nrecv + k]);
            }
            for (unsigned p : pl.interior) cur[p] = compute(pl, t, p, prev);
            if (nrecv > 0) MPI_Waitall(static_cast<int>(nrecv), requests_.data(), MPI_STATUSES_IGNORE);
            for (unsigned p : pl.boundary) cur[p] = compute(pl, t, p, prev);
            if (nsend > 0) MPI_Waitall(static_cast<int>(nsend), requests_.data() + nrecv, MPI_STATUSES_IGNORE);
            std::swap(prev, cur);
        }
        last_ = prev;
    }

    /// The result hash on rank 0 (0 elsewhere), from the last run's last step (collective).
    std::uint64_t gather_result() {
        const unsigned t = g_.steps - 1;
        const int mine = static_cast<int>(active_here(t));
        std::vector<int> counts(static_cast<std::size_t>(ranks_)), displs(static_cast<std::size_t>(ranks_));
        for (int r = 0; r < ranks_; ++r) {
            const unsigned active = g_.width_at(t);
            const unsigned a = std::min(first(r), active), b = std::min(first(r + 1), active);
            counts[static_cast<std::size_t>(r)] = static_cast<int>(b - a);
            displs[static_cast<std::size_t>(r)] = static_cast<int>(a);
        }
        std::vector<std::uint64_t> all(rank_ == 0 ? g_.width_at(t) : 0);
        MPI_Gatherv(last_, mine, MPI_UINT64_T, all.data(), counts.data(), displs.data(), MPI_UINT64_T, 0,
                    MPI_COMM_WORLD);
        return rank_ == 0 ? tg::result_hash(g_, all.data()) : 0;
    }

private:
    unsigned first(int r) const noexcept { return first_[static_cast<std::size_t>(r)]; }
    /// Local points active at step t: [lo_, lo_ + active_here(t)).
    unsigned active_here(unsigned t) const noexcept {
        const unsigned active = g_.width_at(t);
        return active <= lo_ ? 0 : std::min(local_, active - lo_);
    }

    std::uint64_t compute(const plan& pl, unsigned t, unsigned p, const std::uint64_t* prev) const noexcept {
        std::uint64_t in[tg::max_inputs];
        const unsigned b = pl.in_begin[p], e = pl.in_begin[p + 1];
        for (unsigned k = b; k < e; ++k) in[k - b] = prev[pl.in_index[k]];
        return tg::run_task(g_, t, lo_ + p, in, e - b);
    }

    /// The plan of step t's pattern (setup only: allocates freely).
    plan make_plan(unsigned t) {
        plan pl;
        unsigned idx[tg::max_inputs];
        // What this rank needs from each other rank, and what each other rank needs from it.
        std::vector<std::vector<unsigned>> need(static_cast<std::size_t>(ranks_)), give(static_cast<std::size_t>(ranks_));
        const unsigned active = g_.width_at(t);
        for (unsigned i = 0; i < active; ++i) {
            const int reader = owner_[i];
            const unsigned k = g_.inputs(t, i, idx);
            for (unsigned j = 0; j < k; ++j) {
                const int holder = owner_[idx[j]];
                if (holder == reader) continue;
                if (reader == rank_) need[static_cast<std::size_t>(holder)].push_back(idx[j]);
                if (holder == rank_) give[static_cast<std::size_t>(reader)].push_back(idx[j] - lo_);
            }
        }
        for (auto* lists : {&need, &give})
            for (auto& l : *lists) {
                std::sort(l.begin(), l.end());
                l.erase(std::unique(l.begin(), l.end()), l.end());
            }
        std::vector<unsigned> remote_pos(g_.width, 0);  // column -> index in the remote area
        unsigned offset = 0;
        for (int r = 0; r < ranks_; ++r) {
            const auto& l = need[static_cast<std::size_t>(r)];
            if (l.empty()) continue;
            pl.recv_rank.push_back(r);
            pl.recv_count.push_back(static_cast<int>(l.size()));
            pl.recv_offset.push_back(offset);
            for (unsigned j : l) remote_pos[j] = offset++;
        }
        for (int r = 0; r < ranks_; ++r) {
            const auto& l = give[static_cast<std::size_t>(r)];
            if (l.empty()) continue;
            pl.send_rank.push_back(r);
            pl.send_count.push_back(static_cast<int>(l.size()));
            pl.send_offset.push_back(static_cast<unsigned>(pl.send_cols.size()));
            pl.send_cols.insert(pl.send_cols.end(), l.begin(), l.end());
        }
        pl.in_begin.assign(static_cast<std::size_t>(local_) + 1, 0);
        const unsigned mine = active_here(t);
        for (unsigned p = 0; p < mine; ++p) {
            const unsigned k = g_.inputs(t, lo_ + p, idx);
            bool remote = false;
            for (unsigned j = 0; j < k; ++j) {
                const bool local = owner_[idx[j]] == rank_;
                remote = remote || !local;
                pl.in_index.push_back(local ? idx[j] - lo_ : local_ + remote_pos[idx[j]]);
            }
            (remote ? pl.boundary : pl.interior).push_back(p);
            pl.in_begin[p + 1] = static_cast<unsigned>(pl.in_index.size());
        }
        for (unsigned p = mine; p < local_; ++p) pl.in_begin[p + 1] = pl.in_begin[p];
        return pl;
    }

    const tg::graph& g_;
    const int rank_;
    const int ranks_;
    std::vector<unsigned> first_;  // first column of each rank, and width at the end
    std::vector<int> owner_;       // rank of each column
    unsigned lo_ = 0;              // this rank's first column
    unsigned local_ = 0;           // and how many it owns
    std::vector<plan> plans_;
    std::vector<std::uint64_t> values_[2];  // [step t-1's local values | remote area], step t's
    std::vector<std::uint64_t> send_buffer_;
    std::vector<MPI_Request> requests_;
    const std::uint64_t* last_ = nullptr;
};

}  // namespace

int main(int argc, char** argv) {
    // Parsed before MPI_Init, so that a bad option ends every rank before MPI starts.
    tg::options o = tg::parse_options(argc, argv);
    MPI_Init(&argc, &argv);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const auto workers = static_cast<unsigned>(ranks);
    if ((o.workers != 0 && o.workers != workers) || !tg::finish(o, workers, argv[0])) {
        if (o.workers != 0 && o.workers != workers && rank == 0)
            std::fprintf(stderr, "%s: --workers=%u, but mpirun started %u ranks (-np)\n", argv[0], o.workers, workers);
        MPI_Finalize();
        return 2;
    }

    double ns_per_iteration = 0;
    if (rank == 0) ns_per_iteration = tg::measure_ns_per_iteration();
    MPI_Bcast(&ns_per_iteration, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    distributed_graph dg(o.g, rank, ranks);
    const std::uint64_t expected = rank == 0 ? tg::reference_result(o.g) : 0;
    const double first_start = MPI_Wtime();
    for (unsigned rep = 0; rep < o.warmup + o.reps;) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double start = MPI_Wtime();
        dg.run();
        MPI_Barrier(MPI_COMM_WORLD);
        const double seconds = MPI_Wtime() - start;
        const std::uint64_t result = dg.gather_result();
        // Rank 0's clock decides for all (see tg::next_run).
        unsigned next = tg::next_run(o, rep, MPI_Wtime() - first_start);
        MPI_Bcast(&next, 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD);
        if (rank != 0) {
            rep = next;
            continue;
        }
        if (result != expected) {
            std::fprintf(stderr,
                         "weft-bench problem=taskgraph impl=mpi shape=%s width=%u steps=%u iterations=%llu ranks=%d: "
                         "WRONG RESULT %llu, expected %llu (the serial evaluation)\n",
                         tg::shape_name(o.g.kind), o.g.width, o.g.steps,
                         static_cast<unsigned long long>(o.g.iterations), ranks,
                         static_cast<unsigned long long>(result), static_cast<unsigned long long>(expected));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (rep >= o.warmup) tg::print_result("mpi", workers, o.g, seconds, result, ns_per_iteration);
        rep = next;
    }
    MPI_Finalize();
    return 0;
}
