// Seed 004's AMR application on weft with a barrier per level step: the Berger-Oliger
// recursion of amr.hpp, each level's step a phase of one task per block (weft::task_group
// run) that everyone waits for (task_group wait) before the next phase starts, the shape
// of the MPI code the seed compares with (L106, L130-L136). Injection and interpolation,
// a copy of the points under a finer level and 12 interpolated points, run between phases
// on the driving task.
//   weft-barrier  --steps (timed, checked bit for bit against the serial reference) or --wall
#include "amr/harness.hpp"

#include <weft/weft.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

int main(int argc, char** argv) {
    namespace wb = weft::bench;
    namespace amr = weft::bench::amr;
    weft::runtime rt(argc, argv);  // --weft:threads=W
    const amr::params p = amr::parse_params(
        argc, argv, [](amr::params&, std::string_view, std::string_view) { return false; }, "", false);
    const unsigned workers = rt.num_workers();
    amr::hierarchy h;
    amr::build_hierarchy(p, h);

    // One task per block, then the barrier.
    auto phase = [](std::size_t n, auto&& f) {
        weft::task_group tg;
        for (std::size_t k = 0; k < n; ++k) tg.run([&f, k] { f(k); });
        tg.wait();
    };
    // Runs `count` coarse steps (for `wall` seconds if > 0) from the initial data on a weft
    // task; returns the seconds.
    auto run = [&](amr::grid_state& g, amr::reached_steps& reached, unsigned count, double wall,
                   std::uint64_t& kernels) {
        return weft::async([&] {
                   const amr::alarm alarm(wall);
                   return wb::time_seconds([&] {
                       amr::bo_driver driver(h, g, reached, phase, [&] { return alarm.rung(); });
                       driver.run(0, count);
                       kernels = driver.kernels();
                   });
               })
            .get();
    };

    if (p.wall > 0) {
        std::uint64_t kernels = 0;
        {  // warm-up, discarded
            amr::grid_state w = amr::initial_state(h);
            amr::reached_steps rw = amr::no_steps(h);
            run(w, rw, 20, 0.0, kernels);
        }
        amr::grid_state g = amr::initial_state(h);
        amr::reached_steps reached = amr::no_steps(h);
        const double seconds = run(g, reached, amr::wall_step_limit, p.wall, kernels);
        amr::check_causality("weft-barrier", h, reached);
        const std::uint64_t updates = amr::updates_done(h, reached);
        amr::print_result("weft-barrier", workers, h, updates, seconds, updates, kernels,
                          " wall=" + std::to_string(p.wall) + amr::wall_report("weft-barrier", workers, h, reached, p.wall));
        return 0;
    }

    const amr::grid_state ref = amr::reference_state(p, p.steps);
    for (unsigned rep = 0; rep <= p.reps; ++rep) {
        amr::grid_state g = amr::initial_state(h);
        amr::reached_steps reached = amr::no_steps(h);
        std::uint64_t kernels = 0;
        const double seconds = run(g, reached, p.steps, 0.0, kernels);
        amr::check_against_reference("weft-barrier", h, g, ref);
        if (rep > 0)
            amr::print_result("weft-barrier", workers, h, h.updates_per_coarse_step() * p.steps, seconds,
                              amr::solution_hash(h, g), kernels, " steps=" + std::to_string(p.steps));
    }
    return 0;
}
