// The scheduling loop and task API on every policy: post, async, suspension,
// priorities, yield, sleep, ids, names, exceptions, shutdown.
#include "support/policy_test.hpp"

#include <weft/sched/detail/suspend.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

using weft::test::policy_test;

class scheduler_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(scheduler_test);

TEST_P(scheduler_test, post_runs_every_task_before_stop_returns) {
    std::atomic<int> count{0};
    for (int i = 0; i < 10000; ++i) weft::post([&count] { count.fetch_add(1, std::memory_order_relaxed); });
    rt().stop();
    EXPECT_EQ(count.load(), 10000);
}

TEST_P(scheduler_test, post_passes_decayed_arguments) {
    std::atomic<int> sum{0};
    int by_ref = 0;
    weft::post([&sum](int a, std::string s, int& r) { sum = a + static_cast<int>(s.size()); r = 7; }, 40,
               std::string("ab"), std::ref(by_ref));
    rt().wait();
    EXPECT_EQ(sum.load(), 42);
    EXPECT_EQ(by_ref, 7);
}

TEST_P(scheduler_test, async_returns_values_and_nested_tasks_spawn_more) {
    const int r = in_task([] {
        std::vector<weft::future<int>> fs;
        for (int i = 0; i < 100; ++i) fs.push_back(weft::async([i] { return weft::async([i] { return i * 2; }).get(); }));
        int s = 0;
        for (auto& f : fs) s += f.get();
        return s;
    });
    EXPECT_EQ(r, 9900);
}

TEST_P(scheduler_test, get_from_plain_thread_blocks_until_ready) {
    std::atomic<bool> go{false};
    auto f = weft::async([&go] {
        while (!go.load()) weft::this_task::yield();
        return 5;
    });
    std::thread t([&go] { go = true; });
    EXPECT_EQ(f.get(), 5);
    t.join();
}

TEST_P(scheduler_test, a_task_blocked_on_a_promise_frees_its_worker) {
    // One task waits on a promise that only a later task sets: with one worker this
    // works only if waiting suspends the task instead of blocking the worker.
    weft::promise<int> p;
    auto waiting = weft::async([f = p.get_future()]() mutable { return f.get() + 1; });
    auto setter = weft::async([&p] { p.set_value(41); });
    EXPECT_EQ(waiting.get(), 42);
    setter.get();
}

TEST_P(scheduler_test, promise_set_from_outside_wakes_suspended_tasks) {
    constexpr int n = 200;
    std::vector<weft::promise<int>> ps(n);
    std::vector<weft::future<int>> results;
    std::atomic<int> started{0};
    for (int i = 0; i < n; ++i)
        results.push_back(weft::async([&started, f = ps[i].get_future()]() mutable {
            started.fetch_add(1);
            return f.get();
        }));
    while (started.load() < n) std::this_thread::yield();
    std::thread setter([&] {
        for (int i = 0; i < n; ++i) ps[i].set_value(i);
    });
    long sum = 0;
    for (auto& f : results) sum += f.get();
    setter.join();
    EXPECT_EQ(sum, n * (n - 1) / 2);
}

TEST_P(scheduler_test, exceptions_reach_the_future) {
    auto f = weft::async([]() -> int { throw std::runtime_error("boom"); });
    EXPECT_THROW(
        {
            try {
                f.get();
            } catch (const std::runtime_error& e) {
                EXPECT_STREQ(e.what(), "boom");
                throw;
            }
        },
        std::runtime_error);
    EXPECT_FALSE(f.valid());
    // Through a chain of tasks.
    auto g = weft::async([] { return weft::async([]() -> int { throw std::logic_error("deep"); }).get(); });
    EXPECT_THROW(g.get(), std::logic_error);
}

// The suspend hook (weft/sched/detail/suspend.hpp), which the distributed layer's
// batches of calls use: it fires once when the task suspends, before anything else can
// run, and not at all when the code between set and clear does not suspend.
TEST_P(scheduler_test, the_suspend_hook_fires_once_when_the_task_suspends_and_not_otherwise) {
    struct state {
        int fired = 0;
        bool setter_ran_before = false;
        std::atomic<bool> setter_ran{false};
    };
    state st;
    weft::promise<void> p;
    auto setter_posted = [&] {
        // Posted by the hook: it runs only once the waiting task has let its worker go.
        weft::post([&] {
            st.setter_ran.store(true);
            p.set_value();
        });
    };
    const int fired = in_task([&] {
        // Not suspending: nothing fires, and clearing works.
        weft::detail::suspend_hook quiet{[](void* arg) noexcept { ++static_cast<state*>(arg)->fired; }, &st};
        weft::detail::set_suspend_hook(quiet);
        volatile int sum = 0;
        for (int i = 0; i < 100; ++i) sum = sum + i;
        weft::detail::clear_suspend_hook();
        weft::this_task::yield();  // the hook is gone: this suspension fires nothing
        if (st.fired != 0) return -1;
        // Suspending: the hook fires, once, before the task waits.
        struct both {
            state* st;
            decltype(setter_posted)* post;
        } b{&st, &setter_posted};
        weft::detail::set_suspend_hook({[](void* arg) noexcept {
                                            auto* x = static_cast<both*>(arg);
                                            ++x->st->fired;
                                            x->st->setter_ran_before = x->st->setter_ran.load();
                                            (*x->post)();
                                        },
                                        &b});
        p.get_future().get();  // suspends until the task the hook posted sets it
        weft::this_task::yield();  // fired and cleared: no second call
        return st.fired;
    });
    EXPECT_EQ(fired, 1);
    EXPECT_FALSE(st.setter_ran_before);
    EXPECT_TRUE(st.setter_ran.load());
}

// idle_workers() (detail/suspend.hpp): alone, a worker never sees another idle; with
// others and nothing for them to do, it sees one spinning or parked.
TEST_P(scheduler_test, idle_workers_sees_the_others_idle_and_never_itself) {
    const bool seen = in_task([this] {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        for (int i = 0;; ++i) {
            const weft::detail::idle_workers_now idle = weft::detail::idle_workers();
            if (idle.spinning || idle.parked) return true;
            // Alone: a few thousand looks are enough to say it never happens.
            if ((single_worker() && i > 5000) || std::chrono::steady_clock::now() > deadline) return false;
        }
    });
    EXPECT_EQ(seen, !single_worker());
}

TEST(suspend_hook, setting_one_outside_a_task_throws_and_clearing_is_harmless) {
    EXPECT_THROW(weft::detail::set_suspend_hook({[](void*) noexcept {}, nullptr}), weft::runtime_state_error);
    weft::detail::clear_suspend_hook();
    const weft::detail::idle_workers_now idle = weft::detail::idle_workers();
    EXPECT_FALSE(idle.spinning);
    EXPECT_FALSE(idle.parked);
}

TEST_P(scheduler_test, yield_lets_other_tasks_run) {
    std::atomic<bool> flag{false};
    const bool ok = in_task([&flag] {
        weft::post([&flag] { flag = true; });
        for (int i = 0; i < 1000000 && !flag.load(); ++i) weft::this_task::yield();
        return flag.load();
    });
    EXPECT_TRUE(ok);
}

TEST_P(scheduler_test, sleep_suspends_without_blocking_the_worker) {
    std::atomic<int> order{0};
    int sleeper_saw = -1;
    auto sleeper = weft::async([&] {
        weft::this_task::sleep_for(std::chrono::milliseconds(30));
        sleeper_saw = order.load();
    });
    auto other = weft::async([&] { order.fetch_add(1); });
    other.get();
    sleeper.get();
    EXPECT_EQ(sleeper_saw, 1);  // the other task ran while the sleeper slept
}

TEST_P(scheduler_test, sleep_until_a_past_deadline_returns) {
    in_task([] { weft::this_task::sleep_until(std::chrono::steady_clock::now() - std::chrono::seconds(1)); });
    SUCCEED();
}

TEST_P(scheduler_test, ids_are_unique_and_names_are_kept) {
    std::mutex m;
    std::set<weft::task_id> ids;
    std::vector<weft::future<void>> fs;
    for (int i = 0; i < 500; ++i)
        fs.push_back(weft::async([&] {
            std::lock_guard l(m);
            ids.insert(weft::this_task::get_id());
        }));
    for (auto& f : fs) f.get();
    EXPECT_EQ(ids.size(), 500u);
    EXPECT_EQ(ids.count(weft::task_id{}), 0u);
    EXPECT_EQ(weft::this_task::get_id(), weft::task_id{});  // the test thread is no task
    auto name = weft::async(weft::task_attributes{weft::task_priority::normal, "named"},
                            [] { return std::string(weft::this_task::get_name()); });
    EXPECT_EQ(name.get(), "named");
    EXPECT_EQ(weft::this_task::worker_index(), -1);
    const int w = in_task([] { return weft::this_task::worker_index(); });
    EXPECT_GE(w, 0);
    EXPECT_LT(w, static_cast<int>(rt().num_workers()));
}

TEST_P(scheduler_test, high_priority_runs_before_normal_and_low_last) {
    if (!single_worker()) GTEST_SKIP() << "ordering is only deterministic with one worker";
    std::vector<int> order;
    in_task([&order] {
        weft::post(weft::task_attributes{weft::task_priority::low, "low"}, [&order] { order.push_back(3); });
        weft::post([&order] { order.push_back(2); });
        weft::post(weft::task_attributes{weft::task_priority::high, "high"}, [&order] { order.push_back(1); });
    });
    rt().wait();
    EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST_P(scheduler_test, low_priority_tasks_all_run) {
    std::atomic<int> n{0};
    for (int i = 0; i < 1000; ++i)
        weft::post(weft::task_attributes{weft::task_priority::low, nullptr}, [&n] { n.fetch_add(1); });
    rt().wait();
    EXPECT_EQ(n.load(), 1000);
}

TEST_P(scheduler_test, work_spreads_over_workers) {
    if (single_worker()) GTEST_SKIP() << "one worker";
    // Tasks that block their worker for a moment make every worker take some.
    std::vector<weft::future<void>> fs;
    for (int i = 0; i < 64; ++i)
        fs.push_back(weft::async([] { std::this_thread::sleep_for(std::chrono::milliseconds(2)); }));
    for (auto& f : fs) f.get();
    rt().wait();
    const auto per_worker = rt().tasks_per_worker();
    unsigned busy = 0;
    for (auto n : per_worker) busy += n > 0;
    EXPECT_GE(busy, 2u);
}

TEST_P(scheduler_test, many_tasks_suspend_and_resume_repeatedly) {
    const long r = in_task([] {
        std::vector<weft::future<long>> fs;
        for (int i = 0; i < 200; ++i)
            fs.push_back(weft::async([i] {
                long s = 0;
                for (int k = 0; k < 20; ++k) {
                    weft::this_task::yield();
                    s += weft::async([i, k] { return long{i + k}; }).get();
                }
                return s;
            }));
        long total = 0;
        for (auto& f : fs) total += f.get();
        return total;
    });
    EXPECT_EQ(r, 200L * 190 + 20L * (199 * 200 / 2));
}

TEST(scheduler, spawning_without_a_runtime_throws) {
    EXPECT_THROW(weft::post([] {}), weft::runtime_state_error);
    EXPECT_THROW((void)weft::async([] { return 1; }), weft::runtime_state_error);
}

TEST(scheduler, a_second_runtime_while_one_runs_throws) {
    weft::runtime_config cfg;
    cfg.threads = 1;
    weft::runtime rt(cfg);
    EXPECT_THROW(weft::runtime{cfg}, weft::runtime_state_error);
}

TEST(scheduler, runtimes_can_start_and_stop_repeatedly) {
    for (int i = 0; i < 20; ++i) {
        weft::runtime_config cfg;
        cfg.threads = 2;
        cfg.bind = false;
        weft::runtime rt(cfg);
        EXPECT_EQ(weft::async([i] { return i; }).get(), i);
    }
}

}  // namespace
