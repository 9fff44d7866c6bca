// INNCABS NQueens (seed 000 Table 7: recursive unbalanced, no synchronisation, ~28 us
// tasks, fine): count the ways to place n queens on an n x n board, column by column;
// at every column, an async per row where the new queen is safe from the ones before it
// (a variable number, from 0 to n), each on its own copy of the placement so far (a
// std::vector<int>, as the original), joined by the parent, which adds up their counts.
// The launch policy is passed down the recursion.
//
// Sizes: --n=N (default 13, the suite's standard input in its run.rb: 4,674,889 asyncs;
// small: --n=7, 551 asyncs). Check: the count must be the known number of solutions
// (OEIS A000170).
#include "inncabs/inncabs.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using history = std::vector<int>;  // the row of the queen in each column filled so far

// Whether the newest queen (the last column of h) is safe from the others.
bool safe(const history& h) {
    const std::size_t col = h.size() - 1;
    const int row = h[col];
    for (std::size_t c = 0; c < col; ++c) {
        const int d = row - h[c];
        const int dc = static_cast<int>(col - c);
        if (d == 0 || d == dc || d == -dc) return false;
    }
    return true;
}

std::uint64_t solutions(int n, history h, const inncabs::launch l) {
    if (static_cast<int>(h.size()) == n) return 1;
    std::vector<inncabs::future<std::uint64_t>> placed;
    for (int row = 0; row < n; ++row) {
        history x = h;
        x.push_back(row);
        if (safe(x)) placed.push_back(inncabs::async(l, solutions, n, std::move(x), l));
    }
    std::uint64_t sum = 0;
    for (inncabs::future<std::uint64_t>& f : placed) sum += f.get();
    return sum;
}

// Solutions for n = 0..16 (OEIS A000170).
constexpr std::array<std::uint64_t, 17> known{1,     1,     0,      0,      2,       10,      4,        40,      92,
                                              352,   724,   2680,   14200,  73712,   365596,  2279184,  14772512};

// Asyncs made: one per safe placement of 1..n queens (every node of the search but the
// root), counted with bitmasks.
std::uint64_t placements(int n, int col, std::uint32_t rows, std::uint32_t up, std::uint32_t down) {
    if (col == n) return 0;
    const std::uint32_t all = (std::uint32_t{1} << n) - 1;
    std::uint64_t count = 0;
    for (std::uint32_t open = all & ~(rows | up | down); open != 0; open &= open - 1) {
        const std::uint32_t bit = open & (~open + 1);
        count += 1 + placements(n, col + 1, rows | bit, ((up | bit) << 1) & all, (down | bit) >> 1);
    }
    return count;
}

}  // namespace

int main(int argc, char** argv) {
    int n = 13;
    const inncabs::common_options o = inncabs::parse(
        argc, argv, "inncabs nqueens: count the n-queens solutions, an async per safe placement",
        {{"n", "a board size from 1 to 16", [&n](std::string_view v) { return inncabs::parse_number(v, n, 1, 16); }}});
    const std::uint64_t expected = known[static_cast<std::size_t>(n)];
    return inncabs::run(
        "nqueens", o, std::to_string(n), placements(n, 0, 0, 0, 0), [&] { return solutions(n, history{}, o.policy); },
        [expected](std::uint64_t r) {
            return inncabs::verdict{r == expected, r == expected ? std::to_string(r)
                                                                 : std::to_string(r) + " != " + std::to_string(expected)};
        });
}
