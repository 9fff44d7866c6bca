// Issue #25's distributed STREAM (bench/stream/weft_distributed.hpp) and segmented reduce
// against MPI_Allreduce (bench/distributed/reduce.hpp) under mpirun, run by ctest at 1, 2
// and 4 ranks (4 on 2 cores: oversubscribed), so that CI (which does not build bench/)
// runs the benchmarks' own code, sanitizers included.
//   apps stream               locality 0 runs STREAM on small arrays: one partition per
//                             locality, more partitions than localities (uneven), more
//                             partitions than elements (empty ones); every element of
//                             a, b and c must equal STREAM's scalar result, and every
//                             kernel must have a time per measured iteration
//   apps reduce --weft:spmd   every locality runs the reduce comparison (weft's segmented
//                             reduce and std::reduce + MPI_Allreduce, both checked
//                             exactly) on sizes that give every locality a share, uneven
//                             shares, and fewer elements than localities (empty ones)
#include "distributed/reduce.hpp"
#include "stream/weft_distributed.hpp"

#include "check.hpp"

#include <weft/distributed.hpp>
#include <weft/weft.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>

namespace {

namespace sm = weft::bench::stream;

int run_stream() {
    struct case_t {
        std::size_t n, parts;
        unsigned reps;
    };
    const case_t cases[] = {{1001, 0, 2}, {1001, 3, 1}, {10, 7, 2}, {3, 5, 1}};
    for (const case_t& c : cases) {
        sm::problem p;
        p.n = c.n;
        p.reps = c.reps;
        const sm::distributed::outcome out = sm::distributed::run(p, c.parts);
        const auto want = sm::expected_final(p.reps + 1);
        const sm::array* got[] = {&out.a, &out.b, &out.c};
        for (std::size_t k = 0; k < 3; ++k) {
            CHECK(got[k]->size() == c.n);
            std::size_t wrong = 0;
            for (std::size_t j = 0; j < got[k]->size(); ++j)
                if (!(std::fabs(got[k]->data()[j] - want[k]) <= sm::check_epsilon * std::fabs(want[k]))) ++wrong;
            if (wrong != 0) {
                std::fprintf(stderr, "stream n=%zu parts=%zu: %zu elements of array %zu wrong\n", c.n, c.parts, wrong, k);
                ++weft_test::failures;
            }
        }
        for (const auto& s : out.t.seconds) CHECK(s.size() == c.reps);
    }
    return weft_test::failures;
}

int run_reduce() {
    const std::uint64_t sizes[] = {1001, 1000, 3, 1};
    for (const std::uint64_t n : sizes)
        if (weft::bench::distributed_reduce::body({n, 2}) != 0) {
            std::fprintf(stderr, "locality %u: reduce n=%llu wrong\n", weft::get_locality_id(),
                         static_cast<unsigned long long>(n));
            ++weft_test::failures;
        }
    return weft_test::failures;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string_view mode = argc > 1 ? argv[1] : "";
    if (mode != "stream" && mode != "reduce") {
        std::fprintf(stderr, "usage: mpirun -np N %s stream | reduce --weft:spmd\n", argv[0]);
        return 2;
    }
    const int rc = weft::run(argc, argv, [mode](int, char**) -> int { return mode == "stream" ? run_stream() : run_reduce(); });
    std::printf("apps %s: locality done, %d failures\n", argv[1], weft_test::failures);
    return rc != 0 ? rc : weft_test::failures;
}
