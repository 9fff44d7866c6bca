// INNCABS Health (seed 000 Table 7: loop-like, no synchronisation but a lock per
// hospital, very fine: ~1 us per task; the std build "all fail"s): BOTS's simulation of
// the Colombian health-care system (bench/health/health.hpp has the model and its
// deviations from BOTS). Every time step walks the tree of villages: a village launches
// one async per village below it, runs its own patients' step, waits for the children's
// futures, then takes in the patients they sent up; the launch policy is passed down.
// Sizes: --input=test|small|medium|large (BOTS's input files; default medium, the
// suite's standard input, 47,989 villages, 365 steps: 17.5 million tasks, Table 3's
// 1.75E+07) and --steps=N. Checks the counts against those published with BOTS's input
// (or, with --steps, against a serial simulation). Small input: --input=test --steps=2
// (343 villages: 684 tasks).
#include "inncabs/inncabs.hpp"

#include "health/health.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace hl = weft::bench::health;
using village = hl::village<inncabs::mutex>;
using world = hl::world<inncabs::mutex>;

void sim_village_par(const hl::parameters* p, village* v, const inncabs::launch l) {
    std::vector<inncabs::future<void>> below;
    for (village* c = v->first_child; c != nullptr; c = c->next_sibling) {
        below.push_back(inncabs::async(l, sim_village_par, p, c, l));
    }
    hl::step_before_join(*p, *v);
    for (inncabs::future<void>& f : below) f.get();
    hl::step_after_join(*p, *v);
}

}  // namespace

int main(int argc, char** argv) {
    const hl::input_class* input = hl::find_class("medium");
    int steps = 0;
    const inncabs::common_options o = inncabs::parse(
        argc, argv, "inncabs health: BOTS's health-care simulation, an async per village per time step",
        {{"input", "test, small, medium or large (BOTS's input classes)",
          [&input](std::string_view v) { return (input = hl::find_class(v)) != nullptr; }},
         {"steps", "time steps, 1 to 100000 (default: the class's, 365)",
          [&steps](std::string_view v) { return inncabs::parse_number(v, steps, 1, 100000); }}});
    hl::options h;
    h.input = input;
    h.steps = steps;
    const hl::parameters p = h.params();
    const hl::totals expected = hl::expected_totals(h);
    const auto tasks = static_cast<std::uint64_t>(hl::village_count(p) - 1) * static_cast<std::uint64_t>(p.steps);

    // The world is built outside the timed body (the suite's initializer): the check,
    // once it has counted, builds the next run's.
    auto w = std::make_unique<world>(p);
    return inncabs::run(
        "health", o, std::string(input->name) + "/" + std::to_string(p.steps), tasks,
        [&] {
            for (int t = 0; t < p.steps; ++t) sim_village_par(&p, w->top(), o.policy);
            return 0;
        },
        [&](int) {
            const hl::totals got = w->results();
            w = std::make_unique<world>(p);
            const bool ok = got.same_counts(expected);
            std::string v = std::to_string(got.checkins);
            if (!ok) {
                v = "checkins/at_home/waiting/assess/inside " + std::to_string(got.checkins) + "/" +
                    std::to_string(got.at_home) + "/" + std::to_string(got.waiting) + "/" +
                    std::to_string(got.assess) + "/" + std::to_string(got.inside) + " != " +
                    std::to_string(expected.checkins) + "/" + std::to_string(expected.at_home) + "/" +
                    std::to_string(expected.waiting) + "/" + std::to_string(expected.assess) + "/" +
                    std::to_string(expected.inside);
            }
            return inncabs::verdict{ok, v};
        });
}
