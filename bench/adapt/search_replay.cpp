// Replays measured runs through weft::adapt::search (issue #6): how often does a search
// over a noisy objective pick a point within 5 % of the best, and in how many trials?
//
// Input: lines with `np=<size> seconds=<time>` (one measured run each), as the stencil's
// static sweep writes them (bench_stencil_weft --adapt=wall-time --strategy=exhaustive;
// scripts/adapt_stencil keeps them as `static workers=W ... np=... seconds=...`); with
// --select=TEXT only lines containing TEXT. Every size needs at least one run. The truth
// at a size is the mean (or, --truth=median, the median) of all its runs; the best
// static size is the one with the lowest truth.
//
// Each replay runs one search over the sizes (weft::adapt::domain::ordered), as the
// stencil's --adapt mode does: a trial at size s draws --samples runs of s at random
// (with replacement, from a generator seeded with --seed and the replay's number) and
// reports their median, as weft::adapt::tunable does. A replay ends when the search ends
// (converged, or its --trials budget spent). Per strategy and samples count it prints:
//   weft-replay strategy=S samples=K replays=N within5=<fraction> within10=<fraction>
//     ratio_median=<median truth(chosen)/truth(best)> ratio_p90=<90th percentile>
//     trials_median=<...> trials_max=<...> runs_median=<trials x samples, median>
// The point: the machine's noise is in the data, so strategies and sample counts can be
// compared on the same runs, deterministically, without re-running the stencil.
//
//   bench_adapt_replay --input=FILE [--select=TEXT] [--strategies=u_shape,golden_section,...]
//                      [--samples=1,3,5] [--replays=1000] [--trials=20] [--seed=1]
//                      [--truth=mean|median]
#include <weft/adapt/search.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace wa = weft::adapt;

namespace {

[[noreturn]] void fail(const std::string& message) {
    std::fprintf(stderr, "bench_adapt_replay: %s\n", message.c_str());
    std::exit(2);
}

std::vector<std::string> split(std::string_view s, char sep) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= s.size()) {
        const std::size_t end = std::min(s.find(sep, start), s.size());
        if (end > start) out.emplace_back(s.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

template <class T>
T number(std::string_view option, std::string_view v) {
    T out{};
    const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (ec != std::errc{} || p != v.data() + v.size())
        fail("bad value '" + std::string(v) + "' for " + std::string(option));
    return out;
}

/// The value of `key=` in a line, or "" if absent.
std::string_view field(std::string_view line, std::string_view key) {
    for (std::size_t at = line.find(key); at != std::string_view::npos; at = line.find(key, at + 1)) {
        if (at != 0 && line[at - 1] != ' ') continue;
        const std::size_t from = at + key.size();
        return line.substr(from, std::min(line.find(' ', from), line.size()) - from);
    }
    return {};
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double percentile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
}

bool strategy_of(std::string_view name, wa::strategy& out) {
    if (name == "u_shape") out = wa::strategy::u_shape;
    else if (name == "golden_section") out = wa::strategy::golden_section;
    else if (name == "nelder_mead") out = wa::strategy::nelder_mead;
    else if (name == "random") out = wa::strategy::random;
    else return false;
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    std::string input, select, truth_kind = "mean";
    std::vector<std::string> strategies{"u_shape", "golden_section", "nelder_mead"};
    std::vector<std::size_t> samples_list{1, 3, 5};
    std::size_t replays = 1000, trials = 20;
    std::uint64_t seed = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        const std::size_t eq = a.find('=');
        const std::string_view name = a.substr(0, eq), v = eq == std::string_view::npos ? "" : a.substr(eq + 1);
        if (name == "--input") input = v;
        else if (name == "--select") select = v;
        else if (name == "--strategies") strategies = split(v, ',');
        else if (name == "--samples") {
            samples_list.clear();
            for (const std::string& s : split(v, ',')) samples_list.push_back(number<std::size_t>(name, s));
        } else if (name == "--replays") replays = number<std::size_t>(name, v);
        else if (name == "--trials") trials = number<std::size_t>(name, v);
        else if (name == "--seed") seed = number<std::uint64_t>(name, v);
        else if (name == "--truth") truth_kind = v;
        else fail("unknown option '" + std::string(a) + "' (see the head of bench/adapt/search_replay.cpp)");
    }
    if (input.empty()) fail("--input=FILE is required");
    if (truth_kind != "mean" && truth_kind != "median") fail("--truth: mean or median");
    if (replays == 0 || trials == 0) fail("--replays and --trials must be positive");
    for (std::size_t k : samples_list)
        if (k == 0) fail("--samples: counts must be positive");
    for (const std::string& s : strategies) {
        wa::strategy unused;
        if (!strategy_of(s, unused)) fail("unknown strategy '" + s + "' (u_shape, golden_section, nelder_mead, random)");
    }

    std::ifstream in(input);
    if (!in) fail("cannot read " + input);
    std::map<double, std::vector<double>> runs;  // size -> measured seconds
    for (std::string line; std::getline(in, line);) {
        if (!select.empty() && line.find(select) == std::string::npos) continue;
        const std::string_view np = field(line, "np="), s = field(line, "seconds=");
        if (np.empty() || s.empty()) continue;
        runs[number<double>("np", np)].push_back(std::strtod(std::string(s).c_str(), nullptr));
    }
    if (runs.size() < 2) fail("need runs at two sizes at least in " + input);

    std::vector<double> sizes, truth;
    for (const auto& [np, v] : runs) {
        sizes.push_back(np);
        double t = 0;
        if (truth_kind == "median") t = median(v);
        else {
            for (double x : v) t += x;
            t /= static_cast<double>(v.size());
        }
        truth.push_back(t);
    }
    const auto best_it = std::min_element(truth.begin(), truth.end());
    const double best = *best_it;
    std::size_t band5 = 0;
    for (double t : truth) band5 += t <= 1.05 * best;
    std::printf("weft-replay-data input=%s select=%s sizes=%zu runs_per_size_min=%zu best_np=%.0f best=%.6f "
                "within5_sizes=%zu truth=%s\n",
                input.c_str(), select.c_str(), sizes.size(),
                std::min_element(runs.begin(), runs.end(),
                                 [](const auto& x, const auto& y) { return x.second.size() < y.second.size(); })
                    ->second.size(),
                sizes[static_cast<std::size_t>(best_it - truth.begin())], best, band5, truth_kind.c_str());

    for (const std::string& name : strategies) {
        wa::strategy kind{};
        strategy_of(name, kind);
        for (std::size_t k : samples_list) {
            std::vector<double> ratios, trial_counts, run_counts;
            std::size_t within5 = 0, within10 = 0;
            for (std::size_t r = 0; r < replays; ++r) {
                std::mt19937_64 rng(seed * 1000003u + r);
                wa::search_options opt;
                opt.max_trials = trials;
                opt.seed = seed + r;
                wa::search s(kind, {wa::domain::ordered(sizes)}, opt);
                while (auto p = s.next()) {
                    const std::vector<double>& v = runs[(*p)[0]];
                    std::vector<double> drawn(k);
                    std::uniform_int_distribution<std::size_t> pick(0, v.size() - 1);
                    for (double& d : drawn) d = v[pick(rng)];
                    s.report(median(drawn));
                }
                const double chosen = s.best()[0];
                const auto at = static_cast<std::size_t>(std::lower_bound(sizes.begin(), sizes.end(), chosen) -
                                                         sizes.begin());
                const double ratio = truth[at] / best;
                ratios.push_back(ratio);
                within5 += ratio <= 1.05;
                within10 += ratio <= 1.10;
                trial_counts.push_back(static_cast<double>(s.trials()));
                run_counts.push_back(static_cast<double>(s.trials() * k));
            }
            std::printf("weft-replay strategy=%s samples=%zu replays=%zu within5=%.3f within10=%.3f ratio_median=%.3f "
                        "ratio_p90=%.3f trials_median=%.0f trials_max=%.0f runs_median=%.0f\n",
                        name.c_str(), k, replays, static_cast<double>(within5) / static_cast<double>(replays),
                        static_cast<double>(within10) / static_cast<double>(replays), median(ratios),
                        percentile(ratios, 0.9), median(trial_counts),
                        *std::max_element(trial_counts.begin(), trial_counts.end()), median(run_counts));
        }
    }
    return 0;
}
