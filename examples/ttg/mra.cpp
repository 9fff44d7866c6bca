// Multiresolution analysis (seed 001 §6.3.3, Listing 11) as a template task graph:
// adaptive projection of 3-D Gaussians into an order-k multiwavelet basis, compression
// (the fast wavelet transform, up the tree), reconstruction (its inverse, down the tree)
// and the norm, streamed through one graph with no barrier between the steps. Beside
// it, the same numerics as four tree walks with a barrier after each (native MADNESS's
// shape, on weft::task_group), and serially; every result is checked.
//
// The basis: on box l of level n of the unit cube, the scaling functions (Alpert's) are
// the tensor products of phi_i(x) = sqrt(2i + 1) P_i(2x - 1), i < k, dilated and
// translated, so the coefficients of f on a box are k^3 numbers. The two-scale relation
// takes the 8 children's coefficients ((2k)^3 numbers) to the parent's (k^3, the sum
// part s) and the wavelet coefficients (the other 7k^3, the difference d) by an
// orthogonal (2k) x (2k) matrix W applied along each dimension. Its first k rows are the
// filter H (phi_i on [0, 1] in terms of phi_j on the two halves); the others are an
// orthonormal basis of the complement, which spans the multiwavelets of that order
// (Gram-Schmidt's basis of it, not Alpert's: norms, truncation and the transforms do not
// depend on the choice). W is computed here by Gauss-Legendre quadrature, exact for
// these degrees, and checked orthogonal. A box too coarse for its k^3 quadrature points
// to see a Gaussian is refined whatever its difference part says (gaussian::unresolved).
//
//   project(box):     the children's coefficients, by k-point quadrature; if their
//                     difference part is at most --thresh (and the level is at least
//                     --initial-level) the children are leaves and go up to
//                     compress(box), else project(child) for each child.
//   compress(box):    a stream of 2^3 children (set_input_reducer with count 8, as in
//                     Listing 11); s goes up to the parent's compress, d down to
//                     reconstruct(box). The root's s starts the reconstruction and sets
//                     the size of its function's norm stream (the number of leaves).
//   reconstruct(box): parent's s + own d -> the children's s; leaves go to norm.
//   norm(function):   the sum of the leaves' squares, against the norm from the
//                     compressed form (s of the root and every d: W is orthogonal) and
//                     the analytic norm, 1 (the Gaussians are normalized).
//
// Keys (function, level, translation) map to localities by their ancestor at
// --map-level, hashed: a subtree below that level stays on one locality.
//
//   weft_ttg_mra [--k=6] [--thresh=1e-6] [--exponent=300] [--functions=4]
//                [--initial-level=2] [--max-level=20] [--map-level=2] [--reps=1]
// Under mpirun, run it with --weft:spmd (every locality builds the graph).
#include <weft/distributed.hpp>
#include <weft/ttg.hpp>
#include <weft/weft.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <numbers>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

namespace {

namespace ttg = weft::ttg;

/// A box of function `fn`'s tree: level n, translation l in [0, 2^n)^3.
struct box {
    int fn = 0, n = 0;
    std::array<std::int64_t, 3> l{};
    friend bool operator==(const box&, const box&) = default;
    friend std::ostream& operator<<(std::ostream& os, const box& b) {
        return os << "(f" << b.fn << ", n=" << b.n << ", l=" << b.l[0] << ',' << b.l[1] << ',' << b.l[2] << ')';
    }
    box child(int c) const {
        return {fn, n + 1, {2 * l[0] + (c & 1), 2 * l[1] + ((c >> 1) & 1), 2 * l[2] + ((c >> 2) & 1)}};
    }
    box parent() const { return {fn, n - 1, {l[0] >> 1, l[1] >> 1, l[2] >> 1}}; }
    /// Which child of its parent this box is (child(c) of parent() is *this).
    int child_index() const { return static_cast<int>((l[0] & 1) | ((l[1] & 1) << 1) | ((l[2] & 1) << 2)); }
    /// The ancestor at level m (itself if n <= m).
    box ancestor(int m) const {
        if (n <= m) return *this;
        const int up = n - m;
        return {fn, m, {l[0] >> up, l[1] >> up, l[2] >> up}};
    }
};

}  // namespace

template <>
struct std::hash<box> {
    std::size_t operator()(const box& b) const noexcept {
        std::uint64_t h = static_cast<std::uint64_t>(b.fn) * std::uint64_t{0x9e3779b97f4a7c15} + static_cast<std::uint64_t>(b.n);
        for (auto x : b.l) h = (h ^ static_cast<std::uint64_t>(x)) * std::uint64_t{0x100000001b3};
        return static_cast<std::size_t>(h ^ (h >> 31));
    }
};

namespace {

using coeffs = std::vector<double>;

struct params {
    int k = 6;
    double thresh = 1e-6;
    double exponent = 300;
    int functions = 4;
    int initial_level = 2;
    int max_level = 20;
    int map_level = 2;
    int reps = 1;
    double half_width = 6;  // the domain is [-L, L]^3
};

/// f(x) = a exp(-alpha |x - c|^2), with a making its L2 norm over R^3 one.
struct gaussian {
    double alpha, a;
    std::array<double, 3> c;
    double operator()(double x, double y, double z) const {
        const double r2 = (x - c[0]) * (x - c[0]) + (y - c[1]) * (y - c[1]) + (z - c[2]) * (z - c[2]);
        return a * std::exp(-alpha * r2);
    }
    /// Whether the box [lo, lo + width]^3 is too coarse to see this Gaussian: wider than
    /// its width 1/sqrt(alpha), with the function's largest value on it, times the
    /// square root of its volume (a bound of its part of the norm), above `thresh`.
    /// Quadrature points on such a box can all miss the peak, and the projection would
    /// take it for converged (MADNESS refines around "special points" for that reason).
    bool unresolved(const std::array<double, 3>& lo, double width, double thresh) const {
        if (width * width * alpha <= 1) return false;
        double d2 = 0;  // the squared distance from the center to the box
        for (std::size_t d = 0; d < 3; ++d) {
            const double out = std::max({lo[d] - c[d], c[d] - (lo[d] + width), 0.0});
            d2 += out * out;
        }
        return a * std::exp(-alpha * d2) * std::pow(width, 1.5) > thresh;
    }
};

/// Gaussians with centers drawn (xorshift, fixed seed) from the middle of the domain.
std::vector<gaussian> make_functions(const params& p) {
    std::vector<gaussian> fs;
    std::uint64_t x = 88172645463325252ULL;
    auto uniform = [&x]() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return static_cast<double>(x >> 11) * 0x1.0p-53;
    };
    const double a = std::pow(2 * p.exponent / std::numbers::pi, 0.75);
    for (int i = 0; i < p.functions; ++i) {
        gaussian g{p.exponent, a, {}};
        for (double& ci : g.c) ci = (uniform() - 0.5) * p.half_width;  // in [-L/2, L/2]
        fs.push_back(g);
    }
    return fs;
}

/// The order-k basis: quadrature, the projection matrix and the two-scale matrix W.
class basis {
public:
    explicit basis(int k) : k_(k), n2_(2 * k) {
        // Gauss-Legendre on [-1, 1] by Newton's method on P_k, mapped to [0, 1].
        std::vector<double> x(static_cast<std::size_t>(k)), w(x.size());
        for (int i = 0; i < k; ++i) {
            double t = std::cos(std::numbers::pi * (i + 0.75) / (k + 0.5)), dp = 1;
            for (int it = 0; it < 100; ++it) {
                double p0 = 1, p1 = t;
                for (int j = 2; j <= k; ++j) {
                    const double p2 = ((2 * j - 1) * t * p1 - (j - 1) * p0) / j;
                    p0 = p1;
                    p1 = p2;
                }
                dp = k * (t * p1 - p0) / (t * t - 1);  // P_k' from P_k = p1, P_(k-1) = p0
                const double step = p1 / dp;
                t -= step;
                if (std::abs(step) < 1e-16) break;
            }
            x[at(i)] = (t + 1) / 2;
            w[at(i)] = 1 / ((1 - t * t) * dp * dp);  // 2 / ((1 - t^2) P_k'^2), halved
        }
        // proj_[i][q] = w_q phi_i(x_q): point values -> coefficients.
        proj_.resize(at(k * k));
        for (int i = 0; i < k; ++i)
            for (int q = 0; q < k; ++q) proj_[at(i * k + q)] = w[at(q)] * phi(i, x[at(q)]);
        // W's first k rows: H[i][c*k + j] = 2^-1/2 int_0^1 phi_i((y + c)/2) phi_j(y) dy.
        w_.assign(at(n2_ * n2_), 0.0);
        for (int i = 0; i < k; ++i)
            for (int c = 0; c < 2; ++c)
                for (int j = 0; j < k; ++j) {
                    double s = 0;
                    for (int q = 0; q < k; ++q)
                        s += w[at(q)] * phi(i, (x[at(q)] + c) / 2) * phi(j, x[at(q)]);
                    w_[at(i * n2_ + c * k + j)] = s / std::numbers::sqrt2;
                }
        // The other rows: Gram-Schmidt (twice, for accuracy) on the unit vectors.
        int row = k;
        for (int e = 0; e < n2_ && row < n2_; ++e) {
            std::vector<double> v(at(n2_), 0.0);
            v[at(e)] = 1;
            for (int pass = 0; pass < 2; ++pass)
                for (int r = 0; r < row; ++r) {
                    double d = 0;
                    for (int j = 0; j < n2_; ++j) d += v[at(j)] * w_[at(r * n2_ + j)];
                    for (int j = 0; j < n2_; ++j) v[at(j)] -= d * w_[at(r * n2_ + j)];
                }
            double norm = 0;
            for (double vi : v) norm += vi * vi;
            if (norm < 1e-6) continue;  // e is (nearly) in the span already
            for (int j = 0; j < n2_; ++j) w_[at(row * n2_ + j)] = v[at(j)] / std::sqrt(norm);
            ++row;
        }
        // W must be orthogonal: H's rows are orthonormal if the quadrature is right.
        double worst = 0;
        for (int r = 0; r < n2_; ++r)
            for (int s = 0; s < n2_; ++s) {
                double d = 0;
                for (int j = 0; j < n2_; ++j) d += w_[at(r * n2_ + j)] * w_[at(s * n2_ + j)];
                worst = std::max(worst, std::abs(d - (r == s ? 1.0 : 0.0)));
            }
        if (row != n2_ || worst > 1e-12)
            throw weft::error("mra: the two-scale matrix of order " + std::to_string(k) + " is not orthogonal (" +
                              std::to_string(worst) + ")");
        wt_.resize(w_.size());
        for (int r = 0; r < n2_; ++r)
            for (int j = 0; j < n2_; ++j) wt_[at(j * n2_ + r)] = w_[at(r * n2_ + j)];
        x_ = std::move(x);
    }

    int k() const noexcept { return k_; }
    std::size_t size() const noexcept { return at(k_ * k_ * k_); }             // k^3
    std::size_t block_size() const noexcept { return at(n2_ * n2_ * n2_); }    // (2k)^3

    /// The coefficients of f on box b of the unit cube mapped to [-L, L]^3.
    template <class F>
    coeffs project(const F& f, const box& b, double half_width) const {
        const double scale = std::ldexp(1.0, -b.n), len = 2 * half_width;
        std::array<std::vector<double>, 3> pts;
        for (int d = 0; d < 3; ++d)
            for (double xq : x_) pts[at(d)].push_back(-half_width + len * (static_cast<double>(b.l[at(d)]) + xq) * scale);
        coeffs v(size());
        std::size_t i = 0;
        for (double px : pts[0])
            for (double py : pts[1])
                for (double pz : pts[2]) v[i++] = f(px, py, pz);
        coeffs s = transform(v, proj_, k_);
        const double norm = std::pow(scale, 1.5);  // 2^(-3n/2)
        for (double& si : s) si *= norm;
        return s;
    }

    /// The two-scale transform of 8 children's coefficients (child c's at c * k^3):
    /// (2k)^3 numbers whose [0, k)^3 corner is the parent's s, the rest its d.
    coeffs forward(const coeffs& kids) const { return transform(interleave(kids), w_, n2_); }
    /// Its inverse: the 8 children's coefficients from s (in the corner) and d.
    coeffs backward(const coeffs& t) const { return deinterleave(transform(t, wt_, n2_)); }

    /// The corner [0, k)^3 of a (2k)^3 block, and the sum of squares outside it.
    coeffs corner(const coeffs& t) const {
        coeffs s(size());
        for (int i = 0; i < k_; ++i)
            for (int j = 0; j < k_; ++j)
                for (int m = 0; m < k_; ++m) s[at((i * k_ + j) * k_ + m)] = t[at((i * n2_ + j) * n2_ + m)];
        return s;
    }
    void set_corner(coeffs& t, const coeffs& s) const {
        for (int i = 0; i < k_; ++i)
            for (int j = 0; j < k_; ++j)
                for (int m = 0; m < k_; ++m) t[at((i * n2_ + j) * n2_ + m)] = s[at((i * k_ + j) * k_ + m)];
    }
    double outside_corner_sumsq(const coeffs& t) const {
        double out = 0;
        for (int i = 0; i < n2_; ++i)
            for (int j = 0; j < n2_; ++j)
                for (int m = 0; m < n2_; ++m)
                    if (i >= k_ || j >= k_ || m >= k_) out += t[at((i * n2_ + j) * n2_ + m)] * t[at((i * n2_ + j) * n2_ + m)];
        return out;
    }

private:
    static std::size_t at(int i) noexcept { return static_cast<std::size_t>(i); }
    static std::size_t at(std::int64_t i) noexcept { return static_cast<std::size_t>(i); }

    /// phi_i(x) = sqrt(2i + 1) P_i(2x - 1).
    static double phi(int i, double x) {
        if (i == 0) return 1;
        const double t = 2 * x - 1;
        double p0 = 1, p1 = t;
        for (int j = 2; j <= i; ++j) {
            const double p2 = ((2 * j - 1) * t * p1 - (j - 1) * p0) / j;
            p0 = p1;
            p1 = p2;
        }
        return std::sqrt(2.0 * i + 1) * p1;
    }

    /// out = (M x M x M) in for an n^3 array and an n x n matrix M (row-major): three
    /// passes, each contracting the first index and rotating it to the last.
    static coeffs transform(const coeffs& in, const std::vector<double>& m, int n) {
        const std::size_t nn = at(n), rest = nn * nn;
        coeffs a = in, b(in.size());
        for (int pass = 0; pass < 3; ++pass) {
            std::fill(b.begin(), b.end(), 0.0);
            for (std::size_t i = 0; i < nn; ++i)        // b[r][j] += a[i][r] * m[j][i]
                for (std::size_t r = 0; r < rest; ++r) {
                    const double x = a[i * rest + r];
                    double* out = &b[r * nn];
                    for (std::size_t j = 0; j < nn; ++j) out[j] += x * m[j * nn + i];
                }
            std::swap(a, b);
        }
        return a;
    }

    /// Child c = (cx | cy << 1 | cz << 2) of a (2k)^3 block is its sub-cube at offset
    /// (cx k, cy k, cz k).
    coeffs interleave(const coeffs& kids) const {
        coeffs t(block_size());
        for (int c = 0; c < 8; ++c)
            for (int i = 0; i < k_; ++i)
                for (int j = 0; j < k_; ++j)
                    for (int m = 0; m < k_; ++m)
                        t[block_index(c, i, j, m)] = kids[at(c) * size() + at((i * k_ + j) * k_ + m)];
        return t;
    }
    coeffs deinterleave(const coeffs& t) const {
        coeffs kids(8 * size());
        for (int c = 0; c < 8; ++c)
            for (int i = 0; i < k_; ++i)
                for (int j = 0; j < k_; ++j)
                    for (int m = 0; m < k_; ++m)
                        kids[at(c) * size() + at((i * k_ + j) * k_ + m)] = t[block_index(c, i, j, m)];
        return kids;
    }
    std::size_t block_index(int c, int i, int j, int m) const {
        return at((((c & 1) * k_ + i) * n2_ + ((c >> 1) & 1) * k_ + j) * n2_ + ((c >> 2) & 1) * k_ + m);
    }

    int k_, n2_;
    std::vector<double> x_, proj_, w_, wt_;
};

double sumsq(const double* v, std::size_t n) {
    double s = 0;
    for (std::size_t i = 0; i < n; ++i) s += v[i] * v[i];
    return s;
}

/// One function's figures: its norm after reconstruction and in compressed form, and
/// the shape of its tree.
struct result {
    double norm = 0, compressed_norm = 0;
    std::uint64_t leaves = 0, interior = 0;
    int depth = 0, forced = 0;  // deepest level; leaves forced at --max-level
};

/// What project() decides for `b`: the children's coefficients (child c's at c k^3) and
/// whether they are leaves.
struct refinement {
    coeffs kids;
    bool leaves;
    bool forced;
};

refinement refine(const basis& B, const params& p, const gaussian& f, const box& b) {
    coeffs kids(8 * B.size());
    for (int c = 0; c < 8; ++c) {
        const coeffs s = B.project(f, b.child(c), p.half_width);
        std::copy(s.begin(), s.end(), kids.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(c) * B.size()));
    }
    const double width = 2 * p.half_width * std::ldexp(1.0, -b.n);
    std::array<double, 3> lo{};
    for (std::size_t d = 0; d < 3; ++d) lo[d] = -p.half_width + width * static_cast<double>(b.l[d]);
    const bool deep_enough = b.n >= p.initial_level && !f.unresolved(lo, width, p.thresh);
    // The difference part in the domain's norm (the unit cube's coefficients scaled by
    // sqrt(volume)), so that --thresh is an absolute precision for functions of norm 1.
    const double volume = std::pow(2 * p.half_width, 3);
    const bool fine = std::sqrt(volume * B.outside_corner_sumsq(B.forward(kids))) <= p.thresh;
    const bool converged = deep_enough && fine, last = b.n + 1 >= p.max_level;
    return {std::move(kids), converged || last, last && !converged};
}

// ------------------------------------------------------------------------------------
// The template task graph.

/// The children that have reached compress(box) so far (the stream's value, folded by
/// the reducer): each child's s, whether it is a leaf, and its subtree's figures.
struct children {
    std::uint8_t have = 0, leaf = 0;
    std::uint64_t leaves = 0, interior = 0;
    int depth = 0, forced = 0;
    double dsq = 0;  // sum of the squares of every d below these children
    std::array<coeffs, 8> s;
    template <class Archive>
    void serialize(Archive& ar) {
        ar(have, leaf, leaves, interior, depth, forced, dsq, s);
    }
};

/// A box's difference coefficients (the (2k)^3 block, its corner not used) and which of
/// its children are leaves.
struct details {
    std::uint8_t leaf = 0;
    coeffs t;
    template <class Archive>
    void serialize(Archive& ar) {
        ar(leaf, t);
    }
};

/// What the root's compress knows of its function's tree.
struct summary {
    double norm2 = 0;  // s of the root and all d's, squared
    std::uint64_t leaves = 0, interior = 0;
    int depth = 0, forced = 0;
};

std::vector<result> ttg_mra(const basis& B, const params& p, const std::vector<gaussian>& fs, double& seconds) {
    const std::uint32_t nl = weft::get_num_localities();
    ttg::Edge<box, void> refine_e{"refine"};
    ttg::Edge<box, children> up{"up"};
    ttg::Edge<box, coeffs> down_s{"down-s"};
    ttg::Edge<box, details> down_d{"down-d"};
    ttg::Edge<int, double> leaf_norms{"leaf-norms"};
    ttg::Edge<int, summary> root_e{"root"};
    std::vector<result> results(fs.size());
    const std::size_t ks = B.size();

    auto start = ttg::make_tt<int>([](const int& fn, std::tuple<ttg::Out<box, void>>& out) { ttg::sendk<0>(box{fn, 0, {}}, out); },
                                   ttg::edges(), ttg::edges(refine_e), "start", {}, {"root"});
    auto project = ttg::make_tt(
        [&B, &p, &fs, ks](const box& b, std::tuple<ttg::Out<box, void>, ttg::Out<box, children>>& out) {
            refinement r = refine(B, p, fs[static_cast<std::size_t>(b.fn)], b);
            if (!r.leaves) {
                for (int c = 0; c < 8; ++c) ttg::sendk<0>(b.child(c), out);
                return;
            }
            for (int c = 0; c < 8; ++c) {  // eight leaves: the stream of compress(b)
                children one;
                one.have = one.leaf = static_cast<std::uint8_t>(1u << c);
                one.leaves = 1;
                one.depth = b.n + 1;
                one.forced = r.forced ? 1 : 0;
                const auto first = r.kids.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(c) * ks);
                one.s[static_cast<std::size_t>(c)].assign(first, first + static_cast<std::ptrdiff_t>(ks));
                ttg::send<1>(b, std::move(one), out);
            }
        },
        ttg::edges(refine_e), ttg::edges(refine_e, up), "project", {"refine"}, {"refine", "children"});
    using compress_outs = std::tuple<ttg::Out<box, children>, ttg::Out<box, coeffs>, ttg::Out<box, details>,
                                     ttg::Out<int, double>, ttg::Out<int, summary>>;
    auto compress = ttg::make_tt(
        [&B, ks](const box& b, children&& in, compress_outs& out) {
            coeffs kids(8 * ks);
            for (std::size_t c = 0; c < 8; ++c) std::copy(in.s[c].begin(), in.s[c].end(), kids.begin() + static_cast<std::ptrdiff_t>(c * ks));
            details d{in.leaf, B.forward(kids)};
            coeffs s = B.corner(d.t);
            const double dsq = in.dsq + B.outside_corner_sumsq(d.t);
            const std::uint64_t interior = in.interior + 1;
            ttg::send<2>(b, std::move(d), out);
            if (b.n == 0) {  // the root: start the reconstruction, size the norm stream
                ttg::send<4>(b.fn, summary{sumsq(s.data(), s.size()) + dsq, in.leaves, interior, in.depth, in.forced}, out);
                ttg::set_size<3>(b.fn, static_cast<std::size_t>(in.leaves), out);
                ttg::send<1>(b, std::move(s), out);
                return;
            }
            children mine;
            const int c = b.child_index();
            mine.have = static_cast<std::uint8_t>(1u << c);
            mine.leaves = in.leaves;
            mine.interior = interior;
            mine.depth = in.depth;
            mine.forced = in.forced;
            mine.dsq = dsq;
            mine.s[static_cast<std::size_t>(c)] = std::move(s);
            ttg::send<0>(b.parent(), std::move(mine), out);
        },
        ttg::edges(up), ttg::edges(up, down_s, down_d, leaf_norms, root_e), "compress", {"children"},
        {"parent", "s", "d", "leaf-norms size", "root"});
    // Listing 11: the 2^3 children of a box arrive as one stream, folded as they come.
    compress->template set_input_reducer<0>(
        [](children& acc, children&& one) {
            if ((acc.have & one.have) != 0) throw weft::error("mra: a child reached compress twice");
            for (std::size_t c = 0; c < 8; ++c)
                if ((one.have >> c) & 1u) acc.s[c] = std::move(one.s[c]);
            acc.have = static_cast<std::uint8_t>(acc.have | one.have);
            acc.leaf = static_cast<std::uint8_t>(acc.leaf | one.leaf);
            acc.leaves += one.leaves;
            acc.interior += one.interior;
            acc.depth = std::max(acc.depth, one.depth);
            acc.forced += one.forced;
            acc.dsq += one.dsq;
        },
        8);
    auto reconstruct = ttg::make_tt(
        [&B, ks](const box& b, coeffs&& s, details&& d, std::tuple<ttg::Out<box, coeffs>, ttg::Out<int, double>>& out) {
            B.set_corner(d.t, s);
            const coeffs kids = B.backward(d.t);
            for (int c = 0; c < 8; ++c) {
                const auto first = kids.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(c) * ks);
                if ((d.leaf >> c) & 1u) ttg::send<1>(b.fn, sumsq(&*first, ks), out);
                else ttg::send<0>(b.child(c), coeffs(first, first + static_cast<std::ptrdiff_t>(ks)), out);
            }
        },
        ttg::edges(down_s, down_d), ttg::edges(down_s, leaf_norms), "reconstruct", {"s", "d"}, {"children's s", "leaf norms"});
    auto norm = ttg::make_tt(
        [&results, &p](const int& fn, double&& leaf_sumsq, summary&& sm, std::tuple<>&) {
            const double volume = std::pow(2 * p.half_width, 3);  // the unit cube's coefficients -> [-L, L]^3
            results[static_cast<std::size_t>(fn)] = {std::sqrt(volume * leaf_sumsq), std::sqrt(volume * sm.norm2),
                                                     sm.leaves, sm.interior, sm.depth, sm.forced};
        },
        ttg::edges(leaf_norms, root_e), ttg::edges(), "norm", {"leaf norms", "root"});
    norm->template set_input_reducer<0>([](double& acc, double&& v) { acc += v; });  // sized by compress(root)

    // The tree below --map-level stays where its ancestor there is; the norms go to 0.
    auto by_subtree = [nl, m = p.map_level](const box& b) {
        return static_cast<std::uint32_t>(std::hash<box>{}(b.ancestor(m)) % nl);
    };
    project->set_keymap(by_subtree);
    compress->set_keymap(by_subtree);
    reconstruct->set_keymap(by_subtree);
    norm->set_keymap([](const int&) { return 0u; });
    start->set_keymap([nl](const int& fn) { return static_cast<std::uint32_t>(fn) % nl; });

    ttg::make_graph_executable(start);
    ttg::execute();
    const auto t0 = std::chrono::steady_clock::now();
    if (weft::get_locality_id() == 0)
        for (int fn = 0; fn < static_cast<int>(fs.size()); ++fn) start->invoke(fn);
    ttg::fence();
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return results;
}

// ------------------------------------------------------------------------------------
// The same numerics as tree walks, a barrier after each step (native MADNESS's shape):
// in parallel on task_group, or serially.

struct node {
    box key;
    coeffs s;               // a leaf's coefficients; an interior box's s while compressing
    coeffs t;               // an interior box's (2k)^3 block after compress (its d)
    std::array<std::unique_ptr<node>, 8> kids;  // none: a leaf
    bool leaf() const noexcept { return !kids[0]; }
};

class tree_walks {
public:
    tree_walks(const basis& B, const params& p, const gaussian& f, bool parallel)
        : B_(B), p_(p), f_(f), parallel_(parallel) {}

    template <class F>
    void each_child(node& nd, F f) const {
        if (!parallel_) {
            for (auto& kid : nd.kids) f(*kid);
            return;
        }
        weft::task_group g;
        for (auto& kid : nd.kids) g.run([&f, &kid] { f(*kid); });
        g.wait();
    }

    void project(node& nd) {
        refinement ref = refine(B_, p_, f_, nd.key);
        for (int c = 0; c < 8; ++c) nd.kids[static_cast<std::size_t>(c)] = std::make_unique<node>(node{nd.key.child(c), {}, {}, {}});
        if (ref.leaves) {
            for (std::size_t c = 0; c < 8; ++c)
                nd.kids[c]->s.assign(ref.kids.begin() + static_cast<std::ptrdiff_t>(c * B_.size()),
                                     ref.kids.begin() + static_cast<std::ptrdiff_t>((c + 1) * B_.size()));
            if (ref.forced) forced_ += 8;
            return;
        }
        each_child(nd, [this](node& kid) { project(kid); });
    }

    /// Returns the sum of the squares of the d's at and below `nd`.
    double compress(node& nd) {
        std::array<double, 8> below{};
        each_child(nd, [this, &below](node& kid) {
            if (!kid.leaf()) below[static_cast<std::size_t>(kid.key.child_index())] = compress(kid);
        });
        coeffs kids(8 * B_.size());
        for (std::size_t c = 0; c < 8; ++c) {
            std::copy(nd.kids[c]->s.begin(), nd.kids[c]->s.end(), kids.begin() + static_cast<std::ptrdiff_t>(c * B_.size()));
            if (!nd.kids[c]->leaf()) coeffs{}.swap(nd.kids[c]->s);  // an interior box keeps only d
        }
        nd.t = B_.forward(kids);
        nd.s = B_.corner(nd.t);
        double dsq = B_.outside_corner_sumsq(nd.t);
        for (double x : below) dsq += x;
        return dsq;
    }

    void reconstruct(node& nd, const coeffs& s) {
        B_.set_corner(nd.t, s);
        const coeffs kids = B_.backward(nd.t);
        coeffs{}.swap(nd.t);
        each_child(nd, [this, &kids](node& kid) {
            const auto first = kids.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(kid.key.child_index()) * B_.size());
            coeffs cs(first, first + static_cast<std::ptrdiff_t>(B_.size()));
            if (kid.leaf()) kid.s = std::move(cs);
            else reconstruct(kid, cs);
        });
    }

    void shape(const node& nd, result& r) const {
        if (nd.leaf()) {
            ++r.leaves;
            r.depth = std::max(r.depth, nd.key.n);
            r.norm += sumsq(nd.s.data(), nd.s.size());
            return;
        }
        ++r.interior;
        for (const auto& kid : nd.kids) shape(*kid, r);
    }

    std::atomic<int> forced_{0};

private:
    const basis& B_;
    const params& p_;
    const gaussian& f_;
    bool parallel_;
};

/// Projection, compression, reconstruction and norm of every function: each step over
/// all the trees, then a barrier.
std::vector<result> walk_mra(const basis& B, const params& p, const std::vector<gaussian>& fs, bool parallel, double& seconds) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t nf = fs.size();
    std::vector<std::unique_ptr<tree_walks>> walks;
    std::vector<node> roots(nf);
    std::vector<result> results(nf);
    std::vector<double> norm2(nf);
    for (std::size_t i = 0; i < nf; ++i) {
        walks.push_back(std::make_unique<tree_walks>(B, p, fs[i], parallel));
        roots[i].key = box{static_cast<int>(i), 0, {}};
    }
    auto each_function = [parallel, nf](auto f) {
        if (!parallel) {
            for (std::size_t i = 0; i < nf; ++i) f(i);
            return;
        }
        weft::task_group g;
        for (std::size_t i = 0; i < nf; ++i) g.run([&f, i] { f(i); });
        g.wait();
    };
    each_function([&](std::size_t i) { walks[i]->project(roots[i]); });
    each_function([&](std::size_t i) {
        const double dsq = walks[i]->compress(roots[i]);
        norm2[i] = sumsq(roots[i].s.data(), roots[i].s.size()) + dsq;
    });
    each_function([&](std::size_t i) {
        const coeffs s = std::move(roots[i].s);
        walks[i]->reconstruct(roots[i], s);
    });
    each_function([&](std::size_t i) {
        result& r = results[i];
        walks[i]->shape(roots[i], r);
        const double volume = std::pow(2 * p.half_width, 3);
        r.norm = std::sqrt(volume * r.norm);
        r.compressed_norm = std::sqrt(volume * norm2[i]);
        r.forced = walks[i]->forced_.load();
    });
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return results;
}

/// Reads the options into `p`; returns "" or what is wrong.
std::string parse(int ac, char** av, params& p) {
    for (int i = 1; i < ac; ++i) {
        const std::string a = av[i];
        const std::size_t eq = a.find('=');
        const std::string name = a.substr(0, eq), v = eq == std::string::npos ? "" : a.substr(eq + 1);
        char* end = nullptr;
        const double x = std::strtod(v.c_str(), &end);
        if (v.empty() || *end != '\0') return "'" + a + "' is not --name=number";
        const int n = static_cast<int>(x);
        if (name == "--k") p.k = n;
        else if (name == "--thresh") p.thresh = x;
        else if (name == "--exponent") p.exponent = x;
        else if (name == "--functions") p.functions = n;
        else if (name == "--initial-level") p.initial_level = n;
        else if (name == "--max-level") p.max_level = n;
        else if (name == "--map-level") p.map_level = n;
        else if (name == "--reps") p.reps = n;
        else return "unknown option '" + a + "'";
    }
    const bool ok = p.k >= 1 && p.k <= 30 && p.thresh > 0 && p.exponent > 0 && p.functions >= 1 &&
                    p.initial_level >= 0 && p.max_level > p.initial_level && p.max_level <= 30 && p.map_level >= 0 &&
                    p.reps >= 1;
    return ok ? "" : "a value out of range";
}

}  // namespace

int main(int argc, char** argv) {
    return weft::run(argc, argv, [](int ac, char** av) -> int {
        params p;
        if (const std::string bad = parse(ac, av, p); !bad.empty()) {
            std::fprintf(stderr,
                         "weft_ttg_mra: %s\n"
                         "usage: weft_ttg_mra [--k=1..30] [--thresh=T>0] [--exponent=A>0] [--functions=N>=1]\n"
                         "                    [--initial-level=I>=0] [--max-level=M in (I, 30]] [--map-level=L>=0] [--reps=R>=1]\n",
                         bad.c_str());
            return 2;
        }
        const basis B(p.k);
        const std::vector<gaussian> fs = make_functions(p);
        const bool root = weft::get_locality_id() == 0, one = weft::get_num_localities() == 1;
        double best_ttg = 1e300, best_walk = 1e300, best_serial = 1e300;
        std::vector<result> ttg_r, walk_r, serial_r;
        for (int r = 0; r < p.reps; ++r) {
            double s = 0;
            ttg_r = ttg_mra(B, p, fs, s);
            best_ttg = std::min(best_ttg, s);
            if (one) {  // the tree walks hold a whole tree in one process
                walk_r = walk_mra(B, p, fs, true, s);
                best_walk = std::min(best_walk, s);
                serial_r = walk_mra(B, p, fs, false, s);
                best_serial = std::min(best_serial, s);
            }
        }
        if (!root) return 0;
        // Checks: the two norms of each tree agree (W is orthogonal, the transforms
        // exact to rounding); the tree walks built the same trees and found the same
        // norms; and the norm is the analytic one, 1. The representation's error e is
        // about thresh per interior box, in quadrature; the norm, of a projection, errs
        // by |e|^2 / 2 (tolerance: 10 times that). Not when leaves were forced at
        // --max-level: then the precision asked for was not reached.
        int wrong = 0;
        double worst = 0;
        std::uint64_t leaves = 0, interior = 0;
        int depth = 0, forced = 0;
        for (std::size_t i = 0; i < ttg_r.size(); ++i) {
            const result& t = ttg_r[i];
            const double tol = 10 * p.thresh * p.thresh * static_cast<double>(t.interior) + 1e-12;
            worst = std::max(worst, std::abs(t.norm - 1));
            if (!(std::abs(t.norm - t.compressed_norm) <= 1e-12 * std::max(1.0, t.norm)) ||
                (t.forced == 0 && !(std::abs(t.norm - 1) <= tol))) {
                std::printf("function %zu: norm %.15g, compressed %.15g, |norm - 1| %.3g > %.3g?\n", i, t.norm,
                            t.compressed_norm, std::abs(t.norm - 1), tol);
                ++wrong;
            }
            for (const auto* other : {&walk_r, &serial_r}) {
                if (other->empty()) continue;
                const result& w = (*other)[i];
                if (w.leaves != t.leaves || w.interior != t.interior || w.depth != t.depth ||
                    !(std::abs(w.norm - t.norm) <= 1e-12) || !(std::abs(w.compressed_norm - t.compressed_norm) <= 1e-12)) {
                    std::printf("function %zu: ttg and the tree walks differ (leaves %llu / %llu, norm %.15g / %.15g)\n", i,
                                static_cast<unsigned long long>(t.leaves), static_cast<unsigned long long>(w.leaves), t.norm,
                                w.norm);
                    ++wrong;
                }
            }
            leaves += t.leaves;
            interior += t.interior;
            depth = std::max(depth, t.depth);
            forced += t.forced;
        }
        std::printf("mra k=%d thresh=%g exponent=%g functions=%d localities=%u workers=%u: ttg %.4f s", p.k, p.thresh,
                    p.exponent, p.functions, weft::get_num_localities(), weft::num_workers(), best_ttg);
        if (one)
            std::printf(", tree walks (barrier per step) %.4f s, serial %.4f s; ttg speed / tree walks %.2fx, / serial %.2fx",
                        best_walk, best_serial, best_walk / best_ttg, best_serial / best_ttg);
        std::printf("; %llu leaves, %llu interior boxes, depth %d; max |norm - 1| %.2e, %s%s\n",
                    static_cast<unsigned long long>(leaves), static_cast<unsigned long long>(interior), depth, worst,
                    wrong == 0 ? "checked: norms agree" : "WRONG",
                    forced == 0 ? "" : " (not with the analytic norm: leaves forced at --max-level)");
        return wrong == 0 ? 0 : 1;
    });
}
