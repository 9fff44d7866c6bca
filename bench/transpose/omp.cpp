// The transpose with OpenMP as PRK's OpenMP version is written: one `parallel for
// schedule(static)` over the rows of tiles per iteration (each thread a contiguous band
// of A's rows, and of B's columns), and the same for the first touch.
// The runtime's name comes from WEFT_BENCH_OMP_IMPL; otherwise "omp-static".
#include "transpose/common.hpp"

#include <omp.h>

#include <cstddef>

#if !defined(WEFT_BENCH_OMP_IMPL)
#define WEFT_BENCH_OMP_IMPL "omp-static"
#endif

namespace {

namespace tr = weft::bench::transpose;

struct omp_tiles {
    template <class Body>
    void for_tiles(std::size_t tiles, const Body& body) const {
#pragma omp parallel for schedule(static)
        for (std::size_t ti = 0; ti < tiles; ++ti)
            for (std::size_t tj = 0; tj < tiles; ++tj) body(ti, tj);
    }
};

}  // namespace

int main(int argc, char** argv) {
    const tr::problem p = tr::parse_problem(argc, argv);
    omp_set_dynamic(0);
    omp_set_num_threads(static_cast<int>(p.workers));

    unsigned team = 0;
#pragma omp parallel
#pragma omp single
    team = static_cast<unsigned>(omp_get_num_threads());

    omp_tiles t;
    tr::run(WEFT_BENCH_OMP_IMPL, team, p, t);
    return 0;
}
