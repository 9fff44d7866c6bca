// weft::adapt::search: every strategy finds the optimum of synthetic objectives (noisy
// unimodal, plateaus, integer and ordered domains, two tunables) within its budget,
// deterministically; proposals stay inside the domains whatever the objective reports
// (NaN and infinities included); misuse throws weft::error.
#include <weft/adapt/search.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <set>
#include <vector>

namespace {

using weft::adapt::domain;
using weft::adapt::search;
using weft::adapt::search_options;
using weft::adapt::strategy;

/// Drives `s` to its end with objective `f`; checks that every point lies in the domains
/// and that no point is measured twice. Returns the number of trials.
std::size_t drive(search& s, const std::vector<domain>& domains, const std::function<double(const std::vector<double>&)>& f) {
    std::set<std::vector<double>> seen;
    std::size_t trials = 0;
    while (auto p = s.next()) {
        EXPECT_EQ(p->size(), domains.size());
        for (std::size_t i = 0; i < p->size(); ++i) {
            const domain& d = domains[i];
            const double v = (*p)[i];
            EXPECT_TRUE(std::isfinite(v));
            if (d.discrete()) {
                const double c = d.coord_of(v);
                EXPECT_EQ(d.value_at(c), v) << "not a value of the domain: " << v;
            } else {
                EXPECT_GE(v, d.coord_lo());
                EXPECT_LE(v, d.coord_hi());
            }
        }
        EXPECT_EQ(s.next(), p) << "next() before report() must repeat the point";
        EXPECT_TRUE(seen.insert(*p).second) << "a point was proposed twice";
        s.report(f(*p));
        ++trials;
        if (trials > 100000) {
            ADD_FAILURE() << "no end";
            break;
        }
    }
    EXPECT_TRUE(s.done());
    EXPECT_EQ(s.trials(), trials);
    return trials;
}

/// The seed's U shape: time per step against partition size g, overhead ~ 1/g and
/// starvation ~ g, minimum at g = 40 (about).
double u_time(double g) { return 1600.0 / g + g; }

const std::vector<double> partition_sizes = [] {
    std::vector<double> v;  // the divisors of 10^6 between 10 and 10^5: an uneven ordered set
    for (double d = 10; d <= 100000; ++d)
        if (std::fmod(1e6, d) == 0) v.push_back(d);
    return v;
}();

TEST(adapt_domain, kinds_values_and_snapping) {
    const domain i = domain::integers(10, 100, 10);
    EXPECT_EQ(i.size(), 10u);
    EXPECT_EQ(i.at(0), 10);
    EXPECT_EQ(i.at(9), 100);
    EXPECT_EQ(i.value_at(4.4), 50);
    EXPECT_EQ(i.value_at(-7), 10);
    EXPECT_EQ(i.value_at(1e9), 100);
    EXPECT_EQ(i.coord_of(54), 4);
    const domain o = domain::ordered({8, 2, 4, 2, 16});
    EXPECT_EQ(o.size(), 4u);
    EXPECT_EQ(o.at(0), 2);
    EXPECT_EQ(o.coord_of(5), 1);   // 4 is nearer than 8
    EXPECT_EQ(o.coord_of(7), 2);
    EXPECT_EQ(o.value_at(std::numeric_limits<double>::quiet_NaN()), 8);  // the middle index
    const domain c = domain::continuous(-1, 1);
    EXPECT_FALSE(c.discrete());
    EXPECT_EQ(c.value_at(3), 1);
    EXPECT_EQ(c.value_at(0.25), 0.25);
    EXPECT_THROW(domain::integers(5, 4), weft::error);
    EXPECT_THROW(domain::integers(0, 4, 0), weft::error);
    EXPECT_THROW(domain::ordered({}), weft::error);
    EXPECT_THROW(domain::ordered({1, std::numeric_limits<double>::infinity()}), weft::error);
    EXPECT_THROW(domain::continuous(1, 0), weft::error);
    EXPECT_THROW(domain::continuous(0, std::numeric_limits<double>::quiet_NaN()), weft::error);
    EXPECT_THROW((void)i.at(10), weft::error);
    EXPECT_THROW((void)c.at(0), weft::error);
}

TEST(adapt_search, misuse_is_refused) {
    const std::vector<domain> two{domain::integers(0, 9), domain::integers(0, 9)};
    EXPECT_THROW((void)search(strategy::golden_section, two), weft::error);
    EXPECT_THROW((void)search(strategy::u_shape, two), weft::error);
    EXPECT_THROW((void)search(strategy::random, {}), weft::error);
    search_options o;
    o.max_trials = 0;
    EXPECT_THROW((void)search(strategy::random, two, o), weft::error);
    o = {};
    o.start = {1};
    EXPECT_THROW((void)search(strategy::nelder_mead, two, o), weft::error);
    o = {};
    o.tolerance = 0;
    EXPECT_THROW((void)search(strategy::nelder_mead, two, o), weft::error);
    search s(strategy::exhaustive, two);
    EXPECT_THROW(s.report(1.0), weft::error);  // no point asked for
}

TEST(adapt_search, exhaustive_measures_every_point_once) {
    const std::vector<domain> d{domain::integers(1, 5), domain::ordered({0.5, 1.5, 2.5})};
    search s(strategy::exhaustive, d);
    const std::size_t n = drive(s, d, [](const std::vector<double>& p) { return std::abs(p[0] - 3) + std::abs(p[1] - 1.5); });
    EXPECT_EQ(n, 15u);
    EXPECT_TRUE(s.converged());
    EXPECT_EQ(s.best(), (std::vector<double>{3, 1.5}));
    EXPECT_EQ(s.best_value(), 0);
    // A continuous tunable: a grid.
    const std::vector<domain> c{domain::continuous(0, 1)};
    search_options o;
    o.grid = 11;
    search g(strategy::exhaustive, c, o);
    EXPECT_EQ(drive(g, c, [](const std::vector<double>& p) { return std::abs(p[0] - 0.3); }), 11u);
    EXPECT_NEAR(g.best()[0], 0.3, 1e-12);
}

TEST(adapt_search, budget_stops_a_search_unconverged) {
    const std::vector<domain> d{domain::integers(0, 999)};
    search_options o;
    o.max_trials = 10;
    search s(strategy::exhaustive, d, o);
    EXPECT_EQ(drive(s, d, [](const std::vector<double>& p) { return p[0]; }), 10u);
    EXPECT_FALSE(s.converged());
    EXPECT_EQ(s.best(), std::vector<double>{0});
}

TEST(adapt_search, random_is_deterministic_for_a_seed) {
    const std::vector<domain> d{domain::integers(0, 1'000'000), domain::continuous(-5, 5)};
    search_options o;
    o.max_trials = 20;
    o.seed = 42;
    auto points = [&] {
        search s(strategy::random, d, o);
        std::vector<std::vector<double>> got;
        while (auto p = s.next()) {
            got.push_back(*p);
            s.report((*p)[0]);
        }
        EXPECT_TRUE(s.converged());  // its rule is its budget
        return got;
    };
    const auto a = points(), b = points();
    EXPECT_EQ(a.size(), 20u);
    EXPECT_EQ(a, b);
    o.seed = 43;
    search other(strategy::random, d, o);
    EXPECT_NE(*other.next(), a.front());
}

TEST(adapt_search, golden_section_finds_a_unimodal_minimum) {
    // Integers 1..10000, minimum at 40: about log_phi(10000) = 19 trials, not 10000.
    const std::vector<domain> d{domain::integers(1, 10000)};
    search s(strategy::golden_section, d);
    const std::size_t n = drive(s, d, [](const std::vector<double>& p) { return u_time(p[0]); });
    EXPECT_TRUE(s.converged());
    EXPECT_EQ(s.best(), std::vector<double>{40});
    EXPECT_LE(n, 30u);
    // Continuous, to the tolerance.
    const std::vector<domain> c{domain::continuous(0, 10)};
    search t(strategy::golden_section, c);
    drive(t, c, [](const std::vector<double>& p) { return (p[0] - 7.3) * (p[0] - 7.3); });
    EXPECT_TRUE(t.converged());
    EXPECT_NEAR(t.best()[0], 7.3, 0.01);
}

TEST(adapt_search, u_shape_brackets_then_narrows_in_few_trials) {
    // The partition sizes of a 10^6-point grid (divisors, uneven), U-shaped time with its
    // minimum near 40; the start (the middle index) is far right of it.
    const std::vector<domain> d{domain::ordered(partition_sizes)};
    search s(strategy::u_shape, d);
    const std::size_t n = drive(s, d, [](const std::vector<double>& p) { return u_time(p[0]); });
    EXPECT_TRUE(s.converged());
    EXPECT_EQ(s.best(), std::vector<double>{40});
    EXPECT_LE(n, 15u);
    // From a start left of the minimum, and with the minimum at an end of the domain.
    search_options o;
    o.start = {10};
    search left(strategy::u_shape, d, o);
    drive(left, d, [](const std::vector<double>& p) { return u_time(p[0]); });
    EXPECT_EQ(left.best(), std::vector<double>{40});
    search edge(strategy::u_shape, d);
    drive(edge, d, [](const std::vector<double>& p) { return p[0]; });  // increasing: the minimum is the first value
    EXPECT_EQ(edge.best(), std::vector<double>{10});
}

TEST(adapt_search, noisy_and_flat_objectives_end_near_the_optimum) {
    // 5 % multiplicative noise from a seeded generator, and a plateau around the minimum:
    // golden-section and u_shape end within 10 % of the best time, deterministically.
    const std::vector<domain> d{domain::integers(1, 2000)};
    for (strategy k : {strategy::golden_section, strategy::u_shape, strategy::nelder_mead}) {
        std::mt19937_64 rng(7);
        std::uniform_real_distribution<double> noise(0.95, 1.05);
        search s(k, d);
        drive(s, d, [&](const std::vector<double>& p) {
            const double t = std::max(u_time(p[0]), 85.0);  // plateau: 85 where 1600/g + g < 85
            return t * noise(rng);
        });
        EXPECT_TRUE(s.done());
        EXPECT_LE(u_time(s.best()[0]), 80.0 * 1.10) << "strategy " << static_cast<int>(k) << " ended at " << s.best()[0];
    }
}

TEST(adapt_search, nelder_mead_minimizes_two_tunables) {
    // A shifted quadratic bowl over a continuous and an integer tunable.
    const std::vector<domain> d{domain::continuous(-10, 10), domain::integers(0, 200)};
    search_options o;
    o.max_trials = 300;
    search s(strategy::nelder_mead, d, o);
    const std::size_t n = drive(s, d, [](const std::vector<double>& p) {
        return (p[0] - 2.5) * (p[0] - 2.5) + 0.01 * (p[1] - 120) * (p[1] - 120);
    });
    EXPECT_TRUE(s.converged());
    EXPECT_LT(n, 300u);
    EXPECT_NEAR(s.best()[0], 2.5, 0.2);
    EXPECT_NEAR(s.best()[1], 120, 3);
}

TEST(adapt_search, broken_objectives_never_push_a_tunable_out_of_bounds) {
    // NaN, +inf and -inf from a broken counter count as the worst value: every strategy
    // keeps its points inside the domains (checked in drive) and ends, and a non-finite
    // value is never the best.
    const std::vector<domain> one{domain::ordered(partition_sizes)};
    const std::vector<domain> two{domain::continuous(0, 1), domain::integers(-5, 5)};
    const double bad[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                          -std::numeric_limits<double>::infinity()};
    for (strategy k : {strategy::exhaustive, strategy::random, strategy::nelder_mead, strategy::golden_section,
                       strategy::u_shape}) {
        const auto& d = (k == strategy::golden_section || k == strategy::u_shape) ? one : two;
        search_options o;
        o.max_trials = 200;
        search s(k, d, o);
        std::size_t call = 0;
        drive(s, d, [&](const std::vector<double>& p) {
            ++call;
            return call % 3 == 0 ? p[0] : bad[call % 3 == 1 ? 0 : (call % 2 == 0 ? 1 : 2)];
        });
        EXPECT_TRUE(std::isfinite(s.best_value())) << "strategy " << static_cast<int>(k);
        // All non-finite: the best value stays +inf, and the search still ends.
        search all_bad(k, d, o);
        drive(all_bad, d, [](const std::vector<double>&) { return std::numeric_limits<double>::quiet_NaN(); });
        EXPECT_TRUE(all_bad.done());
        EXPECT_EQ(all_bad.best_value(), std::numeric_limits<double>::infinity());
    }
}

}  // namespace
