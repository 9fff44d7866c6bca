// FFT on weft: the recursion of fft.hpp with weft::task_group: every split of the roots,
// unshuffle and twiddle loops runs its two halves as children and joins them; each
// Cooley-Tukey step runs its r sub-transforms as children and joins them.
#include "fft/fft.hpp"

#include <weft/weft.hpp>

int main(int argc, char** argv) {
    namespace fft = weft::bench::fft;
    weft::runtime rt(argc, argv);  // --weft:threads=W --weft:scheduler=S (scripts/bench passes them)
    const fft::options o = fft::parse_options(argc, argv);
    fft::measure("weft-fork_join", rt.num_workers(), o, [](std::size_t n, fft::complex* in, fft::complex* out) {
        weft::async([=] { fft::transform<weft::task_group>(n, in, out); }).get();
    });
    return 0;
}
