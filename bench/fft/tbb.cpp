// FFT on oneTBB: the recursion of fft.hpp with tbb::task_group: every split of the roots,
// unshuffle and twiddle loops runs its two halves as children and waits for them; each
// Cooley-Tukey step runs its r sub-transforms as children and waits for them.
#include "fft/fft.hpp"

#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <cstddef>

int main(int argc, char** argv) {
    namespace fft = weft::bench::fft;
    constexpr const char* impl = "tbb-task_group";
    const fft::options o = fft::parse_options(argc, argv);

    // The arena's slot for the calling thread counts as one of the --workers.
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(o.workers));
    tbb::task_arena arena(static_cast<int>(o.workers));
    arena.initialize();
    const auto workers = static_cast<unsigned>(arena.max_concurrency());

    fft::measure(impl, workers, o, [&arena](std::size_t n, fft::complex* in, fft::complex* out) {
        arena.execute([=] { fft::transform<tbb::task_group>(n, in, out); });
    });
    return 0;
}
