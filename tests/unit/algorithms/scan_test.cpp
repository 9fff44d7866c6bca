// The scans (inclusive_scan, exclusive_scan, transform_inclusive_scan,
// transform_exclusive_scan) and adjacent_difference against their std:: sequential
// results: every policy, executor and chunk parameter, sizes 0, 1, 2, odd and large;
// non-commutative operations; in place; forward iterators; range overloads; chunks
// reduced and scanned again, forced; exceptions; task policies. On every scheduler policy.
#include "algorithms_support.hpp"

#include <weft/algorithms/adjacent_difference.hpp>
#include <weft/algorithms/exclusive_scan.hpp>
#include <weft/algorithms/inclusive_scan.hpp>
#include <weft/algorithms/transform_exclusive_scan.hpp>
#include <weft/algorithms/transform_inclusive_scan.hpp>

#include <algorithm>
#include <cstdint>
#include <forward_list>
#include <functional>
#include <list>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace weft::test::algorithms;
using weft::test::policy_test;
class scan_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(scan_test);

// 2x2 matrices over the integers mod 2^64: the product is associative, not commutative.
struct mat {
    std::uint64_t a, b, c, d;
    friend mat operator*(const mat& x, const mat& y) {
        return {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
    }
    bool operator==(const mat&) const = default;
};

std::vector<mat> matrices(const std::vector<std::int64_t>& v) {
    std::vector<mat> m;
    for (const std::int64_t x : v) {
        const auto u = static_cast<std::uint64_t>(x);
        m.push_back({u, 1, 2 * u + 1, u + 3});
    }
    return m;
}

const mat m0{2, 3, 5, 7};

// Whether inclusive_scan takes range R with policy P.
template <class P, class R>
concept scans_range = requires(P&& p, R&& r, std::vector<std::int64_t>::iterator o) {
    weft::inclusive_scan(std::forward<P>(p), std::forward<R>(r), o);
};

}  // namespace

namespace {

TEST_P(scan_test, scans_and_adjacent_difference_match_std) {
    for (const std::size_t n : sizes) {
        for_every_policy(n, [n](const auto& policy, const char* name) {
            // (Not const: the in-place calls then share the instantiations of the others.)
            std::vector<std::int64_t> a = random_values(n, 21);
            std::vector<std::int64_t> out(n, -1), want(n), b = a;
            const auto neg = std::negate<>();  // (std's function objects: instantiations shared with the tests below)

            // At every size: the scan in and out of place, non-commutative, and
            // adjacent_difference in and out of place.
            EXPECT_EQ(result_of(weft::inclusive_scan(policy, a.begin(), a.end(), out.begin())), out.end()) << name;
            std::inclusive_scan(a.begin(), a.end(), want.begin());
            EXPECT_EQ(out, want) << name << " inclusive_scan";
            EXPECT_EQ(result_of(weft::inclusive_scan(policy, b.begin(), b.end(), b.begin())), b.end()) << name;
            EXPECT_EQ(b, want) << name << " inclusive_scan in place";
            EXPECT_EQ(result_of(weft::exclusive_scan(policy, a.begin(), a.end(), out.begin(), std::int64_t{7})), out.end());
            std::exclusive_scan(a.begin(), a.end(), want.begin(), std::int64_t{7});
            EXPECT_EQ(out, want) << name << " exclusive_scan";
            // Matrix products keep range order.
            std::vector<mat> m = matrices(a), mout(n), mwant(n);
            FINISH(weft::inclusive_scan(policy, m.begin(), m.end(), mout.begin(), std::multiplies<>()));
            std::inclusive_scan(m.begin(), m.end(), mwant.begin(), std::multiplies<>());
            EXPECT_TRUE(mout == mwant) << name << " inclusive_scan of matrices";
            EXPECT_EQ(result_of(weft::adjacent_difference(policy, a.begin(), a.end(), out.begin())), out.end()) << name;
            std::adjacent_difference(a.begin(), a.end(), want.begin());
            EXPECT_EQ(out, want) << name << " adjacent_difference";
            b = a;
            EXPECT_EQ(result_of(weft::adjacent_difference(policy, b.begin(), b.end(), b.begin())), b.end()) << name;
            EXPECT_EQ(b, want) << name << " adjacent_difference in place";
            // The other forms and types run the same loops: small sizes cover them (which
            // keeps the sanitizer runs short). (A few forms are left to the tests below,
            // to keep the number of instantiations per policy down.)
            if (n > 1000) return;

            FINISH(weft::inclusive_scan(policy, a.begin(), a.end(), out.begin(), std::bit_xor<>(), std::int64_t{-500}));
            std::inclusive_scan(a.begin(), a.end(), want.begin(), std::bit_xor<>(), std::int64_t{-500});
            EXPECT_EQ(out, want) << name << " inclusive_scan(xor, init)";
            b = a;
            FINISH(weft::exclusive_scan(policy, b.begin(), b.end(), b.begin(), std::int64_t{7}));
            std::exclusive_scan(a.begin(), a.end(), want.begin(), std::int64_t{7});
            EXPECT_EQ(b, want) << name << " exclusive_scan in place";
            FINISH(weft::transform_inclusive_scan(policy, a.begin(), a.end(), out.begin(), std::plus<>(), neg, std::int64_t{-3}));
            std::transform_inclusive_scan(a.begin(), a.end(), want.begin(), std::plus<>(), neg, std::int64_t{-3});
            EXPECT_EQ(out, want) << name << " transform_inclusive_scan(init)";
            EXPECT_EQ(result_of(weft::transform_exclusive_scan(policy, a.begin(), a.end(), out.begin(), std::int64_t{4},
                                                               std::plus<>(), neg)),
                      out.end());
            std::transform_exclusive_scan(a.begin(), a.end(), want.begin(), std::int64_t{4}, std::plus<>(), neg);
            EXPECT_EQ(out, want) << name << " transform_exclusive_scan";

            // String concatenation: non-commutative, with init too.
            std::vector<std::string> words(n), sout(n), swant(n);
            for (std::size_t i = 0; i < n; ++i) words[i] = std::string(1, static_cast<char>('a' + i % 26));
            FINISH(weft::inclusive_scan(policy, words.begin(), words.end(), sout.begin()));
            std::inclusive_scan(words.begin(), words.end(), swant.begin());
            EXPECT_EQ(sout, swant) << name << " inclusive_scan of strings";
            FINISH(weft::exclusive_scan(policy, words.begin(), words.end(), sout.begin(), std::string("<")));
            std::exclusive_scan(words.begin(), words.end(), swant.begin(), std::string("<"));
            EXPECT_EQ(sout, swant) << name << " exclusive_scan of strings";

            // The sums' type: the input's value type (uint8_t: they wrap), init's type, or
            // the transform's result type.
            std::vector<std::uint8_t> u(n);
            for (std::size_t i = 0; i < n; ++i) u[i] = static_cast<std::uint8_t>(a[i]);
            std::vector<int> iout(n), iwant(n);
            FINISH(weft::inclusive_scan(policy, u.begin(), u.end(), iout.begin()));
            std::inclusive_scan(u.begin(), u.end(), iwant.begin());
            EXPECT_EQ(iout, iwant) << name << " inclusive_scan of uint8_t";
            EXPECT_TRUE(std::all_of(iout.begin(), iout.end(), [](int x) { return x >= 0 && x < 256; })) << name;
            FINISH(weft::inclusive_scan(policy, u.begin(), u.end(), iout.begin(), std::plus<>(), 0));
            std::inclusive_scan(u.begin(), u.end(), iwant.begin(), std::plus<>(), 0);
            EXPECT_EQ(iout, iwant) << name << " inclusive_scan of uint8_t from an int";
            const auto low_byte = [](std::int64_t x) { return static_cast<std::uint8_t>(x); };
            EXPECT_EQ(result_of(weft::transform_inclusive_scan(policy, a.begin(), a.end(), iout.begin(), std::plus<>(), low_byte)),
                      iout.end());
            std::transform_inclusive_scan(a.begin(), a.end(), iwant.begin(), std::plus<>(), low_byte);
            EXPECT_EQ(iout, iwant) << name << " transform_inclusive_scan to uint8_t";
        });
    }
}

TEST_P(scan_test, forward_iterators) {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{17}, std::size_t{1001}}) {
        const std::vector<std::int64_t> a = random_values(n, 22);
        const std::list<std::int64_t> l(a.begin(), a.end());
        const auto neg = [](std::int64_t x) { return -x; };
        std::vector<std::int64_t> inc(n), exc(n), tinc(n), texc(n), diff(n);
        std::inclusive_scan(a.begin(), a.end(), inc.begin());
        std::exclusive_scan(a.begin(), a.end(), exc.begin(), std::int64_t{5});
        std::transform_inclusive_scan(a.begin(), a.end(), tinc.begin(), std::plus<>(), neg, std::int64_t{1});
        std::transform_exclusive_scan(a.begin(), a.end(), texc.begin(), std::int64_t{2}, std::plus<>(), neg);
        std::adjacent_difference(a.begin(), a.end(), diff.begin());
        const auto same = [](const auto& x, const std::vector<std::int64_t>& y) {
            return std::equal(x.begin(), x.end(), y.begin(), y.end());
        };
        for (int c = 0; c < 7; ++c) {
            const auto policy = ex::par.with(any_chunk{c}, any_cores{0});
            const std::string name = std::string("par ") + chunk_names[c] + " n=" + std::to_string(n);
            std::list<std::int64_t> out(n);
            EXPECT_EQ(weft::inclusive_scan(policy, l.begin(), l.end(), out.begin()), out.end()) << name;
            EXPECT_TRUE(same(out, inc)) << name;
            std::list<std::int64_t> io = l;
            weft::inclusive_scan(policy, io.begin(), io.end(), io.begin());
            EXPECT_TRUE(same(io, inc)) << name << " in place";
            weft::exclusive_scan(policy, l.begin(), l.end(), out.begin(), std::int64_t{5});
            EXPECT_TRUE(same(out, exc)) << name;
            weft::transform_inclusive_scan(policy, l.begin(), l.end(), out.begin(), std::plus<>(), neg, std::int64_t{1});
            EXPECT_TRUE(same(out, tinc)) << name;
            weft::transform_exclusive_scan(policy, l.begin(), l.end(), out.begin(), std::int64_t{2}, std::plus<>(), neg);
            EXPECT_TRUE(same(out, texc)) << name;
            std::forward_list<std::int64_t> fout(n);
            EXPECT_EQ(weft::adjacent_difference(policy, l.begin(), l.end(), fout.begin()), fout.end()) << name;
            EXPECT_TRUE(same(fout, diff)) << name;
            io = l;
            weft::adjacent_difference(policy, io.begin(), io.end(), io.begin());
            EXPECT_TRUE(same(io, diff)) << name << " in place";
        }
    }
}

TEST_P(scan_test, range_overloads) {
    std::vector<std::int64_t> a = random_values(5000, 23);
    std::vector<std::int64_t> out(a.size()), want(a.size());
    const auto neg = std::negate<>();
    const auto xor_ = std::bit_xor<>();
    EXPECT_EQ(weft::inclusive_scan(ex::par, a, out.begin()), out.end());
    EXPECT_EQ(out, (std::inclusive_scan(a.begin(), a.end(), want.begin()), want));
    weft::inclusive_scan(ex::par, a, out.begin(), xor_);
    EXPECT_EQ(out, (std::inclusive_scan(a.begin(), a.end(), want.begin(), xor_), want));
    weft::inclusive_scan(ex::par, a, out.begin(), xor_, std::int64_t{-500});
    EXPECT_EQ(out, (std::inclusive_scan(a.begin(), a.end(), want.begin(), xor_, std::int64_t{-500}), want));
    EXPECT_EQ(weft::exclusive_scan(ex::par, std::vector<std::int64_t>(a), out.begin(), std::int64_t{7}), out.end());
    EXPECT_EQ(out, (std::exclusive_scan(a.begin(), a.end(), want.begin(), std::int64_t{7}), want));
    weft::exclusive_scan(ex::par, a, out.begin(), std::int64_t{-500}, xor_);
    EXPECT_EQ(out, (std::exclusive_scan(a.begin(), a.end(), want.begin(), std::int64_t{-500}, xor_), want));
    EXPECT_EQ(weft::transform_inclusive_scan(ex::par, a, out.begin(), std::plus<>(), neg), out.end());
    EXPECT_EQ(out, (std::transform_inclusive_scan(a.begin(), a.end(), want.begin(), std::plus<>(), neg), want));
    weft::transform_inclusive_scan(ex::par, a, out.begin(), std::plus<>(), neg, std::int64_t{-3});
    EXPECT_EQ(out, (std::transform_inclusive_scan(a.begin(), a.end(), want.begin(), std::plus<>(), neg, std::int64_t{-3}), want));
    EXPECT_EQ(weft::transform_exclusive_scan(ex::par, a, out.begin(), std::int64_t{4}, std::plus<>(), neg), out.end());
    EXPECT_EQ(out, (std::transform_exclusive_scan(a.begin(), a.end(), want.begin(), std::int64_t{4}, std::plus<>(), neg), want));
    EXPECT_EQ(weft::adjacent_difference(ex::par, a, out.begin()), out.end());
    EXPECT_EQ(out, (std::adjacent_difference(a.begin(), a.end(), want.begin()), want));
    weft::adjacent_difference(ex::par, a, out.begin(), std::plus<>());
    EXPECT_EQ(out, (std::adjacent_difference(a.begin(), a.end(), want.begin(), std::plus<>()), want));
    // A task policy: a future of the output's end.
    const auto task = ex::par(ex::task).with(any_chunk{6});
    auto f = weft::inclusive_scan(task, a, out.begin());
    static_assert(std::is_same_v<decltype(f), weft::future<std::vector<std::int64_t>::iterator>>);
    EXPECT_EQ(f.get(), out.end());
    EXPECT_EQ(out, (std::inclusive_scan(a.begin(), a.end(), want.begin()), want));
    // A temporary range only without a task policy: it would die under the running task.
    static_assert(scans_range<decltype((task)), std::vector<std::int64_t>&>);
    static_assert(!scans_range<decltype((task)), std::vector<std::int64_t>>);
}

// Runs the agents of a bulk execution on the caller, the last first: the chunks of the
// other agents run before the first chunk, without their carries, so the parallel scan
// reduces them, combines their sums and scans them again, deterministically.
struct reverse_executor {
    template <class F, class... Args>
    auto async_execute(F&& f, Args&&... args) const {
        return ex::sequenced_executor{}.async_execute(std::forward<F>(f), std::forward<Args>(args)...);
    }
    template <class F>
    void bulk_sync_execute(F&& f, std::size_t agents) const {
        for (std::size_t i = agents; i-- > 0;) f(i);
    }
    std::size_t processing_units_count() const noexcept { return 4; }
    bool operator==(const reverse_executor&) const noexcept = default;
};

TEST_P(scan_test, reduced_chunks_keep_range_order) {
    for (const std::size_t n : {std::size_t{2}, std::size_t{17}, std::size_t{1000}}) {
        for (const std::size_t chunk : {std::size_t{1}, std::size_t{3}, std::size_t{100}}) {
            const auto policy = ex::par.on(reverse_executor{}).with(ex::static_chunk_size(chunk));
            const std::string name = "n=" + std::to_string(n) + " chunk=" + std::to_string(chunk);
            const std::vector<std::int64_t> a = random_values(n, 24);
            std::vector<std::int64_t> out(n), want(n);
            std::size_t calls = 0;
            std::int64_t limit = 1'000'000'000;
            const auto counting_plus = [&calls, &limit](std::int64_t x, std::int64_t y) {
                ++calls;
                if (y > limit) throw std::range_error("too big");
                return x + y;
            };
            weft::inclusive_scan(policy, a.begin(), a.end(), out.begin(), counting_plus);
            EXPECT_EQ(out, (std::inclusive_scan(a.begin(), a.end(), want.begin()), want)) << name;
            if (n > 2 * chunk) {  // a chunk other than the first and the last
                EXPECT_GE(calls, n) << name << ": no chunk was reduced (one pass makes n - 1 calls)";
            }
            std::vector<std::int64_t> b = a;
            weft::inclusive_scan(policy, b.begin(), b.end(), b.begin(), counting_plus);
            EXPECT_EQ(b, want) << name << " in place";
            const std::vector<mat> m = matrices(a);
            std::vector<mat> mout(n), mwant(n);
            weft::exclusive_scan(policy, m.begin(), m.end(), mout.begin(), m0, std::multiplies<>());
            std::exclusive_scan(m.begin(), m.end(), mwant.begin(), m0, std::multiplies<>());
            EXPECT_TRUE(mout == mwant) << name;
            b = a;
            weft::adjacent_difference(policy, b.begin(), b.end(), b.begin());
            EXPECT_EQ(b, (std::adjacent_difference(a.begin(), a.end(), want.begin()), want)) << name;
            // An exception where the carry is walked over the chunk sums (> limit, unlike elements).
            if (chunk == 100 && n == 1000) {
                std::vector<std::int64_t> thousands(n, 1000);
                limit = 50'000;
                try {
                    weft::inclusive_scan(policy, thousands.begin(), thousands.end(), out.begin(), counting_plus);
                    ADD_FAILURE() << "no exception";
                } catch (const weft::exception_list& l) {
                    EXPECT_EQ(l.size(), 1u);
                    EXPECT_NE(std::string(l.what()).find("weft::inclusive_scan"), std::string::npos) << l.what();
                }
            }
        }
    }
}

TEST_P(scan_test, element_exceptions_reach_the_caller_as_an_exception_list) {
    constexpr std::size_t n = 10'000;
    std::vector<std::int64_t> v(n), out(n);
    std::iota(v.begin(), v.end(), 0);
    const auto par = ex::par.with(any_chunk{3}, any_cores{0});  // dynamic(100)
    for (const std::int64_t bad : {1, 99, 100, 150, 9999}) {
        const auto op = [bad](std::int64_t x, std::int64_t y) {
            if (y == bad) throw std::runtime_error(std::to_string(bad));
            return x + y;
        };
        try {
            weft::inclusive_scan(par, v.begin(), v.end(), out.begin(), op);
            ADD_FAILURE() << "no exception at " << bad;
        } catch (const weft::exception_list& l) {
            EXPECT_GE(l.size(), 1u);
            EXPECT_NE(std::string(l.what()).find("weft::inclusive_scan"), std::string::npos) << l.what();
            for (const auto& e : l.exceptions()) EXPECT_THROW(std::rethrow_exception(e), std::runtime_error);
        }
        try {
            weft::inclusive_scan(ex::seq, v.begin(), v.end(), out.begin(), op);
            ADD_FAILURE() << "no exception at " << bad;
        } catch (const weft::exception_list& l) {
            EXPECT_EQ(l.size(), 1u);
        }
    }
    const auto bad_square = [](std::int64_t x) {
        if (x == 5000) throw std::runtime_error("5000");
        return x * x;
    };
    EXPECT_THROW(weft::transform_exclusive_scan(par, v.begin(), v.end(), out.begin(), std::int64_t{0}, std::plus<>(), bad_square),
                 weft::exception_list);
    EXPECT_THROW(weft::transform_exclusive_scan(ex::seq, v.begin(), v.end(), out.begin(), std::int64_t{0}, std::plus<>(), bad_square),
                 weft::exception_list);
    const auto bad_minus = [](std::int64_t x, std::int64_t y) {
        if (x == 7777) throw std::runtime_error("7777");
        return x - y;
    };
    EXPECT_THROW(weft::adjacent_difference(par, v.begin(), v.end(), out.begin(), bad_minus), weft::exception_list);
    std::vector<std::int64_t> w = v;
    EXPECT_THROW(weft::adjacent_difference(par, w.begin(), w.end(), w.begin(), bad_minus), weft::exception_list);
    EXPECT_THROW(weft::adjacent_difference(ex::seq, v.begin(), v.end(), out.begin(), bad_minus), weft::exception_list);
    // A task policy returns a future at once and delivers the list through it.
    const auto task = ex::par(ex::task).with(any_chunk{6});
    auto f = weft::exclusive_scan(task, v.begin(), v.end(), out.begin(), std::int64_t{0});
    static_assert(std::is_same_v<decltype(f), weft::future<std::vector<std::int64_t>::iterator>>);
    EXPECT_EQ(f.get(), out.end());
    EXPECT_EQ(out[n - 1], static_cast<std::int64_t>((n - 1) * (n - 2) / 2));
    auto g = weft::transform_exclusive_scan(task, v.begin(), v.end(), out.begin(), std::int64_t{0}, std::plus<>(), bad_square);
    EXPECT_THROW(g.get(), weft::exception_list);
}

}  // namespace
