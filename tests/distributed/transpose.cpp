// The distributed transpose of bench/transpose/weft_distributed.hpp (issue #25) under
// mpirun, run by ctest at 1, 2 and 4 ranks (4 on 2 cores: oversubscribed), so that CI
// (which does not build bench/) runs the benchmark's code, sanitizers included. Locality 0
// runs small orders (tiles that divide the blocks, partial tiles, a tile larger than a
// block, one element per block), with one and several row blocks per locality, and checks
// that PRK's error is exactly 0 and that every locality's workers were counted; an order
// that does not split into the row blocks must be refused.
#include "transpose/weft_distributed.hpp"

#include "check.hpp"

#include <weft/distributed.hpp>
#include <weft/weft.hpp>

#include <cstddef>
#include <cstdio>

namespace {

namespace tr = weft::bench::transpose;

int run_all() {
    const std::size_t localities = weft::get_num_localities();
    struct case_t {
        std::size_t order, tile, per_locality, slices;
        unsigned iterations;
    };
    // Every order is a multiple of 8 (up to 4 localities x 2 blocks). Slices: one request
    // per piece, several (some partial), more than the piece has bands of tile rows.
    const case_t cases[] = {
        {24, 5, 1, 1, 3},  {24, 64, 1, 16, 2}, {40, 3, 2, 2, 2},   {72, 8, 1, 1, 4},
        {72, 7, 2, 3, 1},  {8, 1, 2, 16, 2},   {128, 16, 1, 3, 2}, {128, 3, 1, 16, 2},
    };
    for (const case_t& c : cases) {
        tr::problem p;
        p.order = c.order;
        p.tile = c.tile;
        p.iterations = c.iterations;
        CHECK(tr::distributed::check_blocks(p.order, localities * c.per_locality).empty());
        const tr::distributed::outcome out = tr::distributed::run(p, c.per_locality, c.slices);
        if (out.error != 0.0 || out.seconds.size() != c.iterations) {
            std::fprintf(stderr, "order %zu tile %zu blocks per locality %zu slices %zu: error %.17g, %zu timings\n",
                         c.order, c.tile, c.per_locality, c.slices, out.error, out.seconds.size());
            ++weft_test::failures;
        }
        CHECK(out.workers == localities * weft::num_workers());  // the same --weft:threads everywhere
    }
    CHECK(!tr::distributed::check_blocks(7, 2).empty());
    CHECK(!tr::distributed::check_blocks(10, 4).empty());
    CHECK(tr::distributed::check_blocks(12, 4).empty());
    return weft_test::failures;
}

}  // namespace

int main(int argc, char** argv) {
    const int rc = weft::run(argc, argv, [](int, char**) -> int { return run_all(); });
    std::printf("transpose: locality done, %d failures\n", weft_test::failures);
    return rc != 0 ? rc : weft_test::failures;
}
