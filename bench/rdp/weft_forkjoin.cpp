// The recursion of ge.hpp / sw.hpp / fw.hpp on weft::task_group: each fork(f1, ..., fm)
// runs f1 .. f(m-1) as children, fm on the caller, and waits for all of them, so the
// joins are exactly those of the seed's OpenMP version (Listing 5's `omp taskwait`
// after the parallel B and C) and of omp.cpp. The whole recursion runs as one weft task.
#include "rdp/fw.hpp"
#include "rdp/ge.hpp"
#include "rdp/sw.hpp"

#include <weft/weft.hpp>

namespace {

namespace rdp = weft::bench::rdp;

/// fork(f...): children f1 .. f(m-1), the last on the caller, then one join.
struct task_group_fork {
    template <class... F>
    void operator()(F&&... f) const {
        weft::task_group g;
        spawn_all_but_last(g, f...);
        g.wait();
    }

private:
    template <class First, class... Rest>
    static void spawn_all_but_last(weft::task_group& g, First& first, Rest&... rest) {
        if constexpr (sizeof...(Rest) == 0) {
            first();
        } else {
            g.run(first);  // a copy of the lambda: it holds references into the caller's frame
            spawn_all_but_last(g, rest...);
        }
    }
};

}  // namespace

int main(int argc, char** argv) {
    weft::runtime rt(argc, argv);  // --weft:threads=W
    const rdp::options o = rdp::parse_options(argc, argv);
    rdp::with_problem<rdp::ge, rdp::sw, rdp::fw>(o, [&o, &rt]<class P>() {
        rdp::measure<P>("weft-forkjoin", rt.num_workers(), o, rdp::form::recursion, rdp::fork_join_counts<P>(o),
                        [&o](const P& problem, auto& t) {
                            weft::async([&] {
                                task_group_fork fork;
                                rdp::run_recursive(problem, t, o.base, fork);
                            }).get();
                        });
    });
    return 0;
}
