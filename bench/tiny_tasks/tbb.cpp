// 10^6 tiny independent tasks on oneTBB: tbb::task_group::run from one thread, then wait.
// Each task increments its own slot of a vector; the slots are checked after timing.
#include "common/bench_common.hpp"

#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

int main(int argc, char** argv) {
    namespace wb = weft::bench;
    constexpr char const* impl = "tbb-task_group";
    wb::options const o = wb::parse_options(argc, argv);
    auto const tasks = static_cast<std::size_t>(o.tasks);

    tbb::global_control const limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(o.workers));
    tbb::task_arena arena(static_cast<int>(o.workers));
    arena.initialize();
    auto const workers = static_cast<unsigned>(arena.max_concurrency());

    std::vector<std::uint32_t> slots(tasks);
    auto const run = [&] {
        arena.execute([&] {
            std::uint32_t* const s = slots.data();
            tbb::task_group g;
            for (std::size_t i = 0; i < tasks; ++i) {
                g.run([s, i] { ++s[i]; });
            }
            g.wait();
        });
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

    (void)wb::time_seconds(run);  // warm-up: starts the worker threads
    (void)check();
    for (unsigned rep = 0; rep < o.reps; ++rep) {
        std::fill(slots.begin(), slots.end(), 0u);
        double const seconds = wb::time_seconds(run);
        std::uint64_t const sum = check();
        wb::print_result("tiny_tasks", impl, workers, o.tasks, o.tasks, seconds, sum);
    }
    return 0;
}
