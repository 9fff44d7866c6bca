// Direct hand-off (issue #22; runtime_config::hand_off, src/sched/spawn.cpp): a task that
// a dataflow, a continuation or a resumption readies goes straight to a worker spinning
// idle. On every policy: it happens (count/handed-to), it loses and duplicates nothing
// (a dataflow graph computes what a serial loop does), a worker that parks closes its
// slot first (rounds separated by idle spells long enough to park), and with hand-off
// off nothing is handed. Nothing is timed; a lost task fails a bounded wait instead of
// stalling CI.
#include "support/policy_test.hpp"

#include <weft/counters/counters.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
namespace wc = weft::counters;

constexpr auto never = 60s;  // a bounded wait that only a lost task reaches

/// Tasks handed to idle workers since `set` (of count/handed-to's total) was made.
double handed_since(wc::counter_set& set) {
    const auto v = set.evaluate();
    return v.empty() ? -1.0 : v.front().value;
}

wc::counter_set handed_to_total() { return wc::query("/threads{locality#0/total}/count/handed-to"); }

/// One step of a width-w stencil: every point of step t from points i-1, i, i+1 of t-1.
std::uint64_t mix(std::uint64_t l, std::uint64_t c, std::uint64_t r, unsigned t, unsigned i) {
    std::uint64_t x = l * 3 + c * 5 + r * 7 + t * 0x9e3779b97f4a7c15ull + i;
    x ^= x >> 29;
    return x * 0xbf58476d1ce4e5b9ull;
}

/// The stencil graph as dataflows (one task per point and step); returns the last step.
std::vector<std::uint64_t> stencil_with_dataflow(unsigned width, unsigned steps) {
    using sf = weft::shared_future<std::uint64_t>;
    std::vector<sf> row(width);
    for (unsigned i = 0; i < width; ++i) row[i] = weft::make_ready_future<std::uint64_t>(i + 1).share();
    for (unsigned t = 1; t <= steps; ++t) {
        std::vector<sf> next(width);
        for (unsigned i = 0; i < width; ++i) {
            const sf& l = row[i == 0 ? width - 1 : i - 1];
            const sf& r = row[i + 1 == width ? 0 : i + 1];
            next[i] = weft::dataflow(
                          [t, i](const sf& a, const sf& b, const sf& c) { return mix(a.get(), b.get(), c.get(), t, i); },
                          l, row[i], r)
                          .share();
        }
        row = std::move(next);
    }
    std::vector<std::uint64_t> out(width);
    for (unsigned i = 0; i < width; ++i) {
        EXPECT_EQ(row[i].wait_for(never), weft::future_status::ready) << "point " << i << ": a task was lost";
        out[i] = row[i].get();
    }
    return out;
}

std::vector<std::uint64_t> stencil_serially(unsigned width, unsigned steps) {
    std::vector<std::uint64_t> row(width);
    for (unsigned i = 0; i < width; ++i) row[i] = i + 1;
    for (unsigned t = 1; t <= steps; ++t) {
        std::vector<std::uint64_t> next(width);
        for (unsigned i = 0; i < width; ++i)
            next[i] = mix(row[i == 0 ? width - 1 : i - 1], row[i], row[i + 1 == width ? 0 : i + 1], t, i);
        row = std::move(next);
    }
    return row;
}

class handoff : public weft::test::policy_test {};

TEST_P(handoff, an_idle_worker_receives_readied_tasks_directly) {
    if (single_worker()) GTEST_SKIP() << "one worker: nobody to hand to";
    // A driver pinned to worker 0 readies one continuation at a time by setting a
    // promise (not at its own end, so the bypass slot cannot take it): each goes to an
    // idle worker's slot if one is open, else to a queue (where the driver's get() takes
    // it back). Worker 0 is busy driving, so another worker goes idle and opens its slot
    // as soon as its thread gets a core: on a loaded machine (CI runs two tests at once
    // on two cores) that may take a while, so the driver goes on until a hand-off is
    // counted, yielding its core now and then, and gives up only after a deadline far
    // beyond any schedule.
    weft::task_attributes on0;
    on0.worker = 0;
    wc::counter_set handed_to = handed_to_total();
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    const bool handed = weft::async(on0, [&] {
                            for (int round = 0;; ++round) {
                                weft::promise<int> p;
                                auto f = p.get_future().then([](weft::future<int> x) { return x.get() + 1; });
                                p.set_value(round);
                                if (f.get() != round + 1) return false;
                                if (round % 256 != 255) continue;
                                if (handed_since(handed_to) > 0) return true;
                                if (std::chrono::steady_clock::now() > deadline) return false;
                                std::this_thread::yield();  // the OS thread: a worker sharing this core runs
                            }
                        }).get();
    EXPECT_TRUE(handed) << "no readied task reached an idle worker's slot within 60 s";
}

TEST_P(handoff, a_dataflow_graph_loses_and_duplicates_nothing) {
    constexpr unsigned width = 6, steps = 400;
    const auto want = stencil_serially(width, steps);
    for (int rep = 0; rep < 3; ++rep) {
        const auto got = in_task([&] { return stencil_with_dataflow(width, steps); });
        ASSERT_EQ(got, want) << "rep " << rep;
    }
}

TEST_P(handoff, workers_that_park_close_their_slot_first) {
    // Between rounds every worker goes idle long enough to park (the spin before parking
    // is 0.5 ms); a readier that still sees a parked worker's bit must not leave a task
    // in a slot nobody watches.
    weft::promise<void> go;
    weft::shared_future<void> ready;
    for (int round = 0; round < 12; ++round) {
        std::this_thread::sleep_for(3ms);
        weft::promise<void> p;
        weft::shared_future<void> s = p.get_future().share();
        std::vector<weft::future<int>> fs;
        for (int k = 0; k < 4; ++k) fs.push_back(weft::dataflow([k](const weft::shared_future<void>&) { return k; }, s));
        weft::async([&p] { p.set_value(); }).get();
        for (int k = 0; k < 4; ++k) {
            ASSERT_EQ(fs[static_cast<std::size_t>(k)].wait_for(never), weft::future_status::ready)
                << "round " << round << ": task " << k << " was lost";
            EXPECT_EQ(fs[static_cast<std::size_t>(k)].get(), k);
        }
    }
}

WEFT_INSTANTIATE_FOR_ALL_POLICIES(handoff);

/// With hand-off off, every readied task takes its policy's path.
class handoff_off : public weft::test::policy_test {
protected:
    weft::runtime_config config() const override {
        weft::runtime_config cfg = policy_test::config();
        cfg.hand_off = false;
        return cfg;
    }
};

TEST_P(handoff_off, hands_nothing_and_still_runs_every_task) {
    constexpr unsigned width = 6, steps = 200;
    wc::counter_set handed_to = handed_to_total();
    const auto want = stencil_serially(width, steps);
    const auto got = in_task([&] { return stencil_with_dataflow(width, steps); });
    EXPECT_EQ(got, want);
    EXPECT_EQ(handed_since(handed_to), 0.0);
}

INSTANTIATE_TEST_SUITE_P(policies, handoff_off,
                         ::testing::Values(weft::test::policy_case{"local-priority", 2},
                                           weft::test::policy_case{"xqueue", 2},
                                           weft::test::policy_case{"hierarchical", 3}),
                         weft::test::case_name);

}  // namespace
