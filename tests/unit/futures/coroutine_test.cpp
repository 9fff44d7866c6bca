// C++20 coroutines returning weft::future<T> and co_awaiting weft futures; on every policy.
#include "support/policy_test.hpp"

#include <stdexcept>
#include <string>

namespace {

using weft::test::policy_test;
class coroutine_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(coroutine_test);

weft::future<int> twice(weft::future<int> in) { co_return 2 * co_await std::move(in); }

weft::future<std::string> mixed() {
    int a = co_await weft::async([] { return 20; });
    weft::shared_future<int> s = weft::make_ready_future(1).share();
    int b = co_await s;
    int c = co_await twice(weft::make_ready_future(a + b));
    co_return std::to_string(c);
}

weft::future<void> fails() {
    co_await weft::async([] {});
    throw std::runtime_error("in coroutine");
}

weft::future<int> awaits_failure() {
    try {
        co_await weft::make_exceptional_future<int>(std::logic_error("awaited"));
    } catch (const std::logic_error&) {
        co_return 1;
    }
    co_return 0;
}

weft::future<long> depth(long n) {
    if (n == 0) co_return 0;
    co_return 1 + co_await depth(n - 1);
}

weft::future<int> waits_on(weft::future<int> f) { co_return co_await std::move(f); }

TEST_P(coroutine_test, values_flow_through_co_await) { EXPECT_EQ(mixed().get(), "42"); }

TEST_P(coroutine_test, exceptions_propagate_both_ways) {
    EXPECT_THROW(fails().get(), std::runtime_error);
    EXPECT_EQ(awaits_failure().get(), 1);
}

TEST_P(coroutine_test, deep_recursion_holds_no_stacks) {
    // Each level is suspended as a coroutine frame only: no task stack per level.
    EXPECT_EQ(depth(20'000).get(), 20'000);
}

TEST_P(coroutine_test, a_suspended_coroutine_is_resumed_by_a_promise) {
    weft::promise<int> p;
    auto f = waits_on(p.get_future());
    rt().wait();  // the coroutine is suspended on the promise: no task exists meanwhile
    EXPECT_FALSE(f.is_ready());
    p.set_value(9);
    EXPECT_EQ(f.get(), 9);
}

TEST_P(coroutine_test, co_await_on_an_invalid_future_throws) {
    auto bad = []() -> weft::future<int> { co_return co_await weft::future<int>{}; };
    EXPECT_THROW(bad().get(), std::future_error);
}

}  // namespace
