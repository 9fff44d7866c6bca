// The references for examples/ttg/fw_apsp.cpp: tiled Floyd-Warshall all-pairs shortest
// paths (seed 001 §6.3.2) without weft, in plain C++20 + OpenMP + MPI, with the example's
// graph, kernels and tiling, so that the results are the same bit for bit.
//
// The n x n matrix is cut into t x t tiles of b x b. At step k: kernel A updates the
// diagonal tile (k, k); B the tiles (k, j) of row k and C the tiles (i, k) of column k,
// from A's tile; D every other tile (i, j), from C's (i, k) and B's (k, j).
//   --mode=omp  one process, OpenMP tasks: A, then a task per B and C tile and a taskwait,
//               then a task per D tile and a taskwait (the OpenMP-tasks version beside the
//               example's fork-join on weft::task_group).
//   --mode=mpi  MPI + OpenMP in the style of the seed's reference [98] (Javanmard et al.):
//               the tiles dealt 2-D block-cyclic over a p x q grid of ranks (the example's
//               keymap), each rank holding only its own. At step k the owner of (k, k)
//               runs A and broadcasts the tile along grid row k%p and grid column k%q; the
//               ranks there run B and C (tasks, taskwait); each rank of grid row k%p
//               broadcasts its row-k tiles, packed in one buffer, down its grid column, and
//               each rank of grid column k%q its column-k tiles along its grid row; then
//               every rank runs D on its other tiles (tasks, taskwait). MPI is called only
//               by the master thread, outside tasks (MPI_THREAD_FUNNELED).
// Time is the compute only (tiles already in place), the slowest rank's, best of --reps,
// each from the input; the result is gathered to rank 0 and checked against serial
// Floyd-Warshall.
//
//   bench_ttg_fw_apsp_ref [--n=1024] [--b=64] [--reps=3] [--check=1] [--mode=omp|mpi]
// --mode defaults to omp on one rank, mpi under mpirun with more. As root, Open MPI wants
// OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1.
#include <mpi.h>
#include <omp.h>

#include "ttg/fw_apsp_kernels.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace fw_apsp;

/// OpenMP tasks on one process: A, then B and C as tasks and a taskwait, then D as tasks
/// and a taskwait.
void omp_fw(std::vector<tile>& tiles, int t, int b) {
    auto at = [&tiles, t](int i, int j) -> tile& { return tiles[idx(i, t, j)]; };
#pragma omp parallel
#pragma omp single
    for (int k = 0; k < t; ++k) {
        fw_kernel(at(k, k).data(), at(k, k).data(), at(k, k).data(), b);
        for (int j = 0; j < t; ++j) {
            if (j == k) continue;
#pragma omp task firstprivate(j, k)
            fw_kernel(at(k, j).data(), at(k, k).data(), at(k, j).data(), b);
#pragma omp task firstprivate(j, k)
            fw_kernel(at(j, k).data(), at(j, k).data(), at(k, k).data(), b);
        }
#pragma omp taskwait
        for (int i = 0; i < t; ++i)
            for (int j = 0; j < t; ++j)
                if (i != k && j != k) {
#pragma omp task firstprivate(i, j, k)
                    fw_kernel(at(i, j).data(), at(i, k).data(), at(k, j).data(), b);
                }
#pragma omp taskwait
    }
}

/// The p x q grid of ranks with the example's 2-D block-cyclic keymap: tile (i, j) lives
/// on rank (i % p) * q + j % q, i.e. at grid row i % p and grid column j % q.
struct grid {
    int t, p, q;
    explicit grid(int tiles, int ranks) : t(tiles), p(1), q(1) {
        while ((p + 1) * (p + 1) <= ranks) ++p;
        while (ranks % p != 0) --p;
        q = ranks / p;
    }
    /// The tiles of rank r: local (li, lj) is tile (li * p + r / q, lj * q + r % q).
    struct share {
        int pr, pc, rows, cols;
    };
    share of(int r) const {
        const int pr = r / q, pc = r % q;
        return {pr, pc, pr < t ? (t - 1 - pr) / p + 1 : 0, pc < t ? (t - 1 - pc) / q + 1 : 0};
    }
};

/// MPI + OpenMP (reference [98]'s scheme): `own` holds this rank's tiles, local (li, lj)
/// at li * cols + lj; `row_comm` joins the ranks of this grid row (ranked by grid column),
/// `col_comm` those of this grid column (ranked by grid row).
void mpi_fw(std::vector<tile>& own, const grid& g, const grid::share& me, int b, MPI_Comm row_comm,
            MPI_Comm col_comm) {
    const std::size_t bb = idx(b, b, 0);
    const int nr = me.rows, nc = me.cols;
    auto at = [&own, nc](int li, int lj) -> tile& { return own[idx(li, nc, lj)]; };
    tile diag(bb);
    std::vector<double> row_panel(static_cast<std::size_t>(nc) * bb), col_panel(static_cast<std::size_t>(nr) * bb);
    // Tile l of a packed panel.
    auto slot = [bb](std::vector<double>& panel, int l) { return panel.data() + static_cast<std::size_t>(l) * bb; };
#pragma omp parallel
#pragma omp master
    for (int k = 0; k < g.t; ++k) {
        const int kr = k % g.p, kc = k % g.q, lk_row = k / g.p, lk_col = k / g.q;
        const bool in_row = me.pr == kr, in_col = me.pc == kc;  // hold row-k / column-k tiles
        if (in_row && in_col) {
            tile& d = at(lk_row, lk_col);
            fw_kernel(d.data(), d.data(), d.data(), b);
            diag = d;
        }
        if (in_row) MPI_Bcast(diag.data(), static_cast<int>(bb), MPI_DOUBLE, kc, row_comm);
        if (in_col) MPI_Bcast(diag.data(), static_cast<int>(bb), MPI_DOUBLE, kr, col_comm);
        if (in_row)
            for (int lj = 0; lj < nc; ++lj) {
                if (lj * g.q + me.pc == k) continue;
#pragma omp task firstprivate(lj, lk_row)
                fw_kernel(at(lk_row, lj).data(), diag.data(), at(lk_row, lj).data(), b);
            }
        if (in_col)
            for (int li = 0; li < nr; ++li) {
                if (li * g.p + me.pr == k) continue;
#pragma omp task firstprivate(li, lk_col)
                fw_kernel(at(li, lk_col).data(), at(li, lk_col).data(), diag.data(), b);
            }
#pragma omp taskwait
        // The super-tiles: row k's tiles of this grid column, down the column from grid row
        // k % p; column k's tiles of this grid row, along the row from grid column k % q.
        // Every rank of a grid column has the same nc, of a grid row the same nr.
        if (nc > 0) {
            if (in_row)
                for (int lj = 0; lj < nc; ++lj)
                    std::copy(at(lk_row, lj).begin(), at(lk_row, lj).end(), slot(row_panel, lj));
            MPI_Bcast(row_panel.data(), static_cast<int>(row_panel.size()), MPI_DOUBLE, kr, col_comm);
        }
        if (nr > 0) {
            if (in_col)
                for (int li = 0; li < nr; ++li)
                    std::copy(at(li, lk_col).begin(), at(li, lk_col).end(), slot(col_panel, li));
            MPI_Bcast(col_panel.data(), static_cast<int>(col_panel.size()), MPI_DOUBLE, kc, row_comm);
        }
        for (int li = 0; li < nr; ++li) {
            if (li * g.p + me.pr == k) continue;
            for (int lj = 0; lj < nc; ++lj) {
                if (lj * g.q + me.pc == k) continue;
#pragma omp task firstprivate(li, lj)
                fw_kernel(at(li, lj).data(), slot(col_panel, li), slot(row_panel, lj), b);
            }
        }
#pragma omp taskwait
    }
}

int run(int argc, char** argv, int rank, int nranks) {
    int n = 1024, b = 64, reps = 3;
    bool check = true;
    std::string mode = nranks == 1 ? "omp" : "mpi";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto val = [&a]() { return std::atoi(a.c_str() + a.find('=') + 1); };
        if (a.rfind("--n=", 0) == 0) n = val();
        else if (a.rfind("--b=", 0) == 0) b = val();
        else if (a.rfind("--reps=", 0) == 0) reps = val();
        else if (a.rfind("--check=", 0) == 0) check = val() != 0;
        else if (a == "--mode=omp" || a == "--mode=mpi") mode = a.substr(7);
        else {
            if (rank == 0)
                std::fprintf(stderr, "usage: bench_ttg_fw_apsp_ref [--n=N] [--b=B] [--reps=R] [--check=0|1] "
                                     "[--mode=omp|mpi]\n");
            return 2;
        }
    }
    if (b <= 0 || n <= 0 || n % b != 0 || reps <= 0) {
        if (rank == 0) std::fprintf(stderr, "bench_ttg_fw_apsp_ref: --n must be a positive multiple of --b, --reps >= 1\n");
        return 2;
    }
    if (mode == "omp" && nranks != 1) {
        if (rank == 0) std::fprintf(stderr, "bench_ttg_fw_apsp_ref: --mode=omp runs on one rank\n");
        return 2;
    }
    const int t = n / b;
    const std::vector<double> input = make_graph(n, 12345);  // on every rank, as in the example
    std::vector<double> want;
    if (check && rank == 0) {
        want = input;
        serial_fw(want, n);
    }

    const grid g(t, nranks);
    const grid::share me = g.of(rank);
    MPI_Comm row_comm = MPI_COMM_NULL, col_comm = MPI_COMM_NULL;
    if (mode == "mpi") {
        MPI_Comm_split(MPI_COMM_WORLD, me.pr, me.pc, &row_comm);
        MPI_Comm_split(MPI_COMM_WORLD, me.pc, me.pr, &col_comm);
    }
    // What rank 0 gathers from each rank (mpi): its tiles, local row by local row.
    std::vector<int> counts(static_cast<std::size_t>(nranks)), displs(static_cast<std::size_t>(nranks));
    for (int r = 0, off = 0; r < nranks; ++r) {
        const grid::share s = g.of(r);
        counts[static_cast<std::size_t>(r)] = s.rows * s.cols * b * b;
        displs[static_cast<std::size_t>(r)] = off;
        off += s.rows * s.cols * b * b;
    }

    int wrong = 0;
    double best = 1e300;
    for (int rep = 0; rep < reps; ++rep) {
        std::vector<tile> tiles;
        if (mode == "omp") {
            for (int i = 0; i < t; ++i)
                for (int j = 0; j < t; ++j) tiles.push_back(get_tile(input, n, b, i, j));
        } else {
            for (int li = 0; li < me.rows; ++li)
                for (int lj = 0; lj < me.cols; ++lj)
                    tiles.push_back(get_tile(input, n, b, li * g.p + me.pr, lj * g.q + me.pc));
        }
        MPI_Barrier(MPI_COMM_WORLD);
        const auto t0 = std::chrono::steady_clock::now();
        if (mode == "omp") omp_fw(tiles, t, b);
        else mpi_fw(tiles, g, me, b, row_comm, col_comm);
        const double mine = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        MPI_Barrier(MPI_COMM_WORLD);
        double slowest = 0;
        MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        best = std::min(best, slowest);
        if (!check) continue;

        std::vector<double> m(input.size());
        if (mode == "omp") {
            for (int i = 0; i < t; ++i)
                for (int j = 0; j < t; ++j) put_tile(m, n, b, i, j, tiles[idx(i, t, j)]);
        } else {
            std::vector<double> send;
            for (const tile& x : tiles) send.insert(send.end(), x.begin(), x.end());
            std::vector<double> all(rank == 0 ? input.size() : 0);
            MPI_Gatherv(send.data(), static_cast<int>(send.size()), MPI_DOUBLE, all.data(), counts.data(),
                        displs.data(), MPI_DOUBLE, 0, MPI_COMM_WORLD);
            if (rank == 0) {
                auto from = all.begin();
                for (int r = 0; r < nranks; ++r) {
                    const grid::share s = g.of(r);
                    for (int li = 0; li < s.rows; ++li)
                        for (int lj = 0; lj < s.cols; ++lj) {
                            const tile x(from, from + static_cast<std::ptrdiff_t>(b) * b);
                            put_tile(m, n, b, li * g.p + s.pr, lj * g.q + s.pc, x);
                            from += static_cast<std::ptrdiff_t>(b) * b;
                        }
                }
            }
        }
        if (rank == 0 && m != want) ++wrong;
    }
    if (row_comm != MPI_COMM_NULL) MPI_Comm_free(&row_comm);
    if (col_comm != MPI_COMM_NULL) MPI_Comm_free(&col_comm);

    if (rank == 0)
        std::printf("fw-apsp-ref mode=%s n=%d b=%d ranks=%d threads=%d: %.4f s, %s\n", mode.c_str(), n, b, nranks,
                    omp_get_max_threads(), best,
                    !check ? "not checked" : wrong == 0 ? "checked against serial: equal" : "WRONG");
    MPI_Bcast(&wrong, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return wrong == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int rank = 0, nranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int status = 2;
    if (provided < MPI_THREAD_FUNNELED) {
        if (rank == 0) std::fprintf(stderr, "bench_ttg_fw_apsp_ref: MPI does not provide MPI_THREAD_FUNNELED\n");
    } else {
        status = run(argc, argv, rank, nranks);
    }
    MPI_Finalize();
    return status;
}
