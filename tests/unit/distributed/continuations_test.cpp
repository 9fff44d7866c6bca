// The calling side of remote actions without a network (issue #23): each call in flight
// has a continuation id whose result or exception parcel completes the caller's future;
// an unknown id is refused (a malformed or duplicate parcel), a payload that does not
// decode into the expected type reaches the future as weft::serialization_error, and
// fail_all leaves nobody waiting. Four threads complete calls concurrently.
#include <weft/distributed/continuations.hpp>

#include <weft/weft.hpp>

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace wd = weft::distributed::detail;
namespace ws = weft::serialization;

TEST(continuations, results_and_exceptions_reach_the_callers_future) {
    weft::runtime rt(weft::runtime_config{});
    wd::continuation_table t;
    auto [a, fa] = t.add<int>();
    auto [b, fb] = t.add<std::string>();
    auto [c, fc] = t.add<void>();
    auto [d, fd] = t.add<double>();
    EXPECT_NE(a, 0u);
    EXPECT_EQ(t.waiting(), 4u);
    EXPECT_TRUE(t.complete(a, ws::to_bytes(42)));
    EXPECT_TRUE(t.complete(b, ws::to_bytes(std::string("remote"))));
    EXPECT_TRUE(t.complete(c, {}));
    EXPECT_TRUE(t.fail(d, std::make_exception_ptr(std::out_of_range("far away"))));
    EXPECT_EQ(fa.get(), 42);
    EXPECT_EQ(fb.get(), "remote");
    EXPECT_NO_THROW(fc.get());
    EXPECT_THROW(fd.get(), std::out_of_range);
    EXPECT_EQ(t.waiting(), 0u);
}

TEST(continuations, unknown_and_duplicate_ids_are_refused) {
    wd::continuation_table t;
    auto [a, fa] = t.add<int>();
    EXPECT_FALSE(t.complete(a + 1000, ws::to_bytes(1)));
    EXPECT_FALSE(t.complete(0, ws::to_bytes(1)));
    EXPECT_TRUE(t.complete(a, ws::to_bytes(1)));
    EXPECT_FALSE(t.complete(a, ws::to_bytes(2)));  // a second answer for the same call
    EXPECT_FALSE(t.fail(a, std::make_exception_ptr(std::runtime_error("late"))));
    EXPECT_EQ(fa.get(), 1);
}

TEST(continuations, a_reused_slot_refuses_the_answer_of_its_earlier_call) {
    wd::continuation_table t;
    auto [a, fa] = t.add<int>();
    EXPECT_TRUE(t.complete(a, ws::to_bytes(1)));
    auto [b, fb] = t.add<int>();  // the same slot, its next use
    EXPECT_NE(a, b);
    EXPECT_EQ(a & 0xffffffffu, b & 0xffffffffu);
    EXPECT_FALSE(t.complete(a, ws::to_bytes(2)));  // a late duplicate of the first answer
    EXPECT_FALSE(t.complete(b + (std::uint64_t{1} << 32), ws::to_bytes(3)));  // a use still to come
    EXPECT_TRUE(t.complete(b, ws::to_bytes(4)));
    EXPECT_EQ(fa.get(), 1);
    EXPECT_EQ(fb.get(), 4);
}

// The table against a map of the calls in flight (the oracle), under a random mix of
// adds, answers for live and finished ids, forged ids and fail_all.
TEST(continuations, model_based_against_a_map) {
    weft::runtime rt(weft::runtime_config{});
    wd::continuation_table t;
    std::map<std::uint64_t, std::pair<weft::future<int>, int>> live;  // id -> future, value sent
    std::vector<std::uint64_t> finished;
    std::mt19937_64 rng(12345);
    int value = 0;
    for (int step = 0; step < 20'000; ++step) {
        const unsigned op = static_cast<unsigned>(rng() % 100);
        if (op < 45 || live.empty()) {
            auto [id, f] = t.add<int>();
            ASSERT_NE(id, 0u);
            ASSERT_EQ(live.count(id), 0u) << "an id in use handed out again";
            live.emplace(id, std::make_pair(std::move(f), 0));
        } else if (op < 90) {
            auto it = live.begin();
            std::advance(it, static_cast<long>(rng() % live.size()));
            ++value;
            ASSERT_TRUE(t.complete(it->first, ws::to_bytes(value)));
            ASSERT_EQ(it->second.first.get(), value);
            finished.push_back(it->first);
            live.erase(it);
        } else if (op < 97) {
            if (!finished.empty()) {
                ASSERT_FALSE(t.complete(finished[rng() % finished.size()], ws::to_bytes(0)));
            }
            ASSERT_FALSE(t.complete(rng() | (std::uint64_t{1} << 63), ws::to_bytes(0)));  // forged
        } else if (op < 98) {
            t.fail_all(std::make_exception_ptr(weft::error("stopped")));
            for (auto& [id, call] : live) {
                EXPECT_THROW(call.first.get(), weft::error);
                finished.push_back(id);
            }
            live.clear();
        }
        ASSERT_EQ(t.waiting(), live.size());
    }
}

TEST(continuations, a_payload_of_the_wrong_shape_reaches_the_future_as_serialization_error) {
    wd::continuation_table t;
    auto [a, fa] = t.add<std::vector<int>>();
    auto [b, fb] = t.add<int>();
    EXPECT_TRUE(t.complete(a, ws::to_bytes(std::uint64_t{1} << 40)));  // a count with nothing behind it
    EXPECT_TRUE(t.complete(b, ws::to_bytes(1, 2)));                   // bytes left over
    EXPECT_THROW(fa.get(), weft::serialization_error);
    EXPECT_THROW(fb.get(), weft::serialization_error);
}

TEST(continuations, fail_all_leaves_nobody_waiting) {
    wd::continuation_table t;
    std::vector<weft::future<int>> fs;
    for (int i = 0; i < 10; ++i) fs.push_back(t.add<int>().second);
    t.fail_all(std::make_exception_ptr(weft::error("locality 3 died")));
    EXPECT_EQ(t.waiting(), 0u);
    for (auto& f : fs) EXPECT_THROW(f.get(), weft::error);
}

TEST(continuations, concurrent_completion_from_several_threads) {
    weft::runtime rt(weft::runtime_config{});
    wd::continuation_table t;
    constexpr int calls = 20'000;
    std::vector<std::uint64_t> ids(calls);
    std::vector<weft::future<int>> fs(calls);
    for (int i = 0; i < calls; ++i) std::tie(ids[i], fs[i]) = t.add<int>();
    std::vector<std::thread> threads;
    for (int k = 0; k < 4; ++k)
        threads.emplace_back([&, k] {
            for (int i = k; i < calls; i += 4) EXPECT_TRUE(t.complete(ids[i], ws::to_bytes(i)));
        });
    for (auto& th : threads) th.join();
    for (int i = 0; i < calls; ++i) ASSERT_EQ(fs[i].get(), i);
    EXPECT_EQ(t.waiting(), 0u);
}

}  // namespace
