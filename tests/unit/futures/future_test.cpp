// weft::future and weft::promise: values, references, void, errors, and waiting from
// tasks and from plain threads, on every policy.
#include "support/policy_test.hpp"

#include <future>
#include <memory>
#include <string>
#include <thread>

namespace {

using weft::test::policy_test;

class future_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(future_test);

std::future_errc code_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::future_error& e) {
        return static_cast<std::future_errc>(e.code().value());
    }
    return std::future_errc{};
}

TEST_P(future_test, value_reference_void_and_move_only_results) {
    EXPECT_EQ(weft::async([] { return std::string("text"); }).get(), "text");
    auto p = weft::async([] { return std::make_unique<int>(9); }).get();
    EXPECT_EQ(*p, 9);
    int x = 1;
    int& r = weft::async([&x]() -> int& { return x; }).get();
    EXPECT_EQ(&r, &x);
    weft::async([] {}).get();
}

TEST_P(future_test, valid_is_ready_and_wait) {
    weft::future<int> empty;
    EXPECT_FALSE(empty.valid());
    auto f = weft::async([] { return 3; });
    EXPECT_TRUE(f.valid());
    f.wait();
    EXPECT_TRUE(f.is_ready());
    EXPECT_EQ(f.get(), 3);
    EXPECT_FALSE(f.valid());
}

TEST_P(future_test, errors_name_what_went_wrong) {
    EXPECT_EQ(code_of([] { weft::future<int>{}.get(); }), std::future_errc::no_state);
    EXPECT_EQ(code_of([] { (void)weft::future<int>{}.is_ready(); }), std::future_errc::no_state);
    EXPECT_EQ(code_of([] {
                  weft::promise<int> p;
                  auto a = p.get_future();
                  auto b = p.get_future();
              }),
              std::future_errc::future_already_retrieved);
    EXPECT_EQ(code_of([] {
                  weft::promise<int> p;
                  p.set_value(1);
                  p.set_value(2);
              }),
              std::future_errc::promise_already_satisfied);
    EXPECT_EQ(code_of([] {
                  weft::future<int> f;
                  {
                      weft::promise<int> p;
                      f = p.get_future();
                  }
                  f.get();
              }),
              std::future_errc::broken_promise);
}

TEST_P(future_test, broken_promise_wakes_a_suspended_task) {
    auto p = std::make_unique<weft::promise<int>>();
    auto waiter = weft::async([f = p->get_future()]() mutable {
        try {
            f.get();
        } catch (const std::future_error& e) {
            return e.code() == std::future_errc::broken_promise;
        }
        return false;
    });
    weft::async([&p] { p.reset(); }).get();
    EXPECT_TRUE(waiter.get());
}

TEST_P(future_test, set_exception_reaches_the_waiter) {
    weft::promise<void> p;
    auto f = p.get_future();
    std::thread t([&p] { p.set_exception(std::make_exception_ptr(std::invalid_argument("bad"))); });
    EXPECT_THROW(weft::async([&f] { f.get(); }).get(), std::invalid_argument);
    t.join();
}

TEST_P(future_test, a_future_may_outlive_its_task_and_the_task_its_future) {
    std::atomic<int> ran{0};
    {
        auto dropped = weft::async([&ran] { ran.fetch_add(1); return 1; });  // never read
    }
    auto kept = weft::async([] { return 2; });
    rt().wait();
    EXPECT_EQ(ran.load(), 1);
    EXPECT_EQ(kept.get(), 2);
}

TEST(future, a_future_outlives_the_runtime) {
    weft::future<std::string> f;
    {
        weft::runtime_config cfg;
        cfg.threads = 1;
        weft::runtime rt(cfg);
        f = weft::async([] { return std::string(100, 'x'); });
    }
    EXPECT_EQ(f.get().size(), 100u);
}

}  // namespace
