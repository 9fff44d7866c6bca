// Issue #6's chunk-size benchmark on weft: for each workload and algorithm of
// chunk_common.hpp, in this order, in one process (all calls in one weft task, so the
// caller is one of the --weft:threads workers):
//   1. the sweep: weft::execution::par.with(dynamic_chunk_size(c)) for c = 1, 2, 4, ... up
//      to one chunk per worker, (reps + 1) / 2 timed calls each after one untimed call (a
//      chunk size whose first call is 20 times slower than the best so far gets no more);
//      the best c is the "best fixed chunk";
//   2. the warm-up of adaptive_chunk_size (its own key per workload and algorithm): calls
//      until its learner has converged, counted and timed;
//   3. the steady state: --reps rounds, each one call of adaptive_chunk_size, of plain par
//      (auto_chunk_size) and of the best fixed chunk, in an order that rotates from round
//      to round; each variant's median.
// Every call's result is checked outside the clock. Result lines (chunk_common.hpp's
// print_line), impl = weft-sweep (chunk=c), weft-adaptive (chunk=, whole=, warmup_calls=,
// warmup_ms=, trials=, restarts= during the steady state, converged=), weft-auto,
// weft-fixed (chunk=).
#include "adapt/chunk_common.hpp"

#include <weft/weft.hpp>

#include <bit>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace {

namespace ac = weft::bench::adapt_chunk;
namespace ex = weft::execution;

struct arrays {
    std::vector<std::uint64_t> a, out;
    std::uint64_t sum = 0;
};

// One call of algorithm `alg` on workload `w` with `policy`.
template <class Policy>
void call(const Policy& policy, const ac::workload& w, ac::algorithm_kind alg, arrays& d) {
    switch (alg) {
        case ac::for_each_algo: {
            const std::uint64_t* base = d.a.data();
            weft::for_each(policy, d.a.begin(), d.a.end(), [&w, base](std::uint64_t& x) {
                x = w.value(static_cast<std::uint64_t>(&x - base));
            });
            break;
        }
        case ac::transform_algo:
            weft::transform(policy, w.in.begin(), w.in.end(), d.out.begin(), [&w](std::uint64_t i) { return w.value(i); });
            break;
        case ac::reduce_algo:
            d.sum = weft::transform_reduce(policy, w.in.begin(), w.in.end(), std::uint64_t{0}, std::plus<>{},
                                           [&w](std::uint64_t i) { return w.value(i); });
            break;
        case ac::algorithm_count: break;
    }
}

// Times one call and checks its result outside the clock.
template <class Policy>
double timed_call(const Policy& policy, const ac::workload& w, ac::algorithm_kind alg, arrays& d, const char* impl) {
    std::fill(d.a.begin(), d.a.end(), 0);
    std::fill(d.out.begin(), d.out.end(), 0);
    d.sum = 0;
    const double ms = ac::time_ms([&] { call(policy, w, alg, d); });
    ac::check(w, alg, impl, alg == ac::for_each_algo ? d.a : d.out, d.sum);
    return ms;
}

std::optional<weft::adapt::adaptive_chunk_state> state_of(const std::string& key, std::size_t n, std::size_t cores) {
    const auto bucket = static_cast<std::size_t>(std::bit_width(n));
    for (auto& s : weft::adapt::adaptive_chunk_states())
        if (s.key == key && s.count_bucket == bucket && s.cores == std::min(n, cores)) return s;
    return std::nullopt;
}

void run_one(const ac::options& o, unsigned workers, const ac::workload& w, ac::algorithm_kind alg) {
    arrays d{std::vector<std::uint64_t>(w.n), std::vector<std::uint64_t>(w.n), 0};
    // 1. The sweep.
    const std::size_t top = (w.n + workers - 1) / workers;
    std::vector<std::size_t> sizes;
    for (std::size_t c = 1; c < top; c *= 2) sizes.push_back(c);
    sizes.push_back(top);
    const unsigned sweep_reps = (o.reps + 1) / 2;
    double best_ms = std::numeric_limits<double>::infinity();
    std::size_t best_c = top;
    for (const std::size_t c : sizes) {
        const auto policy = ex::par.with(ex::dynamic_chunk_size(c));
        const double first = timed_call(policy, w, alg, d, "weft-sweep");
        std::vector<double> t;
        if (first <= 20 * best_ms)
            for (unsigned r = 0; r < sweep_reps; ++r) t.push_back(timed_call(policy, w, alg, d, "weft-sweep"));
        else t.push_back(first);
        const double m = ac::median(t);
        ac::print_line("weft-sweep", workers, w, alg, m, "chunk=" + std::to_string(c));
        if (m < best_ms) {
            best_ms = m;
            best_c = c;
        }
    }
    // 2. The adaptive learner's warm-up, until it converged.
    const std::string key = std::string(ac::workload_names[w.kind]) + "/" + ac::algorithm_names[alg];
    const auto adaptive = ex::par.with(ex::adaptive_chunk_size(key));
    unsigned warmup_calls = 0;
    double warmup_ms = 0;
    for (; warmup_calls < o.max_warmup; ++warmup_calls) {
        const auto s = state_of(key, w.n, workers);
        if (s && s->converged) break;
        warmup_ms += timed_call(adaptive, w, alg, d, "weft-adaptive");
    }
    const auto before = state_of(key, w.n, workers);
    // 3. The steady state, interleaved.
    const auto fixed = ex::par.with(ex::dynamic_chunk_size(best_c));
    std::vector<double> t_adaptive, t_auto, t_fixed;
    for (unsigned r = 0; r < o.reps; ++r) {
        for (unsigned k = 0; k < 3; ++k) {
            switch ((r + k) % 3) {
                case 0: t_adaptive.push_back(timed_call(adaptive, w, alg, d, "weft-adaptive")); break;
                case 1: t_auto.push_back(timed_call(ex::par, w, alg, d, "weft-auto")); break;
                default: t_fixed.push_back(timed_call(fixed, w, alg, d, "weft-fixed")); break;
            }
        }
    }
    const auto after = state_of(key, w.n, workers);
    std::string extra;
    if (after) {
        extra = "chunk=" + std::to_string(after->chunk) + " whole=" + std::to_string(after->whole_loop ? 1 : 0) +
                " warmup_calls=" + std::to_string(warmup_calls) + " warmup_ms=" + std::to_string(warmup_ms) +
                " trials=" + std::to_string(after->trials) +
                " restarts=" + std::to_string(after->restarts - (before ? before->restarts : 0)) +
                " converged=" + std::to_string(after->converged ? 1 : 0);
    }
    ac::print_line("weft-adaptive", workers, w, alg, ac::median(t_adaptive), extra);
    ac::print_line("weft-auto", workers, w, alg, ac::median(t_auto));
    ac::print_line("weft-fixed", workers, w, alg, ac::median(t_fixed), "chunk=" + std::to_string(best_c));
}

}  // namespace

int main(int argc, char** argv) {
    weft::runtime rt(argc, argv);  // --weft:threads=W (scripts/adapt_chunk passes it)
    const ac::options o = ac::parse_options(argc, argv);
    const unsigned workers = rt.num_workers();
    weft::async([&] {
        for (unsigned k = 0; k < ac::workload_count; ++k) {
            if (!o.run[k]) continue;
            const ac::workload w = ac::make_workload(static_cast<ac::workload_kind>(k));
            // What one element costs here, serially (the median of 3 plain loops).
            std::vector<double> serial;
            for (int r = 0; r < 3; ++r) {
                std::uint64_t s = 0;
                serial.push_back(ac::time_ms([&] {
                    for (std::size_t i = 0; i < w.n; ++i) s += w.value(i);
                }));
                if (s != w.expected_sum) weft::bench::fail_check("adapt_chunk", "serial", s, w.expected_sum);
            }
            const double ms = ac::median(serial);
            ac::print_line("serial", 1, w, ac::reduce_algo, ms,
                           "ns_per_element=" + std::to_string(ms * 1e6 / static_cast<double>(w.n)));
            for (unsigned a = 0; a < ac::algorithm_count; ++a) run_one(o, workers, w, static_cast<ac::algorithm_kind>(a));
        }
    }).get();
    return 0;
}
