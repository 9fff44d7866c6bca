// Search strategies for tunables (the adapt layer's first part; issue #6). A search
// proposes points, the program measures each (one trial: a run, an iteration, a call)
// and reports the objective; lower is better. Seed 000 ch.7 tuned the stencil's
// partition size this way with Active Harmony's Nelder-Mead simplex and needed 29-89
// trials; golden-section and the U-shape bracket below use what seed 000 ch.5 measured
// (time against grain size is U-shaped) to need far fewer.
#pragma once

#include <weft/config/errors.hpp>

#include <algorithm>
#include <cmath>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace weft::adapt {

/// The values one tunable may take: a range of integers with a step, an ordered set of
/// values (the divisors of a grid size, say), or a continuous interval.
///
/// Strategies search *coordinates*: the index of a value for the discrete kinds (so an
/// ordered set of uneven values is searched evenly), the value itself for a continuous
/// interval. value_at() maps a coordinate to the nearest allowed value, so no strategy
/// can propose a value outside the domain.
class domain {
public:
    enum class kind { integers, ordered, continuous };

    /// lo, lo + step, ... up to hi. @throws weft::error if lo > hi or step <= 0.
    static domain integers(std::int64_t lo, std::int64_t hi, std::int64_t step = 1) {
        if (lo > hi || step <= 0)
            throw weft::error("weft::adapt::domain::integers: need lo <= hi and step > 0 (got lo " + std::to_string(lo) +
                              ", hi " + std::to_string(hi) + ", step " + std::to_string(step) + ")");
        domain d;
        d.kind_ = kind::integers;
        d.lo_ = static_cast<double>(lo);
        d.step_ = static_cast<double>(step);
        d.size_ = static_cast<std::size_t>((hi - lo) / step) + 1;
        return d;
    }
    /// The given values, sorted, duplicates removed. @throws weft::error if empty or if
    /// a value is not finite.
    static domain ordered(std::vector<double> values) {
        if (values.empty()) throw weft::error("weft::adapt::domain::ordered: no values");
        for (double v : values)
            if (!std::isfinite(v)) throw weft::error("weft::adapt::domain::ordered: a value is not finite");
        std::sort(values.begin(), values.end());
        values.erase(std::unique(values.begin(), values.end()), values.end());
        domain d;
        d.kind_ = kind::ordered;
        d.size_ = values.size();
        d.values_ = std::move(values);
        return d;
    }
    /// [lo, hi]. @throws weft::error unless lo <= hi, both finite.
    static domain continuous(double lo, double hi) {
        if (!std::isfinite(lo) || !std::isfinite(hi) || lo > hi)
            throw weft::error("weft::adapt::domain::continuous: need finite lo <= hi");
        domain d;
        d.kind_ = kind::continuous;
        d.lo_ = lo;
        d.hi_ = hi;
        return d;
    }

    kind type() const noexcept { return kind_; }
    bool discrete() const noexcept { return kind_ != kind::continuous; }
    /// The number of values of a discrete domain; 0 for a continuous one.
    std::size_t size() const noexcept { return size_; }
    /// The i-th value (i < size()) of a discrete domain.
    double at(std::size_t i) const {
        if (!discrete() || i >= size_) throw weft::error("weft::adapt::domain::at: no value " + std::to_string(i));
        return kind_ == kind::ordered ? values_[i] : lo_ + static_cast<double>(i) * step_;
    }
    double coord_lo() const noexcept { return discrete() ? 0.0 : lo_; }
    double coord_hi() const noexcept { return discrete() ? static_cast<double>(size_ - 1) : hi_; }
    /// The allowed coordinate nearest to c (a NaN goes to the middle).
    double snap(double c) const noexcept {
        if (std::isnan(c)) c = (coord_lo() + coord_hi()) / 2;
        c = std::clamp(c, coord_lo(), coord_hi());
        return discrete() ? std::round(c) : c;
    }
    /// The value at coordinate c, after snap().
    double value_at(double c) const noexcept {
        c = snap(c);
        if (!discrete()) return c;
        const auto i = static_cast<std::size_t>(c);
        return kind_ == kind::ordered ? values_[i] : lo_ + c * step_;
    }
    /// The coordinate of the allowed value nearest to v.
    double coord_of(double v) const noexcept {
        if (!discrete()) return snap(v);
        if (kind_ == kind::integers) return snap((v - lo_) / step_);
        const auto it = std::lower_bound(values_.begin(), values_.end(), v);
        if (it == values_.end()) return static_cast<double>(size_ - 1);
        if (it == values_.begin()) return 0.0;
        const auto i = static_cast<std::size_t>(it - values_.begin());
        return v - values_[i - 1] <= values_[i] - v ? static_cast<double>(i - 1) : static_cast<double>(i);
    }

private:
    domain() = default;
    kind kind_ = kind::continuous;
    double lo_ = 0, hi_ = 0, step_ = 1;
    std::size_t size_ = 0;
    std::vector<double> values_;
};

/// How a search chooses its points.
enum class strategy {
    exhaustive,      ///< every point (a grid of `grid` points per continuous tunable), in order
    random,          ///< max_trials points drawn uniformly with the seeded generator
    nelder_mead,     ///< the downhill simplex (Nelder, Mead 1965), as Active Harmony in seed 000 ch.7
    golden_section,  ///< one tunable, unimodal objective: the bracket shrinks by 0.618 per trial
    u_shape,         ///< one tunable, U-shaped objective (seed 000 ch.5): doubling steps downhill
                     ///< from the start until the objective rises, then golden-section inside
};

struct search_options {
    /// At most this many trials; the search then stops (not converged, unless its own
    /// rule was met at the same time). Must be positive.
    std::size_t max_trials = 100;
    /// For random, and for nothing else: every strategy is deterministic.
    std::uint64_t seed = 1;
    /// Continuous tunables: converged once the bracket or the simplex is narrower than
    /// this fraction of the range.
    double tolerance = 1e-3;
    /// exhaustive over a continuous tunable: this many evenly spaced points (>= 2).
    std::size_t grid = 33;
    /// Values where nelder_mead and u_shape start (one per tunable); default: the middle.
    std::vector<double> start;
};

/// A search over one or more tunables, driven by its user: next() gives the values to
/// try, report() the objective measured there (lower is better), until next() returns
/// nothing. A point already measured is never proposed again (its value is reused), so
/// trials() counts only real measurements.
///
/// Objective values that are not finite (NaN or an infinity from a broken counter) count
/// as the worst possible: they can slow a search down, never push a tunable outside its
/// domain or make it pick that point.
///
/// @code
/// weft::adapt::search s(weft::adapt::strategy::u_shape, {weft::adapt::domain::ordered(sizes)});
/// while (auto p = s.next()) s.report(run_with_partition_size((*p)[0]));
/// use(s.best()[0]);
/// @endcode
class search {
public:
    /// @throws weft::error for no tunables, a one-tunable strategy given several, a zero
    /// budget, a grid below 2, a non-positive tolerance or a start of the wrong length.
    search(strategy kind, std::vector<domain> domains, search_options options = {})
        : kind_(kind), domains_(std::move(domains)), opt_(std::move(options)) {
        if (domains_.empty()) throw weft::error("weft::adapt::search: no tunables");
        if ((kind_ == strategy::golden_section || kind_ == strategy::u_shape) && domains_.size() != 1)
            throw weft::error("weft::adapt::search: golden_section and u_shape search exactly one tunable, not " +
                              std::to_string(domains_.size()));
        if (opt_.max_trials == 0) throw weft::error("weft::adapt::search: max_trials must be positive");
        if (opt_.grid < 2) throw weft::error("weft::adapt::search: grid must be at least 2");
        if (!(opt_.tolerance > 0)) throw weft::error("weft::adapt::search: tolerance must be positive");
        if (!opt_.start.empty() && opt_.start.size() != domains_.size())
            throw weft::error("weft::adapt::search: start has " + std::to_string(opt_.start.size()) +
                              " values for " + std::to_string(domains_.size()) + " tunables");
        body_ = run();
    }
    // The strategy runs as a coroutine that refers to this object: it stays where it is.
    search(const search&) = delete;
    search& operator=(const search&) = delete;

    /// The values to measure next (one per tunable, each inside its domain), or nothing
    /// once the search has converged or spent its budget. Called again before report(),
    /// it returns the same point.
    std::optional<std::vector<double>> next() {
        if (pending_) return values_of(*pending_);
        if (done_) return std::nullopt;
        body_.resume();
        if (body_.error()) std::rethrow_exception(body_.error());
        if (body_.finished() || stalled_) {
            done_ = true;
            converged_ = true;
            return std::nullopt;
        }
        if (trials_ >= opt_.max_trials) {  // a new point, but no budget left for it
            done_ = true;
            asked_.reset();
            return std::nullopt;
        }
        pending_ = std::move(asked_);
        asked_.reset();
        return values_of(*pending_);
    }

    /// The objective at the point next() returned. @throws weft::error without one.
    void report(double objective) {
        if (!pending_) throw weft::error("weft::adapt::search::report: no point from next() is waiting for a value");
        const double v = std::isfinite(objective) ? objective : std::numeric_limits<double>::infinity();
        measured_.emplace(*pending_, v);
        ++trials_;
        revisits_ = 0;
        if (!best_ || v < best_value_) {
            best_ = *pending_;
            best_value_ = v;
        }
        pending_.reset();
    }

    /// A measurement known from before (a previous run's history): the strategy reuses it
    /// instead of asking for the point, it counts in best() but not in trials(). Values
    /// are snapped into the domains; a non-finite objective counts as worst. Call it before
    /// the first next() for it to save trials. @throws weft::error for a point with the
    /// wrong number of values.
    void remember(const std::vector<double>& values, double objective) {
        if (values.size() != domains_.size())
            throw weft::error("weft::adapt::search::remember: " + std::to_string(values.size()) + " values for " +
                              std::to_string(domains_.size()) + " tunables");
        point c(values.size());
        for (std::size_t i = 0; i < c.size(); ++i) c[i] = domains_[i].coord_of(values[i]);
        const double v = std::isfinite(objective) ? objective : std::numeric_limits<double>::infinity();
        measured_[c] = v;
        if (!best_ || v < best_value_) {
            best_ = c;
            best_value_ = v;
        }
    }

    /// True once next() has returned nothing.
    bool done() const noexcept { return done_; }
    /// True if the strategy stopped by its own rule (not for lack of budget).
    bool converged() const noexcept { return converged_; }
    /// Objectives reported so far.
    std::size_t trials() const noexcept { return trials_; }
    /// The best point measured (values), and its objective; empty / +inf before any report.
    std::vector<double> best() const { return best_ ? values_of(*best_) : std::vector<double>{}; }
    double best_value() const noexcept { return best_value_; }
    strategy kind() const noexcept { return kind_; }

private:
    using point = std::vector<double>;  // snapped coordinates, one per tunable

    // The strategy body: a coroutine that co_awaits measure(coords) for each point.
    class body {
    public:
        struct promise_type {
            std::exception_ptr error;
            body get_return_object() { return body(std::coroutine_handle<promise_type>::from_promise(*this)); }
            std::suspend_always initial_suspend() noexcept { return {}; }
            std::suspend_always final_suspend() noexcept { return {}; }
            void return_void() noexcept {}
            void unhandled_exception() noexcept { error = std::current_exception(); }
        };
        body() = default;
        explicit body(std::coroutine_handle<promise_type> h) : h_(h) {}
        body(body&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
        body& operator=(body&& o) noexcept {
            if (this != &o) {
                if (h_) h_.destroy();
                h_ = std::exchange(o.h_, nullptr);
            }
            return *this;
        }
        ~body() {
            if (h_) h_.destroy();
        }
        void resume() {
            if (h_ && !h_.done()) h_.resume();
        }
        bool finished() const noexcept { return !h_ || h_.done(); }
        std::exception_ptr error() const noexcept { return h_ ? h_.promise().error : nullptr; }

    private:
        std::coroutine_handle<promise_type> h_;
    };

    // co_await measure(c): the objective at c (snapped), at once if it was measured
    // already, else after the user reported it.
    struct measurement {
        search* s;
        point p;
        double value = 0;
        bool await_ready() {
            const auto it = s->measured_.find(p);
            if (it == s->measured_.end()) return false;
            // A strategy that only revisits known points has nothing left to learn.
            if (++s->revisits_ > revisit_limit) return false;
            value = it->second;
            return true;
        }
        void await_suspend(std::coroutine_handle<>) noexcept {
            if (s->revisits_ > revisit_limit) s->stalled_ = true;
            else s->asked_ = p;
        }
        double await_resume() {
            const auto it = s->measured_.find(p);
            return it != s->measured_.end() ? it->second : value;
        }
    };
    static constexpr std::size_t revisit_limit = 1000;

    measurement measure(point c) {
        for (std::size_t i = 0; i < c.size(); ++i) c[i] = domains_[i].snap(c[i]);
        return measurement{this, std::move(c)};
    }
    // One tunable's point. (Not measure({x}): g++ 12 rejects a braced list's temporary
    // array inside a coroutine, "array used as initializer".)
    measurement measure_at(double x) { return measure(point(1, x)); }
    std::vector<double> values_of(const point& c) const {
        std::vector<double> v(c.size());
        for (std::size_t i = 0; i < c.size(); ++i) v[i] = domains_[i].value_at(c[i]);
        return v;
    }
    point start_point() const {
        point c(domains_.size());
        for (std::size_t i = 0; i < c.size(); ++i)
            c[i] = opt_.start.empty() ? domains_[i].snap((domains_[i].coord_lo() + domains_[i].coord_hi()) / 2)
                                      : domains_[i].coord_of(opt_.start[i]);
        return c;
    }
    // Converged width of tunable i: below one step for a discrete one.
    double width_tolerance(std::size_t i) const {
        const domain& d = domains_[i];
        return d.discrete() ? 1.0 : opt_.tolerance * (d.coord_hi() - d.coord_lo());
    }

    body run() {
        switch (kind_) {
            case strategy::exhaustive: return run_exhaustive();
            case strategy::random: return run_random();
            case strategy::nelder_mead: return run_nelder_mead();
            case strategy::golden_section: return run_one_tunable(false);
            case strategy::u_shape: return run_one_tunable(true);
        }
        throw weft::error("weft::adapt::search: unknown strategy");
    }

    body run_exhaustive() {
        const std::size_t n = domains_.size();
        std::vector<std::size_t> counts(n);
        for (std::size_t i = 0; i < n; ++i) counts[i] = domains_[i].discrete() ? domains_[i].size() : opt_.grid;
        std::vector<std::size_t> at(n, 0);
        for (;;) {
            point c(n);
            for (std::size_t i = 0; i < n; ++i) {
                const domain& d = domains_[i];
                c[i] = d.discrete() ? static_cast<double>(at[i])
                                    : d.coord_lo() + (d.coord_hi() - d.coord_lo()) * static_cast<double>(at[i]) /
                                                         static_cast<double>(counts[i] - 1);
            }
            (void)co_await measure(std::move(c));
            std::size_t i = 0;
            while (i < n && ++at[i] == counts[i]) at[i++] = 0;
            if (i == n) co_return;
        }
    }

    body run_random() {
        std::mt19937_64 rng(opt_.seed);
        for (std::size_t k = 0; k < opt_.max_trials; ++k) {
            point c(domains_.size());
            for (std::size_t i = 0; i < c.size(); ++i) {
                const domain& d = domains_[i];
                if (d.discrete()) c[i] = static_cast<double>(std::uniform_int_distribution<std::size_t>(0, d.size() - 1)(rng));
                else c[i] = std::uniform_real_distribution<double>(d.coord_lo(), d.coord_hi())(rng);
            }
            (void)co_await measure(std::move(c));
        }
    }

    // One tunable. golden_section: golden-section search for the minimum of a unimodal
    // objective on the whole domain (Kiefer 1953). u_shape (seed 000 ch.5: time against
    // grain size falls while overhead dominates and rises once starvation does): from the
    // start, find the downhill direction, step with doubling strides until the objective
    // rises, which brackets the minimum, then golden-section inside the bracket. On a
    // discrete tunable the probes are rounded to indices and the last few points of the
    // bracket are measured outright.
    body run_one_tunable(bool u_shape) {
        const domain& d = domains_[0];
        const bool discrete = d.discrete();
        const double tol = width_tolerance(0);
        double a = d.coord_lo(), b = d.coord_hi();
        if (u_shape) {
            // The first stride: a sixteenth of the domain, so that the downhill direction
            // shows above the noise of a measured time even where the U is shallow.
            const double unit = discrete ? std::max(1.0, std::round((b - a) / 16)) : std::max(tol, (b - a) / 16);
            double x = start_point()[0];
            double fx = co_await measure_at(x);
            double dir = 0;  // downhill: one stride each way
            if (x + unit <= b && co_await measure_at(x + unit) < fx) dir = 1;
            else if (x - unit >= a && co_await measure_at(x - unit) < fx) dir = -1;
            if (dir == 0) {  // a minimum at x, to within one unit
                a = std::max(a, x - unit);
                b = std::min(b, x + unit);
            } else {
                double prev = x, step = unit;
                for (;;) {
                    const double next = d.snap(x + dir * step);
                    if (next == x) break;  // at the domain's end
                    const double fn = co_await measure_at(next);
                    if (fn >= fx) {  // rose: the minimum lies between prev and next
                        x = next;
                        break;
                    }
                    prev = x;
                    x = next;
                    fx = fn;
                    step *= 2;
                }
                a = std::min(prev, x);
                b = std::max(prev, x);
            }
        }
        constexpr double inv_phi = 0.6180339887498949;
        while (b - a > (discrete ? 3.0 : tol)) {
            double c = b - (b - a) * inv_phi;
            double e = a + (b - a) * inv_phi;
            if (discrete) {
                c = std::round(c);
                e = std::max(std::round(e), c + 1);
            }
            const double fc = co_await measure_at(c);
            const double fe = co_await measure_at(e);
            if (fc <= fe) b = e;  // the minimum is left of e (ties: keep the left, smaller grains)
            else a = c;
        }
        if (discrete)
            for (double x = a; x <= b; ++x) (void)co_await measure_at(x);
        else
            (void)co_await measure_at((a + b) / 2);
    }

    // The downhill simplex on the coordinates (Nelder, Mead 1965; coefficients 1, 2,
    // 1/2, 1/2). Vertices are clamped into the domains; discrete coordinates are
    // rounded when measured, so the simplex may move in sub-index steps between trials.
    body run_nelder_mead() {
        const std::size_t n = domains_.size();
        std::vector<point> v(n + 1, start_point());
        for (std::size_t i = 0; i < n; ++i) {
            const domain& d = domains_[i];
            const double span = d.coord_hi() - d.coord_lo();
            double step = std::max(span / 4, d.discrete() ? 1.0 : width_tolerance(i));
            if (v[i + 1][i] + step > d.coord_hi()) step = -step;
            v[i + 1][i] = d.snap(v[i + 1][i] + step);
        }
        std::vector<double> f(n + 1);
        for (std::size_t i = 0; i <= n; ++i) f[i] = co_await measure(v[i]);
        const auto clamp_point = [this](point p) {
            for (std::size_t i = 0; i < p.size(); ++i)
                p[i] = std::clamp(p[i], domains_[i].coord_lo(), domains_[i].coord_hi());
            return p;
        };
        for (;;) {
            // Order the vertices, best first.
            std::vector<std::size_t> order(n + 1);
            for (std::size_t i = 0; i <= n; ++i) order[i] = i;
            std::stable_sort(order.begin(), order.end(), [&f](std::size_t x, std::size_t y) { return f[x] < f[y]; });
            std::vector<point> sv(n + 1);
            std::vector<double> sf(n + 1);
            for (std::size_t i = 0; i <= n; ++i) {
                sv[i] = v[order[i]];
                sf[i] = f[order[i]];
            }
            v = std::move(sv);
            f = std::move(sf);
            // Converged: the simplex fits in the tolerance on every tunable.
            bool small = true;
            for (std::size_t i = 0; i < n && small; ++i) {
                double mn = v[0][i], mx = v[0][i];
                for (const point& p : v) {
                    mn = std::min(mn, p[i]);
                    mx = std::max(mx, p[i]);
                }
                small = mx - mn < width_tolerance(i);
            }
            if (small) co_return;
            point centroid(n, 0.0);
            for (std::size_t k = 0; k < n; ++k)
                for (std::size_t i = 0; i < n; ++i) centroid[i] += v[k][i] / static_cast<double>(n);
            const auto along = [&](double t) {
                point p(n);
                for (std::size_t i = 0; i < n; ++i) p[i] = centroid[i] + t * (v[n][i] - centroid[i]);
                return clamp_point(std::move(p));
            };
            const point r = along(-1.0);
            const double fr = co_await measure(r);
            if (fr < f[0]) {
                const point e = along(-2.0);
                const double fe = co_await measure(e);
                if (fe < fr) {
                    v[n] = e;
                    f[n] = fe;
                } else {
                    v[n] = r;
                    f[n] = fr;
                }
                continue;
            }
            if (fr < f[n - 1]) {
                v[n] = r;
                f[n] = fr;
                continue;
            }
            const bool outside = fr < f[n];
            const point c = along(outside ? -0.5 : 0.5);
            const double fc = co_await measure(c);
            if (fc < (outside ? fr : f[n])) {
                v[n] = c;
                f[n] = fc;
                continue;
            }
            // Shrink towards the best vertex.
            for (std::size_t k = 1; k <= n; ++k) {
                for (std::size_t i = 0; i < n; ++i) v[k][i] = v[0][i] + 0.5 * (v[k][i] - v[0][i]);
                f[k] = co_await measure(v[k]);
            }
        }
    }

    strategy kind_;
    std::vector<domain> domains_;
    search_options opt_;
    std::map<point, double> measured_;
    std::optional<point> asked_;    // set by the body when it suspends for a new point
    std::optional<point> pending_;  // handed out by next(), waiting for report()
    std::optional<point> best_;
    double best_value_ = std::numeric_limits<double>::infinity();
    std::size_t trials_ = 0;
    std::size_t revisits_ = 0;
    bool stalled_ = false;
    bool done_ = false;
    bool converged_ = false;
    body body_;
};

}  // namespace weft::adapt
