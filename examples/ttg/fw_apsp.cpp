// All-pairs shortest paths by tiled Floyd-Warshall (seed 001 §6.3.2, Figure 6.3) as a
// template task graph, beside the same kernels in fork-join (weft::task_group, a barrier
// after each phase) and checked against serial Floyd-Warshall.
//
// The n x n matrix is cut into t x t tiles of b x b. At step k: kernel A updates the
// diagonal tile (k, k); B the tiles (k, j) of row k and C the tiles (i, k) of column k,
// from A's tile; D every other tile (i, j), from C's (i, k) and B's (k, j). In TTG a tile
// flows from one step's kernel to the next step's as soon as its inputs are ready, with
// no barrier: step k + 1 starts on tiles step k has finished. Keys are (i, j, k); tiles
// live where a 2-D block-cyclic keymap puts them (one locality: all here).
//
//   weft_ttg_fw_apsp [--n=1024] [--b=64] [--reps=3] [--check=1] [--weft:...]
// Under mpirun, run it with --weft:spmd (every locality builds the graph).
#include <weft/distributed.hpp>
#include <weft/ttg.hpp>
#include <weft/weft.hpp>

#include "fw_apsp_kernels.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace {

namespace ttg = weft::ttg;
using namespace fw_apsp;
/// A finished tile that several kernels read: shared, not copied, on a locality (and
/// serialized by value, once per locality, across them).
using shared_tile = std::shared_ptr<const tile>;
using key3 = std::tuple<int, int, int>;  // (i, j, k)

/// Fork-join: the same kernels, a barrier after A, after B and C, after D.
void fork_join_fw(std::vector<tile>& tiles, int t, int b) {
    auto at = [&tiles, t](int i, int j) -> tile& { return tiles[idx(i, t, j)]; };
    for (int k = 0; k < t; ++k) {
        fw_kernel(at(k, k).data(), at(k, k).data(), at(k, k).data(), b);
        {
            weft::task_group g;
            for (int j = 0; j < t; ++j) {
                if (j == k) continue;
                g.run([&, j, k] { fw_kernel(at(k, j).data(), at(k, k).data(), at(k, j).data(), b); });
                g.run([&, j, k] { fw_kernel(at(j, k).data(), at(j, k).data(), at(k, k).data(), b); });
            }
            g.wait();
        }
        {
            weft::task_group g;
            for (int i = 0; i < t; ++i)
                for (int j = 0; j < t; ++j)
                    if (i != k && j != k)
                        g.run([&, i, j, k] { fw_kernel(at(i, j).data(), at(i, k).data(), at(k, j).data(), b); });
            g.wait();
        }
    }
}

/// The template task graph. Every kernel's outputs start with the five routes of a
/// finished tile: to the next step's A, B, C or D (whichever updates that tile then), or
/// to the result.
struct fw_graph {
    using next_outs = std::tuple<ttg::Out<key3, tile>, ttg::Out<key3, tile>, ttg::Out<key3, tile>,
                                 ttg::Out<key3, tile>, ttg::Out<std::pair<int, int>, tile>>;
    ttg::Edge<key3, tile> to_a{"to-A"}, to_b{"to-B"}, to_c{"to-C"}, to_d{"to-D"};
    ttg::Edge<std::pair<int, int>, tile> result{"result"};
    ttg::Edge<key3, shared_tile> diag_b{"diag-to-B"}, diag_c{"diag-to-C"}, row_d{"row-to-D"}, col_d{"col-to-D"};

    /// Sends tile (i, j), finished at step k, on: to step k + 1's kernel, or out.
    template <class Outs>
    static void pass_on(int i, int j, int k, int t, tile&& v, Outs& out) {
        const int s = k + 1;
        if (s == t) return std::get<4>(out).send(std::pair{i, j}, std::move(v));
        const key3 key{i, j, s};
        if (i == s && j == s) std::get<0>(out).send(key, std::move(v));
        else if (i == s) std::get<1>(out).send(key, std::move(v));
        else if (j == s) std::get<2>(out).send(key, std::move(v));
        else std::get<3>(out).send(key, std::move(v));
    }

    /// The keys of the other tiles of row k (for B's) or column k (for C's) at step k.
    static std::vector<key3> line(int k, int t, bool row) {
        std::vector<key3> keys;
        for (int x = 0; x < t; ++x)
            if (x != k) keys.push_back(row ? key3{k, x, k} : key3{x, k, k});
        return keys;
    }
};

double ttg_fw(std::vector<double>& m, int n, int b, bool verbose_dot) {
    const int t = n / b;
    const std::uint32_t nl = weft::get_num_localities(), me = weft::get_locality_id();
    // 2-D block-cyclic over a p x q grid of localities.
    std::uint32_t p = 1;
    while ((p + 1) * (p + 1) <= nl) ++p;
    while (nl % p != 0) --p;
    const std::uint32_t q = nl / p;
    auto owner = [p, q](int i, int j) {
        return (static_cast<std::uint32_t>(i) % p) * q + static_cast<std::uint32_t>(j) % q;
    };
    fw_graph g;
    using outs_a = std::tuple<ttg::Out<key3, tile>, ttg::Out<key3, tile>, ttg::Out<key3, tile>, ttg::Out<key3, tile>,
                              ttg::Out<std::pair<int, int>, tile>, ttg::Out<key3, shared_tile>, ttg::Out<key3, shared_tile>>;
    using outs_bc = std::tuple<ttg::Out<key3, tile>, ttg::Out<key3, tile>, ttg::Out<key3, tile>, ttg::Out<key3, tile>,
                               ttg::Out<std::pair<int, int>, tile>, ttg::Out<key3, shared_tile>>;
    auto a = ttg::make_tt(
        [t, b](const key3& key, tile&& self, outs_a& out) {
            const int k = std::get<2>(key);
            fw_kernel(self.data(), self.data(), self.data(), b);
            const shared_tile done = std::make_shared<const tile>(self);
            std::get<5>(out).broadcast(fw_graph::line(k, t, true), done);
            std::get<6>(out).broadcast(fw_graph::line(k, t, false), done);
            fw_graph::pass_on(k, k, k, t, std::move(self), out);
        },
        ttg::edges(g.to_a), ttg::edges(g.to_a, g.to_b, g.to_c, g.to_d, g.result, g.diag_b, g.diag_c), "A", {"tile"},
        {"A", "B", "C", "D", "result", "diag-row", "diag-col"});
    auto bk = ttg::make_tt(
        [t, b](const key3& key, tile&& self, const shared_tile& diag, outs_bc& out) {
            const auto [i, j, k] = key;
            fw_kernel(self.data(), diag->data(), self.data(), b);
            std::vector<key3> col;  // D's of column j at step k
            for (int x = 0; x < t; ++x)
                if (x != k) col.push_back(key3{x, j, k});
            std::get<5>(out).broadcast(col, std::make_shared<const tile>(self));
            fw_graph::pass_on(i, j, k, t, std::move(self), out);
        },
        ttg::edges(g.to_b, g.diag_b), ttg::edges(g.to_a, g.to_b, g.to_c, g.to_d, g.result, g.row_d), "B",
        {"tile", "diag"}, {"A", "B", "C", "D", "result", "row"});
    auto ck = ttg::make_tt(
        [t, b](const key3& key, tile&& self, const shared_tile& diag, outs_bc& out) {
            const auto [i, j, k] = key;
            fw_kernel(self.data(), self.data(), diag->data(), b);
            std::vector<key3> row;  // D's of row i at step k
            for (int x = 0; x < t; ++x)
                if (x != k) row.push_back(key3{i, x, k});
            std::get<5>(out).broadcast(row, std::make_shared<const tile>(self));
            fw_graph::pass_on(i, j, k, t, std::move(self), out);
        },
        ttg::edges(g.to_c, g.diag_c), ttg::edges(g.to_a, g.to_b, g.to_c, g.to_d, g.result, g.col_d), "C",
        {"tile", "diag"}, {"A", "B", "C", "D", "result", "col"});
    auto dk = ttg::make_tt(
        [t, b](const key3& key, tile&& self, const shared_tile& row, const shared_tile& col, fw_graph::next_outs& out) {
            const auto [i, j, k] = key;
            fw_kernel(self.data(), col->data(), row->data(), b);
            fw_graph::pass_on(i, j, k, t, std::move(self), out);
        },
        ttg::edges(g.to_d, g.row_d, g.col_d), ttg::edges(g.to_a, g.to_b, g.to_c, g.to_d, g.result), "D",
        {"tile", "row", "col"}, {"A", "B", "C", "D", "result"});
    // The results go to locality 0, which holds the matrix.
    // The tiles, cut from the matrix before the clock starts and put back after it
    // stops, as the fork-join version's are: each locality cuts the ones it owns.
    std::vector<tile> tiles(idx(t, t, 0));
    for (int i = 0; i < t; ++i)
        for (int j = 0; j < t; ++j)
            if (owner(i, j) == me) tiles[idx(i, t, j)] = get_tile(m, n, b, i, j);
    auto sink = ttg::make_tt([&tiles, t](const std::pair<int, int>& ij, tile&& v,
                                         std::tuple<>&) { tiles[idx(ij.first, t, ij.second)] = std::move(v); },
                             ttg::edges(g.result), ttg::edges(), "result", {"tile"});
    auto by_tile = [owner](const key3& k) { return owner(std::get<0>(k), std::get<1>(k)); };
    a->set_keymap(by_tile);
    bk->set_keymap(by_tile);
    ck->set_keymap(by_tile);
    dk->set_keymap(by_tile);
    sink->set_keymap([](const std::pair<int, int>&) { return 0u; });
    // The critical path first: the next diagonal's tiles.
    auto prio = [](const key3& k) { return std::get<0>(k) == std::get<2>(k) + 1 || std::get<1>(k) == std::get<2>(k) + 1 ? 1 : 0; };
    dk->set_priomap(prio);
    // Step 0's tiles come from `init`, on the locality that owns each (every locality
    // has the input: it is generated from the same seed everywhere).
    auto init = ttg::make_tt<std::pair<int, int>>(
        [&tiles, t](const std::pair<int, int>& ij, fw_graph::next_outs& out) {
            fw_graph::pass_on(ij.first, ij.second, -1, t, std::move(tiles[idx(ij.first, t, ij.second)]), out);
        },
        ttg::edges(), ttg::edges(g.to_a, g.to_b, g.to_c, g.to_d, g.result), "init", {}, {"A", "B", "C", "D", "result"});
    init->set_keymap([owner](const std::pair<int, int>& ij) { return owner(ij.first, ij.second); });
    ttg::make_graph_executable(init);
    if (verbose_dot && me == 0) std::printf("%s", ttg::Dot{}(init).c_str());
    ttg::execute();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < t; ++i)
        for (int j = 0; j < t; ++j)
            if (owner(i, j) == me) init->invoke(std::pair{i, j});
    ttg::fence();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (me == 0)  // every result came here
        for (int i = 0; i < t; ++i)
            for (int j = 0; j < t; ++j) put_tile(m, n, b, i, j, tiles[idx(i, t, j)]);
    return seconds;
}

}  // namespace

int main(int argc, char** argv) {
    return weft::run(argc, argv, [](int ac, char** av) -> int {
        int n = 1024, b = 64, reps = 3;
        bool check = true, dot = false;
        for (int i = 1; i < ac; ++i) {
            const std::string a = av[i];
            auto val = [&a]() { return std::atoi(a.c_str() + a.find('=') + 1); };
            if (a.rfind("--n=", 0) == 0) n = val();
            else if (a.rfind("--b=", 0) == 0) b = val();
            else if (a.rfind("--reps=", 0) == 0) reps = val();
            else if (a.rfind("--check=", 0) == 0) check = val() != 0;
            else if (a == "--dot") dot = true;
            else {
                std::fprintf(stderr, "usage: weft_ttg_fw_apsp [--n=N] [--b=B] [--reps=R] [--check=0|1] [--dot]\n");
                return 2;
            }
        }
        if (b <= 0 || n <= 0 || n % b != 0) {
            std::fprintf(stderr, "weft_ttg_fw_apsp: --n must be a positive multiple of --b\n");
            return 2;
        }
        const int t = n / b;
        const std::vector<double> input = make_graph(n, 12345);
        const bool root = weft::get_locality_id() == 0;
        std::vector<double> want;
        if (check && root) {
            want = input;
            serial_fw(want, n);
        }
        int wrong = 0;
        double best_ttg = 1e300, best_fj = 1e300;
        for (int r = 0; r < reps; ++r) {
            std::vector<double> m = input;
            best_ttg = std::min(best_ttg, ttg_fw(m, n, b, dot && r == 0));
            if (check && root && m != want) ++wrong;
            if (weft::get_num_localities() == 1) {  // fork-join: one locality
                std::vector<tile> tiles;
                for (int i = 0; i < t; ++i)
                    for (int j = 0; j < t; ++j) tiles.push_back(get_tile(input, n, b, i, j));
                const auto t0 = std::chrono::steady_clock::now();
                fork_join_fw(tiles, t, b);
                best_fj = std::min(best_fj, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
                std::vector<double> f(input.size());
                for (int i = 0; i < t; ++i)
                    for (int j = 0; j < t; ++j) put_tile(f, n, b, i, j, tiles[idx(i, t, j)]);
                if (check && f != want) ++wrong;
            }
        }
        if (root) {
            std::printf("fw-apsp n=%d b=%d localities=%u workers=%u: ttg %.4f s", n, b, weft::get_num_localities(),
                        weft::num_workers(), best_ttg);
            if (weft::get_num_localities() == 1)
                std::printf(", fork-join %.4f s, ttg speed / fork-join %.2fx", best_fj, best_fj / best_ttg);
            std::printf(", %s\n", !check ? "not checked" : wrong == 0 ? "checked against serial: equal" : "WRONG");
        }
        return wrong == 0 ? 0 : 1;
    });
}
