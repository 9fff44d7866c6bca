// Strassen on OpenMP tasks, as BOTS runs it: one thread of the team (`omp single`) starts
// the recursion; every step above the size cutoff makes its 7 products `omp task untied`
// when its depth is below the depth cutoff (BOTS's manual cutoff: deeper steps call the
// serial recursion), `omp taskwait`s and combines. The steps are strassen.hpp's. The
// runtime's name comes from WEFT_BENCH_OMP_IMPL (scripts/bench sets "omp-libomp" for its
// clang build); otherwise it is guessed from the compiler.
#include "strassen/strassen.hpp"

#include <omp.h>

#include "omp_impl.hpp"

namespace {

namespace st = weft::bench::strassen;

void multiply(const st::params* p, st::product m, int depth) {
    if (m.n <= p->cutoff || depth >= p->depth_cutoff) {
        st::multiply<st::inline_group>(*p, m, depth);
        return;
    }
    st::step s(m.c, m.a, m.b, m.n, m.rc, m.ra, m.rb);
    for (const st::product& x : s.products()) {
#pragma omp task untied firstprivate(p, x, depth)
        multiply(p, x, depth + 1);
    }
#pragma omp taskwait
    s.combine();
}

}  // namespace

int main(int argc, char** argv) {
    constexpr const char* impl = WEFT_BENCH_OMP_IMPL;
    const st::options o = st::parse_options(argc, argv);
    omp_set_dynamic(0);

    unsigned team = 0;
#pragma omp parallel num_threads(static_cast<int>(o.workers))
#pragma omp single
    team = static_cast<unsigned>(omp_get_num_threads());

    const st::params* p = &o.p;
    st::measure(impl, team, o, [&](const st::product& m) {
#pragma omp parallel num_threads(static_cast<int>(o.workers))
#pragma omp single
        multiply(p, m, 1);
    });
    return 0;
}
