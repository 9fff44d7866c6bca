// Health on weft: one weft task runs the time steps; in each, every village runs one
// weft::task_group child per village below it, does its own patients' step beside
// them, joins them and then takes in the patients they sent up (BOTS's sim_village_par).
// The reallocation lists are guarded by weft::mutex.
#include "health/health.hpp"

#include <weft/weft.hpp>

#include <cstdint>

int main(int argc, char** argv) {
    namespace hl = weft::bench::health;
    weft::runtime rt(argc, argv);  // --weft:threads=W --weft:scheduler=S (scripts/bench passes them)
    const hl::options o = hl::parse_options(argc, argv);
    const hl::parameters p = o.params();
    const auto calls = static_cast<std::uint64_t>(hl::tasks_per_step(p, o.cutoff)) * static_cast<std::uint64_t>(p.steps);
    hl::measure<weft::mutex>("weft-fork_join", rt.num_workers(), o, calls, [&](hl::world<weft::mutex>& w) {
        weft::async([&] {
            for (int t = 0; t < p.steps; ++t) hl::step<weft::task_group>(p, *w.top(), o.cutoff);
        }).get();
    });
    return 0;
}
