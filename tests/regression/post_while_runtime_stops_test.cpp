// Regression (issue #20, item 1): a plain thread that posted tasks in a loop while the
// main thread destroyed the weft::runtime raced with the scheduler's deletion (TSan:
// scheduler::spawn() reading what runtime::stop() freed); hundreds of posts per run
// returned normally and never ran, and some async futures never became ready. Now a
// thread outside the runtime passes an entry that stop() closes and drains: a post
// either runs or throws weft::runtime_state_error, a future either completes or its
// async throws, and nothing touches a freed scheduler.
#include "support/policy_test.hpp"

#include <weft/weft.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

namespace {

class post_while_runtime_stops : public ::testing::TestWithParam<weft::test::policy_case> {
protected:
    weft::runtime_config config() const {
        weft::runtime_config cfg;
        cfg.scheduler = GetParam().scheduler;
        cfg.threads = GetParam().threads;
        cfg.bind = false;
        return cfg;
    }
};

#if WEFT_HAVE_TSAN || WEFT_HAVE_ASAN
constexpr int rounds = 6;  // instrumented: each round is slower, and the race shows in a few
#else
constexpr int rounds = 25;
#endif

TEST_P(post_while_runtime_stops, every_accepted_post_runs) {
    for (int round = 0; round < rounds; ++round) {
        std::atomic<std::uint64_t> ran{0};
        std::atomic<std::uint64_t> accepted{0};
        std::atomic<std::uint64_t> refused{0};
        std::atomic<bool> started{false};
        std::atomic<bool> done{false};
        auto rt = std::make_unique<weft::runtime>(config());
        std::thread feeder([&] {
            // Posts until the runtime refuses, then a few more (all must be refused).
            std::uint64_t after_refusal = 0;
            while (after_refusal < 100) {
                try {
                    weft::post([&ran] { ran.fetch_add(1, std::memory_order_relaxed); });
                    accepted.fetch_add(1, std::memory_order_relaxed);
                    EXPECT_EQ(after_refusal, 0u) << "a post was accepted after the runtime had refused one";
                } catch (const weft::runtime_state_error&) {
                    refused.fetch_add(1, std::memory_order_relaxed);
                    ++after_refusal;
                }
                started.store(true);
            }
            done.store(true);
        });
        while (!started.load()) std::this_thread::yield();
        rt.reset();  // waits for every accepted task, then stops
        const std::uint64_t ran_at_stop = ran.load();
        feeder.join();
        EXPECT_TRUE(done.load());
        EXPECT_EQ(ran_at_stop, accepted.load()) << "accepted posts that never ran (round " << round << ")";
        EXPECT_EQ(ran.load(), accepted.load());
        EXPECT_GE(refused.load(), 100u);
    }
}

TEST_P(post_while_runtime_stops, every_async_future_completes_or_its_async_throws) {
    for (int round = 0; round < rounds; ++round) {
        std::vector<weft::future<int>> futures;
        std::atomic<bool> started{false};
        auto rt = std::make_unique<weft::runtime>(config());
        std::thread feeder([&] {
            for (int i = 0;; ++i) {
                try {
                    futures.push_back(weft::async([i] { return i; }));
                } catch (const weft::runtime_state_error&) {
                    break;
                }
                started.store(true);
            }
        });
        while (!started.load()) std::this_thread::yield();
        rt.reset();
        feeder.join();
        for (std::size_t i = 0; i < futures.size(); ++i) {
            ASSERT_TRUE(futures[i].is_ready()) << "future " << i << " of " << futures.size() << " never became ready";
            EXPECT_EQ(futures[i].get(), static_cast<int>(i));
        }
    }
}

TEST_P(post_while_runtime_stops, a_post_after_stop_throws_and_a_new_runtime_accepts_again) {
    {
        weft::runtime rt(config());
        rt.stop();
        EXPECT_THROW(weft::post([] {}), weft::runtime_state_error);
    }
    EXPECT_THROW(weft::post([] {}), weft::runtime_state_error);
    weft::runtime rt(config());
    EXPECT_EQ(weft::async([] { return 7; }).get(), 7);
}

WEFT_INSTANTIATE_FOR_ALL_POLICIES(post_while_runtime_stops);

}  // namespace
