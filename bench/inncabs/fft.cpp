// INNCABS FFT (seed 000 Table 7: recursive balanced, no synchronisation, ~1 us tasks, very
// fine and variable): Cilk's recursive mixed-radix Cooley-Tukey FFT of n complex values,
// as the suite took it from Cilk, with an async per task. The roots table, the unshuffle
// and the twiddle loops split their range in halves, an async per half and a join, down to
// a grain (128, or 16 for the unshuffle of an odd radix, or a single index for the twiddle
// of an odd radix: the finest tasks); each Cooley-Tukey step runs its r sub-transforms as r
// asyncs and joins them. The launch policy is passed down every recursion. The radices,
// grains and leaf kernels are bench/fft/fft.hpp's (BOTS's fft is the same algorithm).
//
// Sizes: --n=N (default 1000000, the suite's standard input in its run.rb: radices 16, 4
// and 5 six times, 2,295,754 tasks; small: --n=4096, 226 tasks). The input is
// pseudo-random (fft.hpp), not the original's 1 + 1i everywhere, whose transform is a
// single spike.
//
// Check: the serial transform (same kernels, no task) is validated once against a direct
// DFT at a few outputs and by a round trip (fft.hpp); every run must equal it bit for bit.
// Each run transforms the same input buffer in place (the algorithm clobbers its input);
// the check, untimed, restores that buffer and clears the output for the next run.
#include "inncabs/inncabs.hpp"

#include "fft/fft.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace fft = weft::bench::fft;
using fft::complex;

void roots(std::size_t n, std::size_t a, std::size_t b, complex* w, const inncabs::launch l) {
    if (b - a < fft::roots_grain) {
        fft::roots_leaf(n, a, b, w);
        return;
    }
    const std::size_t ab = a + (b - a) / 2;
    inncabs::future<void> x = inncabs::async(l, roots, n, a, ab, w, l);
    inncabs::future<void> y = inncabs::async(l, roots, n, ab, b, w, l);
    x.get();
    y.get();
}

void unshuffle(std::size_t a, std::size_t b, const complex* in, complex* out, std::size_t r, std::size_t m,
               const inncabs::launch l) {
    if (b - a < fft::unshuffle_grain_of(r)) {
        fft::unshuffle_leaf(a, b, in, out, r, m);
        return;
    }
    const std::size_t ab = a + (b - a) / 2;
    inncabs::future<void> x = inncabs::async(l, unshuffle, a, ab, in, out, r, m, l);
    inncabs::future<void> y = inncabs::async(l, unshuffle, ab, b, in, out, r, m, l);
    x.get();
    y.get();
}

void twiddle(std::size_t a, std::size_t b, const complex* in, complex* out, const complex* w, std::size_t nw,
             std::size_t nwdn, std::size_t r, std::size_t m, const inncabs::launch l) {
    if (b - a < fft::twiddle_grain_of(r)) {
        fft::twiddle_leaf(a, b, in, out, w, nw, nwdn, r, m);
        return;
    }
    const std::size_t ab = a + (b - a) / 2;
    inncabs::future<void> x = inncabs::async(l, twiddle, a, ab, in, out, w, nw, nwdn, r, m, l);
    inncabs::future<void> y = inncabs::async(l, twiddle, ab, b, in, out, w, nw, nwdn, r, m, l);
    x.get();
    y.get();
}

// out = DFT_n(in), in clobbered; radices: n's factor list from this level on.
void transform_rec(std::size_t n, complex* in, complex* out, const std::size_t* radices, const complex* w,
                   std::size_t nw, const inncabs::launch l) {
    if (fft::is_base(n)) {
        fft::base_leaf(n, in, out, w, nw);
        return;
    }
    const std::size_t r = radices[0];
    const std::size_t m = n / r;
    if (r < n) {
        unshuffle(0, m, in, out, r, m, l);
        std::vector<inncabs::future<void>> subs;
        subs.reserve(r);
        for (std::size_t k = 0; k < n; k += m) {
            subs.push_back(inncabs::async(l, transform_rec, m, out + k, in + k, radices + 1, w, nw, l));
        }
        for (inncabs::future<void>& f : subs) f.get();
    }
    twiddle(0, m, in, out, w, nw, nw / n, r, m, l);
}

// The original's fft(): the roots table (with tasks), the factors, the transform.
void transform(std::size_t n, complex* in, complex* out, const inncabs::launch l) {
    const std::unique_ptr<complex[]> w(new complex[n + 1]);
    roots(n, 0, n / 2 + 1, w.get(), l);
    const std::vector<std::size_t> radices = fft::factor_list(n);
    transform_rec(n, in, out, radices.data(), w.get(), n, l);
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t n = 1000000;
    const inncabs::common_options o = inncabs::parse(
        argc, argv, "inncabs fft: recursive Cooley-Tukey FFT of n complex values, an async per split and sub-transform",
        {{"n", "a length from 2 to 67108864 (a large prime is one quadratic DFT)", [&n](std::string_view v) {
              return inncabs::parse_number(v, n, std::size_t{2}, std::size_t{1} << 26);
          }}});

    const std::vector<complex> x = fft::generate(n);
    double error = 0;
    const char* why = nullptr;
    const std::vector<complex> reference = fft::validated_reference(x, error, why);
    if (why != nullptr) {
        std::fprintf(stderr, "inncabs fft: %s (error / bound = %g)\n", why, error);
        return inncabs::exit_wrong;
    }
    std::vector<complex> in = x;
    std::vector<complex> out(n);
    return inncabs::run(
        "fft", o, std::to_string(n), fft::tasks_created(n),
        [&] {
            transform(n, in.data(), out.data(), o.policy);
            return &out;
        },
        [&](std::vector<complex>* result) {
            const bool ok = fft::identical(*result, reference);
            const std::string value = std::to_string(fft::hash(*result));
            in = x;  // untimed: the next run's input, and an output that no run has written
            std::fill(result->begin(), result->end(), complex{0.0, 0.0});
            return inncabs::verdict{ok, ok ? value : value + " != the serial transform's " +
                                                          std::to_string(fft::hash(reference))};
        });
}
