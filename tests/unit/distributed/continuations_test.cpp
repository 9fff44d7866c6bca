// The calling side of remote actions without a network (issue #23): each call in flight
// has a continuation id whose result or exception parcel completes the caller's future;
// an unknown id is refused (a malformed or duplicate parcel), a payload that does not
// decode into the expected type reaches the future as weft::serialization_error, and
// fail_all leaves nobody waiting. Four threads complete calls concurrently.
#include <weft/distributed/continuations.hpp>

#include <weft/weft.hpp>

#include <gtest/gtest.h>

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
