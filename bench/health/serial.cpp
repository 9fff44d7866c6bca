// Health on one thread: every village's step called in place, children first (BOTS's
// sim_village_seq), no task at all: the floor the task-parallel versions are measured
// against.
#include "health/health.hpp"

int main(int argc, char** argv) {
    namespace hl = weft::bench::health;
    const hl::options o = hl::parse_options(argc, argv);
    const hl::parameters p = o.params();
    // One thread whatever --workers says; calls = village steps.
    const auto calls = static_cast<std::uint64_t>(hl::village_count(p)) * static_cast<std::uint64_t>(p.steps);
    hl::measure<hl::no_mutex>("serial", 1, o, calls, [&p](hl::world<hl::no_mutex>& w) {
        for (int t = 0; t < p.steps; ++t) hl::step<hl::inline_group>(p, *w.top(), 0);
    });
    return 0;
}
