// Costs of weft's futures (issue 3 targets: a continuation <= 100 ns; make_ready_future
// without allocation): a then() chain of 10^6 links, async + get, when_all over 10^6
// futures, make_ready_future. Counts every global operator new to show which paths
// allocate. Run: build/bench/bench_micro_futures --weft:threads=1 (or 2)
#include <weft/weft.hpp>

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

namespace {
std::atomic<std::uint64_t> g_allocations{0};
}

// Global replacements that count allocations (the runtime's own pool counts too, once
// per 64 KiB chunk).
void* operator new(std::size_t n) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
    throw std::bad_alloc();
}
void* operator new(std::size_t n, std::align_val_t a) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    const auto al = static_cast<std::size_t>(a);
    if (void* p = std::aligned_alloc(al, (n + al - 1) / al * al)) return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace {

std::unique_ptr<weft::runtime> g_runtime;

template <class F>
void in_task(F&& f) {
    weft::async(std::forward<F>(f)).get();
}

void report_allocations(benchmark::State& state, std::uint64_t before, std::uint64_t items) {
    state.counters["allocs/item"] =
        static_cast<double>(g_allocations.load() - before) / static_cast<double>(items == 0 ? 1 : items);
}

void then_chain(benchmark::State& state) {
    const long n = state.range(0);
    in_task([&] {
        const auto a0 = g_allocations.load();
        for (auto _ : state) {
            weft::future<long> f = weft::make_ready_future(0L);
            for (long i = 0; i < n; ++i) f = f.then([](weft::future<long> x) { return x.get() + 1; });
            if (f.get() != n) state.SkipWithError("wrong chain result");
        }
        state.SetItemsProcessed(state.iterations() * n);
        report_allocations(state, a0, static_cast<std::uint64_t>(state.iterations() * n));
    });
}
BENCHMARK(then_chain)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

void then_chain_sync(benchmark::State& state) {
    const long n = state.range(0);
    in_task([&] {
        for (auto _ : state) {
            weft::promise<long> p;
            weft::future<long> f = p.get_future();
            for (long i = 0; i < n; ++i) f = f.then(weft::launch::sync, [](weft::future<long> x) { return x.get() + 1; });
            p.set_value(0);
            if (f.get() != n) state.SkipWithError("wrong chain result");
        }
        state.SetItemsProcessed(state.iterations() * n);
    });
}
BENCHMARK(then_chain_sync)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

void async_get(benchmark::State& state) {
    in_task([&] {
        const auto a0 = g_allocations.load();
        for (auto _ : state) benchmark::DoNotOptimize(weft::async([] { return 1; }).get());
        report_allocations(state, a0, static_cast<std::uint64_t>(state.iterations()));
    });
}
BENCHMARK(async_get);

void when_all_fan_in(benchmark::State& state) {
    const long n = state.range(0);
    in_task([&] {
        std::vector<weft::future<int>> v;
        for (auto _ : state) {
            state.PauseTiming();
            v.clear();
            v.reserve(static_cast<std::size_t>(n));
            for (long i = 0; i < n; ++i) v.push_back(weft::async([] { return 1; }));
            state.ResumeTiming();
            auto all = weft::when_all(v).get();
            benchmark::DoNotOptimize(all.data());
        }
        state.SetItemsProcessed(state.iterations() * n);
    });
}
BENCHMARK(when_all_fan_in)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

void make_ready_future_int(benchmark::State& state) {
    in_task([&] {
        const auto a0 = g_allocations.load();
        for (auto _ : state) benchmark::DoNotOptimize(weft::make_ready_future(42).get());
        report_allocations(state, a0, static_cast<std::uint64_t>(state.iterations()));
    });
}
BENCHMARK(make_ready_future_int);

}  // namespace

int main(int argc, char** argv) {
    g_runtime = std::make_unique<weft::runtime>(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    g_runtime.reset();
    return 0;
}
