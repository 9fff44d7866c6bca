// Alignment on OpenMP tasks, as BOTS's alignment_single runs it: one thread of the team
// (`omp single`) creates one untied `omp task` per pair of sequences, row by row, and
// `omp taskwait`s. Each task keeps its alignment's arrays on its thread's stack (~1.1 MB
// at most, alignment.hpp): within the default stacks of libgomp (the system's, 8 MiB) and
// libomp (4 MiB); OMP_STACKSIZE can raise them. The runtime's name comes from
// WEFT_BENCH_OMP_IMPL (scripts/bench sets "omp-libomp" for its clang build); otherwise it
// is guessed from the compiler.
#include "alignment/alignment.hpp"

#include <omp.h>

#include <cstddef>
#include <vector>

#include "omp_impl.hpp"

int main(int argc, char** argv) {
    namespace al = weft::bench::alignment;
    constexpr const char* impl = WEFT_BENCH_OMP_IMPL;
    const al::options o = al::parse_options(argc, argv);
    omp_set_dynamic(0);

    unsigned team = 0;
#pragma omp parallel num_threads(static_cast<int>(o.workers))
#pragma omp single
    team = static_cast<unsigned>(omp_get_num_threads());

    al::measure(impl, team, o, [&o](const al::scoring& sc, const al::sequence_set& s, std::vector<int>& out) {
        const al::scoring* psc = &sc;
        const al::sequence_set* ps = &s;
        int* results = out.data();
        const int n = s.count();
#pragma omp parallel num_threads(static_cast<int>(o.workers))
#pragma omp single
        {
            for (int si = 0; si < n; ++si) {
                for (int sj = si + 1; sj < n; ++sj) {
#pragma omp task untied firstprivate(psc, ps, results, n, si, sj)
                    results[static_cast<std::size_t>(si * n + sj)] = al::align_pair(*psc, *ps, si, sj);
                }
            }
#pragma omp taskwait
        }
    });
    return 0;
}
