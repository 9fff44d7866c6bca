// A wavefront sweep as a template task graph (seed 001 §6.2.2, Listings 8-9; the 2-D
// wavefront of Cpp-Taskflow): a Gauss-Seidel sweep of an n x n grid cut into b x b
// blocks, where each cell becomes the mean of itself and its new upper and left
// neighbours. Block (i, j) needs the last row of block (i - 1, j) and the last column of
// block (i, j - 1): blocks on one anti-diagonal run together. Checked against the serial
// sweep, bit for bit (each cell is computed in the same order of operations).
//
//   weft_ttg_wavefront [--n=1024] [--b=64] [--weft:...]   (under mpirun: --weft:spmd)
#include <weft/distributed.hpp>
#include <weft/ttg.hpp>
#include <weft/weft.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

namespace ttg = weft::ttg;
using key = std::pair<int, int>;
using line = std::vector<double>;  // a block's last row or last column

double initial(int r, int c) { return static_cast<double>((r * 7 + c * 13) % 101); }

/// Sweeps block (bi, bj) of size b in place; `up` is the row above it, `left` the column
/// to its left (empty at the grid's border: those neighbours are 0).
void sweep_block(std::vector<double>& blk, int b, const line& up, const line& left) {
    for (int r = 0; r < b; ++r)
        for (int c = 0; c < b; ++c) {
            const double u = r > 0 ? blk[static_cast<std::size_t>((r - 1) * b + c)] : up.empty() ? 0.0 : up[static_cast<std::size_t>(c)];
            const double l = c > 0 ? blk[static_cast<std::size_t>(r * b + c - 1)] : left.empty() ? 0.0 : left[static_cast<std::size_t>(r)];
            double& x = blk[static_cast<std::size_t>(r * b + c)];
            x = (x + u + l) / 3.0;
        }
}

std::vector<double> serial(int n) {
    std::vector<double> g(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c) {
            const double u = r > 0 ? g[static_cast<std::size_t>((r - 1) * n + c)] : 0.0;
            const double l = c > 0 ? g[static_cast<std::size_t>(r * n + c - 1)] : 0.0;
            g[static_cast<std::size_t>(r * n + c)] = (initial(r, c) + u + l) / 3.0;
        }
    return g;
}

}  // namespace

int main(int argc, char** argv) {
    return weft::run(argc, argv, [](int ac, char** av) -> int {
        int n = 1024, b = 64;
        for (int i = 1; i < ac; ++i) {
            const std::string a = av[i];
            if (a.rfind("--n=", 0) == 0) n = std::atoi(a.c_str() + 4);
            else if (a.rfind("--b=", 0) == 0) b = std::atoi(a.c_str() + 4);
            else {
                std::fprintf(stderr, "usage: weft_ttg_wavefront [--n=N] [--b=B]\n");
                return 2;
            }
        }
        if (b <= 0 || n <= 0 || n % b != 0) {
            std::fprintf(stderr, "weft_ttg_wavefront: --n must be a positive multiple of --b\n");
            return 2;
        }
        const int t = n / b;
        const std::uint32_t nl = weft::get_num_localities();
        std::vector<double> grid(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));

        ttg::Edge<key, line> from_up("from-up"), from_left("from-left");
        ttg::Edge<key, std::vector<double>> result("result");
        // A block with no upper (or left) neighbour gets an empty line on that input.
        auto block = ttg::make_tt(
            [b, t](const key& k, line&& up, line&& left,
                   std::tuple<ttg::Out<key, line>, ttg::Out<key, line>, ttg::Out<key, std::vector<double>>>& out) {
                const auto [bi, bj] = k;
                std::vector<double> blk(static_cast<std::size_t>(b) * static_cast<std::size_t>(b));
                for (int r = 0; r < b; ++r)
                    for (int c = 0; c < b; ++c) blk[static_cast<std::size_t>(r * b + c)] = initial(bi * b + r, bj * b + c);
                sweep_block(blk, b, up, left);
                if (bi + 1 < t) ttg::send<0>(key{bi + 1, bj}, line(blk.end() - b, blk.end()), out);
                if (bj + 1 < t) {
                    line col(static_cast<std::size_t>(b));
                    for (int r = 0; r < b; ++r) col[static_cast<std::size_t>(r)] = blk[static_cast<std::size_t>(r * b + b - 1)];
                    ttg::send<1>(key{bi, bj + 1}, std::move(col), out);
                }
                ttg::send<2>(k, std::move(blk), out);
            },
            ttg::edges(from_up, from_left), ttg::edges(from_up, from_left, result), "wavefront", {"up", "left"},
            {"down", "right", "result"});
        auto sink = ttg::make_tt(
            [&grid, b, n](const key& k, const std::vector<double>& blk, std::tuple<>&) {
                for (int r = 0; r < b; ++r)
                    for (int c = 0; c < b; ++c)
                        grid[static_cast<std::size_t>((k.first * b + r) * n + k.second * b + c)] =
                            blk[static_cast<std::size_t>(r * b + c)];
            },
            ttg::edges(result), ttg::edges(), "result");
        // Anti-diagonals round-robin over localities; the results to locality 0.
        block->set_keymap([nl](const key& k) { return static_cast<std::uint32_t>(k.first + k.second) % nl; });
        sink->set_keymap([](const key&) { return 0u; });
        ttg::make_graph_executable(block);
        ttg::execute();
        const auto t0 = std::chrono::steady_clock::now();
        if (weft::get_locality_id() == 0) {
            // The border blocks' missing inputs (empty lines).
            for (int j = 0; j < t; ++j) block->out<0>().send(key{0, j}, line{});
            for (int i = 0; i < t; ++i) block->out<1>().send(key{i, 0}, line{});
        }
        ttg::fence();
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (weft::get_locality_id() != 0) return 0;
        const bool ok = grid == serial(n);
        std::printf("wavefront n=%d b=%d localities=%u workers=%u: %.4f s, %s\n", n, b, nl, weft::num_workers(), secs,
                    ok ? "checked against the serial sweep: equal" : "WRONG");
        return ok ? 0 : 1;
    });
}
