// The task graph (Task Bench's method, issue #22; see common.hpp) on one thread, step by
// step, with no task at all: every kernel runs, so its efficiency is the serial peak's
// share that the graph's bookkeeping leaves (1.0 but for the hashing and the loop).
// --calibrate prints only the serial time per kernel iteration, which scripts/taskgraph
// uses to turn task durations into iteration counts:
//   weft-taskgraph-calibration ns_per_iteration=<ns> flops_per_iteration=<n>
#include "taskgraph/common.hpp"

#include <cstdint>
#include <cstdio>
#include <string_view>

int main(int argc, char** argv) {
    namespace tg = weft::bench::taskgraph;
    bool calibrate = false;
    tg::options o = tg::parse_options(
        argc, argv,
        [&](std::string_view name, std::string_view v) {
            if (name != "--calibrate" || (v != "1" && v != "0")) return false;
            calibrate = v == "1";
            return true;
        },
        "  --calibrate=1   print the serial ns per kernel iteration and exit\n");
    const double ns_per_iteration = tg::measure_ns_per_iteration();
    if (calibrate) {
        std::printf("weft-taskgraph-calibration ns_per_iteration=%.6f flops_per_iteration=%.0f\n", ns_per_iteration,
                    tg::flops_per_iteration);
        return 0;
    }
    if (o.workers > 1) {
        std::fprintf(stderr, "%s: --workers=%u: the serial program uses one thread\n", argv[0], o.workers);
        return 2;
    }
    // The width defaults to the workers of the parallel runs it is compared with: pass --width.
    if (!tg::finish(o, 1, argv[0])) return 2;
    tg::measure("serial", 1, o, ns_per_iteration, [&] {
        return tg::evaluate_serially(o.g, [&](unsigned t, unsigned i, const std::uint64_t* in, unsigned n) {
            return tg::run_task(o.g, t, i, in, n);
        });
    });
    return 0;
}
