// The recursion of ge.hpp / sw.hpp / fw.hpp on OpenMP tasks, the seed's OMP-Tasking
// (Listing 5): one thread of the team (`omp single`) starts the recursion; each
// fork(f1, ..., fm) makes f1 .. f(m-1) `omp task`s, runs fm itself and `omp taskwait`s.
// Listing 5 makes both B and C tasks and runs nothing between them and the taskwait; here
// the last branch runs on the thread that would otherwise wait, as weft_forkjoin.cpp
// does: the same joins, one task fewer per fork. The runtime's name comes from
// omp_impl.hpp (omp-libgomp with g++, omp-libomp with clang++).
#include "rdp/fw.hpp"
#include "rdp/ge.hpp"
#include "rdp/sw.hpp"

#include <omp.h>

#include "omp_impl.hpp"

namespace {

namespace rdp = weft::bench::rdp;

/// One `omp task` running a copy of f (a lambda holding references into the frame of the
/// fork, which outlives the task: the fork's taskwait comes first).
template <class F>
void spawn(F f) {
#pragma omp task firstprivate(f)
    f();
}

/// fork(f...): tasks f1 .. f(m-1), the last on this thread, then one taskwait.
struct omp_fork {
    template <class... F>
    void operator()(F&&... f) const {
        run_all(f...);
#pragma omp taskwait
    }

private:
    template <class First, class... Rest>
    static void run_all(First& first, Rest&... rest) {
        if constexpr (sizeof...(Rest) == 0) {
            first();
        } else {
            spawn(first);
            run_all(rest...);
        }
    }
};

}  // namespace

int main(int argc, char** argv) {
    const rdp::options o = rdp::parse_options(argc, argv);
    omp_set_dynamic(0);
    unsigned team = 0;
#pragma omp parallel num_threads(static_cast<int>(o.workers))
#pragma omp single
    team = static_cast<unsigned>(omp_get_num_threads());

    rdp::with_problem<rdp::ge, rdp::sw, rdp::fw>(o, [&o, team]<class P>() {
        rdp::measure<P>(WEFT_BENCH_OMP_IMPL, team, o, rdp::form::recursion, rdp::fork_join_counts<P>(o),
                        [&o](const P& problem, auto& t) {
#pragma omp parallel num_threads(static_cast<int>(o.workers))
#pragma omp single
                            {
                                omp_fork fork;
                                rdp::run_recursive(problem, t, o.base, fork);
                            }
                        });
    });
    return 0;
}
