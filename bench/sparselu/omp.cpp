// SparseLU on OpenMP tasks, as BOTS runs it: one thread of the team (`omp single`) is the
// producer; it factors each diagonal block itself, creates one `omp task` per fwd and
// bdiv, `omp taskwait`s, one `omp task` per bmod (allocating fill-in blocks as it goes),
// and `omp taskwait`s before the next diagonal block. The runtime's name comes from
// WEFT_BENCH_OMP_IMPL (scripts/bench sets "omp-libomp" for its clang build); otherwise it
// is guessed from the compiler.
#include "sparselu/sparselu.hpp"

#include <omp.h>

#include "omp_impl.hpp"

namespace {

namespace slu = weft::bench::sparselu;

// The same operations in the same order per block as slu::factor (sparselu.hpp).
void factor(slu::matrix& a) {
    const int nb = a.nb();
    const int bs = a.bs();
    for (int kk = 0; kk < nb; ++kk) {
        float* const diag = a.block(kk, kk);
        slu::lu0(diag, bs);
        for (int jj = kk + 1; jj < nb; ++jj) {
            float* c = a.block(kk, jj);
            if (c == nullptr) continue;
#pragma omp task firstprivate(diag, c, bs)
            slu::fwd(diag, c, bs);
        }
        for (int ii = kk + 1; ii < nb; ++ii) {
            float* r = a.block(ii, kk);
            if (r == nullptr) continue;
#pragma omp task firstprivate(diag, r, bs)
            slu::bdiv(diag, r, bs);
        }
#pragma omp taskwait
        for (int ii = kk + 1; ii < nb; ++ii) {
            const float* r = a.block(ii, kk);
            if (r == nullptr) continue;
            for (int jj = kk + 1; jj < nb; ++jj) {
                const float* c = a.block(kk, jj);
                if (c == nullptr) continue;
                float* t = a.block(ii, jj);
                if (t == nullptr) t = a.allocate(ii, jj);
#pragma omp task firstprivate(r, c, t, bs)
                slu::bmod(r, c, t, bs);
            }
        }
#pragma omp taskwait
    }
}

}  // namespace

int main(int argc, char** argv) {
    constexpr const char* impl = WEFT_BENCH_OMP_IMPL;
    const slu::options o = slu::parse_options(argc, argv);
    omp_set_dynamic(0);

    unsigned team = 0;
#pragma omp parallel num_threads(static_cast<int>(o.workers))
#pragma omp single
    team = static_cast<unsigned>(omp_get_num_threads());

    slu::measure(impl, team, o, [&o](slu::matrix& a) {
#pragma omp parallel num_threads(static_cast<int>(o.workers))
#pragma omp single
        factor(a);
    });
    return 0;
}
