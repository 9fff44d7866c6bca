// when_all, when_any, when_some, when_each, wait_all/any/some, split_future, dataflow,
// unwrapping and packaged_task; on every policy.
#include "support/policy_test.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <list>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using weft::test::policy_test;
class when_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(when_test);

std::vector<weft::future<int>> asyncs(int n) {
    std::vector<weft::future<int>> v;
    for (int i = 0; i < n; ++i) v.push_back(weft::async([i] { return i; }));
    return v;
}

TEST_P(when_test, when_all_variadic_and_range) {
    auto t = weft::when_all(weft::async([] { return 1; }), weft::make_ready_future(std::string("x")),
                            weft::async([] {}).share())
                 .get();
    EXPECT_EQ(std::get<0>(t).get(), 1);
    EXPECT_EQ(std::get<1>(t).get(), "x");
    std::get<2>(t).get();
    auto v = asyncs(100);
    auto all = weft::when_all(v).get();
    int sum = 0;
    for (auto& f : all) sum += f.get();
    EXPECT_EQ(sum, 4950);
    EXPECT_TRUE(weft::when_all().get() == std::tuple<>{});
    std::vector<weft::future<int>> none;
    EXPECT_TRUE(weft::when_all(none).get().empty());
}

TEST_P(when_test, when_all_keeps_exceptions_inside_the_inputs) {
    auto r = weft::when_all(weft::async([]() -> int { throw std::runtime_error("a"); }), weft::make_ready_future(2)).get();
    EXPECT_THROW(std::get<0>(r).get(), std::runtime_error);
    EXPECT_EQ(std::get<1>(r).get(), 2);
}

TEST_P(when_test, when_any_when_some_and_waits) {
    weft::promise<int> never_yet;
    auto any = weft::when_any(never_yet.get_future(), weft::make_ready_future(5)).get();
    EXPECT_EQ(any.index, 1u);
    EXPECT_EQ(std::get<1>(any.futures).get(), 5);
    never_yet.set_value(0);
    auto v = asyncs(10);
    auto some = weft::when_some(4, v.begin(), v.end()).get();
    EXPECT_EQ(some.indices.size(), 4u);
    for (std::size_t i : some.indices) EXPECT_TRUE(some.futures[i].is_ready());
    EXPECT_THROW((void)weft::when_some(11, some.futures.begin(), some.futures.end()), std::invalid_argument);
    auto r = asyncs(3);
    auto ar = weft::when_any(r.begin(), r.end()).get();
    EXPECT_LT(ar.index, 3u);
    auto a = weft::async([] { return 1; });
    auto b = weft::make_ready_future(2);
    EXPECT_LT(weft::wait_any(a, b), 2u);
    weft::wait_all(a, b);
    EXPECT_TRUE(a.is_ready() && b.is_ready());
    EXPECT_EQ(weft::wait_some(2, a, b).size(), 2u);
    auto w = asyncs(5);
    weft::wait_all(w.begin(), w.end());
    for (auto& f : w) EXPECT_TRUE(f.valid());
}

TEST_P(when_test, every_combinator_takes_a_whole_range) {
    // Containers of unique futures (moved out) and of shared futures (copied), lvalue or rvalue.
    auto v = asyncs(6);
    auto any = weft::when_any(v).get();
    EXPECT_LT(any.index, 6u);
    EXPECT_EQ(any.futures.size(), 6u);
    EXPECT_EQ(any.futures[any.index].get(), static_cast<int>(any.index));
    auto some = weft::when_some(3, asyncs(5)).get();
    EXPECT_EQ(some.indices.size(), 3u);
    for (std::size_t i : some.indices) EXPECT_TRUE(some.futures[i].is_ready());
    std::list<weft::future<int>> l;
    for (int i = 0; i < 4; ++i) l.push_back(weft::async([i] { return i; }));
    std::atomic<int> sum{0};
    weft::when_each([&sum](weft::future<int> f) { sum.fetch_add(f.get()); }, l).get();
    EXPECT_EQ(sum.load(), 6);
    auto all = weft::when_all(asyncs(3)).get();
    EXPECT_EQ(all.size(), 3u);

    std::array<weft::shared_future<int>, 3> shared{weft::async([] { return 1; }).share(), weft::make_ready_future(2).share(),
                                                   weft::async([] { return 3; }).share()};
    EXPECT_LT(weft::wait_any(shared), 3u);
    EXPECT_EQ(weft::wait_some(2, shared).size(), 2u);
    weft::wait_all(shared);
    for (const auto& f : shared) EXPECT_TRUE(f.is_ready());
    const auto shared_any = weft::when_any(shared).get();
    EXPECT_EQ(shared_any.futures.size(), 3u);
    EXPECT_EQ(weft::when_all(shared).get().size(), 3u);
    EXPECT_EQ(shared[2].get(), 3);  // copied, not moved out

    const std::vector<weft::future<int>> waited = asyncs(4);  // the wait_ forms take const ranges
    weft::wait_all(waited);
    EXPECT_LT(weft::wait_any(waited), 4u);
    EXPECT_EQ(weft::wait_some(4, waited).size(), 4u);
    std::vector<weft::future<int>> none;
    EXPECT_EQ(weft::when_any(none).get().index, static_cast<std::size_t>(-1));
    weft::wait_all(none);
}

// Unique futures passed as lvalues would have to be copied: the combinators refuse them
// with one static_assert line ("weft::when_all: pass unique futures with std::move(f)
// (or use shared_future)"); this is the condition it checks. The compile_fail tests in
// CMakeLists.txt check the message itself.
static_assert(!weft::detail::storable_futures_v<weft::future<int>&>);
static_assert(!weft::detail::storable_futures_v<const weft::future<int>&>);
static_assert(!weft::detail::storable_futures_v<const weft::future<int>>);
static_assert(!weft::detail::storable_futures_v<weft::future<int>, weft::future<void>&>);
static_assert(weft::detail::storable_futures_v<weft::future<int>>);
static_assert(weft::detail::storable_futures_v<weft::shared_future<int>&>);
static_assert(weft::detail::storable_futures_v<const weft::shared_future<int>&, int&, weft::future<int>>);
static_assert(weft::detail::storable_futures_v<>);

TEST_P(when_test, when_each_calls_once_per_input_and_reports_errors) {
    std::atomic<int> calls{0};
    std::atomic<int> sum{0};
    auto v = asyncs(50);
    weft::when_each([&](weft::future<int> f) { calls.fetch_add(1); sum.fetch_add(f.get()); }, v.begin(), v.end()).get();
    EXPECT_EQ(calls.load(), 50);
    EXPECT_EQ(sum.load(), 1225);
    auto failing = weft::when_each([](weft::future<int> f) { if (f.get() == 1) throw std::runtime_error("f"); },
                                   weft::make_ready_future(0), weft::make_ready_future(1));
    EXPECT_THROW(failing.get(), std::runtime_error);
}

// A future without a shared state (default-constructed or moved from) given to a
// combinator is misuse: it must throw no_state at the call, naming the argument, and
// never return a future that waits for it forever.
TEST_P(when_test, an_input_without_a_state_is_refused_at_the_call) {
    const auto message_of = [](auto&& call) -> std::string {
        try {
            call();
        } catch (const weft::future_error& e) {
            EXPECT_EQ(e.code(), std::future_errc::no_state);
            return e.what();
        }
        ADD_FAILURE() << "no weft::future_error thrown";
        return "";
    };
    const auto contains = [](const std::string& s, const char* part) { return s.find(part) != std::string::npos; };
    weft::shared_future<int> ready = weft::make_ready_future(1).share();
    weft::shared_future<int> empty;
    const auto add = [](weft::shared_future<int> a, int b, weft::shared_future<int> c) { return a.get() + b + c.get(); };

    std::string m = message_of([&] { (void)weft::dataflow(add, ready, 2, empty); });
    EXPECT_TRUE(contains(m, "weft::dataflow: argument 3 of 3")) << m;
    EXPECT_TRUE(contains(m, "no shared state")) << m;
    m = message_of([&] { (void)weft::dataflow(weft::launch::sync, add, empty, 2, ready); });
    EXPECT_TRUE(contains(m, "argument 1 of 3")) << m;
    m = message_of([&] { (void)weft::dataflow(weft::launch::deferred, add, ready, 2, empty); });
    EXPECT_TRUE(contains(m, "argument 3 of 3")) << m;

    // when_all: nothing is moved out of the caller's futures when one is refused.
    weft::future<int> valid = weft::make_ready_future(7);
    weft::future<int> moved_from = weft::make_ready_future(8);
    (void)std::move(moved_from).get();
    m = message_of([&] { (void)weft::when_all(std::move(valid), std::move(moved_from)); });
    EXPECT_TRUE(contains(m, "weft::when_all: argument 2 of 2")) << m;
    ASSERT_TRUE(valid.valid());
    std::vector<weft::future<int>> range;
    range.push_back(std::move(valid));
    range.emplace_back();
    m = message_of([&] { (void)weft::when_all(range); });
    EXPECT_TRUE(contains(m, "weft::when_all: the future at position 1 of the range")) << m;
    ASSERT_TRUE(range[0].valid());
    EXPECT_EQ(range[0].get(), 7);

    // The other combinators refuse it too.
    EXPECT_EQ(message_of([&] { (void)weft::when_any(ready, empty); }).empty(), false);
    EXPECT_EQ(message_of([&] { (void)weft::when_some(1, ready, empty); }).empty(), false);
    EXPECT_EQ(message_of([&] { (void)weft::wait_any(ready, empty); }).empty(), false);
    EXPECT_EQ(message_of([&] { weft::wait_all(ready, empty); }).empty(), false);
    EXPECT_EQ(message_of([&] { (void)weft::when_each([](weft::shared_future<int>) {}, ready, empty); }).empty(), false);
    // The valid inputs were left usable.
    EXPECT_EQ(ready.get(), 1);
}

TEST_P(when_test, split_future_tuple_and_array) {
    auto [a, b] = weft::split_future(weft::async([] { return std::make_tuple(std::make_unique<int>(1), std::string("b")); }));
    EXPECT_EQ(*a.get(), 1);
    EXPECT_EQ(b.get(), "b");
    auto arr = weft::split_future(weft::make_ready_future(std::array<int, 3>{1, 2, 3}));
    EXPECT_EQ(arr[0].get() + arr[1].get() + arr[2].get(), 6);
    auto [x, y] = weft::split_future(weft::make_exceptional_future<std::tuple<int, int>>(std::runtime_error("e")));
    EXPECT_THROW(x.get(), std::runtime_error);
    EXPECT_THROW(y.get(), std::runtime_error);
}

TEST_P(when_test, dataflow_waits_for_future_arguments_only) {
    weft::promise<int> p;
    std::atomic<bool> ran{false};
    auto d = weft::dataflow(
        [&ran](weft::future<int> a, int b, weft::shared_future<int> c) {
            ran = true;
            return a.get() + b + c.get();
        },
        p.get_future(), 10, weft::make_ready_future(100).share());
    rt().wait();
    EXPECT_FALSE(ran.load());
    p.set_value(1);
    EXPECT_EQ(d.get(), 111);
    auto u = weft::dataflow(weft::unwrapping([](int a, const std::string& s, int k) { return a + static_cast<int>(s.size()) + k; }),
                            weft::async([] { return 1; }), weft::make_ready_future(std::string("abc")).share(), 5);
    EXPECT_EQ(u.get(), 9);
    auto v = weft::dataflow(weft::launch::sync, weft::unwrapping([](int a) { return a; }), weft::make_ready_future(3));
    EXPECT_EQ(v.get(), 3);
    auto lazy = weft::dataflow(weft::launch::deferred, weft::unwrapping([](int a) { return a * 2; }), weft::make_ready_future(4));
    EXPECT_EQ(lazy.get(), 8);
    auto nested = weft::dataflow([](weft::future<int> a) { return weft::async([x = a.get()] { return x + 1; }); },
                                 weft::make_ready_future(1));
    EXPECT_EQ(nested.get(), 2);
    auto thrown = weft::dataflow(weft::unwrapping([](int) -> int { throw std::logic_error("df"); }), weft::make_ready_future(1));
    EXPECT_THROW(thrown.get(), std::logic_error);
    auto input_failed = weft::dataflow(weft::unwrapping([](int a) { return a; }),
                                       weft::make_exceptional_future<int>(std::runtime_error("in")));
    EXPECT_THROW(input_failed.get(), std::runtime_error);
}

TEST_P(when_test, dataflow_waits_for_every_element_of_a_vector_of_futures) {
    std::vector<weft::promise<int>> ps(5);
    std::vector<weft::shared_future<int>> shared;
    for (auto& p : ps) shared.push_back(p.get_future().share());
    std::vector<weft::future<int>> unique;
    for (int i = 0; i < 3; ++i) unique.push_back(weft::async([i] { return 100 * i; }));
    std::atomic<bool> ran{false};
    auto r = weft::dataflow(
        [&ran](std::vector<weft::shared_future<int>> a, weft::future<int> b, std::vector<weft::future<int>> c, int k) {
            ran = true;
            int sum = b.get() + k;
            for (auto& x : a) sum += x.get();
            for (auto& x : c) sum += x.get();
            return sum;
        },
        shared, weft::make_ready_future(1000), std::move(unique), 5);
    for (std::size_t i = 0; i + 1 < ps.size(); ++i) ps[i].set_value(static_cast<int>(i));
    EXPECT_EQ(r.wait_for(std::chrono::milliseconds(20)), weft::future_status::timeout);
    EXPECT_FALSE(ran.load());  // one element is still missing
    ps.back().set_value(4);
    EXPECT_EQ(r.get(), 1000 + 5 + (0 + 1 + 2 + 3 + 4) + 300);
    // Empty vectors, and a deferred dataflow over a vector.
    std::vector<weft::shared_future<int>> none;
    EXPECT_EQ(weft::dataflow([](std::vector<weft::shared_future<int>> e) { return e.size(); }, none).get(), 0u);
    auto lazy = weft::dataflow(weft::launch::deferred, [](std::vector<weft::shared_future<int>> v) { return v[0].get(); },
                               std::vector<weft::shared_future<int>>{weft::async(weft::launch::deferred, [] { return 9; })});
    EXPECT_EQ(lazy.get(), 9);
    // An element without a state is named, and nothing runs.
    std::vector<weft::shared_future<int>> broken(2);
    broken[0] = weft::make_ready_future(1).share();
    try {
        (void)weft::dataflow([](std::vector<weft::shared_future<int>>) {}, broken);
        ADD_FAILURE() << "no exception";
    } catch (const weft::future_error& e) {
        EXPECT_NE(std::string(e.what()).find("element 1 of argument 1"), std::string::npos) << e.what();
    }
}

TEST_P(when_test, dataflow_counts_every_input_including_repeated_and_deferred_ones) {
    // One state watched three times (three waiters on one list) and a deferred input,
    // which dataflow must start itself: the function runs once, after the last of them.
    weft::promise<int> p;
    weft::shared_future<int> s = p.get_future().share();
    auto lazy = weft::make_ready_future(2).then(weft::launch::deferred, [](weft::future<int> f) { return f.get() * 2; });
    std::atomic<int> runs{0};
    auto d = weft::dataflow(weft::unwrapping([&runs](int a, int b, int c, int e) {
                                ++runs;
                                return a + b + c + e;
                            }),
                            s, s, std::move(lazy), s);
    rt().wait();
    EXPECT_EQ(runs.load(), 0);
    EXPECT_FALSE(d.is_ready());
    p.set_value(1);
    EXPECT_EQ(d.get(), 7);
    EXPECT_EQ(runs.load(), 1);

    // Many dataflows over inputs completed by concurrent tasks: none lost or run twice.
    constexpr int n = 2000;
    std::vector<weft::shared_future<int>> in;
    for (int i = 0; i < n; ++i) in.push_back(weft::async([i] { return i; }).share());
    std::vector<weft::future<int>> out;
    for (int i = 0; i < n; ++i)
        out.push_back(weft::dataflow(weft::unwrapping([](int a, int b, int c) { return a + b + c; }),
                                     in[static_cast<std::size_t>((i + n - 1) % n)], in[static_cast<std::size_t>(i)],
                                     in[static_cast<std::size_t>((i + 1) % n)]));
    for (int i = 0; i < n; ++i) EXPECT_EQ(out[static_cast<std::size_t>(i)].get(), (i + n - 1) % n + i + (i + 1) % n);
}

// A dataflow over three shared_futures of a 16-byte value (the 1D stencil's shape) stays
// within 5 cache lines: one 32-byte waiter per input, not a general fan-in node.
struct sixteen_bytes {
    void* p;
    std::size_t n;
};
using sf16 = weft::shared_future<sixteen_bytes>;
static_assert(sizeof(weft::detail::dataflow_block<weft::launch::async_policy, sixteen_bytes (*)(sf16, sf16, sf16), sf16,
                                                  sf16, sf16>) <= 5 * weft::cache_line_size);

TEST_P(when_test, unwrapping_drops_void_futures_and_passes_values) {
    auto f = weft::unwrapping([](int a, int b) { return a * b; });
    EXPECT_EQ(f(weft::make_ready_future(6), weft::make_ready_future(), 7), 42);
}

TEST_P(when_test, packaged_task_semantics) {
    weft::packaged_task<int(int, int)> t([](int a, int b) { return a + b; });
    auto f = t.get_future();
    EXPECT_THROW(t.get_future(), std::future_error);
    weft::post([&t] { t(20, 22); });
    EXPECT_EQ(f.get(), 42);
    EXPECT_THROW(t(1, 1), std::future_error);  // promise_already_satisfied
    t.reset();
    auto g = t.get_future();
    t(1, 2);
    EXPECT_EQ(g.get(), 3);
    weft::packaged_task<void()> thrower([] { throw std::runtime_error("pt"); });
    auto h = thrower.get_future();
    thrower();
    EXPECT_THROW(h.get(), std::runtime_error);
    weft::future<int> broken;
    {
        weft::packaged_task<int()> never([] { return 1; });
        broken = never.get_future();
    }
    try {
        broken.get();
        ADD_FAILURE();
    } catch (const std::future_error& e) {
        EXPECT_EQ(e.code(), std::future_errc::broken_promise);
    }
    weft::packaged_task<int()> empty;
    EXPECT_FALSE(empty.valid());
    EXPECT_THROW(empty(), std::future_error);
}

TEST_P(when_test, when_all_over_a_million_futures) {
    constexpr int n = WEFT_HAVE_TSAN || WEFT_HAVE_ASAN ? 100'000 : 1'000'000;
    std::vector<weft::future<int>> v;
    v.reserve(n);
    for (int i = 0; i < n; ++i) v.push_back(weft::make_ready_future(1));
    auto all = weft::when_all(v).get();
    long sum = 0;
    for (auto& f : all) sum += f.get();
    EXPECT_EQ(sum, n);
}

}  // namespace

namespace {

struct counted {
    static inline std::atomic<int> alive{0};
    counted() { alive.fetch_add(1); }
    counted(const counted&) { alive.fetch_add(1); }
    ~counted() { alive.fetch_sub(1); }
};

TEST_P(when_test, dataflow_and_then_release_their_functions_before_publishing) {
    // Issue #20: a ready state kept what its function captured until it died.
    for (int policy = 0; policy < 3; ++policy) {
        auto token = std::make_shared<int>(1);
        std::weak_ptr<int> watch = token;
        auto step = [t = std::move(token)](weft::future<int> r) { return r.get() + *t; };
        weft::future<int> f;
        if (policy == 0) f = weft::make_ready_future(1).then(weft::launch::async, std::move(step));
        else if (policy == 1) f = weft::dataflow(weft::launch::sync, std::move(step), weft::async([] { return 1; }));
        else f = weft::dataflow(weft::launch::deferred, std::move(step), weft::make_ready_future(1));
        f.wait();
        EXPECT_TRUE(watch.expired()) << "policy " << policy;
        EXPECT_EQ(f.get(), 2);
    }
}

TEST_P(when_test, dataflow_and_then_release_their_inputs_when_they_have_run) {
    // A regression: inputs were kept until the result itself was released, so a chain
    // of steps (the stencil) kept every earlier step alive.
    counted::alive = 0;
    {
        weft::shared_future<counted> in = weft::make_ready_future(counted{}).share();
        auto out = weft::dataflow(weft::unwrapping([](const counted&) { return 1; }), std::move(in));
        EXPECT_EQ(out.get(), 1);
        rt().wait();
        EXPECT_EQ(counted::alive.load(), 0);  // `out` is still alive; its input is gone
        weft::shared_future<counted> src = weft::make_ready_future(counted{}).share();
        auto t = src.then([](const weft::shared_future<counted>&) { return 2; });
        src = {};
        EXPECT_EQ(t.get(), 2);
        rt().wait();
        EXPECT_EQ(counted::alive.load(), 0);
    }
    EXPECT_GE(weft::num_workers(), 1u);
}

}  // namespace
