// The raw-MPI anchor of issue #23's distributed probes (bench/distributed/weft_probe.cpp
// measures the same with weft's actions; scripts/distributed_bench runs both, alternating,
// and prints weft/MPI). See probe_common.hpp for the method and the output lines.
//
// (a) Round trip between ranks 0 and 1 (the others wait in a barrier):
//     impl=mpi-blocking  MPI_Send then MPI_Recv (rank 1: MPI_Recv then MPI_Send back)
//     impl=mpi-isend     MPI_Irecv posted first, MPI_Isend, then MPI_Test on both until
//                        done (rank 1: MPI_Irecv, MPI_Test until done, MPI_Isend back,
//                        MPI_Test until sent): no blocking call, as a runtime would poll
//     Rank 1 serves: rank 0 tells it (a control message outside the timing) the mode, the
//     size and how many round trips come.
// (b) Message rate, impl=mpi-isend-window: each rank r < n/2 streams 8-byte MPI_Isends to
//     rank r + n/2 in windows of --window messages (MPI_Waitall per window); the receiver
//     pre-posts a window of matching MPI_Irecvs (distinct buffers) and MPI_Waitall's them,
//     then sends a 0-byte ack after the last; the sender's clock runs from a common
//     barrier to that ack. The run's rate is the sum over the pairs.
//
// Run as root: OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np 2
// bench_distributed_mpi_probe (add OMPI_MCA_rmaps_base_oversubscribe=1 for more ranks than
// cores).
#include "distributed/probe_common.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

namespace pd = weft::bench::distributed;

constexpr int tag_control = 1, tag_ping = 2, tag_pong = 3, tag_stream = 4, tag_ack = 5;

enum class mode : std::int64_t { stop = 0, blocking = 1, isend = 2 };

void check(int rc, char const* what) {
    if (rc != MPI_SUCCESS) {
        std::fprintf(stderr, "mpi_probe: %s failed (%d)\n", what, rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

void spin(MPI_Request* r) {
    int done = 0;
    while (!done) check(MPI_Test(r, &done, MPI_STATUS_IGNORE), "MPI_Test");
}

// One round trip of `size` bytes, seen from rank 0.
void round_trip(mode m, std::vector<char>& out, std::vector<char>& in, int size) {
    if (m == mode::blocking) {
        check(MPI_Send(out.data(), size, MPI_BYTE, 1, tag_ping, MPI_COMM_WORLD), "MPI_Send");
        check(MPI_Recv(in.data(), size, MPI_BYTE, 1, tag_pong, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
        return;
    }
    MPI_Request r[2];
    check(MPI_Irecv(in.data(), size, MPI_BYTE, 1, tag_pong, MPI_COMM_WORLD, &r[0]), "MPI_Irecv");
    check(MPI_Isend(out.data(), size, MPI_BYTE, 1, tag_ping, MPI_COMM_WORLD, &r[1]), "MPI_Isend");
    int done[2] = {0, 0};
    while (!done[0] || !done[1])
        for (int k = 0; k < 2; ++k)
            if (!done[k]) check(MPI_Test(&r[k], &done[k], MPI_STATUS_IGNORE), "MPI_Test");
}

// Rank 1's side of `reps` round trips.
void serve(mode m, std::vector<char>& buf, int size, std::int64_t reps) {
    for (std::int64_t i = 0; i < reps; ++i) {
        if (m == mode::blocking) {
            check(MPI_Recv(buf.data(), size, MPI_BYTE, 0, tag_ping, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
            check(MPI_Send(buf.data(), size, MPI_BYTE, 0, tag_pong, MPI_COMM_WORLD), "MPI_Send");
        } else {
            MPI_Request r;
            check(MPI_Irecv(buf.data(), size, MPI_BYTE, 0, tag_ping, MPI_COMM_WORLD, &r), "MPI_Irecv");
            spin(&r);
            check(MPI_Isend(buf.data(), size, MPI_BYTE, 0, tag_pong, MPI_COMM_WORLD, &r), "MPI_Isend");
            spin(&r);
        }
    }
}

// Rank 0: tells rank 1 what comes, then times `reps` round trips; seconds per round trip.
double timed_round_trips(mode m, std::vector<char>& out, std::vector<char>& in, int size, unsigned reps) {
    std::int64_t const control[3] = {static_cast<std::int64_t>(m), size, reps};
    check(MPI_Send(control, 3, MPI_INT64_T, 1, tag_control, MPI_COMM_WORLD), "MPI_Send");
    double const t0 = MPI_Wtime();
    for (unsigned i = 0; i < reps; ++i) round_trip(m, out, in, size);
    return (MPI_Wtime() - t0) / reps;
}

void latency(pd::probe_options const& o, int rank, int ranks) {
    std::size_t const largest = *std::max_element(o.sizes.begin(), o.sizes.end());
    if (rank == 1) {
        std::vector<char> buf(largest);
        for (;;) {
            std::int64_t control[3];
            check(MPI_Recv(control, 3, MPI_INT64_T, 0, tag_control, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
            if (static_cast<mode>(control[0]) == mode::stop) break;
            serve(static_cast<mode>(control[0]), buf, static_cast<int>(control[1]), control[2]);
        }
    } else if (rank == 0) {
        std::vector<char> out(largest, 'x'), in(largest);
        for (std::size_t size : o.sizes) {
            int const n = static_cast<int>(size);
            for (mode m : {mode::blocking, mode::isend}) {
                unsigned const reps =
                    pd::warm_up(o, [&](unsigned k) { return timed_round_trips(m, out, in, n, k); });
                std::vector<double> means;
                for (unsigned b = 0; b < o.batches; ++b) means.push_back(timed_round_trips(m, out, in, n, reps));
                pd::print_latency(size, m == mode::blocking ? "mpi-blocking" : "mpi-isend", static_cast<unsigned>(ranks),
                                  means, reps);
            }
        }
        std::int64_t const stop[3] = {0, 0, 0};
        check(MPI_Send(stop, 3, MPI_INT64_T, 1, tag_control, MPI_COMM_WORLD), "MPI_Send");
    }
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

// One stream of `msgs` messages (a multiple of the window) for every pair; the sum of the
// pairs' rates at rank 0 (0 elsewhere), and each sender's own rate in `own`.
double stream(pd::probe_options const& o, int rank, int ranks, std::uint64_t msgs, double& own) {
    int const pairs = ranks / 2;
    int const w = static_cast<int>(o.window);
    std::uint64_t const windows = msgs / o.window;
    std::vector<MPI_Request> reqs(o.window);
    own = 0;
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    if (rank < pairs) {
        std::uint64_t const word = 42;
        int const to = rank + pairs;
        double const t0 = MPI_Wtime();
        for (std::uint64_t k = 0; k < windows; ++k) {
            for (int i = 0; i < w; ++i)
                check(MPI_Isend(&word, 8, MPI_BYTE, to, tag_stream, MPI_COMM_WORLD, &reqs[static_cast<std::size_t>(i)]),
                      "MPI_Isend");
            check(MPI_Waitall(w, reqs.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
        }
        check(MPI_Recv(nullptr, 0, MPI_BYTE, to, tag_ack, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
        own = static_cast<double>(windows * o.window) / (MPI_Wtime() - t0);
    } else if (rank < 2 * pairs) {
        std::vector<std::uint64_t> slots(o.window);
        int const from = rank - pairs;
        for (std::uint64_t k = 0; k < windows; ++k) {
            for (int i = 0; i < w; ++i)
                check(MPI_Irecv(&slots[static_cast<std::size_t>(i)], 8, MPI_BYTE, from, tag_stream, MPI_COMM_WORLD,
                                &reqs[static_cast<std::size_t>(i)]),
                      "MPI_Irecv");
            check(MPI_Waitall(w, reqs.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
        }
        check(MPI_Send(nullptr, 0, MPI_BYTE, from, tag_ack, MPI_COMM_WORLD), "MPI_Send");
    }
    double sum = 0;
    check(MPI_Reduce(&own, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD), "MPI_Reduce");
    return sum;
}

void rate(pd::probe_options const& o, int rank, int ranks) {
    unsigned const pairs = static_cast<unsigned>(ranks / 2);
    // Warm-up: 20,000 messages per pair, then as many as that rate says one timed run
    // takes; each pair sizes the timed runs from its own rate in the second, the
    // slowest pair's count is taken by all (an all-reduce of the minimum).
    double own = 0;
    std::uint64_t msgs = 20'000;
    for (int stage = 0; stage < 2; ++stage) {
        stream(o, rank, ranks, std::max<std::uint64_t>(msgs / o.window, 1) * o.window, own);
        std::uint64_t const mine = rank < static_cast<int>(pairs) ? pd::rate_messages_for(o, own) : UINT64_MAX;
        check(MPI_Allreduce(&mine, &msgs, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
    }
    msgs = std::max<std::uint64_t>(msgs / o.window, 1) * o.window;
    std::vector<double> runs;
    for (unsigned r = 0; r < o.rate_reps; ++r) runs.push_back(stream(o, rank, ranks, msgs, own));
    if (rank == 0) pd::print_rate("mpi-isend-window", static_cast<unsigned>(ranks), pairs, runs, msgs);
}

}  // namespace

int main(int argc, char** argv) {
    pd::probe_options const o = pd::parse_probe_options(argc, argv);
    check(MPI_Init(&argc, &argv), "MPI_Init");
    int rank = 0, ranks = 0;
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &ranks), "MPI_Comm_size");
    if (ranks < 2) {
        if (rank == 0) std::fprintf(stderr, "mpi_probe: needs at least 2 ranks (mpirun -np 2 ...)\n");
        MPI_Finalize();
        return 2;
    }
    if (o.latency) latency(o, rank, ranks);
    if (o.rate) rate(o, rank, ranks);
    MPI_Finalize();
    return 0;
}
