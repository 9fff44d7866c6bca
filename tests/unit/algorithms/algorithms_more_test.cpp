// More parallel algorithms against std (find, any/all/none, count, extremes, equal,
// mismatch, generate, move, replace) and task blocks; on every scheduler policy.
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
class algorithms_more_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(algorithms_more_test);

}  // namespace

namespace {

TEST_P(algorithms_more_test, searches_counts_and_extremes) {
    for (const std::size_t n : sizes) {
        for_every_policy(n, [n](const auto& policy, const char* name) {
            std::vector<std::int64_t> a = random_values(n, 7);
            const auto is_big = [](std::int64_t x) { return x > 990; };
            const auto is_small = [](std::int64_t x) { return x < 1001; };
            EXPECT_EQ(result_of(weft::find_if(policy, a.begin(), a.end(), is_big)), std::find_if(a.begin(), a.end(), is_big)) << name;
            EXPECT_EQ(result_of(weft::find_if_not(policy, a.begin(), a.end(), is_small)), a.end()) << name;
            if (n > 0) {
                const std::int64_t last = a.back();
                EXPECT_EQ(result_of(weft::find(policy, a.begin(), a.end(), last)), std::find(a.begin(), a.end(), last)) << name;
            }
            EXPECT_EQ(result_of(weft::any_of(policy, a.begin(), a.end(), is_big)), std::any_of(a.begin(), a.end(), is_big)) << name;
            EXPECT_EQ(result_of(weft::all_of(policy, a.begin(), a.end(), is_small)), true) << name;
            EXPECT_EQ(result_of(weft::none_of(policy, a.begin(), a.end(), is_big)), std::none_of(a.begin(), a.end(), is_big)) << name;
            EXPECT_EQ(result_of(weft::count_if(policy, a.begin(), a.end(), is_big)), std::count_if(a.begin(), a.end(), is_big)) << name;
            EXPECT_EQ(result_of(weft::count(policy, a.begin(), a.end(), std::int64_t{0})), std::count(a.begin(), a.end(), 0)) << name;
            // Extremes, with many ties (values in -1000..1000 over up to 10^5 elements).
            EXPECT_EQ(result_of(weft::min_element(policy, a.begin(), a.end())), std::min_element(a.begin(), a.end())) << name;
            EXPECT_EQ(result_of(weft::max_element(policy, a.begin(), a.end())), std::max_element(a.begin(), a.end())) << name;
            EXPECT_EQ(result_of(weft::minmax_element(policy, a.begin(), a.end())), std::minmax_element(a.begin(), a.end())) << name;
            const auto by_abs = [](std::int64_t x, std::int64_t y) { return std::abs(x) < std::abs(y); };
            EXPECT_EQ(result_of(weft::minmax_element(policy, a.begin(), a.end(), by_abs)),
                      std::minmax_element(a.begin(), a.end(), by_abs))
                << name;
            // equal and mismatch, with a difference planted in the middle.
            std::vector<std::int64_t> b = a;
            EXPECT_TRUE(result_of(weft::equal(policy, a.begin(), a.end(), b.begin()))) << name;
            EXPECT_TRUE(result_of(weft::equal(policy, a.begin(), a.end(), b.begin(), b.end()))) << name;
            if (n > 0) {
                b[n / 2] += 1;
                EXPECT_FALSE(result_of(weft::equal(policy, a.begin(), a.end(), b.begin()))) << name;
                EXPECT_EQ(result_of(weft::mismatch(policy, a.begin(), a.end(), b.begin())),
                          std::mismatch(a.begin(), a.end(), b.begin()))
                    << name;
                EXPECT_FALSE(result_of(weft::equal(policy, a.begin(), a.end(), b.begin(), b.end() - 1))) << name;
                EXPECT_EQ(result_of(weft::mismatch(policy, a.begin(), a.end(), b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n / 2))),
                          std::mismatch(a.begin(), a.end(), b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n / 2)))
                    << name;
            }
        });
    }
}

TEST_P(algorithms_more_test, generate_move_replace) {
    for (const std::size_t n : sizes) {
        for_every_policy(n, [n](const auto& policy, const char* name) {
            std::vector<std::int64_t> v(n);
            FINISH(weft::generate(policy, v.begin(), v.end(), [] { return std::int64_t{5}; }));
            EXPECT_EQ(v, std::vector<std::int64_t>(n, 5)) << name;
            EXPECT_EQ(result_of(weft::generate_n(policy, v.begin(), n / 2, [] { return std::int64_t{6}; })),
                      v.begin() + static_cast<std::ptrdiff_t>(n / 2));
            EXPECT_EQ(std::count(v.begin(), v.end(), 6), static_cast<std::ptrdiff_t>(n / 2)) << name;
            FINISH(weft::replace(policy, v.begin(), v.end(), std::int64_t{6}, std::int64_t{7}));
            EXPECT_EQ(std::count(v.begin(), v.end(), 7), static_cast<std::ptrdiff_t>(n / 2)) << name;
            FINISH(weft::replace_if(policy, v.begin(), v.end(), [](std::int64_t x) { return x == 5; }, std::int64_t{8}));
            EXPECT_EQ(std::count(v.begin(), v.end(), 8), static_cast<std::ptrdiff_t>(n - n / 2)) << name;
            // move: the sources are left moved-from.
            std::vector<std::string> src(n, std::string(40, 'x')), dst(n);
            EXPECT_EQ(result_of(weft::move(policy, src.begin(), src.end(), dst.begin())), dst.end());
            EXPECT_EQ(dst, std::vector<std::string>(n, std::string(40, 'x'))) << name;
            for (const auto& s : src) ASSERT_TRUE(s.empty()) << name;  // libstdc++ empties a moved-from string
        });
    }
}

TEST_P(algorithms_more_test, find_stops_early) {
    // A hit at the front: far fewer than n predicate calls (chunks past it are skipped).
    constexpr std::size_t n = 1'000'000;
    std::vector<int> v(n, 0);
    v[10] = 1;
    std::atomic<std::size_t> calls{0};
    auto it = weft::find_if(ex::par.with(ex::dynamic_chunk_size(1000)), v.begin(), v.end(), [&calls](int x) {
        calls.fetch_add(1, std::memory_order_relaxed);
        return x == 1;
    });
    EXPECT_EQ(it - v.begin(), 10);
    EXPECT_LT(calls.load(), n / 2);
}

TEST_P(algorithms_more_test, task_blocks_nest_and_keep_every_exception) {
    // A parallel tree sum with nested blocks.
    std::vector<std::int64_t> v = random_values(100'000, 8);
    std::function<std::int64_t(std::size_t, std::size_t)> sum = [&](std::size_t lo, std::size_t hi) -> std::int64_t {
        if (hi - lo <= 1000) return std::accumulate(v.begin() + static_cast<std::ptrdiff_t>(lo), v.begin() + static_cast<std::ptrdiff_t>(hi), std::int64_t{0});
        std::int64_t left = 0, right = 0;
        weft::define_task_block(ex::par, [&](auto& tb) {
            tb.run([&] { left = sum(lo, lo + (hi - lo) / 2); });
            right = sum(lo + (hi - lo) / 2, hi);
        });
        return left + right;
    };
    EXPECT_EQ(in_task([&] { return sum(0, v.size()); }), std::accumulate(v.begin(), v.end(), std::int64_t{0}));
    EXPECT_EQ(sum(0, v.size()), std::accumulate(v.begin(), v.end(), std::int64_t{0}));
    // wait() joins what ran so far.
    std::atomic<int> done{0};
    weft::define_task_block([&](weft::task_block<>& tb) {
        for (int i = 0; i < 10; ++i) tb.run([&done] { done.fetch_add(1); });
        tb.wait();
        EXPECT_EQ(done.load(), 10);
        static_assert(std::is_same_v<std::remove_cvref_t<decltype(tb.policy())>, ex::parallel_policy>);
    });
    // Exceptions of the tasks and of the body: all of them, as one list.
    try {
        weft::define_task_block(ex::par, [](auto& tb) {
            for (int i = 0; i < 5; ++i) tb.run([i] { if (i % 2 == 0) throw std::runtime_error(std::to_string(i)); });
            throw std::logic_error("body");
        });
        ADD_FAILURE() << "no exception";
    } catch (const weft::exception_list& l) {
        EXPECT_EQ(l.size(), 4u);  // tasks 0, 2, 4 and the body
    }
    // seq: run() calls at once, in order.
    std::vector<int> order;
    weft::define_task_block(ex::seq, [&](auto& tb) {
        tb.run([&] { order.push_back(1); });
        order.push_back(2);
        tb.run([&] { order.push_back(3); });
    });
    EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
    // par(task): a future at once.
    weft::promise<void> gate;
    weft::shared_future<void> open = gate.get_future().share();
    std::atomic<int> ran{0};
    weft::future<void> f = weft::define_task_block(ex::par(ex::task), [&](auto& tb) {
        tb.run([&, open] { open.wait(); ran.fetch_add(1); });
        tb.run([&, open] { open.wait(); ran.fetch_add(1); });
    });
    gate.set_value();
    f.get();
    EXPECT_EQ(ran.load(), 2);
    auto failing = weft::define_task_block(ex::par(ex::task), [](auto& tb) { tb.run([] { throw std::runtime_error("t"); }); });
    EXPECT_THROW(failing.get(), weft::exception_list);
}

}  // namespace
