// INNCABS QAP (seed 000 Table 7: recursive, unbalanced, atomic pruning, very fine): the
// quadratic assignment problem solved exactly by branch and bound. Facility k = 0, 1, ...
// is placed at each location in turn; a node (a partial assignment of facilities 0..k-1)
// starts one async per location for facility k, which extends the assignment if the
// location is free and recurses, and joins them all. The bound is the cost of the partial
// assignment: a node whose cost already reaches the best complete one known is cut. The
// best one is an atomic that every task may lower (compare-exchange): the pruning, and so
// the number of tasks, depends on the order in which the tasks run, as in the original.
//
// The problem: n facilities, n locations, a flow matrix A (between facilities) and a
// distance matrix B (between locations); minimise the sum over i, j of
// A[i][j] * B[p(i)][p(j)] over the permutations p.
//
// The instances: INNCABS reads QAPLIB's chr10a (Christofides and Benavent: n = 10, the
// flow matrix the adjacency matrix of a weighted tree, the distances a complete graph's),
// its default and, by seed 000 §6.3, the only input on which the std::async version runs.
// No file is read here: a deterministic generator builds an instance of the same kind and
// size (--n, default 10, chr10a's; QAPLIB's chr12 instances are n = 12) from --seed: the
// flows a random tree (node k's parent uniform among 0..k-1, weights 1..100, symmetric),
// the distances a random symmetric matrix (1..100 off the diagonal, 0 on it), both from
// the SplitMix64 generator.
//
// The check: before the timed runs, a serial search (the same branch and bound, plain
// recursion, depth first) finds the optimum and, for n <= 9, an exhaustive search of all
// n! permutations must agree with it; every run must return that optimum (exit 1 if not).
//
// Tasks: n per inner node (the free locations' and the occupied ones', which return at
// once, as the original spawns them). `calls` reports the serial search's count; a
// parallel run's differs with its pruning. The default instance: optimum 16,148, 1,550,670
// tasks in the serial order (about 1.2 million in weft's at one or two workers).
//
// Options: --n=N (4..16, default 10), --seed=S (default 1), plus inncabs's --launch, --reps.
// Small input: --n=4 (148 tasks; --n=5, 545 tasks, took 2-3 s with std::async at one core
// of the busy 2-core test machine).
#include "inncabs/inncabs.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace {

using cost = std::int64_t;

struct instance {
    int n = 0;
    std::vector<cost> flow;      ///< A, n x n row-major: between facilities
    std::vector<cost> distance;  ///< B, n x n row-major: between locations

    cost a(int i, int j) const { return flow[static_cast<std::size_t>(i * n + j)]; }
    cost b(int i, int j) const { return distance[static_cast<std::size_t>(i * n + j)]; }
};

/// SplitMix64 (Steele, Lea and Flood 2014): the generator's stream.
struct splitmix64 {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    /// Uniform in [0, bound) (bound small: the modulo's bias is below 2^-56).
    int below(int bound) { return static_cast<int>(next() % static_cast<std::uint64_t>(bound)); }
};

/// A chr-like instance (see the file comment).
instance generate(int n, std::uint64_t seed) {
    instance p;
    p.n = n;
    const auto cells = static_cast<std::size_t>(n * n);
    p.flow.assign(cells, 0);
    p.distance.assign(cells, 0);
    splitmix64 rng{seed};
    const auto at = [n](int i, int j) { return static_cast<std::size_t>(i * n + j); };
    for (int k = 1; k < n; ++k) {
        const int parent = rng.below(k);
        const cost w = 1 + rng.below(100);
        p.flow[at(k, parent)] = p.flow[at(parent, k)] = w;
    }
    for (int i = 0; i < n; ++i) {
        for (int j = i + 1; j < n; ++j) p.distance[at(i, j)] = p.distance[at(j, i)] = 1 + rng.below(100);
    }
    return p;
}

/// A partial assignment: facility k's location, then a link to facility k-1's (the list
/// lives in the frames of the tasks that made it, which outlive their children).
struct placement {
    const placement* previous;
    int location;
};

/// The cost that placing facility k at location `loc` adds to the partial assignment
/// `before` (facilities 0..k-1): its own diagonal term and its flows with every earlier one.
cost added_cost(const instance& p, const placement* before, int k, int loc) {
    cost c = p.a(k, k) * p.b(loc, loc);
    int other = k - 1;
    for (const placement* q = before; q != nullptr; q = q->previous, --other) {
        c += p.a(k, other) * p.b(loc, q->location) + p.a(other, k) * p.b(q->location, loc);
    }
    return c;
}

/// Lowers `best` to `found` if it is lower.
void lower_to(std::atomic<cost>& best, cost found) {
    cost seen = best.load();
    while (found < seen && !best.compare_exchange_weak(seen, found)) {
    }
}

/// The branch and bound from facility k on, given the partial assignment `partial` of
/// cost `so_far` and the set `used` of its locations; returns the best cost known after.
cost solve(const instance& p, const placement* partial, int k, std::uint32_t used, cost so_far,
           std::atomic<cost>& best, const inncabs::launch l) {
    if (k >= p.n) return so_far;
    if (so_far >= best.load()) return best.load();
    std::vector<inncabs::future<void>> extensions;
    extensions.reserve(static_cast<std::size_t>(p.n));
    for (int loc = 0; loc < p.n; ++loc) {
        extensions.push_back(inncabs::async(l, [&p, partial, k, used, so_far, &best, loc, l] {
            if ((used & (std::uint32_t{1} << loc)) != 0) return;
            const placement here{partial, loc};
            const cost found = solve(p, &here, k + 1, used | (std::uint32_t{1} << loc),
                                     so_far + added_cost(p, partial, k, loc), best, l);
            lower_to(best, found);
        }));
    }
    for (auto& f : extensions) f.get();
    return best.load();
}

/// The same search on one thread, depth first, counting the tasks the parallel one would
/// start in this order.
cost solve_serial(const instance& p, const placement* partial, int k, std::uint32_t used, cost so_far, cost& best,
                  std::uint64_t& tasks) {
    if (k >= p.n) return so_far;
    if (so_far >= best) return best;
    tasks += static_cast<std::uint64_t>(p.n);
    for (int loc = 0; loc < p.n; ++loc) {
        if ((used & (std::uint32_t{1} << loc)) != 0) continue;
        const placement here{partial, loc};
        const cost found = solve_serial(p, &here, k + 1, used | (std::uint32_t{1} << loc),
                                        so_far + added_cost(p, partial, k, loc), best, tasks);
        best = std::min(best, found);
    }
    return best;
}

/// Every permutation's cost, the lowest.
cost exhaustive(const instance& p) {
    std::vector<int> perm(static_cast<std::size_t>(p.n));
    std::iota(perm.begin(), perm.end(), 0);
    const auto at = [&perm](int i) { return perm[static_cast<std::size_t>(i)]; };
    cost best = -1;
    do {
        cost c = 0;
        for (int i = 0; i < p.n; ++i) {
            for (int j = 0; j < p.n; ++j) c += p.a(i, j) * p.b(at(i), at(j));
        }
        if (best < 0 || c < best) best = c;
    } while (std::next_permutation(perm.begin(), perm.end()));
    return best;
}

constexpr cost no_solution = cost{1} << 60;

}  // namespace

int main(int argc, char** argv) {
    int n = 10;
    std::uint64_t seed = 1;
    const inncabs::common_options o = inncabs::parse(
        argc, argv, "inncabs qap: quadratic assignment by branch and bound, an async per extended assignment",
        {{"n", "a number of facilities from 4 to 16 (default 10, chr10a's size)",
          [&n](std::string_view v) { return inncabs::parse_number(v, n, 4, 16); }},
         {"seed", "a generator seed from 0 to 2^31 (default 1)",
          [&seed](std::string_view v) {
              return inncabs::parse_number(v, seed, std::uint64_t{0}, std::uint64_t{1} << 31);
          }}});

    const instance p = generate(n, seed);
    cost expected = no_solution;
    std::uint64_t serial_tasks = 0;
    (void)solve_serial(p, nullptr, 0, 0, 0, expected, serial_tasks);
    if (n <= 9) {
        const cost all = exhaustive(p);
        if (all != expected) {
            std::fprintf(stderr, "inncabs qap: the serial search found %lld, the exhaustive one %lld\n",
                         static_cast<long long>(expected), static_cast<long long>(all));
            return inncabs::exit_wrong;
        }
    }

    return inncabs::run(
        "qap", o, "chr" + std::to_string(n) + "-seed" + std::to_string(seed), serial_tasks,
        [&] {
            std::atomic<cost> best{no_solution};
            return solve(p, nullptr, 0, 0, 0, best, o.policy);
        },
        [expected](cost r) {
            return inncabs::verdict{r == expected, r == expected ? std::to_string(r)
                                                                 : std::to_string(r) + " != " + std::to_string(expected)};
        });
}
