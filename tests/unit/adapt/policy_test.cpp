// The policy engine (include/weft/adapt/policy.hpp): triggers (periodic, event, region,
// threshold) fire and in order, deregistration, errors, tunables (bounds under any
// objective, convergence, history warm start), tune() on counters and wall time, and
// throttling. No test asserts a duration: timed triggers are awaited with a generous
// deadline (support/wait_until.hpp).
#include <weft/adapt/policy.hpp>
#include <weft/weft.hpp>

#include <gtest/gtest.h>

#include "support/wait_until.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <mutex>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using namespace std::chrono_literals;
namespace adapt = weft::adapt;

weft::runtime_config config(const char* scheduler = "local-priority", unsigned threads = 2) {
    weft::runtime_config cfg;
    cfg.threads = threads;
    cfg.scheduler = scheduler;
    cfg.bind = false;  // the machine is shared; let the OS place threads
    return cfg;
}

std::string temp_path(const char* what) {
    return "/tmp/weft-policy-test-" + std::to_string(::getpid()) + "-" + what;
}

void run_tasks(int n) {
    std::vector<weft::future<int>> fs;
    fs.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) fs.push_back(weft::async([i] { return i; }));
    for (auto& f : fs) f.get();
}

TEST(policy, event_policies_run_in_registration_order_on_the_triggering_thread) {
    weft::runtime rt(config());
    std::vector<int> order;
    std::vector<std::thread::id> threads;
    auto make = [&](int k) {
        return [&, k](adapt::policy_context& c) {
            EXPECT_EQ(c.trigger(), "e");
            order.push_back(k);
            threads.push_back(std::this_thread::get_id());
        };
    };
    auto a = adapt::on_event("e", {"a", {}, {}}, make(1));
    auto b = adapt::on_event("e", {"b", {}, {}}, make(2));
    auto c = adapt::on_event("e", {"c", {}, {}}, make(3));
    auto other = adapt::on_event("f", {}, make(9));
    adapt::trigger("e");
    adapt::trigger("e");
    adapt::trigger("nobody-listens");
    EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 1, 2, 3}));
    for (auto id : threads) EXPECT_EQ(id, std::this_thread::get_id());
    EXPECT_EQ(a.runs(), 2u);
    EXPECT_EQ(other.runs(), 0u);
    b.reset();
    EXPECT_FALSE(b.active());
    adapt::trigger("e");
    EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 1, 2, 3, 1, 3}));
}

TEST(policy, a_throwing_event_policy_does_not_stop_the_others_and_its_error_reaches_the_trigger) {
    weft::runtime rt(config());
    int ran = 0;
    auto a = adapt::on_event("e", {}, [&](adapt::policy_context&) { ++ran; });
    auto b = adapt::on_event("e", {}, [](adapt::policy_context&) { throw std::runtime_error("broken policy"); });
    auto c = adapt::on_event("e", {}, [&](adapt::policy_context&) { ++ran; });
    EXPECT_THROW(adapt::trigger("e"), std::runtime_error);
    EXPECT_EQ(ran, 2);
    EXPECT_TRUE(b.active());
}

TEST(policy, a_policy_firing_its_own_event_gets_an_error_not_a_hang) {
    weft::runtime rt(config());
    int depth = 0;
    bool refused = false;
    auto h = adapt::on_event("loop", {"looper", {}, {}}, [&](adapt::policy_context&) {
        ++depth;
        try {
            adapt::trigger("loop");
        } catch (const weft::error& e) {
            refused = std::string(e.what()).find("looper") != std::string::npos;
        }
    });
    adapt::trigger("loop");
    EXPECT_EQ(depth, 1);
    EXPECT_TRUE(refused);
}

TEST(policy, regions_fire_start_then_end_and_reset_on_only_restarts_the_interval) {
    weft::runtime rt(config());
    std::vector<std::string> seen;
    auto s = adapt::on_event(adapt::region::start_event("solve"), {},
                             [&](adapt::policy_context& c) { seen.emplace_back(c.trigger()); });
    int calls = 0;
    double interval = -1;
    auto e = adapt::on_event(adapt::region::end_event("solve"),
                             {"end", {"/threads/count/cumulative"}, adapt::region::start_event("solve")},
                             [&](adapt::policy_context& c) {
                                 seen.emplace_back(c.trigger());
                                 ++calls;
                                 interval = c.interval_s();
                                 ASSERT_EQ(c.values().size(), 1u);
                                 EXPECT_GE(c.value(0), 100.0);  // the tasks run inside the region
                             });
    {
        adapt::region r("solve");
        run_tasks(100);
        // A future is ready before its task's loop counts it finished: wait for
        // quiescence, or the end policy may see 99 (as CI once did).
        rt.wait();
    }
    EXPECT_EQ(seen, (std::vector<std::string>{"region-start:solve", "region-end:solve"}));
    EXPECT_EQ(calls, 1);  // the start event only reset the end policy's interval
    EXPECT_GE(interval, 0.0);
    EXPECT_THROW(adapt::region(""), weft::error);
}

TEST(policy, periodic_policies_fire_in_due_order_and_never_overlap_themselves) {
    weft::runtime rt(config());
    std::mutex m;
    std::vector<std::pair<char, std::chrono::steady_clock::time_point>> calls;
    std::atomic<int> inside{0};
    auto record = [&](char k) {
        return [&, k](adapt::policy_context& c) {
            EXPECT_EQ(c.trigger(), "period");
            EXPECT_EQ(inside.fetch_add(1), 0);  // one timer thread: one policy at a time
            {
                std::lock_guard lock(m);
                calls.emplace_back(k, std::chrono::steady_clock::now());
            }
            inside.fetch_sub(1);
        };
    };
    auto fast = adapt::on_period(3ms, {"fast", {"/threads/idle-rate"}, {}}, record('f'));
    auto slow = adapt::on_period(7ms, {"slow", {}, {}}, record('s'));
    weft::test::wait_until([&] { return slow.runs() >= 3 && fast.runs() >= 3; }, "periodic policies ran");
    fast.reset();
    slow.reset();
    std::lock_guard lock(m);
    for (std::size_t i = 1; i < calls.size(); ++i) EXPECT_LE(calls[i - 1].second, calls[i].second);
    const auto f = std::count_if(calls.begin(), calls.end(), [](const auto& c) { return c.first == 'f'; });
    const auto s = std::count_if(calls.begin(), calls.end(), [](const auto& c) { return c.first == 's'; });
    EXPECT_GE(f, 3);
    EXPECT_GE(s, 3);
}

TEST(policy, a_throwing_periodic_policy_is_disabled_and_a_policy_may_deregister_itself) {
    weft::runtime rt(config());
    auto bad = adapt::on_period(1ms, {"bad", {}, {}}, [](adapt::policy_context&) { throw std::logic_error("x"); });
    weft::test::wait_until([&] { return !bad.active(); }, "the throwing policy was disabled");
    EXPECT_EQ(bad.runs(), 0u);

    std::atomic<int> runs{0};
    adapt::policy_handle self;
    std::mutex m;
    std::unique_lock hold(m);  // the policy waits until `self` is assigned
    self = adapt::on_event("once", {}, [&](adapt::policy_context&) {
        ++runs;
        std::lock_guard lock(m);
        self.reset();  // from inside: must not deadlock
    });
    hold.unlock();
    adapt::trigger("once");
    adapt::trigger("once");
    EXPECT_EQ(runs.load(), 1);
    EXPECT_FALSE(self.active());
}

TEST(policy, threshold_policies_fire_on_the_crossing_only) {
    weft::runtime rt(config());
    std::atomic<int> fired{0};
    std::atomic<double> seen{0};
    auto h = adapt::on_threshold("/threads/count/cumulative", 1000, adapt::crossing::upward, 2ms, {"busy", {}, {}},
                                 [&](adapt::policy_context& c) {
                                     EXPECT_EQ(c.trigger(), "threshold");
                                     seen = c.value(0);
                                     ++fired;
                                 });
    weft::test::wait_until(
        [&] {
            run_tasks(5000);
            return fired.load() >= 1;
        },
        "the threshold policy fired");
    EXPECT_GE(seen.load(), 1000.0);
    // Below the threshold (nothing runs) it re-arms; the next burst fires again.
    const int before = fired.load();
    weft::test::wait_until(
        [&] {
            std::this_thread::sleep_for(5ms);
            run_tasks(5000);
            return fired.load() > before;
        },
        "the threshold policy fired again after crossing back");
}

TEST(policy, bad_input_is_refused_with_clear_errors) {
    EXPECT_THROW((void)adapt::on_event("e", {}, [](adapt::policy_context&) {}), weft::runtime_state_error);
    EXPECT_THROW(adapt::trigger("e"), weft::runtime_state_error);
    EXPECT_THROW(adapt::set_active_workers(1), weft::runtime_state_error);
    weft::runtime rt(config());
    auto nop = [](adapt::policy_context&) {};
    EXPECT_THROW((void)adapt::on_period(0ms, {}, nop), weft::error);
    EXPECT_THROW((void)adapt::on_event("", {}, nop), weft::error);
    EXPECT_THROW((void)adapt::on_event("e", {}, adapt::policy_fn{}), weft::error);
    EXPECT_THROW((void)adapt::on_event("e", {"x", {"/threads/no-such-counter"}, {}}, nop), weft::bad_counter_name);
    EXPECT_THROW((void)adapt::on_threshold("/threads/idle-rate", std::nan(""), adapt::crossing::upward, 1ms, {}, nop),
                 weft::error);
    EXPECT_THROW((void)adapt::on_threshold("/threads{locality#0/worker-thread#*}/idle-rate", 0.5,
                                           adapt::crossing::upward, 1ms, {}, nop),
                 weft::bad_counter_name);
    EXPECT_THROW(adapt::set_log("/nonexistent-dir/x/log"), weft::error);
}

TEST(policy, policies_end_with_their_runtime) {
    adapt::policy_handle h;
    {
        weft::runtime rt(config());
        h = adapt::on_event("e", {"p", {"/threads/idle-rate"}, {}}, [](adapt::policy_context&) {});
        EXPECT_TRUE(h.active());
    }
    EXPECT_FALSE(h.active());
    weft::runtime rt(config());
    adapt::trigger("e");  // the old policy is gone
    EXPECT_EQ(h.runs(), 0u);
}

// ---------------------------------------------------------------------------------

TEST(tunable, stays_inside_its_domain_whatever_the_objective) {
    const double bad[] = {std::nan(""), std::numeric_limits<double>::infinity(),
                          -std::numeric_limits<double>::infinity(), 1e308, -1e308, 0.0};
    for (auto kind : {adapt::strategy::u_shape, adapt::strategy::golden_section, adapt::strategy::nelder_mead,
                      adapt::strategy::random, adapt::strategy::exhaustive}) {
        adapt::tunable_options o;
        o.kind = kind;
        o.search.max_trials = 40;
        o.history = false;
        adapt::tunable t("np", adapt::domain::ordered({1000, 2000, 5000, 10000, 50000}), o);
        std::size_t i = 0;
        while (t.searching()) {
            const double v = t.value();
            EXPECT_TRUE(v == 1000 || v == 2000 || v == 5000 || v == 10000 || v == 50000) << v;
            t.report(bad[i++ % std::size(bad)]);
            ASSERT_LT(i, 100u);
        }
        const double v = t.value();
        EXPECT_TRUE(v == 1000 || v == 2000 || v == 5000 || v == 10000 || v == 50000) << v;
        t.report(1.0);  // ignored once the search has ended
        EXPECT_EQ(t.value(), v);
    }
    adapt::tunable c("x", adapt::domain::continuous(-1, 1), {adapt::strategy::golden_section, {}, false, "p"});
    for (int i = 0; i < 200 && c.searching(); ++i) {
        EXPECT_GE(c.value(), -1.0);
        EXPECT_LE(c.value(), 1.0);
        c.report(i % 2 ? std::nan("") : -std::numeric_limits<double>::infinity());
    }
    EXPECT_THROW(adapt::tunable("", adapt::domain::integers(0, 1)), weft::error);
    EXPECT_THROW(adapt::tunable("a\tb", adapt::domain::integers(0, 1)), weft::error);
}

TEST(tunable, converges_on_a_u_shaped_objective_in_few_trials_and_can_restart) {
    std::vector<double> sizes;
    for (double s = 1000; s <= 5'000'000; s *= 1.5) sizes.push_back(std::round(s));
    adapt::tunable_options o;
    o.history = false;
    o.search.start = {1000};
    adapt::tunable t("np", adapt::domain::ordered(sizes), o);
    auto cost = [](double np) { return std::abs(std::log(np) - std::log(60000.0)) + 1; };  // optimum ~60,000
    while (t.searching()) t.report(cost(t.value()));
    EXPECT_TRUE(t.converged());
    EXPECT_LE(t.trials(), 16u);
    EXPECT_NEAR(std::log(t.value()), std::log(60000.0), std::log(1.5));
    // The workload changes: a restart finds the new optimum.
    t.restart();
    EXPECT_TRUE(t.searching());
    auto moved = [](double np) { return std::abs(std::log(np) - std::log(400000.0)) + 1; };
    while (t.searching()) t.report(moved(t.value()));
    EXPECT_NEAR(std::log(t.value()), std::log(400000.0), std::log(1.5));
}

TEST(tunable, samples_give_the_search_the_median_of_each_trial) {
    // An exhaustive search over 4 points, 3 measurements each: a point's true cost plus one
    // wild measurement (far too fast, far too slow or broken) must not move the choice.
    adapt::tunable_options o;
    o.kind = adapt::strategy::exhaustive;
    o.history = false;
    o.samples = 3;
    adapt::tunable t("np", adapt::domain::ordered({1, 2, 3, 4}), o);
    auto cost = [](double v) { return v == 3 ? 1.0 : 2.0; };
    const double wild[] = {0.0, 100.0, std::nan(""), -std::numeric_limits<double>::infinity()};
    std::size_t reports = 0;
    while (t.searching()) {
        const double v = t.value();
        const std::size_t trial = t.trials();
        EXPECT_EQ(t.pending_samples(), 0u);
        t.report(v == 3 ? 100.0 : wild[static_cast<std::size_t>(v) - 1]);  // one wild sample per point
        EXPECT_EQ(t.value(), v);  // the point stays until its last sample
        EXPECT_EQ(t.pending_samples(), 1u);
        t.report(cost(v));
        EXPECT_EQ(t.value(), v);
        EXPECT_EQ(t.trials(), trial);
        t.report(cost(v) * 1.01);
        EXPECT_EQ(t.trials(), trial + 1);
        reports += 3;
        ASSERT_LE(reports, 12u);
    }
    EXPECT_EQ(t.trials(), 4u);
    EXPECT_EQ(t.best(), 3.0);
    EXPECT_DOUBLE_EQ(t.best_objective(), 1.01);  // median of {100, 1, 1.01}
    // An even count averages the two middle ones; a broken pair in the middle is worst.
    o.samples = 2;
    o.kind = adapt::strategy::exhaustive;
    adapt::tunable e("np", adapt::domain::ordered({1, 2}), o);
    e.report(1.0);
    e.report(3.0);  // point 1: 2.0
    e.report(std::nan(""));
    e.report(0.5);  // point 2: inf
    EXPECT_FALSE(e.searching());
    EXPECT_EQ(e.best(), 1.0);
    EXPECT_DOUBLE_EQ(e.best_objective(), 2.0);
    o.samples = 0;
    EXPECT_THROW(adapt::tunable("np", adapt::domain::integers(0, 1), o), weft::error);
}

TEST(tunable, history_makes_a_rerun_start_warm) {
    const std::string history = temp_path("history");
    std::remove(history.c_str());
    std::vector<double> sizes;
    for (double s = 1; s <= 4096; s *= 2) sizes.push_back(s);
    auto cost = [](double v) { return std::abs(std::log2(v) - 9) + 1; };  // optimum 512
    std::size_t first_trials = 0;
    {
        weft::runtime_config cfg = config();
        cfg.adapt_history = history;
        weft::runtime rt(cfg);
        adapt::tunable_options o;
        o.program = "policy_test";
        o.search.start = {1};
        adapt::tunable t("grain", adapt::domain::ordered(sizes), o);
        EXPECT_EQ(t.remembered(), 0u);
        while (t.searching()) t.report(cost(t.value()));
        first_trials = t.trials();
        EXPECT_EQ(t.value(), 512);
    }
    {
        weft::runtime_config cfg = config();
        cfg.adapt_history = history;
        weft::runtime rt(cfg);
        adapt::tunable_options o;
        o.program = "policy_test";
        adapt::tunable t("grain", adapt::domain::ordered(sizes), o);
        EXPECT_EQ(t.remembered(), first_trials);
        EXPECT_EQ(t.value(), 512);  // starts at the remembered best
        while (t.searching()) t.report(cost(t.value()));
        EXPECT_LT(t.trials(), first_trials);
        EXPECT_EQ(t.value(), 512);
        // Another domain or program is another key: nothing remembered.
        adapt::tunable other("grain", adapt::domain::ordered({1, 2, 3}), o);
        EXPECT_EQ(other.remembered(), 0u);
    }
    std::remove(history.c_str());
}

TEST(tunable, tune_reports_one_trial_per_iteration_on_a_counter_and_on_wall_time) {
    const std::string log = temp_path("log");
    std::remove(log.c_str());
    weft::runtime_config cfg = config();
    cfg.adapt_log = log;
    weft::runtime rt(cfg);
    for (bool wall : {false, true}) {
        adapt::tunable_options o;
        o.history = false;
        o.search.max_trials = 6;
        adapt::tunable t(wall ? "tasks-wall" : "tasks", adapt::domain::integers(1, 64), o);
        auto h = adapt::tune(t, wall ? adapt::objective::wall_time() : adapt::objective::counter("/threads/time/overall"),
                             std::string(adapt::end_iteration_event), "start-iteration");
        for (int i = 0; i < 20 && t.searching(); ++i) {
            adapt::trigger("start-iteration");
            run_tasks(static_cast<int>(t.integer()) * 50);
            const auto before = t.trials();
            adapt::end_iteration();
            EXPECT_EQ(t.trials(), before + 1);
            EXPECT_GE(t.integer(), 1);
            EXPECT_LE(t.integer(), 64);
        }
        EXPECT_FALSE(t.searching());
        EXPECT_LE(t.trials(), 6u);
    }
    EXPECT_THROW((void)adapt::tune(*std::make_unique<adapt::tunable>("z", adapt::domain::integers(0, 1),
                                                                       adapt::tunable_options{}),
                                   adapt::objective::counter("/threads{locality#0/worker-thread#*}/idle-rate")),
                 weft::bad_counter_name);
    adapt::log("done");
    std::ifstream in(log);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("tunable tasks: trial 1 at"), std::string::npos) << text;
    // Convergence or the spent budget, with the trial count, is logged for each tunable.
    for (const char* who : {"tunable tasks: ", "tunable tasks-wall: "})
        EXPECT_TRUE(text.find(std::string(who) + "converged after ") != std::string::npos ||
                    text.find(std::string(who) + "stopped (trial budget spent) after 6 trials") != std::string::npos)
            << text;
    EXPECT_NE(text.find("done"), std::string::npos);
    adapt::set_log("");
    std::remove(log.c_str());
}

// ---------------------------------------------------------------------------------

TEST(throttle, throttled_workers_take_no_tasks_and_active_ones_take_theirs) {
    weft::runtime rt(config("local-priority", 2));
    EXPECT_EQ(adapt::active_workers(), 2u);
    adapt::set_active_workers(1);
    EXPECT_EQ(adapt::active_workers(), 1u);
    run_tasks(2000);  // whatever worker 1 was doing when throttled has ended by now
    for (int round = 0; round < 3; ++round) {
        std::atomic<int> on_other{0};
        std::vector<weft::future<void>> fs;
        for (int i = 0; i < 2000; ++i)
            fs.push_back(weft::async([&] {
                if (weft::this_task::worker_index() != 0) ++on_other;
                // Children spawned here, too, must stay on worker 0.
                weft::async([&] {
                    if (weft::this_task::worker_index() != 0) ++on_other;
                }).get();
            }));
        for (auto& f : fs) f.get();
        EXPECT_EQ(on_other.load(), 0);
    }
    adapt::set_active_workers(0);  // clamped
    EXPECT_EQ(adapt::active_workers(), 1u);
    adapt::set_active_workers(99);
    EXPECT_EQ(adapt::active_workers(), 2u);
    run_tasks(5000);  // everything still completes with both active again
}

TEST(throttle, a_throttled_worker_hands_over_tasks_queued_on_it) {
    weft::runtime rt(config("local-priority", 2));
    // Worker 1 holds queued tasks when it is throttled: they must still run (on worker 0).
    std::atomic<bool> release{false};
    std::atomic<int> done{0};
    std::vector<weft::future<void>> fs;
    weft::future<void> holder = weft::async([&] {
        std::vector<weft::future<void>> inner;
        for (int i = 0; i < 200; ++i) inner.push_back(weft::async([&] { ++done; }));
        while (!release.load()) weft::this_task::yield();
        for (auto& f : inner) f.get();
    });
    adapt::set_active_workers(1);
    release = true;
    holder.get();
    EXPECT_EQ(done.load(), 200);
    adapt::set_active_workers(2);
}

int fib(int n) {
    if (n < 2) return n;
    auto a = weft::async(fib, n - 1);
    const int b = fib(n - 2);
    if (n % 7 == 0) weft::this_task::yield();
    return a.get() + b;
}

TEST(throttle, a_policy_toggling_the_active_workers_loses_no_task) {
    // Stress: a periodic policy throttles and unthrottles every millisecond while
    // recursive tasks spawn, yield and suspend, and a non-worker thread posts tasks.
    for (unsigned workers : {2u, 3u}) {
        weft::runtime rt(config("local-priority", workers));
        std::atomic<unsigned> flips{0};
        auto h = adapt::on_period(1ms, {"flip", {}, {}}, [&](adapt::policy_context&) {
            adapt::set_active_workers(1 + flips.fetch_add(1) % workers);
        });
        std::atomic<int> posted{0};
        std::thread outside([&] {
            for (int i = 0; i < 2000; ++i) weft::post([&] { ++posted; });
        });
        for (int round = 0; round < 20; ++round) EXPECT_EQ(weft::async(fib, 18).get(), 2584);
        outside.join();
        weft::test::wait_until([&] { return posted.load() == 2000; }, "every posted task ran");
        weft::test::wait_until([&] { return flips.load() >= 3; }, "the throttling policy ran");
        h.reset();
        adapt::set_active_workers(workers);
    }
}

TEST(throttle, policies_that_never_move_tasks_refuse) {
    weft::runtime rt(config("static", 2));
    EXPECT_THROW(adapt::set_active_workers(1), weft::error);
    EXPECT_EQ(adapt::active_workers(), 2u);
}

}  // namespace
