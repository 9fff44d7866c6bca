// Seed 004 Fig. 9's task-management overhead (bench/overhead/overhead_common.hpp) on
// OpenMP tasks: one thread of a team of W, in `omp single`, creates the n tasks, then
// `omp taskwait` (the seed's single producer, L170). Shape `tree`: each split makes its
// left half a task and recurses into the right, then taskwait. The runtime's name comes
// from WEFT_BENCH_OMP_IMPL (omp_impl.hpp): omp-libgomp with g++, omp-libomp with clang++.
// Note that libgomp runs a new task at once, undeferred, while more than 64 per thread of
// the team are queued (GOMP_task's cut-off): that is its task management, measured as is.
#include "overhead/overhead_common.hpp"

#include <omp.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "omp_impl.hpp"

namespace {

namespace ov = weft::bench::overhead;

void tree(ov::job const* j, std::uint64_t lo, std::uint64_t hi) {
    if (hi - lo == 1) {
        (*j)(lo);
        return;
    }
    std::uint64_t const mid = lo + (hi - lo) / 2;
#pragma omp task firstprivate(j, lo, mid)
    tree(j, lo, mid);
    tree(j, mid, hi);
#pragma omp taskwait
}

}  // namespace

int main(int argc, char** argv) {
    ov::program const prog{"bench_overhead_omp", {WEFT_BENCH_OMP_IMPL}, 1000000, false};
    ov::options const o = ov::parse_options(argc, argv, prog);
    unsigned const workers = weft::bench::default_workers(o.workers);
    omp_set_dynamic(0);
    // Before the first parallel region: no thread of the team competes for a core yet.
    std::vector<ov::point> const points = ov::prepare(o);

    int team = 0;
#pragma omp parallel num_threads(static_cast<int>(workers))
#pragma omp single
    team = omp_get_num_threads();
    if (team != static_cast<int>(workers)) {
        std::fprintf(stderr, "%s: asked for a team of %u threads, got %d\n", prog.name, workers, team);
        return 1;
    }

    ov::run_all(o, points, workers, "", [workers](std::string const&, ov::shape s, std::uint64_t n, ov::job const& j) {
        ov::job const* const jp = &j;
        bool const flat = s == ov::shape::flat;
#pragma omp parallel num_threads(static_cast<int>(workers))
#pragma omp single
        {
            if (flat) {
                for (std::uint64_t i = 0; i < n; ++i) {
#pragma omp task firstprivate(jp, i)
                    (*jp)(i);
                }
#pragma omp taskwait
            } else {
                tree(jp, 0, n);
            }
        }
    });
    return 0;
}
