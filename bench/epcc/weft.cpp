// The EPCC-inspired scheduler microbenchmarks (bench/epcc/epcc_common.hpp) on weft, under
// the scheduler policy of --weft:scheduler (the rows are named weft@<policy>). The main
// thread is not a worker: for the per-worker benchmarks it starts one generator task
// pinned to each worker (task_attributes::worker), which creates its share of delay tasks
// in a task_group and waits; worker 0's generator is the master. For `stealing` the master
// alone creates the tasks. A task counts itself under this_task::worker_index().
// --workers, when given, must equal the runtime's worker count (--weft:threads).
#include "epcc/epcc_common.hpp"

#include <weft/weft.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    namespace ep = weft::bench::epcc;
    // The options first (parse_command_line skips --weft:*), then the calibration before
    // the runtime starts its workers, which would share the cores with it.
    ep::options const o = ep::parse_options(argc, argv);
    double const measured = o.iters_per_us > 0 ? 0 : ep::calibrate_iters_per_us();

    weft::runtime rt(argc, argv);
    unsigned const workers = rt.num_workers();
    if (o.workers != 0 && o.workers != workers) {
        std::fprintf(stderr, "%s: --workers=%u but the runtime has %u workers (give --weft:threads=%u too)\n",
                     argc > 0 ? argv[0] : "bench_epcc_weft", o.workers, workers, o.workers);
        return 2;
    }
    std::string const impl = "weft@" + std::string(rt.scheduler_name());
    double const rate = ep::announce_calibration(impl, o, measured);

    ep::run_all(o, impl, workers, rate, [&](ep::run_spec const& s, ep::counters& c) {
        auto const task = [&c](std::uint64_t iters) {
            return [&c, iters] {
                ep::delay(iters);
                c.add(weft::this_task::worker_index());
            };
        };
        auto const on_worker = [](unsigned index) {
            weft::task_attributes a;
            a.worker = index;
            a.name = "epcc generator";
            return a;
        };
        if (s.master_only) {
            weft::async(on_worker(0), [&] {
                weft::task_group g;
                for (std::uint64_t i = 0; i < s.fine; ++i) g.run(task(s.fine_iters));
                g.wait();
            }).get();
            return;
        }
        std::vector<weft::future<void>> generators;
        generators.reserve(workers);
        for (unsigned gen = 0; gen < workers; ++gen) {
            generators.push_back(weft::async(on_worker(gen), [&, gen] {
                weft::task_group g;
                if (gen == 0) {
                    for (std::uint64_t i = 0; i < s.coarse; ++i) g.run(task(s.coarse_iters));
                }
                for (std::uint64_t i = 0; i < s.fine; ++i) g.run(task(s.fine_iters));
                g.wait();
            }));
        }
        for (weft::future<void>& f : generators) f.get();
    });
    return 0;
}
