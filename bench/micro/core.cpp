// Micro-costs of weft's core primitives (Google Benchmark), with oneTBB's fork beside
// them in the same binary: one fork-join step, async + get, a yield (suspend and
// resume through the pending queue), and a suspend/resume ping-pong between two tasks.
// Run: build/bench/bench_micro_core --weft:threads=1
#include <weft/weft.hpp>

#include <benchmark/benchmark.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <cstdint>
#include <memory>
#include <utility>

namespace {

std::unique_ptr<weft::runtime> g_runtime;

template <class F>
void in_task(F&& f) {
    weft::async(std::forward<F>(f)).get();
}

void fork_join_one_child(benchmark::State& state) {
    in_task([&state] {
        std::uint64_t x = 0;
        for (auto _ : state) {
            weft::task_group g;
            g.run([&x] { benchmark::DoNotOptimize(++x); });
            g.wait();
        }
    });
}
BENCHMARK(fork_join_one_child);

void tbb_fork_join_one_child(benchmark::State& state) {
    tbb::task_arena arena(1);
    arena.execute([&state] {
        std::uint64_t x = 0;
        for (auto _ : state) {
            tbb::task_group g;
            g.run([&x] { benchmark::DoNotOptimize(++x); });
            g.wait();
        }
    });
}
BENCHMARK(tbb_fork_join_one_child);

void async_get(benchmark::State& state) {
    in_task([&state] {
        for (auto _ : state) benchmark::DoNotOptimize(weft::async([] { return 1; }).get());
    });
}
BENCHMARK(async_get);

void yield_switch(benchmark::State& state) {
    in_task([&state] {
        for (auto _ : state) weft::this_task::yield();
    });
}
BENCHMARK(yield_switch);

// A task waits on a promise that its parent sets: per iteration the waiter starts and
// suspends (the parent yields to let it), is resumed by set_value, and finishes while
// the parent waits for it: three suspensions and three resumptions in all.
void promise_wake(benchmark::State& state) {
    in_task([&state] {
        for (auto _ : state) {
            weft::promise<int> p;
            auto waiter = weft::async([f = p.get_future()]() mutable { return f.get(); });
            weft::this_task::yield();
            p.set_value(1);
            benchmark::DoNotOptimize(waiter.get());
        }
    });
}
BENCHMARK(promise_wake);

}  // namespace

int main(int argc, char** argv) {
    g_runtime = std::make_unique<weft::runtime>(argc, argv);  // takes --weft:* out of argv
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    g_runtime.reset();
    return 0;
}
