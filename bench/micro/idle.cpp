// Idle behaviour: the CPU an idle runtime burns (workers spin briefly, then park), and
// how soon a task posted to an idle runtime starts.
// Run: build/bench/bench_micro_idle --weft:threads=2
#include <weft/weft.hpp>

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <thread>

namespace {
double cpu_seconds() {
    rusage r{};
    getrusage(RUSAGE_SELF, &r);
    return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
           static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}
}  // namespace

int main(int argc, char** argv) {
    weft::runtime rt(argc, argv);
    weft::async([] { return 1; }).get();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // let the workers park
    const double c0 = cpu_seconds();
    std::this_thread::sleep_for(std::chrono::seconds(2));
    const double c1 = cpu_seconds();
    const auto posted = std::chrono::steady_clock::now();
    const double start_us = weft::async([posted] {
                                return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() -
                                                                                 posted)
                                    .count();
                            }).get();
    std::printf("idle 2 s with %u workers: %.4f s CPU; a task posted to the idle runtime started %.0f us later\n",
                rt.num_workers(), c1 - c0, start_us);
    return 0;
}
