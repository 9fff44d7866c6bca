// 10^6 tiny independent tasks on OpenMP: one thread in `omp single` creates them, then
// `omp taskwait`. Each task increments its own slot of a vector; checked after timing.
// The runtime's name comes from WEFT_BENCH_OMP_IMPL, as in bench/fib/omp.cpp.
#include "common/bench_common.hpp"

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "omp_impl.hpp"

int main(int argc, char** argv) {
    namespace wb = weft::bench;
    constexpr char const* impl = WEFT_BENCH_OMP_IMPL;
    wb::options const o = wb::parse_options(argc, argv);
    auto const tasks = static_cast<std::size_t>(o.tasks);
    omp_set_dynamic(0);

    std::vector<std::uint32_t> slots(tasks);
    unsigned team = 0;
    auto const run = [&] {
        std::uint32_t* const s = slots.data();
#pragma omp parallel num_threads(static_cast<int>(o.workers))
#pragma omp single
        {
            team = static_cast<unsigned>(omp_get_num_threads());
            for (std::size_t i = 0; i < tasks; ++i) {
#pragma omp task firstprivate(s, i)
                ++s[i];
            }
#pragma omp taskwait
        }
    };
    // Every slot must hold exactly 1: a lost or doubled task shows as a wrong sum or slot.
    auto const check = [&] {
        std::uint64_t sum = 0;
        for (std::uint32_t const v : slots) {
            if (v != 1) {
                wb::fail_check("tiny_tasks", impl, v, 1);
            }
            sum += v;
        }
        return sum;
    };

    (void)wb::time_seconds(run);  // warm-up: starts the thread team
    (void)check();
    for (unsigned rep = 0; rep < o.reps; ++rep) {
        std::fill(slots.begin(), slots.end(), 0u);
        double const seconds = wb::time_seconds(run);
        std::uint64_t const sum = check();
        wb::print_result("tiny_tasks", impl, team, o.tasks, o.tasks, seconds, sum);
    }
    return 0;
}
