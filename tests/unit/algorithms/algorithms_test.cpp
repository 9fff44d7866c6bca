// The parallel algorithms against their std:: sequential results (for_each, fill, copy,
// transform, reduce; forward iterators; exceptions; task policies): every policy (seq,
// par, par_unseq, unseq and the task variants), several executors and every chunk
// parameter, sizes 0, 1, odd and large; on every scheduler policy.
#include "algorithms_support.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <list>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace weft::test::algorithms;
using weft::test::policy_test;
class algorithms_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(algorithms_test);

}  // namespace

namespace {

TEST_P(algorithms_test, for_each_and_for_each_n) {
    for (const std::size_t n : sizes) {
        for_every_policy(n, [n](const auto& policy, const char* name) {
            std::vector<std::int64_t> v = random_values(n, 1);
            std::vector<std::int64_t> expected = v;
            std::for_each(expected.begin(), expected.end(), [](std::int64_t& x) { x = 3 * x + 1; });
            FINISH(weft::for_each(policy, v.begin(), v.end(), [](std::int64_t& x) { x = 3 * x + 1; }));
            EXPECT_EQ(v, expected) << name << " n=" << n;
            // for_each_n over the first half, returning the end of what it visited.
            std::vector<std::atomic<int>> hits(n);
            const auto half = static_cast<std::ptrdiff_t>(n / 2);
            auto end = result_of(weft::for_each_n(policy, hits.begin(), half, [](std::atomic<int>& h) { h.fetch_add(1); }));
            EXPECT_EQ(end, hits.begin() + half) << name;
            for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), i < n / 2 ? 1 : 0) << name << " i=" << i;
            EXPECT_EQ(result_of(weft::for_each_n(policy, hits.begin(), -5, [](std::atomic<int>&) {})), hits.begin());
        });
    }
}

TEST_P(algorithms_test, fill_copy_transform) {
    for (const std::size_t n : sizes) {
        for_every_policy(n, [n](const auto& policy, const char* name) {
            const std::vector<std::int64_t> a = random_values(n, 2), b = random_values(n, 3);
            std::vector<std::int64_t> out(n, -1);
            FINISH(weft::fill(policy, out.begin(), out.end(), std::int64_t{9}));
            EXPECT_EQ(out, std::vector<std::int64_t>(n, 9)) << name;
            EXPECT_EQ(result_of(weft::fill_n(policy, out.begin(), n / 3, std::int64_t{4})), out.begin() + static_cast<std::ptrdiff_t>(n / 3));
            EXPECT_EQ(std::count(out.begin(), out.end(), 4), static_cast<std::ptrdiff_t>(n / 3)) << name;

            EXPECT_EQ(result_of(weft::copy(policy, a.begin(), a.end(), out.begin())), out.end()) << name;
            EXPECT_EQ(out, a) << name;
            std::vector<std::int64_t> part(n / 2);
            EXPECT_EQ(result_of(weft::copy_n(policy, b.begin(), n / 2, part.begin())), part.end());
            EXPECT_TRUE(std::equal(part.begin(), part.end(), b.begin())) << name;

            std::vector<std::int64_t> expected(n);
            std::transform(a.begin(), a.end(), expected.begin(), [](std::int64_t x) { return x * x - 2; });
            EXPECT_EQ(result_of(weft::transform(policy, a.begin(), a.end(), out.begin(), [](std::int64_t x) { return x * x - 2; })), out.end());
            EXPECT_EQ(out, expected) << name;
            std::transform(a.begin(), a.end(), b.begin(), expected.begin(), std::minus<>());
            FINISH(weft::transform(policy, a.begin(), a.end(), b.begin(), out.begin(), std::minus<>()));
            EXPECT_EQ(out, expected) << name;
            // Ranges.
            FINISH(weft::fill(policy, out, std::int64_t{1}));
            EXPECT_EQ(out, std::vector<std::int64_t>(n, 1)) << name;
            FINISH(weft::copy(policy, a, out.begin()));
            EXPECT_EQ(out, a) << name;
        });
    }
}

TEST_P(algorithms_test, reduce_and_transform_reduce) {
    for (const std::size_t n : sizes) {
        for_every_policy(n, [n](const auto& policy, const char* name) {
            const std::vector<std::int64_t> a = random_values(n, 4), b = random_values(n, 5);
            EXPECT_EQ(result_of(weft::reduce(policy, a.begin(), a.end())), std::reduce(a.begin(), a.end())) << name;
            EXPECT_EQ(result_of(weft::reduce(policy, a.begin(), a.end(), std::int64_t{7})),
                      std::reduce(a.begin(), a.end(), std::int64_t{7}))
                << name;
            const auto maxop = [](std::int64_t x, std::int64_t y) { return std::max(x, y); };
            EXPECT_EQ(result_of(weft::reduce(policy, a.begin(), a.end(), std::int64_t{-5000}, maxop)),
                      std::reduce(a.begin(), a.end(), std::int64_t{-5000}, maxop))
                << name;
            EXPECT_EQ(result_of(weft::reduce(policy, a, std::int64_t{0})), std::reduce(a.begin(), a.end())) << name;
            EXPECT_EQ(result_of(weft::transform_reduce(policy, a.begin(), a.end(), b.begin(), std::int64_t{0})),
                      std::transform_reduce(a.begin(), a.end(), b.begin(), std::int64_t{0}))
                << name;
            const auto sq = [](std::int64_t x) { return x * x; };
            EXPECT_EQ(result_of(weft::transform_reduce(policy, a.begin(), a.end(), std::int64_t{1}, std::plus<>(), sq)),
                      std::transform_reduce(a.begin(), a.end(), std::int64_t{1}, std::plus<>(), sq))
                << name;
            // A non-commutative but associative operation: string concatenation keeps the
            // range's order, because chunk results are combined in order.
            std::vector<std::string> words(n);
            for (std::size_t i = 0; i < n; ++i) words[i] = std::string(1, static_cast<char>('a' + i % 26));
            const std::string joined = std::accumulate(words.begin(), words.end(), std::string("<"));
            EXPECT_EQ(result_of(weft::reduce(policy, words.begin(), words.end(), std::string("<"))), joined) << name;
            // The same through transform_reduce: within a chunk both combine four elements
            // at a time (as std::reduce may), still in the range's order.
            const auto upper = [](const std::string& w) { return std::string(1, static_cast<char>(w[0] - 'a' + 'A')); };
            std::string upper_joined("<");
            for (const std::string& w : words) upper_joined += upper(w);
            EXPECT_EQ(result_of(weft::transform_reduce(policy, words.begin(), words.end(), std::string("<"), std::plus<>(),
                                                       upper)),
                      upper_joined)
                << name;
        });
    }
}

TEST_P(algorithms_test, forward_iterators) {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1001}}) {
        for_every_policy(n, [n](const auto& policy, const char* name) {
            const std::vector<std::int64_t> src = random_values(n, 6);
            std::list<std::int64_t> l(src.begin(), src.end());
            FINISH(weft::for_each(policy, l.begin(), l.end(), [](std::int64_t& x) { x += 1; }));
            std::vector<std::int64_t> expected = src;
            for (auto& x : expected) x += 1;
            EXPECT_TRUE(std::equal(l.begin(), l.end(), expected.begin(), expected.end())) << name;
            EXPECT_EQ(result_of(weft::reduce(policy, l.begin(), l.end())), std::reduce(expected.begin(), expected.end())) << name;
            std::list<std::int64_t> out(n);
            FINISH(weft::transform(policy, l.begin(), l.end(), out.begin(), [](std::int64_t x) { return -x; }));
            EXPECT_TRUE(std::equal(out.begin(), out.end(), expected.begin(), expected.end(),
                                   [](std::int64_t o, std::int64_t e) { return o == -e; }))
                << name;
        });
    }
}

TEST_P(algorithms_test, element_exceptions_reach_the_caller_as_an_exception_list) {
    constexpr std::size_t n = 10'000;
    std::vector<int> v(n);
    std::iota(v.begin(), v.end(), 0);
    // par with one element per chunk: every throwing element is reported, every other
    // element is visited.
    std::vector<std::atomic<int>> seen(n);
    const auto body = [&seen](int x) {
        if (x % 1000 == 0) throw std::runtime_error(std::to_string(x));
        seen[static_cast<std::size_t>(x)].fetch_add(1);
    };
    try {
        weft::for_each(ex::par.with(ex::dynamic_chunk_size(1)), v.begin(), v.end(), body);
        ADD_FAILURE() << "no exception";
    } catch (const weft::exception_list& l) {
        EXPECT_EQ(l.size(), 10u);
        EXPECT_NE(std::string(l.what()).find("weft::for_each"), std::string::npos) << l.what();
        for (const auto& e : l.exceptions()) EXPECT_THROW(std::rethrow_exception(e), std::runtime_error);
    }
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(seen[i].load(), i % 1000 == 0 ? 0 : 1) << i;
    // seq stops at the first and reports it in a list of one.
    try {
        weft::for_each(ex::seq, v.begin(), v.end(), body);
        ADD_FAILURE() << "no exception";
    } catch (const weft::exception_list& l) {
        EXPECT_EQ(l.size(), 1u);
    }
    // A task policy delivers the list through its future.
    auto f = weft::for_each(ex::par(ex::task), v.begin(), v.end(), body);
    EXPECT_THROW(f.get(), weft::exception_list);
    // (Element 5000 may come as either operand: a chunk combines elements in pairs.)
    auto r = weft::reduce(ex::par(ex::task), v.begin(), v.end(), 0, [](int a, int b) -> int {
        if (a == 5000 || b == 5000) throw std::logic_error("5000");
        return a + b;
    });
    EXPECT_THROW(r.get(), weft::exception_list);
    // std::bad_alloc passes as is.
    EXPECT_THROW(weft::for_each(ex::par, v.begin(), v.end(), [](int x) { if (x == 77) throw std::bad_alloc(); }),
                 std::bad_alloc);
}

TEST_P(algorithms_test, task_policies_return_at_once_and_run_in_a_task) {
    weft::promise<void> gate;
    weft::shared_future<void> open = gate.get_future().share();
    std::vector<int> v(1000, 1);
    // The element function waits for the gate: the call must return before it opens.
    auto f = weft::for_each(ex::par(ex::task), v.begin(), v.end(), [open](int& x) {
        open.wait();
        x = 2;
    });
    const std::vector<int> w(1000, 1);
    auto s = weft::transform_reduce(ex::seq(ex::task), w.begin(), w.end(), 0, std::plus<>(), [open](int x) {
        open.wait();
        return x;
    });
    static_assert(std::is_same_v<decltype(f), weft::future<void>>);
    static_assert(std::is_same_v<decltype(s), weft::future<int>>);
    gate.set_value();
    f.get();
    EXPECT_EQ(std::count(v.begin(), v.end(), 2), 1000);
    EXPECT_EQ(s.get(), 1000);
}

// Called from the test's own thread (not a worker), a par algorithm runs on the workers
// only: the calling thread waits instead of taking chunks.
TEST_P(algorithms_test, par_called_from_outside_runs_on_the_workers) {
    std::vector<int> v(10'000);
    std::atomic<int> outside{0};
    weft::for_each(ex::par.with(ex::dynamic_chunk_size(1)), v.begin(), v.end(), [&outside](int& x) {
        if (weft::this_task::worker_index() < 0) outside.fetch_add(1);
        x = 1;
    });
    EXPECT_EQ(outside.load(), 0);
    EXPECT_EQ(std::count(v.begin(), v.end(), 1), 10'000);
}

TEST_P(algorithms_test, a_bad_range_is_refused) {
    std::vector<int> v(10);
    EXPECT_THROW(weft::for_each(ex::par, v.end(), v.begin(), [](int) {}), weft::error);
}

}  // namespace

namespace {

// The unsequenced policies may interleave element functions on one thread, so an
// exception cannot be delivered: the standard says std::terminate, and so does weft.
TEST(algorithms_death, an_exception_under_par_unseq_or_unseq_terminates) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    const auto run = [](auto policy) {
        weft::runtime_config cfg;
        cfg.threads = 2;
        cfg.bind = false;
        weft::runtime rt(cfg);
        std::vector<int> v(1000);
        weft::for_each(policy, v.begin(), v.end(), [](int) { throw std::runtime_error("vectorized"); });
    };
    EXPECT_DEATH(run(ex::par_unseq), "");
    EXPECT_DEATH(run(ex::unseq), "");
}

}  // namespace
