// N-queens on OpenMP tasks: at every row above the cutoff (default: every row), one
// `omp task` per column tried; each copies the board, places its queen and, if it is
// safe, searches on; the parent `omp taskwait`s and adds up the solution counts the
// children left in their own slots. The runtime's name comes from WEFT_BENCH_OMP_IMPL
// (scripts/bench sets "omp-libomp" for its clang build); otherwise it is guessed from the
// compiler.
#include "nqueens/nqueens.hpp"

#include <omp.h>

#include <cstdint>

#include "omp_impl.hpp"

namespace {

namespace nq = weft::bench::nqueens;

std::uint64_t place(int n, int row, const nq::board* b, int serial_from) {
    if (row == n) return 1;
    if (row >= serial_from) return nq::search(n, row, *b);
    std::uint64_t found[nq::max_n] = {};
    std::uint64_t* slots = found;
    for (int col = 0; col < n; ++col) {
#pragma omp task firstprivate(n, row, b, slots, col, serial_from)
        {
            nq::board next = *b;
            next.col[row] = static_cast<std::int8_t>(col);
            slots[col] = nq::safe(next, row) ? place(n, row + 1, &next, serial_from) : 0;
        }
    }
#pragma omp taskwait
    std::uint64_t total = 0;
    for (int col = 0; col < n; ++col) total += found[col];
    return total;
}

}  // namespace

int main(int argc, char** argv) {
    constexpr const char* impl = WEFT_BENCH_OMP_IMPL;
    const nq::options o = nq::parse_options(argc, argv);
    const int serial_from = o.serial_from();
    omp_set_dynamic(0);

    unsigned team = 0;
#pragma omp parallel num_threads(static_cast<int>(o.workers))
#pragma omp single
    team = static_cast<unsigned>(omp_get_num_threads());

    nq::measure(impl, team, o, nq::tasks_created(o.n, serial_from), [&] {
        std::uint64_t found = 0;
        const nq::board empty{};
#pragma omp parallel num_threads(static_cast<int>(o.workers))
#pragma omp single
        found = place(o.n, 0, &empty, serial_from);
        return found;
    });
    return 0;
}
