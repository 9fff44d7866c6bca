// The 1D heat stencil on one thread, partition by partition in the order a task runtime
// would run them, with no task at all: the floor each parallel version's overhead is
// measured against at the same points per partition.
#include "stencil/common.hpp"

#include <cstddef>
#include <vector>

int main(int argc, char** argv) {
    namespace wb = weft::bench;
    namespace st = weft::bench::stencil;
    const st::problem p = st::parse_problem(argc, argv);
    std::vector<double> next(p.nx);

    st::measure("serial", 1, p, [&](std::vector<double>& grid) {
        const double seconds = wb::time_seconds([&] {
            for (unsigned t = 0; t < p.nt; ++t) {
                for (std::size_t part = 0; part < p.partitions(); ++part) {
                    st::heat_partition(p, grid.data(), next.data(), part);
                }
                grid.swap(next);
            }
        });
        return seconds;
    });
    return 0;
}
