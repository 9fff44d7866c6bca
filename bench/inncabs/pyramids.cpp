// INNCABS Pyramids (seed 000 Table 7: recursive, balanced, medium, ~246 us a task,
// 112,344 tasks): a cache-oblivious Jacobi solver, after the Insieme compiler's test case
// of that name: the 2-D 4-point averaging stencil run for M time steps, computed not step
// by step but by recursively cutting space-time into pyramids, inverted pyramids and
// wedges (Frigo and Strumpen's trapezoid decomposition, in its pyramid form).
//
// The problem: a grid of N x N doubles, N = 2^P + 1, with two copies A and B that take
// turns as the old and the new step. Row and column indices are taken modulo N - 1 (a
// torus of 2^P); row and column 0 are a fixed boundary, and row and column N - 1 are read
// as neighbours but never written; both stay 0. A point update is
//     new[i][j] = 1/4 * (old[i-1][j] + old[i][j+1] + old[i][j-1] + old[i+1][j])
// (in that order, so that every schedule rounds alike). A starts as 0 with a 1 at the
// centre; the run computes M = (N - 1) / 2 steps, which ends in A.
//
// The decomposition, for pieces of odd size s = 2^k - 1 (height h = (s + 1) / 2 steps):
// a pyramid of base s x s around (x, y) shrinks by one point per side per step; an
// inverted one grows; a wedge (along x or y) shrinks along one axis while it grows along
// the other. Above the cutoff, with d = (s - 1) / 2 and offset o = (d + 1) / 2:
//   pyramid: 4 pyramids of size d at (x +- o, y +- o)          4 asyncs, wait
//            4 wedges: x at (x +- o, y), y at (x, y +- o)      4 asyncs, wait
//            an inverted pyramid, then a pyramid on top, both at (x, y), in the caller
//   inverted: an inverted pyramid, then a pyramid at (x, y), in the caller
//            4 wedges: y at (x +- o, y), x at (x, y +- o)      4 asyncs, wait
//            4 inverted pyramids at (x +- o, y +- o)           4 asyncs, wait
//   wedge x: wedges x at (x -+ o, y)                           2 asyncs, wait
//            an inverted pyramid, then a pyramid at (x, y), in the caller
//            wedges x at (x, y -+ o)                           2 asyncs, wait
//   (wedge y likewise with the axes exchanged). At or below the cutoff a piece runs its
// steps as plain loops, swapping A and B after each. The whole run is a pyramid of size
// N - 2 at the centre, the x and y wedges at (N/2, 0) and (0, N/2), and the inverted
// pyramid at (0, 0), one after the other. The step counts are even (powers of two at
// every piece above the cutoff), so each piece starts and ends on A.
//
// Sizes: --p=P (N = 2^P + 1; default 11, the suite's: N = 2049, M = 1024 steps) and
// --cut=C (pieces of size <= 2^C - 1 run as loops; default 6, the suite's: size 63,
// 32 steps). Small: --p=7 --cut=4 (1,752 tasks). Tasks: 8 per pyramid and per inverted
// pyramid above the cutoff, 4 per wedge (P = 11, C = 6: 112,344). The check: the grid after M steps
// must equal, bit for bit, the plain loop over all points for M steps (computed once
// before the runs, untimed); the value printed is the sum of the grid (1 while the
// spreading candle has not reached the boundary). Deviations: both grids start as 0 (the
// suite leaves B's boundary uninitialised), and the suite's check was the sum alone.
#include "inncabs/inncabs.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

/// The grid's geometry and its two copies; set once by main before any task runs.
struct grid {
    int n = 0;         ///< points per side, 2^P + 1
    int mask = 0;      ///< n - 2: indices are taken modulo n - 1 = 2^P
    int leaf = 0;      ///< pieces of size <= leaf run as loops
    double* a = nullptr;
    double* b = nullptr;
};
grid g;

inline void update(const double* from, double* to, int i, int j) noexcept {
    i &= g.mask;  // modulo 2^P, also for negative i
    j &= g.mask;
    if (i == 0 || j == 0) return;  // the fixed boundary
    const auto at = [](int r, int c) {
        return static_cast<std::size_t>(r) * static_cast<std::size_t>(g.n) + static_cast<std::size_t>(c);
    };
    to[at(i, j)] = 0.25 * (from[at(i - 1, j)] + from[at(i, j + 1)] + from[at(i, j - 1)] + from[at(i + 1, j)]);
}

// The pieces as loops (at or below the cutoff). Each swaps A and B after every step.

void pyramid_loops(int x, int y, int s) {
    double* from = g.a;
    double* to = g.b;
    for (int l = (s + 1) / 2 - 1; l >= 0; --l) {
        for (int i = x - l; i <= x + l; ++i) {
            for (int j = y - l; j <= y + l; ++j) update(from, to, i, j);
        }
        std::swap(from, to);
    }
}

void inverted_loops(int x, int y, int s) {
    double* from = g.a;
    double* to = g.b;
    for (int l = 0; l < (s + 1) / 2; ++l) {
        for (int i = x - l; i <= x + l; ++i) {
            for (int j = y - l; j <= y + l; ++j) update(from, to, i, j);
        }
        std::swap(from, to);
    }
}

void wedge_x_loops(int x, int y, int s) {
    double* from = g.a;
    double* to = g.b;
    const int h = (s + 1) / 2;
    for (int l = 0; l < h; ++l) {
        for (int i = x - (h - l) + 1; i <= x + (h - l) - 1; ++i) {
            for (int j = y - l; j <= y + l; ++j) update(from, to, i, j);
        }
        std::swap(from, to);
    }
}

void wedge_y_loops(int x, int y, int s) {
    double* from = g.a;
    double* to = g.b;
    const int h = (s + 1) / 2;
    for (int l = 0; l < h; ++l) {
        for (int i = x - l; i <= x + l; ++i) {
            for (int j = y - (h - l) + 1; j <= y + (h - l) - 1; ++j) update(from, to, i, j);
        }
        std::swap(from, to);
    }
}

// The recursive decomposition (see the file comment).

void pyramid(int x, int y, int s, const inncabs::launch l);
void inverted(int x, int y, int s, const inncabs::launch l);
void wedge_x(int x, int y, int s, const inncabs::launch l);
void wedge_y(int x, int y, int s, const inncabs::launch l);

void wait_all(inncabs::future<void>& f0, inncabs::future<void>& f1, inncabs::future<void>& f2,
              inncabs::future<void>& f3) {
    f0.get();
    f1.get();
    f2.get();
    f3.get();
}

void pyramid(int x, int y, int s, const inncabs::launch l) {
    if (s <= g.leaf) return pyramid_loops(x, y, s);
    const int d = (s - 1) / 2, o = (d + 1) / 2;
    {
        inncabs::future<void> f0 = inncabs::async(l, pyramid, x - o, y - o, d, l);
        inncabs::future<void> f1 = inncabs::async(l, pyramid, x - o, y + o, d, l);
        inncabs::future<void> f2 = inncabs::async(l, pyramid, x + o, y - o, d, l);
        inncabs::future<void> f3 = inncabs::async(l, pyramid, x + o, y + o, d, l);
        wait_all(f0, f1, f2, f3);
    }
    {
        inncabs::future<void> f0 = inncabs::async(l, wedge_x, x - o, y, d, l);
        inncabs::future<void> f1 = inncabs::async(l, wedge_x, x + o, y, d, l);
        inncabs::future<void> f2 = inncabs::async(l, wedge_y, x, y - o, d, l);
        inncabs::future<void> f3 = inncabs::async(l, wedge_y, x, y + o, d, l);
        wait_all(f0, f1, f2, f3);
    }
    inverted(x, y, d, l);
    pyramid(x, y, d, l);
}

void inverted(int x, int y, int s, const inncabs::launch l) {
    if (s <= g.leaf) return inverted_loops(x, y, s);
    const int d = (s - 1) / 2, o = (d + 1) / 2;
    inverted(x, y, d, l);
    pyramid(x, y, d, l);
    {
        inncabs::future<void> f0 = inncabs::async(l, wedge_y, x - o, y, d, l);
        inncabs::future<void> f1 = inncabs::async(l, wedge_y, x + o, y, d, l);
        inncabs::future<void> f2 = inncabs::async(l, wedge_x, x, y - o, d, l);
        inncabs::future<void> f3 = inncabs::async(l, wedge_x, x, y + o, d, l);
        wait_all(f0, f1, f2, f3);
    }
    {
        inncabs::future<void> f0 = inncabs::async(l, inverted, x + o, y + o, d, l);
        inncabs::future<void> f1 = inncabs::async(l, inverted, x + o, y - o, d, l);
        inncabs::future<void> f2 = inncabs::async(l, inverted, x - o, y + o, d, l);
        inncabs::future<void> f3 = inncabs::async(l, inverted, x - o, y - o, d, l);
        wait_all(f0, f1, f2, f3);
    }
}

void wedge_x(int x, int y, int s, const inncabs::launch l) {
    if (s <= g.leaf) return wedge_x_loops(x, y, s);
    const int d = (s - 1) / 2, o = (d + 1) / 2;
    {
        inncabs::future<void> f0 = inncabs::async(l, wedge_x, x - o, y, d, l);
        inncabs::future<void> f1 = inncabs::async(l, wedge_x, x + o, y, d, l);
        f0.get();
        f1.get();
    }
    inverted(x, y, d, l);
    pyramid(x, y, d, l);
    {
        inncabs::future<void> f0 = inncabs::async(l, wedge_x, x, y - o, d, l);
        inncabs::future<void> f1 = inncabs::async(l, wedge_x, x, y + o, d, l);
        f0.get();
        f1.get();
    }
}

void wedge_y(int x, int y, int s, const inncabs::launch l) {
    if (s <= g.leaf) return wedge_y_loops(x, y, s);
    const int d = (s - 1) / 2, o = (d + 1) / 2;
    {
        inncabs::future<void> f0 = inncabs::async(l, wedge_y, x, y - o, d, l);
        inncabs::future<void> f1 = inncabs::async(l, wedge_y, x, y + o, d, l);
        f0.get();
        f1.get();
    }
    inverted(x, y, d, l);
    pyramid(x, y, d, l);
    {
        inncabs::future<void> f0 = inncabs::async(l, wedge_y, x - o, y, d, l);
        inncabs::future<void> f1 = inncabs::async(l, wedge_y, x + o, y, d, l);
        f0.get();
        f1.get();
    }
}

/// The whole run: M = (n - 1) / 2 steps, ending in A.
void jacobi_recursive(const inncabs::launch l) {
    const int s = g.n - 2, c = g.n / 2;
    pyramid(c, c, s, l);
    wedge_x(c, 0, s, l);
    wedge_y(0, c, s, l);
    inverted(0, 0, s, l);
}

/// Tasks the decomposition of a piece of size s makes (kind 0 pyramid or inverted
/// pyramid, 1 wedge).
std::uint64_t tasks_in(int kind, int s) {
    if (s <= g.leaf) return 0;
    const int d = (s - 1) / 2;
    const std::uint64_t p = tasks_in(0, d), w = tasks_in(1, d);
    // pyramid and inverted: 5 pyramids + 4 wedges + 1 inverted, 8 of them asyncs;
    // wedge: 4 wedges + 1 pyramid + 1 inverted, the 4 wedges asyncs.
    return kind == 0 ? 8 + 6 * p + 4 * w : 4 + 2 * p + 4 * w;
}

/// The same M steps as plain loops over every point (the reference).
void jacobi_loops(double* a, double* b, int steps) {
    const std::size_t n = static_cast<std::size_t>(g.n);
    for (int t = 0; t < steps; ++t) {
        for (std::size_t i = 1; i < n - 1; ++i) {
            for (std::size_t j = 1; j < n - 1; ++j) {
                b[i * n + j] = 0.25 * (a[(i - 1) * n + j] + a[i * n + j + 1] + a[i * n + j - 1] + a[(i + 1) * n + j]);
            }
        }
        std::swap(a, b);
    }
}

}  // namespace

int main(int argc, char** argv) {
    int p = 11, cut = 6;
    const inncabs::common_options o = inncabs::parse(
        argc, argv, "inncabs pyramids: a cache-oblivious Jacobi solver, an async per space-time piece",
        {{"p", "P from 2 to 14: the grid has 2^P + 1 points a side (default 11)",
          [&p](std::string_view v) { return inncabs::parse_number(v, p, 2, 14); }},
         {"cut", "C from 2 to 14: pieces of size <= 2^C - 1 run as loops (default 6)",
          [&cut](std::string_view v) { return inncabs::parse_number(v, cut, 2, 14); }}});
    g.n = (1 << p) + 1;
    g.mask = g.n - 2;
    g.leaf = (1 << cut) - 1;
    const int steps = (g.n - 1) / 2;
    const std::size_t points = static_cast<std::size_t>(g.n) * static_cast<std::size_t>(g.n);
    std::vector<double> a(points), b(points);
    g.a = a.data();
    g.b = b.data();
    const auto initial = [&] {
        std::fill(a.begin(), a.end(), 0.0);
        std::fill(b.begin(), b.end(), 0.0);
        a[static_cast<std::size_t>(g.n / 2) * static_cast<std::size_t>(g.n) + static_cast<std::size_t>(g.n / 2)] = 1.0;
    };

    // The reference: the same steps as plain loops, before the runs.
    initial();
    std::vector<double> expected = a, scratch = b;
    jacobi_loops(expected.data(), scratch.data(), steps);  // an even step count ends in `expected`
    scratch = std::vector<double>();

    const std::uint64_t tasks = tasks_in(0, g.n - 2) * 2 + tasks_in(1, g.n - 2) * 2;
    initial();
    return inncabs::run(
        "pyramids", o, std::to_string(g.n) + "x" + std::to_string(steps), tasks,
        [&] {
            jacobi_recursive(o.policy);
            return 0;
        },
        [&](int) {
            std::size_t wrong = 0;
            while (wrong < points && std::memcmp(&a[wrong], &expected[wrong], sizeof(double)) == 0) ++wrong;
            if (wrong != points) {
                const auto side = static_cast<std::size_t>(g.n);
                const std::size_t row = wrong / side, col = wrong % side;
                return inncabs::verdict{false, "A[" + std::to_string(row) + "][" + std::to_string(col) +
                                                   "] = " + std::to_string(a[wrong]) + ", the loops give " +
                                                   std::to_string(expected[wrong])};
            }
            double sum = 0;
            for (const double v : a) sum += v;
            char shown[32];
            std::snprintf(shown, sizeof shown, "%.17g", sum);
            initial();  // the next run's grids, untimed
            return inncabs::verdict{true, shown};
        });
}
