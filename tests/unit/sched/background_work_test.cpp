// Background work (include/weft/ext/background_work.hpp) on every policy: idle and busy
// workers call it, removal waits for running calls, outstanding work keeps one worker
// polling instead of parking, and misuse throws.
#include "support/policy_test.hpp"
#include "support/wait_until.hpp"

#include <weft/ext/background_work.hpp>
#include <weft/sched/detail/suspend.hpp>
#include <weft/weft.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace {

using weft::test::policy_test;
using weft::test::wait_until;

class background_work : public policy_test {};

struct counter_work {
    std::atomic<std::uint64_t> calls{0};
    std::atomic<bool> removed{false};
    std::atomic<bool> called_after_removal{false};
    std::atomic<bool> flag{false};             // set by a task while it waits for its children
    std::atomic<std::uint64_t> calls_while_flag{0};

    static bool poll(void* arg, unsigned /*worker*/) noexcept {
        auto* self = static_cast<counter_work*>(arg);
        if (self->removed.load()) self->called_after_removal.store(true);
        self->calls.fetch_add(1);
        if (self->flag.load()) self->calls_while_flag.fetch_add(1);
        return false;
    }
};

TEST_P(background_work, idle_workers_call_it_until_it_is_removed) {
    counter_work work;
    const auto id = weft::ext::add_background_work(&counter_work::poll, &work);
    // No task runs, and the workers may all be parked: something outstanding makes one
    // poll. Only idle workers can be calling it.
    weft::ext::background_work_started(id);
    wait_until([&] { return work.calls.load() >= 100; }, "idle workers to call the background work");
    weft::ext::background_work_finished(id);
    weft::ext::remove_background_work(id);
    work.removed.store(true);  // remove() has returned: no call may begin or still run
    // Give the workers every chance to call it again: tasks, then idle time.
    for (int i = 0; i < 100; ++i) weft::async([] { return 1; }).get();
    EXPECT_FALSE(work.called_after_removal.load());
    weft::ext::remove_background_work(id);  // a second removal is a no-op
}

TEST_P(background_work, busy_workers_call_it_between_tasks) {
    counter_work work;
    const auto id = weft::ext::add_background_work(&counter_work::poll, &work, 1);
    constexpr int children = 2000;
    in_task([&] {
        work.flag.store(true);
        weft::latch done(children);
        for (int i = 0; i < children; ++i) weft::post([&done] { done.count_down(); });
        done.wait();
        work.flag.store(false);
    });
    weft::ext::remove_background_work(id);
    // Every worker was busy with queued children while the flag was up; with
    // every_tasks = 1 the loop calls the work before each task it takes.
    EXPECT_GT(work.calls_while_flag.load(), 0u);
}

// A "message" that arrives on the background work's 200th call, 20 ms after it was
// registered (long past the loop's spin before parking): only a worker that keeps polling while the message is
// outstanding delivers it, since no task exists meanwhile.
struct message_work {
    std::atomic<weft::ext::background_work_id> id{0};
    std::chrono::steady_clock::time_point since{};
    std::atomic<std::uint64_t> calls{0};
    std::atomic<bool> delivered{false};
    weft::promise<int> arrived;

    static bool poll(void* arg, unsigned /*worker*/) noexcept {
        auto* self = static_cast<message_work*>(arg);
        if (self->delivered.load()) return false;
        if (self->calls.fetch_add(1) < 200 || std::chrono::steady_clock::now() - self->since < std::chrono::milliseconds(20))
            return false;
        if (self->delivered.exchange(true)) return false;
        weft::post([self] { self->arrived.set_value(42); });  // the message's handler, as a task
        weft::ext::background_work_finished(self->id.load());
        return true;
    }
};

TEST_P(background_work, outstanding_work_keeps_a_worker_polling) {
    for (int round = 0; round < 3; ++round) {
        message_work work;
        auto f = work.arrived.get_future();
        work.since = std::chrono::steady_clock::now();
        work.id.store(weft::ext::add_background_work(&message_work::poll, &work));  // publishes since
        // Let every worker go idle and park first (nothing is outstanding yet).
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        weft::ext::background_work_started(work.id.load());
        EXPECT_EQ(f.get(), 42);
        weft::ext::remove_background_work(work.id.load());
    }
}

// A task about to suspend on a future that is not ready polls outstanding background work
// itself while its worker has nothing else to run (weft::detail::poll_while_waiting): the
// distributed layer's remote calls get their answers without a suspension and a
// resumption. The work answers after 50 calls made by the waiting task itself; a fallback
// after 5 s answers anyway, so that a waiter that does not poll fails instead of hanging.
struct answer_work {
    std::atomic<weft::detail::task*> waiter{nullptr};
    std::atomic<std::uint64_t> waiter_calls{0};
    std::atomic<bool> answered{false};
    std::atomic<bool> answered_by_waiter{false};
    std::chrono::steady_clock::time_point since{};
    std::chrono::milliseconds fallback{5000};
    weft::promise<int> answer;

    static bool poll(void* arg, unsigned) noexcept {
        auto* self = static_cast<answer_work*>(arg);
        weft::detail::task* w = self->waiter.load();
        if (w == nullptr || self->answered.load()) return false;
        // The waiter's polls run with no current task (as the loop's do), and say so.
        const bool by_waiter = weft::ext::background_caller_waiting() && weft::detail::current_task() == nullptr;
        const std::uint64_t n = by_waiter ? self->waiter_calls.fetch_add(1) + 1 : self->waiter_calls.load();
        if (n < 50 && std::chrono::steady_clock::now() - self->since < self->fallback) return false;
        if (self->answered.exchange(true)) return false;
        self->answered_by_waiter.store(by_waiter);
        self->answer.set_value(7);
        return true;
    }
};

TEST_P(background_work, a_waiting_task_polls_outstanding_work_itself) {
    if (GetParam().threads > std::max(1u, std::thread::hardware_concurrency()))
        GTEST_SKIP() << "oversubscribed: a waiting task gives its core away instead of polling";
    answer_work work;
    work.since = std::chrono::steady_clock::now();
    auto f = work.answer.get_future();
    const auto id = weft::ext::add_background_work(&answer_work::poll, &work);
    weft::ext::background_work_started(id);
    const int got = in_task([&] {
        work.waiter.store(weft::detail::current_task());
        return f.get();
    });
    weft::ext::background_work_finished(id);
    weft::ext::remove_background_work(id);
    EXPECT_EQ(got, 7);
    EXPECT_TRUE(work.answered_by_waiter.load());
    EXPECT_GE(work.waiter_calls.load(), 50u);
}

TEST_P(background_work, waiting_tasks_do_not_poll_when_turned_off) {
    weft::ext::set_waiting_tasks_poll(false);
    answer_work work;
    work.since = std::chrono::steady_clock::now();
    work.fallback = std::chrono::milliseconds(20);  // the loop's poller answers then
    auto f = work.answer.get_future();
    const auto id = weft::ext::add_background_work(&answer_work::poll, &work);
    weft::ext::background_work_started(id);
    const int got = in_task([&] {
        work.waiter.store(weft::detail::current_task());
        return f.get();
    });
    weft::ext::background_work_finished(id);
    weft::ext::remove_background_work(id);
    weft::ext::set_waiting_tasks_poll(true);
    EXPECT_EQ(got, 7);
    EXPECT_FALSE(work.answered_by_waiter.load());
    EXPECT_EQ(work.waiter_calls.load(), 0u);
}

TEST_P(background_work, a_waiting_task_with_work_queued_suspends_instead_of_polling) {
    // The posted task that answers sits in the waiter's own queue: polling would keep it
    // from running (with one worker, until the poll budget ran out). With more workers
    // another may take it at once, and the waiter may then poll: nothing to check but
    // the answer.
    struct watch {
        std::atomic<weft::detail::task*> waiter{nullptr};
        std::atomic<std::uint64_t> waiter_calls{0};
        static bool poll(void* arg, unsigned) noexcept {
            auto* self = static_cast<watch*>(arg);
            if (self->waiter.load() != nullptr && weft::ext::background_caller_waiting()) self->waiter_calls.fetch_add(1);
            return false;
        }
    } work;
    const auto id = weft::ext::add_background_work(&watch::poll, &work);
    weft::ext::background_work_started(id);
    for (int round = 0; round < 100; ++round) {
        const int got = in_task([&] {
            work.waiter.store(weft::detail::current_task());
            weft::promise<int> p;
            auto f = p.get_future();
            weft::post([&p, round] { p.set_value(round); });
            const int v = f.get();
            work.waiter.store(nullptr);
            return v;
        });
        EXPECT_EQ(got, round);
    }
    weft::ext::background_work_finished(id);
    weft::ext::remove_background_work(id);
    if (single_worker()) {
        EXPECT_EQ(work.waiter_calls.load(), 0u);
    }
}

TEST_P(background_work, work_can_remove_itself) {
    struct self_removing {
        weft::ext::background_work_id id = 0;
        std::atomic<bool> id_set{false};
        std::atomic<int> removals{0};
        static bool poll(void* arg, unsigned) noexcept {
            auto* self = static_cast<self_removing*>(arg);
            if (!self->id_set.load()) return false;
            weft::ext::remove_background_work(self->id);
            self->removals.fetch_add(1);
            return false;
        }
    } work;
    work.id = weft::ext::add_background_work(&self_removing::poll, &work);
    work.id_set.store(true);
    weft::ext::background_work_started(work.id);  // a worker polls (its removal drops this)
    wait_until([&] { return work.removals.load() >= 1; }, "the work to remove itself");
}

TEST_P(background_work, runtime_stops_while_work_is_outstanding) {
    // Never removed: it must outlive the runtime, which TearDown stops.
    static counter_work work;
    work.calls.store(0);
    const auto id = weft::ext::add_background_work(&counter_work::poll, &work);
    weft::ext::background_work_started(id);  // never finished: stopping must not wait for it
    wait_until([&] { return work.calls.load() >= 10; }, "the poller to call the work");
}

TEST_P(background_work, misuse_throws) {
    counter_work work;
    EXPECT_THROW(weft::ext::add_background_work(nullptr, &work), weft::error);
    EXPECT_THROW(weft::ext::add_background_work(&counter_work::poll, &work, 0), weft::error);
    std::vector<weft::ext::background_work_id> ids;
    for (int i = 0; i < 8; ++i) ids.push_back(weft::ext::add_background_work(&counter_work::poll, &work));
    EXPECT_THROW(weft::ext::add_background_work(&counter_work::poll, &work), weft::error);
    for (auto id : ids) weft::ext::remove_background_work(id);
    // A stale id (its slot reused since) removes nothing.
    const auto fresh = weft::ext::add_background_work(&counter_work::poll, &work);
    weft::ext::remove_background_work(ids.front());
    weft::ext::background_work_started(ids.front());
    weft::ext::background_work_finished(ids.front());
    weft::ext::background_work_started(fresh);
    const auto before = work.calls.load();
    wait_until([&] { return work.calls.load() > before; }, "the fresh work to be called still");
    weft::ext::remove_background_work(fresh);
}

WEFT_INSTANTIATE_FOR_ALL_POLICIES(background_work);

TEST(background_work_without_runtime, add_throws_and_the_rest_are_no_ops) {
    counter_work work;
    EXPECT_THROW(weft::ext::add_background_work(&counter_work::poll, &work), weft::runtime_state_error);
    EXPECT_THROW(weft::ext::set_waiting_tasks_poll(false), weft::runtime_state_error);
    weft::ext::remove_background_work(1);
    weft::ext::background_work_started(1);
    weft::ext::background_work_finished(1);
}

}  // namespace
