// Seed 004's AMR application on one thread: the Berger-Oliger recursion (amr.hpp) with
// every block of a level's step computed in a loop, no task at all. The floor that the
// weft schedules' overhead is measured against at the same grain.
//   serial              --steps (timed, checked against the one-block reference) or --wall
//   --convergence       the self-convergence test: the solution at h, h/2 and h/4 for
//                       --tconv time units, Q = |u_h - u_h/2| / |u_h/2 - u_h/4| (L2 over the
//                       coarse points, per field) must be 4 +- 0.5 without refinement
//                       (second order, seed L88); the refined run's Q is printed too and
//                       must be 4 +- 1 (its interface and injection errors are also O(h^2)).
#include "amr/harness.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace wb = weft::bench;
namespace amr = weft::bench::amr;

auto in_a_loop() {
    return [](std::size_t n, auto&& f) {
        for (std::size_t k = 0; k < n; ++k) f(k);
    };
}

/// The coarse-level values of p after `steps` coarse steps.
std::vector<double> coarse_solution(const amr::params& p, unsigned steps, std::uint64_t& updates) {
    amr::hierarchy h;
    amr::build_hierarchy(p, h);
    amr::grid_state g = amr::initial_state(h);
    amr::reached_steps reached = amr::no_steps(h);
    amr::bo_driver driver(h, g, reached, in_a_loop(), [] { return false; });
    driver.run(0, steps);
    updates += h.updates_per_coarse_step() * steps;
    return amr::proper_values(h, g, 0);
}

/// Q per field for the hierarchy of p (levels as given) at nr, 2nr-1, 4nr-3.
void convergence_factors(const amr::params& p, double q[3], std::uint64_t& updates) {
    amr::params a = p, b = p, c = p;
    b.nr = 2 * p.nr - 1;
    c.nr = 4 * p.nr - 3;
    amr::hierarchy h;
    amr::build_hierarchy(a, h);
    const auto steps = static_cast<unsigned>(std::lround(p.tconv / h.levels[0].geom.dt));
    const std::vector<double> u1 = coarse_solution(a, steps, updates), u2 = coarse_solution(b, 2 * steps, updates),
                              u4 = coarse_solution(c, 4 * steps, updates);
    const auto n1 = static_cast<std::size_t>(a.nr), n2 = static_cast<std::size_t>(b.nr),
               n4 = static_cast<std::size_t>(c.nr);
    for (std::size_t f = 0; f < 3; ++f) {
        double d12 = 0, d24 = 0;
        for (std::size_t i = 0; i < n1; ++i) {
            const double x1 = u1[f * n1 + i], x2 = u2[f * n2 + 2 * i], x4 = u4[f * n4 + 4 * i];
            d12 += (x1 - x2) * (x1 - x2);
            d24 += (x2 - x4) * (x2 - x4);
        }
        q[f] = std::sqrt(d12 / d24);
    }
}

int run_convergence(const amr::params& p) {
    static const char* const names[3] = {"chi", "phi", "pi"};
    amr::params uni = p;
    uni.levels = 0;
    double q_uni[3], q_amr[3];
    std::uint64_t updates = 0;
    double seconds = wb::time_seconds([&] {
        convergence_factors(uni, q_uni, updates);
        convergence_factors(p, q_amr, updates);
    });
    std::string keys = " tconv=" + std::to_string(p.tconv) + " amp=" + std::to_string(p.amp);
    char buf[64];
    for (int f = 0; f < 3; ++f) {
        std::snprintf(buf, sizeof buf, " q_%s=%.4f", names[f], q_uni[f]);
        keys += buf;
    }
    for (int f = 0; f < 3; ++f) {
        std::snprintf(buf, sizeof buf, " q_amr_%s=%.4f", names[f], q_amr[f]);
        keys += buf;
    }
    amr::hierarchy h;
    amr::build_hierarchy(p, h);
    amr::print_result("serial-convergence", 1, h, updates, seconds,
                      static_cast<std::uint64_t>(std::lround(1000 * q_uni[0])), 0, keys);
    for (int f = 0; f < 3; ++f) {
        if (!(std::fabs(q_uni[f] - 4.0) <= 0.5)) {
            std::fprintf(stderr, "weft-bench problem=amr impl=serial-convergence: WRONG RESULT: unrefined Q(%s) = %.4f, "
                         "expected 4 +- 0.5 (second order)\n", names[f], q_uni[f]);
            return 1;
        }
        if (p.levels > 0 && !(std::fabs(q_amr[f] - 4.0) <= 1.0)) {
            std::fprintf(stderr, "weft-bench problem=amr impl=serial-convergence: WRONG RESULT: refined Q(%s) = %.4f, "
                         "expected 4 +- 1\n", names[f], q_amr[f]);
            return 1;
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const amr::params p = amr::parse_params(
        argc, argv,
        [](amr::params& q, std::string_view name, std::string_view v) {
            if (name == "--tconv") return amr::detail::number_in(name, v, q.tconv, 0.01, 1000.0, "a time 0.01..1000");
            return false;
        },
        "  --convergence  the self-convergence test (h, h/2, h/4; Q must be ~4)\n"
        "  --tconv=T      its final time (default 12: the pulse has passed r = 0)\n",
        true);
    if (p.convergence) return run_convergence(p);

    amr::hierarchy h;
    amr::build_hierarchy(p, h);
    if (p.wall > 0) {
        amr::grid_state g = amr::initial_state(h);
        amr::reached_steps reached = amr::no_steps(h);
        {  // warm-up, discarded
            amr::grid_state w = amr::initial_state(h);
            amr::reached_steps rw = amr::no_steps(h);
            amr::bo_driver(h, w, rw, in_a_loop(), [] { return false; }).run(0, 20);
        }
        std::uint64_t kernels = 0;
        const amr::alarm alarm(p.wall);
        const double seconds = wb::time_seconds([&] {
            amr::bo_driver driver(h, g, reached, in_a_loop(), [&] { return alarm.rung(); });
            driver.run(0, amr::wall_step_limit);
            kernels = driver.kernels();
        });
        amr::check_causality("serial", h, reached);
        const std::uint64_t updates = amr::updates_done(h, reached);
        amr::print_result("serial", 1, h, updates, seconds, updates, kernels,
                          " wall=" + std::to_string(p.wall) + amr::wall_report("serial", 1, h, reached, p.wall));
        return 0;
    }

    const amr::grid_state ref = amr::reference_state(p, p.steps);
    for (unsigned rep = 0; rep <= p.reps; ++rep) {
        amr::grid_state g = amr::initial_state(h);
        amr::reached_steps reached = amr::no_steps(h);
        std::uint64_t kernels = 0;
        const double seconds = wb::time_seconds([&] {
            amr::bo_driver driver(h, g, reached, in_a_loop(), [] { return false; });
            driver.run(0, p.steps);
            kernels = driver.kernels();
        });
        amr::check_against_reference("serial", h, g, ref);
        if (rep > 0)
            amr::print_result("serial", 1, h, h.updates_per_coarse_step() * p.steps, seconds, amr::solution_hash(h, g),
                              kernels, " steps=" + std::to_string(p.steps));
    }
    return 0;
}
