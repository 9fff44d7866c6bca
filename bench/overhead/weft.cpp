// Seed 004 Fig. 9's task-management overhead (bench/overhead/overhead_common.hpp) on weft.
// The main thread is not a worker: it starts one task, which spawns the n tasks and
// waits for them (the seed's single producer, L170). Three ways to spawn:
//   weft-task_group  task_group::run per task, then wait() (the shape of the oneTBB anchor)
//   weft-async       weft::async per task, keeping the futures, then get() on each
//   weft-post        weft::post per task (fire and forget, as the seed's HPX threads were
//                    registered); the main thread waits for quiescence (runtime::wait)
// Shape `tree` splits [0, n) recursively instead: each split spawns its left half the
// same way and recurses into the right; weft-post's splits do not wait at all.
// --workers=N, when given, becomes --weft:threads=N (and must match it if both are given).
#include "overhead/overhead_common.hpp"

#include <weft/weft.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace ov = weft::bench::overhead;

void tree_task_group(ov::job const& j, std::uint64_t lo, std::uint64_t hi) {
    if (hi - lo == 1) {
        j(lo);
        return;
    }
    std::uint64_t const mid = lo + (hi - lo) / 2;
    weft::task_group g;
    g.run([&j, lo, mid] { tree_task_group(j, lo, mid); });
    tree_task_group(j, mid, hi);
    g.wait();
}

void tree_async(ov::job const& j, std::uint64_t lo, std::uint64_t hi) {
    if (hi - lo == 1) {
        j(lo);
        return;
    }
    std::uint64_t const mid = lo + (hi - lo) / 2;
    weft::future<void> left = weft::async([&j, lo, mid] { tree_async(j, lo, mid); });
    tree_async(j, mid, hi);
    left.get();
}

// The job lives in the caller's frame until runtime::wait() returns, so a pointer will do.
void tree_post(ov::job const* j, std::uint64_t lo, std::uint64_t hi) {
    while (hi - lo > 1) {
        std::uint64_t const mid = lo + (hi - lo) / 2;
        weft::post([j, lo, mid] { tree_post(j, lo, mid); });
        lo = mid;
    }
    (*j)(lo);
}

}  // namespace

int main(int argc, char** argv) {
    ov::program const prog{"bench_overhead_weft", {"weft-task_group", "weft-async", "weft-post"}, 1000000, false};
    // The options first (parse_command_line skips --weft:*), then the calibration and the
    // serial measurement, before the runtime starts workers that would share the cores.
    ov::options const o = ov::parse_options(argc, argv, prog);
    std::vector<ov::point> const points = ov::prepare(o);

    std::vector<char*> args(argv, argv + argc);
    std::string threads_option;
    bool threads_given = false;
    for (int i = 1; i < argc; ++i) {
        threads_given = threads_given || std::string_view(argv[i]).starts_with("--weft:threads=");
    }
    if (o.workers != 0 && !threads_given) {
        threads_option = "--weft:threads=" + std::to_string(o.workers);
        args.push_back(threads_option.data());
    }
    int args_count = static_cast<int>(args.size());
    weft::runtime rt(args_count, args.data());
    unsigned const workers = rt.num_workers();
    if (o.workers != 0 && o.workers != workers) {
        std::fprintf(stderr, "%s: bad --workers=%u: the runtime has %u workers (--weft:threads); give one or equal both\n",
                     prog.name, o.workers, workers);
        return 2;
    }

    ov::run_all(o, points, workers, "", [&rt](std::string const& impl, ov::shape s, std::uint64_t n, ov::job const& j) {
        bool const flat = s == ov::shape::flat;
        if (impl == "weft-task_group") {
            weft::async([&j, n, flat] {
                if (!flat) {
                    tree_task_group(j, 0, n);
                    return;
                }
                weft::task_group g;
                for (std::uint64_t i = 0; i < n; ++i) g.run([&j, i] { j(i); });
                g.wait();
            }).get();
        } else if (impl == "weft-async") {
            weft::async([&j, n, flat] {
                if (!flat) {
                    tree_async(j, 0, n);
                    return;
                }
                std::vector<weft::future<void>> fs;
                fs.reserve(n);
                for (std::uint64_t i = 0; i < n; ++i) fs.push_back(weft::async([&j, i] { j(i); }));
                for (weft::future<void>& f : fs) f.get();
            }).get();
        } else {
            ov::job const* const jp = &j;
            weft::post([jp, n, flat] {
                if (!flat) {
                    tree_post(jp, 0, n);
                    return;
                }
                for (std::uint64_t i = 0; i < n; ++i) weft::post([jp, i] { (*jp)(i); });
            });
            rt.wait();
        }
    });
    return 0;
}
