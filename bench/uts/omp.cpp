// UTS on OpenMP tasks, one task per node and no cutoff: a node creates one `omp task` per
// child node (whose state the parent derives first), `omp taskwait`s and adds up the
// counts the children left in their own slots. The runtime's name comes from
// WEFT_BENCH_OMP_IMPL (scripts/bench sets "omp-libomp" for its clang build); otherwise it
// is guessed from the compiler.
#include "uts/uts_tree.hpp"

#include <omp.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include "omp_impl.hpp"

namespace {

namespace ut = weft::bench::uts;

std::uint64_t count(const ut::tree* t, const ut::node& n) {
    const int children = ut::num_children(*t, n);
    if (children == 0) return 1;
    ut::child_slots counts(children);
    ut::child_slots* slots = &counts;
    for (int i = 0; i < children; ++i) {
        const ut::node child = ut::derive_child(n, i);
#pragma omp task firstprivate(t, slots, i, child)
        (*slots)[i] = count(t, child);
    }
#pragma omp taskwait
    return 1 + counts.sum();
}

}  // namespace

int main(int argc, char** argv) {
    constexpr const char* impl = WEFT_BENCH_OMP_IMPL;
    const ut::options o = ut::parse_options(argc, argv);
    const ut::tree* t = o.t;

    // A deep tree needs deep stacks (see uts_tree.hpp). The OpenMP runtime takes its
    // workers' from OMP_STACKSIZE when it starts (libgomp: as the program loads), so the
    // program starts over with it set, unless the caller chose a size.
    const std::size_t stack = ut::stack_bytes(*t);
    if (stack != 0 && std::getenv("OMP_STACKSIZE") == nullptr) {
        char value[32];
        std::snprintf(value, sizeof value, "%zuM", (stack + (std::size_t{1} << 20) - 1) >> 20);
        std::fprintf(stderr, "%s: tree %s is %d levels deep: running again with OMP_STACKSIZE=%s\n", argv[0],
                     t->name, t->depth, value);
        setenv("OMP_STACKSIZE", value, 1);
        execv("/proc/self/exe", argv);
        std::perror("execv /proc/self/exe");
        return 1;
    }
    ut::run_with_stack(stack, [&] {
        omp_set_dynamic(0);  // on this thread: it is the one that starts the teams
        unsigned team = 0;
#pragma omp parallel num_threads(static_cast<int>(o.workers))
#pragma omp single
        team = static_cast<unsigned>(omp_get_num_threads());

        ut::measure(impl, team, o, [&] {
            std::uint64_t nodes = 0;
#pragma omp parallel num_threads(static_cast<int>(o.workers))
#pragma omp single
            nodes = count(t, ut::make_root(*t));
            return nodes;
        });
    });
    return 0;
}
