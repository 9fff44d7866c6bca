// Floorplan on OpenMP tasks, as BOTS runs it: one thread of the team (`omp single`)
// starts the search; for every cell up to the cutoff (default: every cell), one `omp task`
// per (shape, start) tried, which copies its parent's layout onto its own stack (BOTS
// copies the cells and the board there too), lays the cell down and, within the bound,
// goes on with the next cell; the parent `omp taskwait`s. The bound is an atomic read
// without a lock; a better complete placement is recorded under a std::mutex (BOTS: `omp
// critical`). The runtime's name comes from WEFT_BENCH_OMP_IMPL (scripts/bench sets
// "omp-libomp" for its clang build); otherwise it is guessed from the compiler.
#include "floorplan/floorplan.hpp"

#include <omp.h>

#include <cstdint>
#include <mutex>

#include "omp_impl.hpp"

namespace {

namespace fp = weft::bench::floorplan;
using best_type = fp::best_placement<std::mutex>;

std::uint64_t search(int cells, const fp::layout* p, int id, fp::footprint f, best_type* best, int serial_from) {
    const fp::cell& c = fp::chip[static_cast<std::size_t>(id)];
    std::uint64_t below = 0;
    std::uint64_t children = 0;
    for (int s = 0; s < c.shapes; ++s) {
        const fp::shape sh = c.alt[s];
        const fp::starts st = fp::starts_of(c, sh, *p);
        for (int i = 0; i < st.count; ++i) {
            ++children;
            const fp::rect r = st.place(i, sh);
#pragma omp task firstprivate(cells, p, id, r, f, best, serial_from) shared(below)
            {
                fp::layout child = *p;
                if (fp::lay_down(child, id, r)) {
                    const fp::footprint g = fp::grow(f, r);
                    if (id == cells) {
                        best->offer(child, g);
                    } else if (g.area() < best->area()) {
                        if (id + 1 >= serial_from) {
                            (void)fp::search_serial(cells, child, id + 1, g, *best);
                        } else {
                            const std::uint64_t made = search(cells, &child, id + 1, g, best, serial_from);
#pragma omp atomic
                            below += made;
                        }
                    }
                }
            }
        }
    }
#pragma omp taskwait
    return children + below;
}

}  // namespace

int main(int argc, char** argv) {
    constexpr const char* impl = WEFT_BENCH_OMP_IMPL;
    const fp::options o = fp::parse_options(argc, argv);
    omp_set_dynamic(0);

    unsigned team = 0;
#pragma omp parallel num_threads(static_cast<int>(o.workers))
#pragma omp single
    team = static_cast<unsigned>(omp_get_num_threads());

    fp::measure(impl, team, o, [&o](best_type& best) {
        std::uint64_t tasks = 0;
        const fp::layout root;
        best_type* b = &best;
#pragma omp parallel num_threads(static_cast<int>(o.workers))
#pragma omp single
        tasks = search(o.in->cells, &root, 1, fp::footprint{0, 0}, b, o.serial_from());
        return tasks;
    });
    return 0;
}
