// FFT on one thread: the recursion of fft.hpp with every task called in place (no task
// at all): the floor the task-parallel versions are measured against.
#include "fft/fft.hpp"

int main(int argc, char** argv) {
    namespace fft = weft::bench::fft;
    const fft::options o = fft::parse_options(argc, argv);
    // One thread whatever --workers says.
    fft::measure("serial", 1, o, [](std::size_t n, fft::complex* in, fft::complex* out) {
        fft::transform_serial(n, in, out);
    });
    return 0;
}
