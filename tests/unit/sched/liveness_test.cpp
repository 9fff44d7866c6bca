// No policy leaves a worker idle while a task is ready (issue #22). Two tasks that
// become ready together each spin, on a plain atomic flag (the OS sees a busy thread;
// weft sees a task that never comes back to the scheduler), until the other has
// started. They finish only if two workers run them at the same time: a policy that
// queues both on one worker and lets the other idle (its thief waiting for the busy
// victim to come back, its task stuck in a private queue, a ring, or a missed wake-up)
// hangs here. Nothing is timed: the spin gives up only after a deadline far beyond any
// schedule, so that a bug fails the test instead of stalling CI.
//
// The ways two tasks become ready together: a dataflow (two dataflows on one future),
// `then` (two continuations of one shared future), a promise set from another worker or
// from a thread outside the runtime (two tasks suspended in get()), and fork-join
// (task_group, and async + get).
#include "support/policy_test.hpp"

#include <weft/ext/scheduler_policy.hpp>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace {

using weft::test::policy_case;

/// Two tasks meet: each arrives, then waits until both have.
struct rendezvous {
    std::atomic<int> arrived{0};
    std::atomic<bool> gave_up{false};

    void meet() {
        arrived.fetch_add(1);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (arrived.load() < 2) {
            if (std::chrono::steady_clock::now() > deadline) {
                gave_up.store(true);  // serialised: the other task never started beside us
                return;
            }
            std::this_thread::yield();  // an OS-level wait: the worker stays in this task
        }
    }
};

class liveness : public weft::test::policy_test {
protected:
    static constexpr int rounds = 20;

    /// Runs `make_pair(r)` `rounds` times with a fresh rendezvous; each call makes two
    /// tasks ready together and waits for both.
    template <class MakePair>
    void each_round(MakePair make_pair) {
        for (int i = 0; i < rounds; ++i) {
            rendezvous r;
            make_pair(r);
            ASSERT_FALSE(r.gave_up.load()) << "round " << i << ": two ready tasks ran one after the other on "
                                           << GetParam().scheduler << " with " << GetParam().threads << " workers";
        }
    }
};

TEST_P(liveness, two_dataflows_on_one_future) {
    each_round([](rendezvous& r) {
        weft::promise<void> p;
        weft::shared_future<void> ready = p.get_future().share();
        auto a = weft::dataflow([&r](weft::shared_future<void>) { r.meet(); }, ready);
        auto b = weft::dataflow([&r](weft::shared_future<void>) { r.meet(); }, ready);
        weft::async([&p] { p.set_value(); }).get();  // set on a worker
        a.get();
        b.get();
    });
}

TEST_P(liveness, two_continuations_of_one_shared_future) {
    each_round([](rendezvous& r) {
        weft::promise<int> p;
        weft::shared_future<int> ready = p.get_future().share();
        auto a = ready.then([&r](const weft::shared_future<int>&) { r.meet(); });
        auto b = ready.then([&r](const weft::shared_future<int>&) { r.meet(); });
        weft::async([&p] { p.set_value(1); }).get();
        a.get();
        b.get();
    });
}

TEST_P(liveness, two_tasks_resumed_by_a_promise_set_on_another_worker) {
    // The setter is pinned to each worker in turn, so that the two suspended tasks are
    // resumed from every worker, theirs or another.
    const unsigned workers = rt().num_workers();
    int round = 0;
    each_round([&](rendezvous& r) {
        weft::promise<void> p;
        weft::shared_future<void> ready = p.get_future().share();
        std::atomic<int> waiting{0};
        auto body = [&r, &waiting, ready] {
            waiting.fetch_add(1);
            ready.get();  // suspends (or finds it set)
            r.meet();
        };
        auto a = weft::async(body);
        auto b = weft::async(body);
        weft::task_attributes on;
        on.worker = static_cast<unsigned>(round++) % workers;
        weft::async(on, [&p, &waiting] {
            while (waiting.load() < 2) weft::this_task::yield();
            p.set_value();
        }).get();
        a.get();
        b.get();
    });
}

TEST_P(liveness, two_tasks_resumed_from_a_thread_outside_the_runtime) {
    // Both start on worker 0 (their spawner is pinned there) and are resumed from the
    // test's thread, which places resumed tasks where they last ran.
    each_round([](rendezvous& r) {
        weft::promise<void> p;
        weft::shared_future<void> ready = p.get_future().share();
        std::atomic<int> waiting{0};
        weft::future<void> a, b;
        weft::task_attributes on;
        on.worker = 0;
        weft::async(on, [&] {
            auto body = [&r, &waiting, ready] {
                waiting.fetch_add(1);
                ready.get();
                r.meet();
            };
            a = weft::async(body);
            b = weft::async(body);
        }).get();
        while (waiting.load() < 2) std::this_thread::yield();
        p.set_value();
        a.get();
        b.get();
    });
}

TEST_P(liveness, two_children_of_a_task_group) {
    each_round([this](rendezvous& r) {
        in_task([&r] {
            weft::task_group g;
            g.run([&r] { r.meet(); });
            g.run([&r] { r.meet(); });
            g.wait();
        });
    });
}

TEST_P(liveness, two_asyncs_joined_with_get) {
    each_round([this](rendezvous& r) {
        in_task([&r] {
            auto a = weft::async([&r] { r.meet(); });
            auto b = weft::async([&r] { r.meet(); });
            a.get();
            b.get();
        });
    });
}

// Every registered policy that runs more than one worker, at two workers, and the
// stealing ones oversubscribed too (more workers than CI's two cores).
std::vector<policy_case> cases() {
    static std::vector<std::string> names = weft::ext::scheduler_policy_names();
    std::vector<policy_case> out;
    for (const std::string& n : names) {
        if (n == "single") continue;
        out.push_back({n.c_str(), 2});
#if !WEFT_HAVE_TSAN
        out.push_back({n.c_str(), 3});
#endif
    }
    return out;
}

INSTANTIATE_TEST_SUITE_P(policies, liveness, ::testing::ValuesIn(cases()), weft::test::case_name);

}  // namespace
