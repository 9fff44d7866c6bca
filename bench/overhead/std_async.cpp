// Seed 004 Fig. 9's task-management overhead (bench/overhead/overhead_common.hpp) with
// std::async(std::launch::async): one OS thread per task, the baseline the seed's
// lightweight HPX threads are meant to beat (L138: "Thread overhead is ~3-5 microseconds").
//
// "Workers" has no meaning for std::async, so the process is bound to the first W CPUs it
// may use (sched_setaffinity): W is then the cores its threads share, as the seed's
// "number of cores utilized" (L170). The main thread spawns the tasks; since 10^6 live OS
// threads are not feasible (thread and memory limits), the tasks run in waves of at most
// --wave (default 256) threads, each wave joined before the next starts (a deviation the
// result line states with wave=K). Shape `tree` splits each wave recursively: every split
// starts a thread for its left half and recurses into the right. The default --max-tasks
// is 5000, not 10^6: at 10-300 us per thread (the latter in this project's VM) the seed's
// count would take 10-300 s per point (--tasks or --max-tasks raise it). A thread that cannot be started is reported
// (the system_error's text, the task and the wave) and the program exits 1.
#include "overhead/overhead_common.hpp"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <future>
#include <string>
#include <system_error>
#include <vector>

namespace {

namespace ov = weft::bench::overhead;

// Starts f on a thread of its own; a thread the system refuses ends the program.
template <class F>
std::future<void> start_thread(F&& f, std::uint64_t task, std::uint64_t wave) {
    try {
        return std::async(std::launch::async, static_cast<F&&>(f));
    } catch (std::system_error const& e) {
        std::fprintf(stderr,
                     "bench_overhead_std_async: FAILED: std::async could not start the thread of task %llu "
                     "(waves of %llu threads): %s\n",
                     static_cast<unsigned long long>(task), static_cast<unsigned long long>(wave), e.what());
        std::exit(1);
    }
}

void tree(ov::job const& j, std::uint64_t lo, std::uint64_t hi, std::uint64_t wave) {
    if (hi - lo == 1) {
        j(lo);
        return;
    }
    std::uint64_t const mid = lo + (hi - lo) / 2;
    std::future<void> left = start_thread([&j, lo, mid, wave] { tree(j, lo, mid, wave); }, lo, wave);
    tree(j, mid, hi, wave);
    left.get();
}

// Binds the process to the first `workers` CPUs of its current mask; false if it has fewer.
bool bind_to_first_cpus(unsigned workers) {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return false;
    cpu_set_t chosen;
    CPU_ZERO(&chosen);
    unsigned taken = 0;
    for (std::size_t cpu = 0; cpu < CPU_SETSIZE && taken < workers; ++cpu) {
        if (CPU_ISSET(cpu, &allowed)) {
            CPU_SET(cpu, &chosen);
            ++taken;
        }
    }
    return taken == workers && sched_setaffinity(0, sizeof chosen, &chosen) == 0;
}

}  // namespace

int main(int argc, char** argv) {
    ov::program const prog{"bench_overhead_std_async", {"std-async"}, 5000, true};
    ov::options const o = ov::parse_options(argc, argv, prog);
    unsigned const workers = weft::bench::default_workers(o.workers);
    if (!bind_to_first_cpus(workers)) {
        std::fprintf(stderr, "%s: cannot bind the process to %u CPUs (fewer allowed, or sched_setaffinity "
                             "refused: %s)\n",
                     prog.name, workers, std::strerror(errno));
        return 1;
    }
    // On the W CPUs the tasks will share, as the other programs measure on theirs.
    std::vector<ov::point> const points = ov::prepare(o);
    std::uint64_t const wave = o.wave;

    ov::run_all(o, points, workers, "wave=" + std::to_string(wave),
                [wave](std::string const&, ov::shape s, std::uint64_t n, ov::job const& j) {
                    std::vector<std::future<void>> threads;
                    threads.reserve(std::min(n, wave));
                    for (std::uint64_t lo = 0; lo < n; lo += wave) {
                        std::uint64_t const hi = std::min(n, lo + wave);
                        if (s == ov::shape::tree) {
                            tree(j, lo, hi, wave);
                            continue;
                        }
                        for (std::uint64_t i = lo; i < hi; ++i) {
                            threads.push_back(start_thread([&j, i] { j(i); }, i, wave));
                        }
                        for (std::future<void>& t : threads) t.get();
                        threads.clear();
                    }
                });
    return 0;
}
