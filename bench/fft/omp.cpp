// FFT on OpenMP tasks, as BOTS runs it: one thread of the team (`omp single`) starts the
// transform; every split of the roots, unshuffle and twiddle loops makes one `omp task`
// per half and `omp taskwait`s; each Cooley-Tukey step makes one `omp task` per
// sub-transform and `omp taskwait`s. (BOTS's tasks are untied and its splits do not wait
// for their halves, relying on the taskwait of the step that started them, which only
// waits for children; here every split joins its halves, as in the other versions.)
// The leaf kernels are fft.hpp's. The runtime's name comes from WEFT_BENCH_OMP_IMPL
// (scripts/bench sets "omp-libomp" for its clang build); otherwise it is guessed from the
// compiler.
#include "fft/fft.hpp"

#include <omp.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "omp_impl.hpp"

namespace {

namespace fft = weft::bench::fft;
using fft::complex;

void roots(std::size_t n, std::size_t a, std::size_t b, complex* w) {
    if (b - a < fft::roots_grain) {
        fft::roots_leaf(n, a, b, w);
        return;
    }
    const std::size_t ab = a + (b - a) / 2;
#pragma omp task firstprivate(n, a, ab, w)
    roots(n, a, ab, w);
#pragma omp task firstprivate(n, ab, b, w)
    roots(n, ab, b, w);
#pragma omp taskwait
}

void unshuffle(std::size_t a, std::size_t b, const complex* in, complex* out, std::size_t r, std::size_t m) {
    if (b - a < fft::unshuffle_grain_of(r)) {
        fft::unshuffle_leaf(a, b, in, out, r, m);
        return;
    }
    const std::size_t ab = a + (b - a) / 2;
#pragma omp task firstprivate(a, ab, in, out, r, m)
    unshuffle(a, ab, in, out, r, m);
#pragma omp task firstprivate(ab, b, in, out, r, m)
    unshuffle(ab, b, in, out, r, m);
#pragma omp taskwait
}

void twiddle(std::size_t a, std::size_t b, const complex* in, complex* out, const complex* w, std::size_t nw,
             std::size_t nwdn, std::size_t r, std::size_t m) {
    if (b - a < fft::twiddle_grain_of(r)) {
        fft::twiddle_leaf(a, b, in, out, w, nw, nwdn, r, m);
        return;
    }
    const std::size_t ab = a + (b - a) / 2;
#pragma omp task firstprivate(a, ab, in, out, w, nw, nwdn, r, m)
    twiddle(a, ab, in, out, w, nw, nwdn, r, m);
#pragma omp task firstprivate(ab, b, in, out, w, nw, nwdn, r, m)
    twiddle(ab, b, in, out, w, nw, nwdn, r, m);
#pragma omp taskwait
}

void transform_rec(std::size_t n, complex* in, complex* out, const std::size_t* radices, const complex* w,
                   std::size_t nw) {
    if (fft::is_base(n)) {
        fft::base_leaf(n, in, out, w, nw);
        return;
    }
    const std::size_t r = radices[0];
    const std::size_t m = n / r;
    if (r < n) {
        unshuffle(0, m, in, out, r, m);
        for (std::size_t k = 0; k < n; k += m) {
#pragma omp task firstprivate(m, k, in, out, radices, w, nw)
            transform_rec(m, out + k, in + k, radices + 1, w, nw);
        }
#pragma omp taskwait
    }
    twiddle(0, m, in, out, w, nw, nw / n, r, m);
}

// fft::transform's steps, in the calling task.
void transform(std::size_t n, complex* in, complex* out) {
    const std::unique_ptr<complex[]> w(new complex[n + 1]);
    roots(n, 0, n / 2 + 1, w.get());
    const std::vector<std::size_t> radices = fft::factor_list(n);
    transform_rec(n, in, out, radices.data(), w.get(), n);
}

}  // namespace

int main(int argc, char** argv) {
    constexpr const char* impl = WEFT_BENCH_OMP_IMPL;
    const fft::options o = fft::parse_options(argc, argv);
    omp_set_dynamic(0);

    unsigned team = 0;
#pragma omp parallel num_threads(static_cast<int>(o.workers))
#pragma omp single
    team = static_cast<unsigned>(omp_get_num_threads());

    fft::measure(impl, team, o, [&o](std::size_t n, complex* in, complex* out) {
#pragma omp parallel num_threads(static_cast<int>(o.workers))
#pragma omp single
        transform(n, in, out);
    });
    return 0;
}
