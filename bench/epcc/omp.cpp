// The EPCC-inspired scheduler microbenchmarks (bench/epcc/epcc_common.hpp) on OpenMP
// tasks. Every worker creates its share inside one parallel region, each thread in its
// own taskgroup; the master's tasks come from `omp master` in a taskgroup while the other
// threads wait at the region's closing barrier, a task scheduling point. A task counts
// itself under omp_get_thread_num(). The runtime's name comes from WEFT_BENCH_OMP_IMPL
// (scripts/epcc builds this file once more with clang++ -fopenmp=libomp).
#include "epcc/epcc_common.hpp"

#include <omp.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "omp_impl.hpp"

namespace {

namespace ep = weft::bench::epcc;

void generate(ep::run_spec const& s, ep::counters& c, int workers, int& team) {
    std::uint64_t const fine = s.fine;
    std::uint64_t const fine_iters = s.fine_iters;
    std::uint64_t const coarse = s.coarse;
    std::uint64_t const coarse_iters = s.coarse_iters;
#pragma omp parallel num_threads(workers)
    {
        if (omp_get_thread_num() == 0) team = omp_get_num_threads();
#pragma omp taskgroup
        {
            if (omp_get_thread_num() == 0) {
                for (std::uint64_t i = 0; i < coarse; ++i) {
#pragma omp task firstprivate(coarse_iters)
                    {
                        ep::delay(coarse_iters);
                        c.add(omp_get_thread_num());
                    }
                }
            }
            for (std::uint64_t i = 0; i < fine; ++i) {
#pragma omp task firstprivate(fine_iters)
                {
                    ep::delay(fine_iters);
                    c.add(omp_get_thread_num());
                }
            }
        }
    }
}

void master_only(ep::run_spec const& s, ep::counters& c, int workers, int& team) {
    std::uint64_t const fine = s.fine;
    std::uint64_t const fine_iters = s.fine_iters;
#pragma omp parallel num_threads(workers)
    {
#pragma omp master
        {
            team = omp_get_num_threads();
#pragma omp taskgroup
            {
                for (std::uint64_t i = 0; i < fine; ++i) {
#pragma omp task firstprivate(fine_iters)
                    {
                        ep::delay(fine_iters);
                        c.add(omp_get_thread_num());
                    }
                }
            }
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::string const impl = WEFT_BENCH_OMP_IMPL;
    ep::options const o = ep::parse_options(argc, argv);
    unsigned const workers = weft::bench::default_workers(o.workers);
    // Before the first parallel region: no other thread of ours exists yet.
    double const measured = o.iters_per_us > 0 ? 0 : ep::calibrate_iters_per_us();
    double const rate = ep::announce_calibration(impl, o, measured);

    omp_set_dynamic(0);
    int const w = static_cast<int>(workers);
    ep::run_all(o, impl, workers, rate, [&](ep::run_spec const& s, ep::counters& c) {
        int team = 0;
        if (s.master_only) master_only(s, c, w, team);
        else generate(s, c, w, team);
        if (team != w) {
            std::fprintf(stderr, "%s: asked for %d threads, the team had %d\n", impl.c_str(), w, team);
            std::exit(1);
        }
    });
    return 0;
}
