// Issue #26's overhead target: a template task instance against a plain weft::dataflow
// task, in the same run, on two graphs of empty tasks:
//   chain  task i waits for task i-1 (n tasks);
//   grid   an s x s grid where (i, j) waits for (i-1, j) and (i, j-1) (the wavefront).
// dataflow builds its graph of futures ahead (as a dataflow program does); TTG's graph
// unfolds as tasks send to their successors. Reports ns per task for each, and the ratio
// TTG / dataflow (target <= 2), as the median over --reps rounds, the two alternating.
//   bench_ttg_overhead [--n=1000000] [--side=700] [--reps=7] [--weft:threads=N]
#include <weft/ttg.hpp>
#include <weft/weft.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

namespace ttg = weft::ttg;
using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double dataflow_chain(long n) {
    const auto t0 = clock_type::now();
    weft::shared_future<void> f = weft::make_ready_future().share();
    for (long i = 0; i < n; ++i) f = weft::dataflow([](const weft::shared_future<void>&) {}, f).share();
    f.get();
    return seconds_since(t0);
}

double ttg_chain(long n) {
    ttg::Edge<long, void> next("next");
    auto step = ttg::make_tt(
        [n](const long& k, std::tuple<ttg::Out<long, void>>& out) {
            if (k + 1 < n) ttg::sendk<0>(k + 1, out);
        },
        ttg::edges(next), ttg::edges(next), "step");
    ttg::make_graph_executable(step);
    const auto t0 = clock_type::now();
    step->out<0>().sendk(0);
    ttg::fence();
    return seconds_since(t0);
}

double dataflow_grid(int s) {
    const auto t0 = clock_type::now();
    std::vector<weft::shared_future<void>> row(static_cast<std::size_t>(s), weft::make_ready_future().share());
    for (int i = 0; i < s; ++i) {
        weft::shared_future<void> left = weft::make_ready_future().share();
        for (int j = 0; j < s; ++j) {
            auto& up = row[static_cast<std::size_t>(j)];
            up = weft::dataflow([](const weft::shared_future<void>&, const weft::shared_future<void>&) {}, up, left)
                     .share();
            left = up;
        }
    }
    row.back().get();
    return seconds_since(t0);
}

double ttg_grid(int s) {
    using key = std::pair<int, int>;
    ttg::Edge<key, void> from_up("from-up"), from_left("from-left");
    auto cell = ttg::make_tt(
        [s](const key& k, std::tuple<ttg::Out<key, void>, ttg::Out<key, void>>& out) {
            const auto [i, j] = k;
            if (i + 1 < s) ttg::sendk<0>(key{i + 1, j}, out);
            if (j + 1 < s) ttg::sendk<1>(key{i, j + 1}, out);
        },
        ttg::edges(from_up, from_left), ttg::edges(from_up, from_left), "cell", {"up", "left"}, {"down", "right"});
    ttg::make_graph_executable(cell);
    const auto t0 = clock_type::now();
    // The borders' missing inputs.
    for (int j = 0; j < s; ++j) cell->out<0>().sendk(key{0, j});
    for (int i = 0; i < s; ++i) cell->out<1>().sendk(key{i, 0});
    ttg::fence();
    return seconds_since(t0);
}

long parse(const char* arg, const char* name, long fallback) {
    const std::string a(arg), prefix = std::string("--") + name + "=";
    return a.rfind(prefix, 0) == 0 ? std::atol(a.c_str() + prefix.size()) : fallback;
}

}  // namespace

int main(int argc, char** argv) {
    return weft::run(argc, argv, [](int ac, char** av) {
        long n = 1'000'000, side = 700, reps = 7;
        for (int i = 1; i < ac; ++i) {
            n = parse(av[i], "n", n);
            side = parse(av[i], "side", side);
            reps = parse(av[i], "reps", reps);
        }
        const int s = static_cast<int>(side);
        std::vector<double> dc, tc, dg, tg;
        (void)dataflow_chain(n / 10);  // warm the pools
        (void)ttg_chain(n / 10);
        for (long r = 0; r < reps; ++r) {
            if (r % 2 == 0) {
                dc.push_back(dataflow_chain(n));
                tc.push_back(ttg_chain(n));
                dg.push_back(dataflow_grid(s));
                tg.push_back(ttg_grid(s));
            } else {
                tc.push_back(ttg_chain(n));
                dc.push_back(dataflow_chain(n));
                tg.push_back(ttg_grid(s));
                dg.push_back(dataflow_grid(s));
            }
        }
        const double cells = double(side) * double(side);
        const double ndc = median(dc) / double(n) * 1e9, ntc = median(tc) / double(n) * 1e9;
        const double ndg = median(dg) / cells * 1e9, ntg = median(tg) / cells * 1e9;
        std::printf("| graph | tasks | dataflow ns/task | TTG ns/task | TTG / dataflow | target |\n|---|---|---|---|---|---|\n");
        std::printf("| chain | %ld | %.0f | %.0f | %.2f× | ≤ 2× |\n", n, ndc, ntc, ntc / ndc);
        std::printf("| grid %dx%d | %.0f | %.0f | %.0f | %.2f× | ≤ 2× |\n", s, s, cells, ndg, ntg, ntg / ndg);
        std::printf("(medians of %ld rounds, alternating; workers: %u)\n", reps, weft::num_workers());
        return 0;
    });
}
