// The sequence algorithms against std (copy_if, remove, remove_if, unique, reverse,
// rotate, search): every policy, executor and chunk parameter, sizes 0, 1, 2, odd and
// large; forward and bidirectional iterators; move-only elements; exceptions; task
// policies; and the range overloads of every algorithm. On every scheduler policy.
#include "algorithms_support.hpp"

#include <weft/algorithms/all_any_none.hpp>
#include <weft/algorithms/copy_if.hpp>
#include <weft/algorithms/count.hpp>
#include <weft/algorithms/find.hpp>
#include <weft/algorithms/generate.hpp>
#include <weft/algorithms/minmax_element.hpp>
#include <weft/algorithms/mismatch.hpp>
#include <weft/algorithms/move.hpp>
#include <weft/algorithms/reduce.hpp>
#include <weft/algorithms/remove.hpp>
#include <weft/algorithms/replace.hpp>
#include <weft/algorithms/reverse.hpp>
#include <weft/algorithms/rotate.hpp>
#include <weft/algorithms/search.hpp>
#include <weft/algorithms/unique.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <forward_list>
#include <functional>
#include <list>
#include <memory>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace weft::test::algorithms;
using weft::test::policy_test;
class sequence_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(sequence_test);

// Long enough that a move empties the source (no small-string buffer): an algorithm that
// reads an element after moving it shows up as a wrong result.
std::string long_string(std::int64_t x) { return std::string(24, 'a') + std::to_string(x); }

// Whether a range overload accepts these arguments (rvalue containers with a task
// policy, and rvalue containers whose iterators would be returned, are refused).
template <class P, class R>
concept can_reduce = requires(P&& p, R&& r) { weft::reduce(p, std::forward<R>(r)); };
template <class P, class R>
concept can_find = requires(P&& p, R&& r) { weft::find(p, std::forward<R>(r), 1); };

}  // namespace

namespace {

TEST_P(sequence_test, copy_if_remove_unique) {
    for (const std::size_t n : sizes) {
        for_every_policy(n, [n](const auto& policy, const char* name) {
            const std::vector<std::int64_t> a = random_values(n, 11);
            const auto is_even = [](std::int64_t x) { return x % 2 == 0; };
            const auto is_small = [](std::int64_t x) { return x < 700; };  // most are removed
            // copy_if: the output beyond the end is untouched.
            std::vector<std::int64_t> out(n + 1, -7777), expected(n + 1, -7777);
            for (const bool even : {true, false}) {
                std::fill(out.begin(), out.end(), -7777);
                std::fill(expected.begin(), expected.end(), -7777);
                const auto e = even ? std::copy_if(a.begin(), a.end(), expected.begin(), is_even)
                                    : std::copy_if(a.begin(), a.end(), expected.begin(), is_small);
                const auto o = even ? result_of(weft::copy_if(policy, a.begin(), a.end(), out.begin(), is_even))
                                    : result_of(weft::copy_if(policy, a.begin(), a.end(), out.begin(), is_small));
                EXPECT_EQ(o - out.begin(), e - expected.begin()) << name << " n=" << n;
                EXPECT_EQ(out, expected) << name << " n=" << n;
            }
            // remove_if and remove: stable; the kept prefix as std's.
            std::vector<std::int64_t> r = a, re = a;
            const auto re_end = std::remove_if(re.begin(), re.end(), is_even);
            const auto r_end = result_of(weft::remove_if(policy, r.begin(), r.end(), is_even));
            EXPECT_EQ(r_end - r.begin(), re_end - re.begin()) << name << " n=" << n;
            EXPECT_TRUE(std::equal(r.begin(), r_end, re.begin(), re_end)) << name << " n=" << n;
            r = a;
            re = a;
            const std::int64_t value = n > 0 ? a[n / 2] % 3 : 0;  // many equal elements below
            for (auto* v : {&r, &re})
                for (auto& x : *v) x %= 3;
            const auto rv_end = std::remove(re.begin(), re.end(), value);
            const auto r2_end = result_of(weft::remove(policy, r.begin(), r.end(), value));
            EXPECT_EQ(r2_end - r.begin(), rv_end - re.begin()) << name << " n=" << n;
            EXPECT_TRUE(std::equal(r.begin(), r2_end, re.begin(), rv_end)) << name << " n=" << n;
            // unique, with runs (values -2..2) and with an equivalence of its own.
            std::vector<std::int64_t> u = r, ue = r;  // (r's prefix was compacted; any order will do)
            const auto ue_end = std::unique(ue.begin(), ue.end());
            const auto u_end = result_of(weft::unique(policy, u.begin(), u.end()));
            EXPECT_EQ(u_end - u.begin(), ue_end - ue.begin()) << name << " n=" << n;
            EXPECT_TRUE(std::equal(u.begin(), u_end, ue.begin(), ue_end)) << name << " n=" << n;
            // Strings, whose moves empty their source, under an equivalence coarser than
            // == (the length: 25 to 27 characters): unique compares each element with the
            // one before it, also across chunks, and must not see a moved-from one.
            if (n <= 1000) {
                const auto same_band = [](const std::string& x, const std::string& y) { return x.size() == y.size(); };
                std::vector<std::string> s(n), se;
                for (std::size_t i = 0; i < n; ++i) s[i] = long_string(a[i] / 100);
                se = s;
                const auto se_end = std::unique(se.begin(), se.end(), same_band);
                const auto s_end = result_of(weft::unique(policy, s.begin(), s.end(), same_band));
                EXPECT_EQ(s_end - s.begin(), se_end - se.begin()) << name << " n=" << n;
                EXPECT_TRUE(std::equal(s.begin(), s_end, se.begin(), se_end)) << name << " n=" << n;
                for (std::size_t i = 0; i < n; ++i) s[i] = long_string(a[i]);
                se = s;
                const auto odd = [](const std::string& x) { return (x.back() - '0') % 2 == 1; };
                const auto se2_end = std::remove_if(se.begin(), se.end(), odd);
                const auto s2_end = result_of(weft::remove_if(policy, s.begin(), s.end(), odd));
                EXPECT_EQ(s2_end - s.begin(), se2_end - se.begin()) << name << " n=" << n;
                EXPECT_TRUE(std::equal(s.begin(), s2_end, se.begin(), se2_end)) << name << " n=" << n;
            }
        });
    }
}

TEST_P(sequence_test, reverse_rotate_search) {
    for (const std::size_t n : sizes) {
        for_every_policy(n, [n](const auto& policy, const char* name) {
            const std::vector<std::int64_t> a = random_values(n, 12);
            std::vector<std::int64_t> v = a, e = a;
            std::reverse(e.begin(), e.end());
            FINISH(weft::reverse(policy, v.begin(), v.end()));
            EXPECT_EQ(v, e) << name << " n=" << n;
            // rotate around several middles (both ends included).
            for (const std::size_t m : {std::size_t{0}, n / 3, n - n / 5, n}) {
                v = a;
                e = a;
                const auto mid = static_cast<std::ptrdiff_t>(m);
                const auto er = std::rotate(e.begin(), e.begin() + mid, e.end());
                const auto vr = result_of(weft::rotate(policy, v.begin(), v.begin() + mid, v.end()));
                EXPECT_EQ(vr - v.begin(), er - e.begin()) << name << " n=" << n << " m=" << m;
                EXPECT_EQ(v, e) << name << " n=" << n << " m=" << m;
            }
            // search in values -2..2, so a pattern taken from the middle usually occurs
            // earlier too (the first occurrence must win); and patterns that are empty,
            // absent or longer than the range.
            std::vector<std::int64_t> h = a;
            for (auto& x : h) x %= 3;
            const auto check = [&](std::size_t from, std::size_t len, std::int64_t plant) {
                std::vector<std::int64_t> pat(h.begin() + static_cast<std::ptrdiff_t>(std::min(from, n)),
                                              h.begin() + static_cast<std::ptrdiff_t>(std::min(from + len, n)));
                if (plant != 0) pat.push_back(plant);
                EXPECT_EQ(result_of(weft::search(policy, h.begin(), h.end(), pat.begin(), pat.end())),
                          std::search(h.begin(), h.end(), pat.begin(), pat.end()))
                    << name << " n=" << n << " pattern of " << pat.size();
            };
            check(n / 2, 4, 0);
            check(n - n / 7, 7, 0);
            check(0, 0, 0);
            check(0, n, 0);
            check(0, n, 1);     // one longer than the range
            check(n / 3, 2, 9);  // absent: no 9 in h
            const auto same_abs = [](std::int64_t x, std::int64_t y) { return std::abs(x) == std::abs(y); };
            const std::vector<std::int64_t> pat = {2, -1, 0};
            EXPECT_EQ(result_of(weft::search(policy, h.begin(), h.end(), pat.begin(), pat.end(), same_abs)),
                      std::search(h.begin(), h.end(), pat.begin(), pat.end(), same_abs))
                << name << " n=" << n;
        });
    }
}

// Lists (forward and bidirectional iterators, no operator+) under par, with chunks small
// enough that every chunk boundary case occurs.
TEST_P(sequence_test, forward_and_bidirectional_iterators) {
    const auto par = ex::par.with(ex::dynamic_chunk_size(7));
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{1001}}) {
        std::vector<std::int64_t> a = random_values(n, 13);
        for (auto& x : a) x %= 3;
        const auto is_even = [](std::int64_t x) { return x % 2 == 0; };
        std::forward_list<std::int64_t> f(a.begin(), a.end());
        std::vector<std::int64_t> e = a;
        // copy_if into a list.
        std::list<std::int64_t> out(n, 99);
        auto out_end = weft::copy_if(par, f.begin(), f.end(), out.begin(), is_even);
        const auto e_end = std::copy_if(a.begin(), a.end(), e.begin(), is_even);
        EXPECT_TRUE(std::equal(out.begin(), out_end, e.begin(), e_end)) << n;
        EXPECT_TRUE(std::all_of(out_end, out.end(), [](std::int64_t x) { return x == 99; })) << n;
        // remove_if and unique on a forward_list.
        e = a;
        auto f_end = weft::remove_if(par, f.begin(), f.end(), is_even);
        auto ee = std::remove_if(e.begin(), e.end(), is_even);
        EXPECT_TRUE(std::equal(f.begin(), f_end, e.begin(), ee)) << n;
        f.assign(a.begin(), a.end());
        e = a;
        f_end = weft::unique(par, f.begin(), f.end());
        ee = std::unique(e.begin(), e.end());
        EXPECT_TRUE(std::equal(f.begin(), f_end, e.begin(), ee)) << n;
        // rotate on a forward_list, search in it.
        f.assign(a.begin(), a.end());
        e = a;
        f_end = weft::rotate(par, f.begin(), std::next(f.begin(), static_cast<std::ptrdiff_t>(n / 3)), f.end());
        ee = std::rotate(e.begin(), e.begin() + static_cast<std::ptrdiff_t>(n / 3), e.end());
        EXPECT_EQ(std::distance(f.begin(), f_end), ee - e.begin()) << n;
        EXPECT_TRUE(std::equal(f.begin(), f.end(), e.begin(), e.end())) << n;
        const std::list<std::int64_t> pat = {1, 1, 0};
        EXPECT_EQ(std::distance(f.begin(), weft::search(par, f.begin(), f.end(), pat.begin(), pat.end())),
                  std::search(e.begin(), e.end(), pat.begin(), pat.end()) - e.begin())
            << n;
        // reverse on a list.
        std::list<std::int64_t> l(a.begin(), a.end());
        weft::reverse(par, l.begin(), l.end());
        EXPECT_TRUE(std::equal(l.begin(), l.end(), a.rbegin(), a.rend())) << n;
    }
}

// Move-only elements: the compaction moves through its buffer, reverse and rotate swap.
TEST_P(sequence_test, move_only_elements) {
    const auto par = ex::par.with(ex::dynamic_chunk_size(5));
    constexpr int n = 1000;
    std::vector<std::unique_ptr<int>> v;
    for (int i = 0; i < n; ++i) v.push_back(std::make_unique<int>(i / 3));
    auto end = weft::unique(par, v.begin(), v.end(), [](const auto& x, const auto& y) { return *x == *y; });
    ASSERT_EQ(end - v.begin(), (n + 2) / 3);
    for (int i = 0; i < (n + 2) / 3; ++i) ASSERT_EQ(*v[static_cast<std::size_t>(i)], i);
    end = weft::remove_if(par, v.begin(), end, [](const auto& x) { return *x % 2 == 1; });
    ASSERT_EQ(end - v.begin(), (n + 5) / 6);
    for (int i = 0; i < (n + 5) / 6; ++i) ASSERT_EQ(*v[static_cast<std::size_t>(i)], 2 * i);
    v.erase(end, v.end());
    weft::reverse(par, v.begin(), v.end());
    EXPECT_EQ(*v.front(), 2 * ((n + 5) / 6 - 1));
    EXPECT_EQ(**weft::rotate(par, v.begin(), v.begin() + 1, v.end()), 2 * ((n + 5) / 6 - 1));
    EXPECT_EQ(*v.front(), 2 * ((n + 5) / 6 - 2));
}

TEST_P(sequence_test, element_exceptions_reach_the_caller_as_an_exception_list) {
    constexpr std::int64_t n = 10'000;
    std::vector<std::int64_t> v(static_cast<std::size_t>(n));
    std::iota(v.begin(), v.end(), 0);
    std::vector<std::string> s(v.size());
    for (std::size_t i = 0; i < s.size(); ++i) s[i] = long_string(v[i]);
    const auto throws_at = [](std::int64_t x) {
        if (x % 1000 == 999) throw std::runtime_error(std::to_string(x));
        return x % 2 == 0;
    };
    const auto expect_list = [](auto&& call, std::size_t at_least, const char* what) {
        try {
            (void)call();
            ADD_FAILURE() << what << ": no exception";
        } catch (const weft::exception_list& l) {
            EXPECT_GE(l.size(), at_least) << what;
            EXPECT_NE(std::string(l.what()).find(what), std::string::npos) << l.what();
        }
    };
    const auto par = ex::par.with(ex::dynamic_chunk_size(100));
    std::vector<std::int64_t> out(v.size());
    // par: every chunk runs, so every throwing element is reported.
    expect_list([&] { return weft::copy_if(par, v.begin(), v.end(), out.begin(), throws_at); }, 10, "weft::copy_if");
    expect_list([&] { return weft::remove_if(par, v.begin(), v.end(), throws_at); }, 10, "weft::remove_if");
    // Strings moved into the compaction's buffer before the exception are destroyed (ASan
    // reports a leak otherwise).
    expect_list([&] {
        return weft::remove_if(par, s.begin(), s.end(), [](const std::string& x) {
            if (x.back() == '7') throw std::logic_error(x);
            return x.back() == '2';
        });
    }, 1, "weft::remove_if");
    expect_list([&] {
        return weft::unique(ex::par, v.begin(), v.end(), [](std::int64_t x, std::int64_t) -> bool { throw std::runtime_error(std::to_string(x)); });
    }, 1, "weft::unique");
    const std::vector<std::int64_t> pat = {5, 6, 7};
    expect_list([&] {
        return weft::search(ex::par, v.begin(), v.end(), pat.begin(), pat.end(), [](std::int64_t x, std::int64_t y) {
            if (x == 3) throw std::runtime_error("3");
            return x == y;
        });
    }, 1, "weft::search");
    // seq: a list of one.
    expect_list([&] { return weft::copy_if(ex::seq, v.begin(), v.end(), out.begin(), throws_at); }, 1, "weft::copy_if");
    expect_list([&] { return weft::unique(ex::seq, v.begin(), v.end(), [](std::int64_t x, std::int64_t y) {
        if (x == 77) throw std::runtime_error("77");
        return x == y;
    }); }, 1, "weft::unique");
    auto f = weft::remove_if(ex::par(ex::task), v.begin(), v.end(), throws_at);
    EXPECT_THROW(f.get(), weft::exception_list);
}

TEST_P(sequence_test, task_policies_return_futures) {
    std::vector<std::int64_t> v = random_values(10'000, 14);
    std::vector<std::int64_t> e = v;
    auto f = weft::remove_if(ex::par(ex::task), v.begin(), v.end(), [](std::int64_t x) { return x < 0; });
    static_assert(std::is_same_v<decltype(f), weft::future<std::vector<std::int64_t>::iterator>>);
    const auto end = f.get();
    const auto e_end = std::remove_if(e.begin(), e.end(), [](std::int64_t x) { return x < 0; });
    EXPECT_TRUE(std::equal(v.begin(), end, e.begin(), e_end));
    auto r = weft::reverse(ex::par(ex::task), v.begin(), end);
    static_assert(std::is_same_v<decltype(r), weft::future<void>>);
    r.get();
    EXPECT_TRUE(std::equal(v.begin(), end, std::make_reverse_iterator(e_end), e.rend()));
    auto s = weft::search(ex::seq(ex::task), v, std::span(v).subspan(10, 3));
    EXPECT_EQ(s.get(), std::search(v.begin(), v.end(), v.begin() + 10, v.begin() + 13));
}

TEST_P(sequence_test, range_overloads) {
    const auto par = ex::par.with(ex::dynamic_chunk_size(64));
    std::vector<std::int64_t> a = random_values(5000, 15);
    const auto is_big = [](std::int64_t x) { return x > 900; };
    const auto sq = [](std::int64_t x) { return x * x; };
    // Searches, counts, extremes.
    EXPECT_EQ(weft::count(par, a, a[7]), std::count(a.begin(), a.end(), a[7]));
    EXPECT_EQ(weft::count_if(par, a, is_big), std::count_if(a.begin(), a.end(), is_big));
    EXPECT_EQ(weft::find(par, a, a[4000]), std::find(a.begin(), a.end(), a[4000]));
    EXPECT_EQ(weft::find_if(par, a, is_big), std::find_if(a.begin(), a.end(), is_big));
    EXPECT_EQ(weft::find_if_not(par, a, is_big), std::find_if_not(a.begin(), a.end(), is_big));
    EXPECT_EQ(weft::any_of(par, a, is_big), std::any_of(a.begin(), a.end(), is_big));
    EXPECT_EQ(weft::all_of(par, a, is_big), false);
    EXPECT_EQ(weft::none_of(par, a, is_big), std::none_of(a.begin(), a.end(), is_big));
    EXPECT_EQ(weft::min_element(par, a), std::min_element(a.begin(), a.end()));
    EXPECT_EQ(weft::max_element(par, a, std::greater<>()), std::max_element(a.begin(), a.end(), std::greater<>()));
    EXPECT_EQ(weft::minmax_element(par, a), std::minmax_element(a.begin(), a.end()));
    // Reductions.
    const std::vector<std::int64_t> b = random_values(5000, 16);
    EXPECT_EQ(weft::reduce(par, a), std::reduce(a.begin(), a.end()));
    EXPECT_EQ(weft::reduce(par, a, std::int64_t{3}), std::reduce(a.begin(), a.end(), std::int64_t{3}));
    EXPECT_EQ(weft::transform_reduce(par, a, std::int64_t{0}, std::plus<>(), sq),
              std::transform_reduce(a.begin(), a.end(), std::int64_t{0}, std::plus<>(), sq));
    EXPECT_EQ(weft::transform_reduce(par, a, b.begin(), std::int64_t{0}),
              std::transform_reduce(a.begin(), a.end(), b.begin(), std::int64_t{0}));
    EXPECT_EQ(weft::transform_reduce(par, a, b.begin(), std::int64_t{0}, std::plus<>(), std::minus<>()),
              std::transform_reduce(a.begin(), a.end(), b.begin(), std::int64_t{0}, std::plus<>(), std::minus<>()));
    // equal and mismatch over two ranges (a span is a borrowed range).
    std::vector<std::int64_t> c = a;
    EXPECT_TRUE(weft::equal(par, a, c));
    EXPECT_FALSE(weft::equal(par, a, std::span(c).first(4999)));
    c[3000] += 1;
    EXPECT_EQ(weft::mismatch(par, a, c), std::mismatch(a.begin(), a.end(), c.begin(), c.end()));
    EXPECT_FALSE(weft::equal(par, a, c, std::equal_to<>()));
    // Writers.
    std::vector<std::int64_t> d(5000);
    weft::generate(par, d, [] { return std::int64_t{4}; });
    EXPECT_EQ(std::count(d.begin(), d.end(), 4), 5000);
    weft::replace(par, std::span(d).first(10), std::int64_t{4}, std::int64_t{5});
    weft::replace_if(par, d, [](std::int64_t x) { return x == 5; }, std::int64_t{6});
    EXPECT_EQ(std::count(d.begin(), d.end(), 6), 10);
    EXPECT_EQ(weft::move(par, a, d.begin()), d.end());
    EXPECT_EQ(d, a);
    // The sequence algorithms.
    std::vector<std::int64_t> e(5000);
    EXPECT_EQ(weft::copy_if(par, a, e.begin(), is_big) - e.begin(), std::count_if(a.begin(), a.end(), is_big));
    std::vector<std::int64_t> x = a, y = a;
    const auto x_end = weft::remove_if(par, x, is_big);
    const auto y_end = std::remove_if(y.begin(), y.end(), is_big);
    EXPECT_TRUE(std::equal(x.begin(), x_end, y.begin(), y_end));
    x = a;
    y = a;
    EXPECT_EQ(weft::remove(par, x, a[9]) - x.begin(), std::remove(y.begin(), y.end(), a[9]) - y.begin());
    x = a;
    for (auto& z : x) z = z / 100;  // runs for unique
    y = x;
    const auto xu = weft::unique(par, x);
    const auto yu = std::unique(y.begin(), y.end());
    EXPECT_TRUE(std::equal(x.begin(), xu, y.begin(), yu));
    x.erase(xu, x.end());
    y.erase(yu, y.end());
    weft::reverse(par, x);
    std::reverse(y.begin(), y.end());
    EXPECT_EQ(x, y);
    EXPECT_EQ(weft::rotate(par, x, x.begin() + 77), std::rotate(y.begin(), y.begin() + 77, y.end()) - y.begin() + x.begin());
    EXPECT_EQ(x, y);
    EXPECT_EQ(weft::search(par, a, std::span(a).subspan(2500, 3)), a.begin() + 2500);
    EXPECT_EQ(weft::search(par, a, std::vector<std::int64_t>{5000}), a.end());
    // A task policy: a future; it refuses temporary containers (gone before the task
    // runs), as iterator-returning overloads do always (the result would dangle).
    EXPECT_EQ(weft::count_if(ex::par(ex::task), a, is_big).get(), std::count_if(a.begin(), a.end(), is_big));
    static_assert(can_reduce<const ex::parallel_policy&, std::vector<int>>);
    static_assert(can_reduce<const ex::parallel_task_policy&, std::vector<int>&>);
    static_assert(can_reduce<const ex::parallel_task_policy&, std::span<int>>);
    static_assert(!can_reduce<const ex::parallel_task_policy&, std::vector<int>>);
    static_assert(can_find<const ex::parallel_policy&, std::vector<int>&>);
    static_assert(!can_find<const ex::parallel_policy&, std::vector<int>>);
}

}  // namespace
