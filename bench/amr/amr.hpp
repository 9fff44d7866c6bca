// Shared by the AMR programs (seed 004 §III-IV): options, the level hierarchy and its
// blocks with their dependencies, the Berger-Oliger recursion every schedule follows, the
// checks and the output (result line, per-point CSV of the steps reached).
//
// Hierarchy. Level 0 covers [0, rmax] with --nr points. Level l >= 1 halves the spacing
// and covers [8 - W/2^(l-1), 8 + W/2^(l-1)] (W = --width, ends moved to the parent's
// nearest points), a static region around the initial pulse (seed L76: finer meshes where
// the error is largest; here they do not follow the pulse). Every level thus has about
// 4W/h0 proper points and takes 2^l steps per coarse step.
//
// Blocks. A level's proper points are cut into blocks of --grain points (the last one
// keeps the remainder); a fine level has one more block per side for its 6 buffer points.
// The unit of work is a block's step. Its inputs, the blocks of the previous step within 3
// points (its domain of dependence, seed L114), are listed here once per step parity and
// used by every schedule; so are the child blocks an injection reads and the parent
// blocks an interpolation reads.
//
// Berger-Oliger order (seed ref. [30]), step s of level l:
//   compute the blocks of l at s (a fine level's buffers too at odd s);
//   if l has a child: child steps 2s-1 and 2s; inject the child into l's blocks under
//   it; fill the child's buffers at 2s from l at s (tapering, numerics.hpp).
// A block has "reached" step s when its values at s are final: after its injection if a
// child lies under it, after its interpolation for an even-step buffer, else after its
// compute.
//
// harness.hpp has the options, the wall-clock alarm and the output.
#pragma once

#include "amr/numerics.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

namespace weft::bench::amr {

struct params {
    int nr = 641;              ///< points of level 0 on [0, rmax]
    double rmax = 32.0;
    unsigned levels = 2;       ///< refined levels above level 0 (seed Fig. 5: 2)
    double width = 4.0;        ///< half-width of level 1 around r = 8
    int grain = 32;            ///< points per block
    unsigned steps = 200;      ///< coarse steps (fixed-work mode)
    double wall = 0.0;         ///< > 0: run for this many seconds instead (seed Figs. 5-6)
    double amp = 0.02;         ///< the pulse amplitude A
    double cfl = 0.25;         ///< dt / h on every level
    unsigned reps = 3;         ///< measured runs after one warm-up (fixed-work mode)
    unsigned window = 256;     ///< dataflow: coarse steps of graph in flight
    std::string csv;           ///< --wall: the per-point steps reached, written here
    bool convergence = false;  ///< serial: the self-convergence test instead
    double tconv = 12.0;       ///< its final time
};

/// One level's grid, blocks and the dependencies of its blocks.
struct level_layout {
    level geom;
    std::vector<range> blocks;
    /// [s % 2][b]: the blocks of step s-1 that block b's step s reads; empty when step s
    /// does not compute block b (a buffer at an even step).
    std::vector<std::vector<unsigned>> compute_deps[2];
    /// [b]: the child blocks injected into block b (empty: no child under b).
    std::vector<std::vector<unsigned>> inject_deps;
    /// A fine level: the parent blocks its left and right buffers interpolate from.
    std::vector<unsigned> interp_deps[2];

    bool computes(unsigned s, std::size_t b) const noexcept { return !compute_deps[s % 2][b].empty(); }
    bool is_buffer(std::size_t b) const noexcept { return geom.fine() && (b == 0 || b + 1 == blocks.size()); }
    unsigned buffer_block(int side) const noexcept { return side == 0 ? 0u : static_cast<unsigned>(blocks.size() - 1); }
};

struct hierarchy {
    params p;
    std::vector<level_layout> levels;
    /// Proper-point updates per coarse step: sum of n_l 2^l.
    std::uint64_t updates_per_coarse_step() const noexcept {
        std::uint64_t u = 0;
        for (const auto& l : levels) u += static_cast<std::uint64_t>(l.geom.n) << l.geom.index;
        return u;
    }
};

namespace detail {

inline std::vector<unsigned> overlapping(const std::vector<range>& blocks, range r) {
    std::vector<unsigned> out;
    for (std::size_t b = 0; b < blocks.size(); ++b)
        if (!intersect(blocks[b], r).empty()) out.push_back(static_cast<unsigned>(b));
    return out;
}

}  // namespace detail

/// Builds the levels and blocks of p (grain = INT_MAX: one block per level, the
/// reference's blocking). Returns an empty message or why p is unusable.
inline std::string build_hierarchy(const params& p, hierarchy& out) {
    out.p = p;
    out.levels.clear();
    out.levels.resize(p.levels + 1);
    for (unsigned l = 0; l <= p.levels; ++l) {
        level& g = out.levels[l].geom;
        g.index = l;
        if (l == 0) {
            g.n = p.nr;
            g.h = p.rmax / static_cast<double>(p.nr - 1);
        } else {
            const level& parent = out.levels[l - 1].geom;
            const double half = p.width / static_cast<double>(1u << (l - 1));
            const auto to_parent = [&](double r) {
                return static_cast<int>(std::lround(r / parent.h - static_cast<double>(parent.origin)));
            };
            const int pa = to_parent(pulse_r0 - half), pb = to_parent(pulse_r0 + half);
            if (pb - pa < 2) return "level " + std::to_string(l) + " is narrower than 3 parent points (raise --width)";
            g.h = parent.h / 2;
            g.n = 2 * (pb - pa) + 1;
            g.parent_offset = pa;
            g.origin = 2 * (parent.origin + pa);
            const range left = interpolation_source(g, {-buffer_points, 0});
            const range right = interpolation_source(g, {g.n, g.n + buffer_points});
            if (left.lo < 0 || right.hi > parent.n)
                return "level " + std::to_string(l) + " (r in [" + std::to_string(parent.r(pa)) + ", " +
                       std::to_string(parent.r(pb)) + "]) needs level " + std::to_string(l - 1) +
                       " points 5 beyond each end (lower --width or --levels, or raise --rmax)";
        }
        finish_level(g, p.cfl);
    }
    for (auto& ll : out.levels) {
        const level& g = ll.geom;
        if (g.fine()) ll.blocks.push_back({-buffer_points, 0});
        for (int b = 0; b < g.n; b += std::min(p.grain, g.n - b)) ll.blocks.push_back({b, std::min(g.n, b + p.grain)});
        if (g.fine()) ll.blocks.push_back({g.n, g.n + buffer_points});
        for (unsigned parity = 0; parity < 2; ++parity) {
            const unsigned s = parity == 0 ? 2u : 1u;  // a step of this parity
            auto& deps = ll.compute_deps[parity];
            deps.assign(ll.blocks.size(), {});
            for (std::size_t b = 0; b < ll.blocks.size(); ++b) {
                const range t = intersect(ll.blocks[b], g.computed_at(s));
                if (t.empty()) continue;
                deps[b] = detail::overlapping(
                    ll.blocks, intersect({t.lo - step_reach, t.hi + step_reach}, g.valid_after(s - 1)));
            }
        }
        ll.inject_deps.assign(ll.blocks.size(), {});
    }
    for (unsigned l = 1; l <= p.levels; ++l) {
        level_layout& child = out.levels[l];
        level_layout& parent = out.levels[l - 1];
        const range cover = child.geom.parent_cover();
        for (std::size_t b = 0; b < parent.blocks.size(); ++b) {
            const range under = intersect(parent.blocks[b], cover);
            if (under.empty()) continue;
            const int pa = child.geom.parent_offset;
            parent.inject_deps[b] = detail::overlapping(child.blocks, {2 * (under.lo - pa), 2 * (under.hi - 1 - pa) + 1});
        }
        for (int side = 0; side < 2; ++side) {
            const range buf = child.blocks[child.buffer_block(side)];
            child.interp_deps[side] = detail::overlapping(parent.blocks, interpolation_source(child.geom, buf));
        }
    }
    return {};
}

/// Every block of every level at one time.
using grid_state = std::vector<std::vector<block_data>>;

inline grid_state initial_state(const hierarchy& h) {
    grid_state g(h.levels.size());
    for (std::size_t l = 0; l < h.levels.size(); ++l) {
        for (const range& b : h.levels[l].blocks) {
            g[l].emplace_back(b.lo, b.hi);
            initial_data(h.levels[l].geom, h.p.amp, g[l].back());
        }
    }
    return g;
}

/// Per level, per block: the last step whose values are final (see the head).
using reached_steps = std::vector<std::vector<unsigned>>;

inline reached_steps no_steps(const hierarchy& h) {
    reached_steps r(h.levels.size());
    for (std::size_t l = 0; l < h.levels.size(); ++l) r[l].assign(h.levels[l].blocks.size(), 0);
    return r;
}

/// Pointers to the blocks `which` of `level_blocks`.
inline void pick(const std::vector<block_data>& level_blocks, const std::vector<unsigned>& which,
                 std::vector<const block_data*>& out) {
    out.clear();
    for (unsigned b : which) out.push_back(&level_blocks[b]);
}

/// The Berger-Oliger recursion over two grid_states (cur: the last step; nxt: scratch),
/// shared by the serial and the barrier schedules. `phase(n, f)` runs f(0) ... f(n-1)
/// and returns when all have run: in a loop, or as n tasks and a barrier. A phase is the
/// compute of one level's step; injections and interpolations run on the calling
/// thread. `stop()` is asked before each phase: true ends the run where it is.
template <class Phase, class Stop>
class bo_driver {
public:
    bo_driver(const hierarchy& h, grid_state& cur, reached_steps& reached, Phase phase, Stop stop)
        : h_(h), cur_(cur), reached_(reached), phase_(phase), stop_(stop), nxt_(h.levels.size()) {
        for (std::size_t l = 0; l < h.levels.size(); ++l)
            for (const range& b : h.levels[l].blocks) nxt_[l].emplace_back(b.lo, b.hi);
    }

    /// Coarse steps first+1 ... first+count (or until stop()); returns the number done.
    unsigned run(unsigned first, unsigned count) {
        for (unsigned s = first + 1; s <= first + count; ++s) {
            if (!step(0, s)) return s - 1 - first;
        }
        return count;
    }
    std::uint64_t kernels() const noexcept { return kernels_; }

private:
    bool step(unsigned l, unsigned s) {
        if (stop_()) return false;
        const level_layout& ll = h_.levels[l];
        auto& cur = cur_[l];
        auto& nxt = nxt_[l];
        const auto& deps = ll.compute_deps[s % 2];
        std::vector<unsigned> todo;
        for (std::size_t b = 0; b < ll.blocks.size(); ++b)
            if (!deps[b].empty()) todo.push_back(static_cast<unsigned>(b));
        phase_(todo.size(), [&](std::size_t k) {
            const unsigned b = todo[k];
            thread_local std::vector<const block_data*> in;
            pick(cur, deps[b], in);
            compute_block(ll.geom, s, in, nxt[b]);
        });
        kernels_ += todo.size();
        for (unsigned b : todo) std::swap(cur[b], nxt[b]);
        const bool has_child = l + 1 < h_.levels.size();
        for (unsigned b : todo)
            if (!has_child || ll.inject_deps[b].empty()) reached_[l][b] = s;
        if (!has_child) return true;
        if (!step(l + 1, 2 * s - 1) || !step(l + 1, 2 * s)) return false;
        const level_layout& child = h_.levels[l + 1];
        std::vector<const block_data*> in;
        for (std::size_t b = 0; b < ll.blocks.size(); ++b) {
            if (ll.inject_deps[b].empty()) continue;
            pick(cur_[l + 1], ll.inject_deps[b], in);
            inject(child.geom, in, cur[b]);
            reached_[l][b] = s;
            ++kernels_;
        }
        for (int side = 0; side < 2; ++side) {
            const unsigned buf = child.buffer_block(side);
            pick(cur, child.interp_deps[side], in);
            interpolate(child.geom, in, cur_[l + 1][buf]);
            reached_[l + 1][buf] = 2 * s;
            ++kernels_;
        }
        return true;
    }

    const hierarchy& h_;
    grid_state& cur_;
    reached_steps& reached_;
    Phase phase_;
    Stop stop_;
    grid_state nxt_;
    std::uint64_t kernels_ = 0;
};

/// The reference: `coarse_steps` steps of p with one block per level, in a loop.
inline grid_state reference_state(const params& p, unsigned coarse_steps) {
    params one = p;
    one.grain = INT_MAX;
    hierarchy h;
    build_hierarchy(one, h);
    grid_state g = initial_state(h);
    reached_steps reached = no_steps(h);
    auto loop = [](std::size_t n, auto&& f) {
        for (std::size_t k = 0; k < n; ++k) f(k);
    };
    bo_driver driver(h, g, reached, loop, [] { return false; });
    driver.run(0, coarse_steps);
    return g;
}

/// Level l's proper values (chi, Phi, Pi, one after another) gathered from its blocks.
inline std::vector<double> proper_values(const hierarchy& h, const grid_state& g, std::size_t l) {
    const level& geom = h.levels[l].geom;
    const auto n = static_cast<std::size_t>(geom.n);
    std::vector<double> out(3 * n);
    for (const block_data& b : g[l]) {
        const range o = intersect({b.begin, b.end}, {0, geom.n});
        for (int i = o.lo; i < o.hi; ++i) {
            const auto k = static_cast<std::size_t>(i - b.begin), j = static_cast<std::size_t>(i);
            out[j] = b.chi()[k];
            out[n + j] = b.phi()[k];
            out[2 * n + j] = b.pi()[k];
        }
    }
    return out;
}

/// FNV-1a over the bits of every level's proper values: equal for equal solutions.
inline std::uint64_t solution_hash(const hierarchy& h, const grid_state& g) {
    std::uint64_t x = 0xcbf29ce484222325ULL;
    for (std::size_t l = 0; l < h.levels.size(); ++l) {
        for (const double v : proper_values(h, g, l)) {
            x ^= std::bit_cast<std::uint64_t>(v);
            x *= 0x100000001b3ULL;
        }
    }
    return x;
}

/// Ends the process (status 1) unless g equals the reference bit for bit and is finite.
inline void check_against_reference(const char* impl, const hierarchy& h, const grid_state& g,
                                    const grid_state& ref) {
    static const char* const names[3] = {"chi", "Phi", "Pi"};
    params one = h.p;
    one.grain = INT_MAX;
    hierarchy href;
    build_hierarchy(one, href);
    for (std::size_t l = 0; l < h.levels.size(); ++l) {
        const std::vector<double> got = proper_values(h, g, l), want = proper_values(href, ref, l);
        const std::size_t n = got.size() / 3;
        for (std::size_t k = 0; k < got.size(); ++k) {
            if (!std::isfinite(want[k])) {
                std::fprintf(stderr, "weft-bench problem=amr impl=%s: the solution blew up (%s = %g at level %zu, r = %g); "
                             "lower --amp or --cfl\n", impl, names[k / n], want[k], l,
                             h.levels[l].geom.r(static_cast<int>(k % n)));
                std::exit(1);
            }
            if (std::bit_cast<std::uint64_t>(got[k]) == std::bit_cast<std::uint64_t>(want[k])) continue;
            std::fprintf(stderr, "weft-bench problem=amr impl=%s: WRONG RESULT: level %zu point %zu (r = %g) %s = %.17g, "
                         "the serial reference has %.17g\n", impl, l, k % n,
                         h.levels[l].geom.r(static_cast<int>(k % n)), names[k / n], got[k], want[k]);
            std::exit(1);
        }
    }
}

/// Ends the process (status 1) if a block reached a step without its inputs having
/// reached the steps it reads (the causality the dataflow graph must respect, seed L128).
inline void check_causality(const char* impl, const hierarchy& h, const reached_steps& r) {
    auto fail = [&](std::size_t l, std::size_t b, unsigned s, const char* what, std::size_t l2, unsigned b2,
                    unsigned need) {
        std::fprintf(stderr, "weft-bench problem=amr impl=%s: CAUSALITY: level %zu block %zu reached step %u but %s "
                     "(level %zu block %u) only %u, not %u\n", impl, l, b, s, what, l2, b2, r[l2][b2], need);
        std::exit(1);
    };
    for (std::size_t l = 0; l < h.levels.size(); ++l) {
        const level_layout& ll = h.levels[l];
        for (std::size_t b = 0; b < ll.blocks.size(); ++b) {
            const unsigned s = r[l][b];
            if (s == 0) continue;
            // The last compute of b: step s, or s-1 for an even-step buffer.
            const unsigned sc = ll.computes(s, b) ? s : s - 1;
            for (unsigned d : ll.compute_deps[sc % 2][b])
                if (r[l][d] + 1 < sc) fail(l, b, s, "its neighbour", l, d, sc - 1);
            for (unsigned d : ll.inject_deps[b])
                if (r[l + 1][d] < 2 * s) fail(l, b, s, "the child", l + 1, d, 2 * s);
            if (ll.is_buffer(b) && s % 2 == 0) {
                for (unsigned d : ll.interp_deps[b == 0 ? 0 : 1])
                    if (r[l - 1][d] < s / 2) fail(l, b, s, "the parent", l - 1, d, s / 2);
            }
        }
    }
}

/// Proper-point updates done, from the steps reached (buffers not counted).
inline std::uint64_t updates_done(const hierarchy& h, const reached_steps& r) {
    std::uint64_t u = 0;
    for (std::size_t l = 0; l < h.levels.size(); ++l) {
        const level_layout& ll = h.levels[l];
        for (std::size_t b = 0; b < ll.blocks.size(); ++b) {
            const range o = intersect(ll.blocks[b], {0, ll.geom.n});
            if (!o.empty()) u += static_cast<std::uint64_t>(o.hi - o.lo) * r[l][b];
        }
    }
    return u;
}

}  // namespace weft::bench::amr
