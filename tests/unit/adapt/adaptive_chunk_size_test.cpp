// weft::execution::adaptive_chunk_size: the learner alone on synthetic, U-shaped costs
// (it converges within one grid step of the optimum, re-adapts when the cost changes,
// stays inside its bounds whatever times it is fed), and the parameter in the parallel
// algorithms on 1 and 2 workers (results correct over many calls, convergence, per-key
// learners, re-adaptation when the element function's cost changes 1000-fold, element
// exceptions, loops of 0 and 1 iterations, reset). Nothing asserts a duration: a learner
// decides by times, but every check holds whichever chunk it picks.
#include <weft/weft.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace ex = weft::execution;
using weft::adapt::adaptive_chunk_state;
using weft::adapt::detail::chunk_learner;

// ---- the learner alone ----------------------------------------------------------------

// A loop of n elements costing `per` ns each, cut into chunks with an overhead of `over`
// ns each, on `cores` cores: the work and the overheads shared out, plus one chunk's work
// as the tail (the last chunk may run alone). Its minimum lies near sqrt(n over / (cores
// per)). One chunk on the caller: the work alone.
double synthetic_ns(const ex::chunking& p, std::size_t n, std::size_t cores, double per, double over) {
    if (p.schedule == ex::chunk_schedule::static_blocks) return static_cast<double>(n) * per;
    const double c = static_cast<double>(p.chunk);
    const double k = static_cast<double>(cores);
    return static_cast<double>(n) * per / k + std::ceil(static_cast<double>(n) / c) * over / k + c * per;
}

bool in_bounds(const ex::chunking& p, std::size_t count, std::size_t cores) {
    if (p.chunk < 1 || p.chunk > count) return false;
    if (p.schedule == ex::chunk_schedule::static_blocks) return p.chunk == count;
    return p.schedule == ex::chunk_schedule::dynamic && p.chunk <= (count + cores - 1) / cores;
}

// Drives `l` with the synthetic cost until it converges (or `calls` calls); returns the calls made.
std::size_t drive(chunk_learner& l, std::size_t n, std::size_t cores, double per, double over, std::size_t calls) {
    for (std::size_t i = 0; i < calls; ++i) {
        if (l.converged()) return i;
        const ex::chunking p = l.propose(n);
        EXPECT_TRUE(in_bounds(p, n, cores)) << "chunk " << p.chunk;
        l.observe(p, n, synthetic_ns(p, n, cores, per, over));
    }
    return calls;
}

TEST(chunk_learner, converges_within_one_grid_step_of_the_synthetic_optimum) {
    const std::size_t n = 1'000'000, cores = 2;
    const double per = 1.0, over = 2000.0;  // optimum sqrt(1e6 * 2000 / 2) = 31623: grid 32768 = 2^15
    chunk_learner l(n, cores);
    EXPECT_FALSE(l.started());
    EXPECT_EQ(l.bucket(), static_cast<std::size_t>(std::bit_width(n)));
    EXPECT_EQ(l.cap(), ((std::size_t{1} << l.bucket()) - 1 + cores - 1) / cores);
    // The first call ran as auto_chunk_size would have, far from the optimum; its report
    // is not a trial.
    const ex::chunking first{ex::chunk_schedule::dynamic, 100};
    l.start(first);
    l.observe(first, n, synthetic_ns(first, n, cores, per, over));
    EXPECT_EQ(l.trials(), 0u);
    drive(l, n, cores, per, over, 2000);
    ASSERT_TRUE(l.converged());
    EXPECT_FALSE(l.whole_loop());
    const double opt = std::sqrt(static_cast<double>(n) * over / (static_cast<double>(cores) * per));
    EXPECT_LE(std::abs(std::log2(static_cast<double>(l.chunk())) - std::log2(opt)), 1.5) << "chunk " << l.chunk();
    EXPECT_LE(l.trials(), 12u);
    EXPECT_EQ(l.restarts(), 0u);
    // Converged on a stationary cost, it stays there.
    for (int i = 0; i < 500; ++i) {
        const ex::chunking p = l.propose(n);
        l.observe(p, n, synthetic_ns(p, n, cores, per, over));
    }
    EXPECT_TRUE(l.converged());
    EXPECT_EQ(l.restarts(), 0u);
}

TEST(chunk_learner, picks_the_whole_loop_when_chunks_cost_more_than_they_save) {
    const std::size_t n = 5000, cores = 2;
    chunk_learner l(n, cores);
    const ex::chunking first{ex::chunk_schedule::static_blocks, n - 50};  // auto: shorter than its target
    l.start(first);
    l.observe(first, n, 1000);
    EXPECT_TRUE(l.whole_loop());  // the search starts where auto_chunk_size stood
    drive(l, n, cores, 0.2, 20000.0, 2000);  // every chunk costs 20 us: parallelism never pays
    ASSERT_TRUE(l.converged());
    EXPECT_TRUE(l.whole_loop());
    EXPECT_EQ(l.propose(n).schedule, ex::chunk_schedule::static_blocks);
    EXPECT_EQ(l.propose(n).chunk, n);
}

TEST(chunk_learner, starts_where_the_first_calls_mean_cost_puts_it) {
    // auto_chunk_size ran the first call as one chunk (its probe saw cheap iterations),
    // but the call took 4 ms for 4000 elements: 1 us each, chunks of 50 us are 50 of them.
    chunk_learner l(4000, 2);
    const ex::chunking first{ex::chunk_schedule::static_blocks, 3960};
    l.start(first);
    EXPECT_TRUE(l.whole_loop());
    l.observe(first, 4000, 4e6);
    EXPECT_FALSE(l.whole_loop());
    EXPECT_EQ(l.chunk(), 64u);
    // A short first call (under 50 us in all) starts at the whole loop.
    chunk_learner s(4000, 2);
    s.start({ex::chunk_schedule::dynamic, 100});
    s.observe({ex::chunk_schedule::dynamic, 100}, 4000, 20e3);
    EXPECT_TRUE(s.whole_loop());
}

TEST(chunk_learner, re_adapts_when_the_cost_per_element_changes) {
    const std::size_t n = 1'000'000, cores = 2;
    chunk_learner l(n, cores);
    const ex::chunking first{ex::chunk_schedule::dynamic, 30000};
    l.start(first);
    l.observe(first, n, synthetic_ns(first, n, cores, 1.0, 2000.0));
    drive(l, n, cores, 1.0, 2000.0, 2000);
    ASSERT_TRUE(l.converged());
    const std::size_t before = l.chunk();
    // The baseline window, then a workload 50 times as costly per element with cheap
    // chunks: the optimum moves far to the small chunks.
    for (int i = 0; i < 3; ++i) {
        const ex::chunking p = l.propose(n);
        l.observe(p, n, synthetic_ns(p, n, cores, 1.0, 2000.0));
    }
    for (int i = 0; i < 10 && l.restarts() == 0; ++i) {
        const ex::chunking p = l.propose(n);
        l.observe(p, n, synthetic_ns(p, n, cores, 50.0, 2000.0));
    }
    EXPECT_EQ(l.restarts(), 1u);
    EXPECT_FALSE(l.converged());
    drive(l, n, cores, 50.0, 2000.0, 2000);
    ASSERT_TRUE(l.converged());
    const double opt = std::sqrt(static_cast<double>(n) * 2000.0 / (static_cast<double>(cores) * 50.0));  // 4472
    EXPECT_LT(l.chunk(), before);
    EXPECT_LE(std::abs(std::log2(static_cast<double>(l.chunk())) - std::log2(opt)), 1.5) << "chunk " << l.chunk();
}

TEST(chunk_learner, stays_in_bounds_when_fed_nan_infinities_zero_and_negative_times) {
    const double inf = std::numeric_limits<double>::infinity();
    const double bad[] = {std::numeric_limits<double>::quiet_NaN(), inf, -inf, 0.0, -5.0, 1e300, 3.0};
    for (const std::size_t cores : {1u, 2u, 3u}) {
        const std::size_t n = 3000;  // bucket [2048, 4096)
        chunk_learner l(n, cores);
        l.start({ex::chunk_schedule::dynamic, 7});
        for (std::size_t i = 0; i < 5000; ++i) {
            const std::size_t count = 2048 + (i * 7919) % 2048;
            const ex::chunking p = l.propose(count);
            ASSERT_TRUE(in_bounds(p, count, cores)) << "cores " << cores << " count " << count << " chunk " << p.chunk;
            ASSERT_GE(l.chunk(), 1u);
            ASSERT_LE(l.chunk(), 4095u);
            l.observe(p, count, bad[i % std::size(bad)]);
        }
        EXPECT_LE(l.trials(), 12u * (l.restarts() + 1));
    }
}

TEST(chunk_learner, one_core_has_nothing_to_learn_and_reports_of_other_plans_are_ignored) {
    chunk_learner one(1000, 1);
    one.start({ex::chunk_schedule::static_blocks, 1000});
    EXPECT_TRUE(one.converged());
    EXPECT_TRUE(one.whole_loop());
    EXPECT_EQ(one.propose(700).chunk, 700u);

    chunk_learner l(100'000, 2);
    const ex::chunking first{ex::chunk_schedule::dynamic, 1000};
    l.start(first);
    EXPECT_EQ(l.propose(100'000).chunk, 1024u);  // auto's choice on the grid, until the first report
    l.observe(first, 100'000, 5e6);              // 100 ns an element: the search starts at 512
    EXPECT_FALSE(l.converged());
    const ex::chunking p = l.propose(100'000);
    EXPECT_EQ(p.chunk, 512u);
    const ex::chunking other{ex::chunk_schedule::dynamic, p.chunk + 1};
    for (int i = 0; i < 200; ++i) l.observe(other, 100'000, 5e6);
    EXPECT_EQ(l.trials(), 0u);
    for (int i = 0; i < 3; ++i) l.observe(p, 100'000, 5e6);  // 3 calls, 15 ms: one trial
    EXPECT_EQ(l.trials(), 1u);
    l.reset();
    EXPECT_FALSE(l.started());
    EXPECT_EQ(l.trials(), 0u);
}

// ---- the parameter in the algorithms ----------------------------------------------------

struct workers_case {
    unsigned threads;
};

class adaptive_chunk_size_test : public ::testing::TestWithParam<workers_case> {
protected:
    void SetUp() override {
        weft::adapt::reset_adaptive_chunk_sizes();
        weft::runtime_config cfg;
        cfg.threads = GetParam().threads;
        cfg.bind = false;  // tests oversubscribe; let the OS place threads
        rt_ = std::make_unique<weft::runtime>(cfg);
    }
    void TearDown() override {
        rt_.reset();
        weft::adapt::reset_adaptive_chunk_sizes();
    }
    std::size_t cores() const { return GetParam().threads; }

private:
    std::unique_ptr<weft::runtime> rt_;
};

INSTANTIATE_TEST_SUITE_P(workers, adaptive_chunk_size_test, ::testing::Values(workers_case{1}, workers_case{2}),
                         [](const ::testing::TestParamInfo<workers_case>& i) { return std::to_string(i.param.threads); });

std::optional<adaptive_chunk_state> state_of(const std::string& key, std::size_t count) {
    const auto bucket = static_cast<std::size_t>(std::bit_width(count));
    for (const auto& s : weft::adapt::adaptive_chunk_states())
        if (s.key == key && s.count_bucket == bucket) return s;
    return std::nullopt;
}

// Runs f as a weft task and returns its result.
template <class F>
auto in_task(F&& f) {
    return weft::async(std::forward<F>(f)).get();
}

// WEFT_TEST_DEBUG=1 prints every learner's state after some tests.
void print_states() {
    for (const auto& s : weft::adapt::adaptive_chunk_states())
        std::printf("  %s bucket=%zu cores=%zu chunk=%zu whole=%d converged=%d trials=%zu restarts=%zu\n", s.key.c_str(),
                    s.count_bucket, s.cores, s.chunk, static_cast<int>(s.whole_loop), static_cast<int>(s.converged),
                    s.trials, s.restarts);
}

void spin_for(std::chrono::nanoseconds d) {
    const auto t0 = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - t0 < d) {
    }
}

// One call site for every call: one learner per bucket.
void scale(std::vector<std::int64_t>& v, std::int64_t k) {
    weft::for_each(ex::par.with(ex::adaptive_chunk_size()), v.begin(), v.end(), [k](std::int64_t& x) { x = x * k + 1; });
}

TEST_P(adaptive_chunk_size_test, results_are_correct_over_many_calls) {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{17}, std::size_t{1000}, std::size_t{20'011}}) {
        std::vector<std::int64_t> v(n), out(n);
        std::iota(v.begin(), v.end(), std::int64_t{0});
        const std::size_t calls = n <= 1000 ? 800 : 300;
        // The calls run in one task, on a worker (as a program's would); the first wrong
        // result comes back as text.
        const std::string wrong = in_task([&]() -> std::string {
            for (std::size_t c = 0; c < calls; ++c) {
                const auto k = static_cast<std::int64_t>(c % 5) - 2;
                const std::string at = "n " + std::to_string(n) + " call " + std::to_string(c);
                weft::transform(ex::par.with(ex::adaptive_chunk_size("transform")), v.begin(), v.end(), out.begin(),
                                [k](std::int64_t x) { return x * k; });
                for (std::size_t i = 0; i < n; ++i)
                    if (out[i] != static_cast<std::int64_t>(i) * k) return "transform " + at;
                const std::int64_t sum =
                    weft::reduce(ex::par.with(ex::adaptive_chunk_size("reduce")), out.begin(), out.end(), std::int64_t{0});
                const auto ni = static_cast<std::int64_t>(n);
                if (sum != k * (ni * (ni - 1) / 2)) return "reduce " + at;
                std::vector<std::int64_t> w = v;
                scale(w, k);
                for (std::size_t i = 0; i < n; ++i)
                    if (w[i] != static_cast<std::int64_t>(i) * k + 1) return "for_each " + at;
            }
            return {};
        });
        ASSERT_EQ(wrong, "");
        if (n == 0) {
            EXPECT_FALSE(state_of("reduce", 1).has_value());  // an empty loop asks no chunk parameter
            continue;
        }
        const auto s = state_of("reduce", n);
        ASSERT_TRUE(s.has_value()) << "n " << n;
        EXPECT_EQ(s->cores, std::min(n, cores()));
    }
    if (std::getenv("WEFT_TEST_DEBUG") != nullptr) print_states();
    // Every learner of the call site in scale() carries its key.
    std::size_t site_learners = 0;
    for (const auto& s : weft::adapt::adaptive_chunk_states()) {
        if (s.key.find("adaptive_chunk_size_test.cpp:") == std::string::npos) continue;
        ++site_learners;
        EXPECT_GE(s.chunk, 1u);
    }
    EXPECT_EQ(site_learners, 5u);  // buckets of 1, 2, 17, 1000, 20011
}

TEST_P(adaptive_chunk_size_test, converges_on_a_stationary_loop_and_stays_in_bounds) {
    const std::size_t n = 10'000;
    std::vector<double> v(n, 1.0);
    // A search is at most 12 trials of at most 64 calls, after the first call.
    const std::size_t calls = in_task([&] {
        std::size_t c = 0;
        for (bool converged = false; c < 2000 && !converged; ++c) {
            weft::for_each(ex::par.with(ex::adaptive_chunk_size("stationary")), v.begin(), v.end(),
                           [](double& x) { x = std::sqrt(x * x + 1.0); });
            const auto s = state_of("stationary", n);
            converged = s.has_value() && s->converged;
        }
        return c;
    });
    if (std::getenv("WEFT_TEST_DEBUG") != nullptr) print_states();
    EXPECT_LT(calls, 2000u);
    const auto s = state_of("stationary", n);
    ASSERT_TRUE(s.has_value());
    const std::size_t largest = (std::size_t{1} << s->count_bucket) - 1;
    EXPECT_EQ(s->cores, cores());
    EXPECT_GE(s->chunk, 1u);
    if (s->whole_loop) {
        EXPECT_EQ(s->chunk, largest);
    } else {
        EXPECT_LE(s->chunk, (largest + cores() - 1) / cores());
    }
    EXPECT_LE(s->trials, 12u * (s->restarts + 1));
    if (cores() == 1) {
        EXPECT_TRUE(s->whole_loop);  // one agent: nothing to learn
        EXPECT_EQ(s->trials, 0u);
        EXPECT_EQ(calls, 1u);
    }
}

TEST_P(adaptive_chunk_size_test, keys_learn_independently) {
    const std::size_t n = 5000;
    std::vector<double> v(n, 2.0);
    const auto run = [&v](const char* key, int calls) {
        in_task([&] {
            for (int i = 0; i < calls; ++i)
                weft::for_each(ex::par.with(ex::adaptive_chunk_size(key)), v.begin(), v.end(),
                               [](double& x) { x = std::sqrt(x) + 1.0; });
        });
    };
    run("key a", 100);
    const auto a = state_of("key a", n);
    ASSERT_TRUE(a.has_value());
    EXPECT_FALSE(state_of("key b", n).has_value());
    run("key b", 10);
    const auto b = state_of("key b", n);
    ASSERT_TRUE(b.has_value());
    // Ten calls: the first is not a trial, a trial takes at least 3 calls.
    EXPECT_LE(b->trials, 3u);
    const auto a2 = state_of("key a", n);
    ASSERT_TRUE(a2.has_value());
    EXPECT_EQ(a2->trials, a->trials);
    EXPECT_EQ(a2->chunk, a->chunk);
    EXPECT_EQ(a2->converged, a->converged);
    // The same key at another size is another learner.
    std::vector<double> small(100, 1.0);
    weft::for_each(ex::par.with(ex::adaptive_chunk_size("key a")), small.begin(), small.end(), [](double& x) { x += 1; });
    ASSERT_TRUE(state_of("key a", 100).has_value());
    EXPECT_EQ(state_of("key a", 100)->trials, 0u);
}

TEST_P(adaptive_chunk_size_test, re_adapts_when_the_element_cost_changes) {
    const std::size_t n = 2048;
    std::vector<double> v(n, 1.0);
    bool heavy = false;
    const auto call = [&] {
        weft::for_each(ex::par.with(ex::adaptive_chunk_size("phases")), v.begin(), v.end(), [&heavy](double& x) {
            if (heavy) spin_for(std::chrono::microseconds(2));
            x += 1.0;
        });
    };
    const bool converged = in_task([&] {
        for (int i = 0; i < 2000; ++i) {
            call();
            if (state_of("phases", n)->converged) return true;
        }
        return false;
    });
    ASSERT_TRUE(converged);
    // A full watch window (at most 64 calls) sets the baseline.
    in_task([&] {
        for (int i = 0; i < 70; ++i) call();
    });
    heavy = true;  // ~1000 times the cost per element
    const std::size_t restarts = in_task([&] {
        for (int i = 0; i < (cores() == 1 ? 20 : 300); ++i) {
            call();
            if (state_of("phases", n)->restarts > 0) break;
        }
        return state_of("phases", n)->restarts;
    });
    if (std::getenv("WEFT_TEST_DEBUG") != nullptr) print_states();
    if (cores() == 1) {
        EXPECT_EQ(restarts, 0u);  // one agent: nothing to learn, nothing to re-learn
    } else {
        EXPECT_GE(restarts, 1u);
    }
    // Every call added 1 to every element.
    EXPECT_EQ(std::count(v.begin(), v.end(), v[0]), static_cast<std::ptrdiff_t>(n));
}

TEST_P(adaptive_chunk_size_test, element_exceptions_propagate_as_with_other_parameters) {
    const std::size_t n = 3000;
    const int calls = 150;  // more than two windows of at most 64 calls after the first
    std::vector<int> v(n, 0);
    int lists = 0, sizes_ok = 0;
    in_task([&] {
        for (int call = 0; call < calls; ++call) {
            try {
                weft::for_each(ex::par.with(ex::adaptive_chunk_size("throws")), v.begin(), v.end(), [base = v.data()](int& x) {
                    if (&x - base == 7 || &x - base == 2500) throw std::runtime_error("element");
                    ++x;
                });
            } catch (const weft::exception_list& l) {
                ++lists;
                if (l.size() >= 1 && l.size() <= 2) ++sizes_ok;
            }
        }
    });
    EXPECT_EQ(lists, calls);
    EXPECT_EQ(sizes_ok, calls);
    // Every other element ran at every call: an exception ends only its own chunk's rest.
    EXPECT_EQ(v[0], calls);
    EXPECT_EQ(v[7], 0);
    // The learner went on learning through the exceptions.
    const auto s = state_of("throws", n);
    ASSERT_TRUE(s.has_value());
    if (cores() > 1) {
        EXPECT_GE(s->trials, 1u);
    }
}

TEST_P(adaptive_chunk_size_test, loops_of_zero_and_one_iteration) {
    std::vector<int> none, one(1, 41);
    for (int call = 0; call < 20; ++call) {
        weft::for_each(ex::par.with(ex::adaptive_chunk_size("tiny")), none.begin(), none.end(), [](int& x) { ++x; });
        weft::for_each(ex::par.with(ex::adaptive_chunk_size("tiny")), one.begin(), one.end(), [](int& x) { ++x; });
    }
    EXPECT_EQ(one[0], 61);
    const auto states = weft::adapt::adaptive_chunk_states();
    ASSERT_EQ(states.size(), 1u);  // the empty loop asked nothing
    EXPECT_EQ(states[0].key, "tiny");
    EXPECT_EQ(states[0].count_bucket, 1u);
    EXPECT_EQ(states[0].cores, 1u);
    EXPECT_TRUE(states[0].converged);
    EXPECT_TRUE(states[0].whole_loop);
    EXPECT_EQ(states[0].chunk, 1u);
}

TEST_P(adaptive_chunk_size_test, reset_forgets_everything) {
    std::vector<int> v(4000, 0);
    const ex::adaptive_chunk_size kept("reset");  // made before the reset, used after it
    for (int i = 0; i < 30; ++i) weft::for_each(ex::par.with(kept), v.begin(), v.end(), [](int& x) { ++x; });
    ASSERT_FALSE(weft::adapt::adaptive_chunk_states().empty());
    weft::adapt::reset_adaptive_chunk_sizes();
    EXPECT_TRUE(weft::adapt::adaptive_chunk_states().empty());
    weft::for_each(ex::par.with(kept), v.begin(), v.end(), [](int& x) { ++x; });
    const auto s = state_of("reset", v.size());
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->trials, 0u);
    EXPECT_EQ(s->restarts, 0u);
    EXPECT_EQ(std::count(v.begin(), v.end(), 31), static_cast<std::ptrdiff_t>(v.size()));
}

TEST(adaptive_chunk_size, keys_name_the_call_site_or_the_user_key) {
    std::string_view first;
    for (int i = 0; i < 3; ++i) {
        const ex::adaptive_chunk_size p; const int line = __LINE__;  // one call site, whatever the iteration
        if (i == 0) first = p.key();
        EXPECT_EQ(p.key().data(), first.data());
        EXPECT_NE(first.find(':' + std::to_string(line) + ':'), std::string_view::npos) << first;
    }
    EXPECT_NE(first.find("adaptive_chunk_size_test.cpp:"), std::string_view::npos) << first;
    const ex::adaptive_chunk_size other;
    EXPECT_NE(other.key(), first);
    EXPECT_EQ(ex::adaptive_chunk_size("mine").key(), "mine");
    static_assert(ex::reporting_chunk_parameter<ex::adaptive_chunk_size>);
    static_assert(!ex::reporting_chunk_parameter<ex::auto_chunk_size>);
}

}  // namespace
