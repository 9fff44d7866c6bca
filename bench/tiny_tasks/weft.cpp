// 10^6 tiny independent tasks on weft, created by one thread, then waited for. Each
// task increments its own slot; the slots are checked after timing.
//   weft-task_group      one task runs them all through a task_group, then wait()
//                        (the shape of the oneTBB anchor)
//   weft-post            one task posts them all; the runtime waits for quiescence
//   weft-async           one task keeps a future per task, then gets them all
//   weft-post-external   the main (non-worker) thread posts them all: every post
//                        crosses into a worker's inbox
#include "common/bench_common.hpp"

#include <weft/weft.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

int main(int argc, char** argv) {
    namespace wb = weft::bench;
    weft::runtime rt(argc, argv);
    const wb::options o = wb::parse_options(argc, argv);
    const auto tasks = static_cast<std::size_t>(o.tasks);
    const unsigned workers = rt.num_workers();
    std::vector<std::uint32_t> slots(tasks);
    std::uint32_t* const s = slots.data();

    const auto check = [&](const char* impl) {
        std::uint64_t sum = 0;
        for (const std::uint32_t v : slots) {
            if (v != 1) wb::fail_check("tiny_tasks", impl, v, 1);
            sum += v;
        }
        return sum;
    };

    struct variant {
        const char* impl;
        void (*body)(std::uint32_t*, std::size_t, weft::runtime&);
    };
    const variant variants[] = {
        {"weft-task_group",
         [](std::uint32_t* sl, std::size_t n, weft::runtime&) {
             weft::async([sl, n] {
                 weft::task_group g;
                 for (std::size_t i = 0; i < n; ++i) g.run([sl, i] { ++sl[i]; });
                 g.wait();
             }).get();
         }},
        {"weft-post",
         [](std::uint32_t* sl, std::size_t n, weft::runtime& r) {
             weft::post([sl, n] {
                 for (std::size_t i = 0; i < n; ++i) weft::post([sl, i] { ++sl[i]; });
             });
             r.wait();
         }},
        {"weft-async",
         [](std::uint32_t* sl, std::size_t n, weft::runtime&) {
             weft::async([sl, n] {
                 std::vector<weft::future<void>> fs;
                 fs.reserve(n);
                 for (std::size_t i = 0; i < n; ++i) fs.push_back(weft::async([sl, i] { ++sl[i]; }));
                 for (auto& f : fs) f.get();
             }).get();
         }},
        {"weft-post-external",
         [](std::uint32_t* sl, std::size_t n, weft::runtime& r) {
             for (std::size_t i = 0; i < n; ++i) weft::post([sl, i] { ++sl[i]; });
             r.wait();
         }},
    };
    for (const variant& v : variants) {
        std::fill(slots.begin(), slots.end(), 0u);
        v.body(s, tasks, rt);  // warm-up
        (void)check(v.impl);
        for (unsigned rep = 0; rep < o.reps; ++rep) {
            std::fill(slots.begin(), slots.end(), 0u);
            const double seconds = wb::time_seconds([&] { v.body(s, tasks, rt); });
            const std::uint64_t sum = check(v.impl);
            wb::print_result("tiny_tasks", v.impl, workers, o.tasks, o.tasks, seconds, sum);
        }
    }
    return 0;
}
