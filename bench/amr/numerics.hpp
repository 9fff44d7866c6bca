// The numerics of seed 004's AMR application (§III, L80-L98), shared by every schedule:
// the semilinear wave equation in spherical symmetry, its second-order finite differences,
// the third-order Runge-Kutta step of one block, and the two grid transfers of
// Berger-Oliger refinement with tapered coarse-fine interfaces (seed ref. [32], L98).
//
// Equations (seed L82-L86, p = 7):
//   d/dt chi = Pi,   d/dt Phi = dPi/dr,   d/dt Pi = r^-2 d(r^2 Phi)/dr + chi^7
// Initial data (seed L90-L98): chi = A exp(-(r - R0)^2 / delta^2), R0 = 8, delta = 1,
// Phi = d chi / dr (analytically), Pi = 0.
//
// Space: vertex-centred points r_i = i h on every level; centred differences
// (u_{i+1} - u_{i-1}) / 2h for dPi/dr, and for r^-2 d(r^2 Phi)/dr the form
//   3 (r_{i+1}^2 Phi_{i+1} - r_{i-1}^2 Phi_{i-1}) / (r_{i+1}^3 - r_{i-1}^3)
// (the "Evans" differencing: r^-2 d/dr = 3 d/d(r^3)), second order, and with the weights
// r_i^2 h for Phi and (r_{i+1}^3 - r_{i-1}^3)/6 for Pi it conserves a discrete energy, so
// the origin is stable. dPhi/dr + 2 Phi/r (centred) was not: it blew up when the pulse went
// through r = 0 at h = 0.025; the centred difference of r^2 Phi divided by r_i^2 is not
// even consistent at r = h (4a instead of 3a for Phi = a r).
// The denominator is written 2h (3 r_i^2 + h^2), which is exact algebra and cancels nothing.
// Boundaries of the coarsest level only:
//   r = 0: regularity, chi and Pi even, Phi odd; with the mirror point u_{-1} = +-u_1 the
//          formulas give dPhi/dt = 0 and dPi/dt = 3 Phi_1 / h + chi^7, and Phi_0 = 0 exactly.
//   outer edge: an outgoing (Sommerfeld) condition, r chi = f(t - r). It gives
//          Pi = -Phi - chi/r, so dPi/dt = -dPi/dr - Pi/r and dPhi/dt = dPi/dr, with dPi/dr
//          the one-sided upwind difference (Pi_N - Pi_{N-1}) / h: first order at that one
//          point, so that every point depends on its two neighbours only.
// Time: the three-stage, third-order Runge-Kutta of Shu and Osher,
//   u1 = u + dt L(u),  u2 = 3/4 u + 1/4 (u1 + dt L(u1)),  u' = 1/3 u + 2/3 (u2 + dt L(u2)).
//
// Reach. A stage reads one neighbour on each side, so a step reads 3: the new values of
// points [p, q) need the old ones of [p-3, q+3). A block computes them alone: stage 1 on
// [p-2, q+2), stage 2 on [p-1, q+1), stage 3 on [p, q), a few points recomputed at each
// block edge (the same points its neighbour computes). Every stage value is the same
// expression of the same inputs whichever block computes it, so results do not depend
// on the blocking, the schedule or the thread: they are bit-identical (the check of
// every program).
//
// Tapering (seed L98, ref. [32] Lehner, Liebling & Reula 2006). A fine level (spacing h/2,
// two steps of dt/2 per coarse step) keeps, beyond its proper region [0, n), a buffer of
// 2 x 3 = 6 points on each side. At a time both levels share (a "sync" time: every even
// fine step), the buffer is filled by interpolation in space from the coarse level at that
// time. The first fine step then computes [-3, n+3) (its outer three points per side are
// dropped, stage by stage: the stage ranges shrink by one point each), the second [0, n):
// after the two steps the proper region is exact and the coarse level is at the same time
// again, so no fine step needs coarse data between coarse time levels (no interpolation
// in time). Interpolation: copy at coincident points, the cubic midpoint
// (-u_{j-1} + 9 u_j + 9 u_{j+1} - u_{j+2}) / 16 between them. Restriction: injection of
// the fine values at coincident points into the coarse proper points under the fine level.
//
// Denormals: far ahead of the pulse the scheme creates ever smaller values, and chi^7 of
// small values underflows; x86 handles subnormals ~100x slower, and which points pass
// through them would depend on the run length. Every kernel sets flush-to-zero and
// denormals-are-zero on its thread first (all threads then compute the same results).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace weft::bench::amr {

inline constexpr int rk_stages = 3;
/// How far one step reaches: 3 stages of a stencil with one neighbour per side.
inline constexpr int step_reach = rk_stages;
/// Buffer points per side of a fine level: two fine steps per coarse step (ref. [32]).
inline constexpr int buffer_points = 2 * step_reach;
/// The seed's exponent p (L88) and pulse centre and width (L98).
inline constexpr double pulse_r0 = 8.0;
inline constexpr double pulse_delta = 1.0;

/// Sets flush-to-zero and denormals-are-zero for the calling thread (see the head).
inline void flush_denormals() noexcept {
#if defined(__SSE2__)
    constexpr unsigned ftz_daz = 0x8040u;
    const unsigned csr = _mm_getcsr();
    if ((csr & ftz_daz) != ftz_daz) _mm_setcsr(csr | ftz_daz);
#endif
}

/// A half-open range of point indices on one level.
struct range {
    int lo = 0;
    int hi = 0;
    bool empty() const noexcept { return hi <= lo; }
};
inline range intersect(range a, range b) noexcept { return {std::max(a.lo, b.lo), std::min(a.hi, b.hi)}; }

/// One level's grid: spacing, time step, its place inside its parent, and per-point
/// constants. Index i of level l sits at r = (origin + i) * h with h = h0 / 2^l.
struct level {
    unsigned index = 0;   ///< 0: the coarsest (the whole domain)
    int n = 0;            ///< proper points [0, n)
    long long origin = 0; ///< global index of point 0 at this level's spacing
    int parent_offset = 0;///< the parent's index of point 0 (fine levels)
    double h = 0;
    double dt = 0;
    double inv_h = 0;
    double inv_2h = 0;
    /// At i - first(): dPi/dt = evans_plus Phi_{i+1} - evans_minus Phi_{i-1} + chi^7.
    std::vector<double> evans_plus;
    std::vector<double> evans_minus;
    std::vector<double> inv_r;  ///< 1 / r_i; 0 at r = 0 (unused there)

    bool fine() const noexcept { return index > 0; }
    int first() const noexcept { return fine() ? -buffer_points : 0; }
    int last() const noexcept { return fine() ? n + buffer_points : n; }
    double r(int i) const noexcept { return static_cast<double>(origin + i) * h; }

    /// Where the level's values are valid after its step s (s = 0: initial data). Fine
    /// levels: the whole extended range at sync times (even s), 3 points less per side
    /// after an odd step.
    range valid_after(unsigned s) const noexcept {
        if (!fine()) return {0, n};
        if (s % 2 == 0) return {-buffer_points, n + buffer_points};
        return {-step_reach, n + step_reach};
    }
    /// The points step s computes. At even s the buffer is interpolated, not computed.
    range computed_at(unsigned s) const noexcept {
        if (!fine()) return {0, n};
        if (s % 2 == 1) return {-step_reach, n + step_reach};
        return {0, n};
    }
    /// The coarse points under this level (inclusive of both ends) in the parent's indices.
    range parent_cover() const noexcept { return {parent_offset, parent_offset + (n - 1) / 2 + 1}; }
};

/// Fills the per-point constants of `l` (index, n, origin and h set).
inline void finish_level(level& l, double cfl) {
    l.dt = cfl * l.h;
    l.inv_h = 1.0 / l.h;
    l.inv_2h = 0.5 / l.h;
    const auto size = static_cast<std::size_t>(l.last() - l.first());
    l.evans_plus.assign(size, 0.0);
    l.evans_minus.assign(size, 0.0);
    l.inv_r.assign(size, 0.0);
    for (int i = l.first(); i < l.last(); ++i) {
        const double r = l.r(i), h = l.h;
        const double denominator = 2.0 * h * (3.0 * r * r + h * h);  // r_{i+1}^3 - r_{i-1}^3
        const auto k = static_cast<std::size_t>(i - l.first());
        l.evans_plus[k] = 3.0 * (r + h) * (r + h) / denominator;
        l.evans_minus[k] = 3.0 * (r - h) * (r - h) / denominator;
        if (r > 0.0) l.inv_r[k] = 1.0 / r;
    }
}

/// Set when this thread's buffer_cache is destroyed (a bool has no destructor, so it can
/// still be read while the thread exits): a buffer freed after that is deleted.
inline thread_local bool buffer_cache_gone = false;

/// Block buffers freed on this thread, most recent last, reused before any new one: the
/// dataflow schedule (weft_dataflow.cpp) gives every step of a block a fresh buffer, and
/// a buffer freed a moment ago is still in this core's cache, where one from malloc
/// mostly is not (at 1,024-point blocks, compute_block ran 9 % slower on malloc's
/// buffers than on the barrier schedule's two arrays). At most `keep` buffers are kept.
class buffer_cache {
public:
    static constexpr std::size_t keep = 64;
    buffer_cache() = default;
    buffer_cache(const buffer_cache&) = delete;
    buffer_cache& operator=(const buffer_cache&) = delete;
    ~buffer_cache() {
        buffer_cache_gone = true;
        for (const entry& e : free_) delete[] e.p;
    }
    double* take(std::size_t n) {
        for (std::size_t i = free_.size(); i-- > 0;)
            if (free_[i].n == n) {
                double* p = free_[i].p;
                free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(i));
                return p;
            }
        return new double[n];
    }
    void give(double* p, std::size_t n) {
        if (free_.size() == keep) {
            delete[] free_.front().p;
            free_.erase(free_.begin());
        }
        free_.push_back({p, n});
    }
    static buffer_cache& mine() {
        thread_local buffer_cache c;
        return c;
    }

private:
    struct entry {
        double* p;
        std::size_t n;
    };
    std::vector<entry> free_;
};

/// unique_ptr's deleter for a block buffer of n doubles: back to the freeing thread's cache.
struct recycle_buffer {
    std::size_t n = 0;
    void operator()(double* p) const {
        if (buffer_cache_gone) delete[] p;
        else buffer_cache::mine().give(p, n);
    }
};

/// The values of one block of points [begin, end) of a level at one step: chi, Phi and
/// Pi one after another. Points a step did not compute hold NaN.
struct block_data {
    int begin = 0;
    int end = 0;
    bool valid = true;  ///< false: the step was skipped (the --wall deadline had passed)
    std::unique_ptr<double[], recycle_buffer> v;

    block_data() = default;
    block_data(int b, int e)
        : begin(b), end(e), v(buffer_cache::mine().take(3 * size()), recycle_buffer{3 * size()}) {}
    static block_data skipped() {
        block_data d;
        d.valid = false;
        return d;
    }
    std::size_t size() const noexcept { return static_cast<std::size_t>(end - begin); }
    double* chi() noexcept { return v.get(); }
    double* phi() noexcept { return v.get() + size(); }
    double* pi() noexcept { return v.get() + 2 * size(); }
    const double* chi() const noexcept { return v.get(); }
    const double* phi() const noexcept { return v.get() + size(); }
    const double* pi() const noexcept { return v.get() + 2 * size(); }
};

/// The seed's initial data (L90-L98) on the points of `d`.
inline void initial_data(const level& l, double amplitude, block_data& d) {
    flush_denormals();
    for (int i = d.begin; i < d.end; ++i) {
        const double r = l.r(i);
        const double x = (r - pulse_r0) / pulse_delta;
        const double arg = x * x;
        // Past e^-700 the pulse is below any value the run can resolve; exp would return
        // subnormals there.
        const double chi = arg > 700.0 ? 0.0 : amplitude * std::exp(-arg);
        const auto k = static_cast<std::size_t>(i - d.begin);
        d.chi()[k] = chi;
        d.phi()[k] = r == 0.0 ? 0.0 : -2.0 * x / pulse_delta * chi;  // Phi odd: 0 at r = 0
        d.pi()[k] = 0.0;
    }
}

namespace detail {

inline double pow7(double x) noexcept {
    const double x2 = x * x;
    const double x3 = x2 * x;
    return x3 * x3 * x;
}

/// Three fields of a run of points, indexed by (point index - base).
struct fields {
    double* chi;
    double* phi;
    double* pi;
    int base;
};
struct cfields {
    const double* chi;
    const double* phi;
    const double* pi;
    int base;
};

/// The Runge-Kutta combination of stage S (1, 2, 3) at one point: u the value at the
/// start of the step, x the previous stage's value, d = L(x).
template <int S>
inline double combine(double u, double x, double d, double dt) noexcept {
    const double y = x + dt * d;
    if constexpr (S == 1) {
        return y;
    } else if constexpr (S == 2) {
        return 0.75 * u + 0.25 * y;
    } else {
        constexpr double third = 1.0 / 3.0;
        constexpr double two_thirds = 2.0 / 3.0;
        return third * u + two_thirds * y;
    }
}

/// Stage S on the points [lo, hi) of level l: y = combine(u, x, L(x)). x must hold
/// [lo-1, hi+1), except at r = 0 and at the outer edge of the coarsest level, where the
/// boundary formulas of the head apply.
template <int S>
void stage(const level& l, cfields u, cfields x, fields y, int lo, int hi) noexcept {
    const double dt = l.dt;
    const double inv_2h = l.inv_2h;
    const int first = l.first();
    if (!l.fine() && lo == 0 && lo < hi) {  // r = 0: chi, Pi even, Phi odd
        const int j = 0 - x.base, k = 0 - u.base, o = 0 - y.base;
        const double dchi = x.pi[j];
        const double dpi = 3.0 * x.phi[j + 1] * l.inv_h + pow7(x.chi[j]);
        y.chi[o] = combine<S>(u.chi[k], x.chi[j], dchi, dt);
        y.phi[o] = combine<S>(u.phi[k], x.phi[j], 0.0, dt);
        y.pi[o] = combine<S>(u.pi[k], x.pi[j], dpi, dt);
        ++lo;
    }
    const bool outer = !l.fine() && hi == l.n && lo < hi;
    const int interior_hi = outer ? hi - 1 : hi;
    for (int i = lo; i < interior_hi; ++i) {
        const int j = i - x.base, k = i - u.base, o = i - y.base;
        const auto c = static_cast<std::size_t>(i - first);
        const double dchi = x.pi[j];
        const double dphi = (x.pi[j + 1] - x.pi[j - 1]) * inv_2h;
        const double dpi = l.evans_plus[c] * x.phi[j + 1] - l.evans_minus[c] * x.phi[j - 1] + pow7(x.chi[j]);
        y.chi[o] = combine<S>(u.chi[k], x.chi[j], dchi, dt);
        y.phi[o] = combine<S>(u.phi[k], x.phi[j], dphi, dt);
        y.pi[o] = combine<S>(u.pi[k], x.pi[j], dpi, dt);
    }
    if (outer) {  // outgoing wave, first-order upwind dPi/dr
        const int i = hi - 1;
        const int j = i - x.base, k = i - u.base, o = i - y.base;
        const double inv_r = l.inv_r[static_cast<std::size_t>(i - first)];
        const double dpi_dr = (x.pi[j] - x.pi[j - 1]) * l.inv_h;
        y.chi[o] = combine<S>(u.chi[k], x.chi[j], x.pi[j], dt);
        y.phi[o] = combine<S>(u.phi[k], x.phi[j], dpi_dr, dt);
        y.pi[o] = combine<S>(u.pi[k], x.pi[j], -dpi_dr - x.pi[j] * inv_r, dt);
    }
}

/// Scratch of one thread: the gathered old values and two stages.
struct scratch {
    std::vector<double> buf;
    double* get(std::size_t points) {
        if (buf.size() < 9 * points) buf.resize(9 * points);
        return buf.data();
    }
};
inline scratch& thread_scratch() {
    thread_local scratch s;
    return s;
}

/// Copies the fields of the points of `window` found in the blocks `in` to dst (indexed
/// by point - window.lo).
inline void gather(std::span<const block_data* const> in, range window, double* chi, double* phi, double* pi) {
    for (const block_data* b : in) {
        const range o = intersect({b->begin, b->end}, window);
        if (o.empty()) continue;
        const auto from = static_cast<std::size_t>(o.lo - b->begin);
        const auto to = static_cast<std::size_t>(o.lo - window.lo);
        const auto count = static_cast<std::size_t>(o.hi - o.lo);
        std::copy_n(b->chi() + from, count, chi + to);
        std::copy_n(b->phi() + from, count, phi + to);
        std::copy_n(b->pi() + from, count, pi + to);
    }
}

inline void fill_nan(block_data& d, range keep) {
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    for (int i = d.begin; i < d.end; ++i) {
        if (i >= keep.lo && i < keep.hi) continue;
        const auto k = static_cast<std::size_t>(i - d.begin);
        d.chi()[k] = nan;
        d.phi()[k] = nan;
        d.pi()[k] = nan;
    }
}

}  // namespace detail

/// Level l's step s on the points of `out` that the step computes (computed_at(s)),
/// from the values at step s-1 in the blocks `in`, which must cover the points within 3
/// of them (the block's domain of dependence) where those are valid. Returns the number
/// of points written.
inline int compute_block(const level& l, unsigned s, std::span<const block_data* const> in, block_data& out) {
    flush_denormals();
    const range target = intersect({out.begin, out.end}, l.computed_at(s));
    detail::fill_nan(out, target);
    if (target.empty()) return 0;
    const range valid = l.valid_after(s - 1);
    const range window = intersect({target.lo - step_reach, target.hi + step_reach}, valid);
    const auto m = static_cast<std::size_t>(window.hi - window.lo);
    double* const s0 = detail::thread_scratch().get(m);
    const detail::fields u{s0, s0 + m, s0 + 2 * m, window.lo};
    const detail::fields a{s0 + 3 * m, s0 + 4 * m, s0 + 5 * m, window.lo};
    const detail::fields b{s0 + 6 * m, s0 + 7 * m, s0 + 8 * m, window.lo};
    detail::gather(in, window, u.chi, u.phi, u.pi);
    const detail::cfields uc{u.chi, u.phi, u.pi, u.base};
    // A fine level's data ends where it is valid: each stage loses a point there. The
    // coarsest level's ends are the physical boundaries, which keep every point.
    const int shrink = l.fine() ? 1 : 0;
    auto stage_range = [&](int k) {
        return intersect({target.lo - (rk_stages - k), target.hi + (rk_stages - k)},
                         {valid.lo + k * shrink, valid.hi - k * shrink});
    };
    const range r1 = stage_range(1), r2 = stage_range(2);
    detail::stage<1>(l, uc, uc, a, r1.lo, r1.hi);
    detail::stage<2>(l, uc, {a.chi, a.phi, a.pi, a.base}, b, r2.lo, r2.hi);
    detail::stage<3>(l, uc, {b.chi, b.phi, b.pi, b.base}, {out.chi(), out.phi(), out.pi(), out.begin}, target.lo,
                     target.hi);
    return target.hi - target.lo;
}

/// Restriction: overwrites the points of the parent block `out` that lie under `child`
/// with the child's values at coincident points, found in the child blocks `in`.
inline void inject(const level& child, std::span<const block_data* const> in, block_data& out) {
    const int pa = child.parent_offset;
    for (const block_data* c : in) {
        const range proper = intersect({c->begin, c->end}, {0, child.n});
        for (int ci = proper.lo + (proper.lo & 1); ci < proper.hi; ci += 2) {
            const int j = pa + ci / 2;
            if (j < out.begin || j >= out.end) continue;
            const auto from = static_cast<std::size_t>(ci - c->begin);
            const auto to = static_cast<std::size_t>(j - out.begin);
            out.chi()[to] = c->chi()[from];
            out.phi()[to] = c->phi()[from];
            out.pi()[to] = c->pi()[from];
        }
    }
}

/// The parent points the interpolation into child points [c.lo, c.hi) reads.
inline range interpolation_source(const level& child, range c) noexcept {
    const int pa = child.parent_offset;
    auto floor_half = [](int v) { return v >= 0 ? v / 2 : -((1 - v) / 2); };
    return {pa + floor_half(c.lo) - 1, pa + floor_half(c.hi - 1) + 3};
}

/// Fills the child buffer block `out` by interpolation in space from its parent's values
/// in the blocks `in` (at the time both levels share).
inline void interpolate(const level& child, std::span<const block_data* const> in, block_data& out) {
    flush_denormals();
    const range src = interpolation_source(child, {out.begin, out.end});
    const auto m = static_cast<std::size_t>(src.hi - src.lo);
    double* const s0 = detail::thread_scratch().get(m);
    double* const p[3] = {s0, s0 + m, s0 + 2 * m};
    detail::gather(in, src, p[0], p[1], p[2]);
    double* const o[3] = {out.chi(), out.phi(), out.pi()};
    const int pa = child.parent_offset;
    for (int i = out.begin; i < out.end; ++i) {
        const auto k = static_cast<std::size_t>(i - out.begin);
        if (i % 2 == 0) {
            const auto j = static_cast<std::size_t>(pa + i / 2 - src.lo);
            for (int f = 0; f < 3; ++f) o[f][k] = p[f][j];
        } else {
            const auto j = static_cast<std::size_t>(pa + (i - 1) / 2 - src.lo);
            for (int f = 0; f < 3; ++f)
                o[f][k] = (9.0 * (p[f][j] + p[f][j + 1]) - (p[f][j - 1] + p[f][j + 2])) * 0.0625;
        }
    }
}

}  // namespace weft::bench::amr
