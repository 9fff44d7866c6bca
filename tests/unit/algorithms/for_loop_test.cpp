// for_loop, for_loop_strided, induction and reduction against plain sequential loops,
// on every scheduler policy.
#include "algorithms_support.hpp"

#include <weft/algorithms/for_loop.hpp>
#include <weft/algorithms/induction.hpp>
#include <weft/algorithms/reduction.hpp>

#include <algorithm>
#include <cstdint>
#include <forward_list>
#include <functional>
#include <iterator>
#include <limits>
#include <list>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace weft::test::algorithms;
using weft::test::policy_test;
class for_loop_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(for_loop_test);

// x -> a*x + b modulo 2^64. Composition is associative but not commutative, so a
// reduction of these maps shows whether the chunks were combined in range order.
struct affine {
    std::uint64_t a = 1, b = 0;
    bool operator==(const affine&) const = default;
};
// x -> g(f(x)): f first.
affine then(const affine& f, const affine& g) { return {g.a * f.a, g.a * f.b + g.b}; }
struct compose {
    affine operator()(const affine& f, const affine& g) const { return then(f, g); }
};
affine map_of(std::int64_t x) { return {2 * static_cast<std::uint64_t>(x) + 1, static_cast<std::uint64_t>(x)}; }

template <class Policy>
constexpr bool unsequenced = std::remove_cvref_t<Policy>::kind::unsequenced;

// for_loop_strided over c's positions [first, last) (either way, by stride): each
// visited element gets its iteration number k (an induction with a live-out value) and
// the visited elements are summed (a reduction); checked against the sequential loop.
template <class Policy, class C>
void check_iterator_loop(const Policy& policy, const char* name, C c, std::ptrdiff_t first, std::ptrdiff_t last,
                         int stride) {
    std::vector<std::int64_t> expected(c.begin(), c.end());
    std::int64_t expected_sum = 3, expected_k = 0;
    for (std::ptrdiff_t p = first; stride > 0 ? p < last : p > last; p += stride) {
        expected_sum += expected[p];
        expected[p] = expected_k++;
    }
    std::int64_t sum = 3, k = 0;
    FINISH(weft::for_loop_strided(policy, std::next(c.begin(), first), std::next(c.begin(), last), stride,
                                  weft::induction(k), weft::reduction_plus(sum),
                                  [](typename C::iterator it, std::int64_t kv, std::int64_t& s) {
                                      s += *it;
                                      *it = kv;
                                  }));
    EXPECT_EQ(std::vector<std::int64_t>(c.begin(), c.end()), expected) << name << " stride " << stride;
    EXPECT_EQ(sum, expected_sum) << name << " stride " << stride;
    EXPECT_EQ(k, expected_k) << name << " stride " << stride;  // live-out: the iteration count
}

TEST_P(for_loop_test, against_sequential_loops) {
    for (const std::size_t n : sizes) {
        for_every_policy(n, [n](const auto& policy, const char* name) {
            const std::vector<std::int64_t> a = random_values(n, 11);

            // An integer loop with two inductions (one a live-out lvalue, one an rvalue
            // counting down) and four reductions: sum, min, max and an ordered one.
            std::int64_t sum_e = 5, min_e = 2000, max_e = -2000, j_e = -7;
            affine comp_e{3, 4};
            for (std::size_t i = 0; i < n; ++i) {
                sum_e += a[i];
                min_e = std::min(min_e, a[i]);
                max_e = std::max(max_e, a[i]);
                comp_e = then(comp_e, map_of(a[i]));
                j_e += 3;
            }
            std::int64_t sum = 5, lo = 2000, hi = -2000, j = -7;
            affine comp{3, 4};
            std::vector<int> hits(n, 0);
            std::vector<std::int64_t> js(n, 0);
            std::vector<std::size_t> backs(n, 0);
            FINISH(weft::for_loop(policy, 0, n, weft::induction(j, 3), weft::induction(n, -1), weft::reduction_plus(sum),
                                  weft::reduction_min(lo), weft::reduction_max(hi),
                                  weft::reduction(comp, affine{}, compose{}),
                                  [&](std::size_t i, std::int64_t jv, std::size_t back, std::int64_t& s, std::int64_t& mn,
                                      std::int64_t& mx, affine& c) {
                                      ++hits[i];
                                      js[i] = jv;
                                      backs[i] = back;
                                      s += a[i];
                                      mn = std::min(mn, a[i]);
                                      mx = std::max(mx, a[i]);
                                      c = then(c, map_of(a[i]));
                                  }));
            EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), static_cast<std::ptrdiff_t>(n)) << name;
            for (std::size_t i = 0; i < n; ++i) {
                if (js[i] != -7 + 3 * static_cast<std::int64_t>(i) || backs[i] != n - i) {
                    ADD_FAILURE() << name << ": wrong induction values at " << i << " of " << n;
                    break;
                }
            }
            EXPECT_EQ(sum, sum_e) << name;
            EXPECT_EQ(lo, min_e) << name;
            EXPECT_EQ(hi, max_e) << name;
            EXPECT_TRUE(comp == comp_e) << name;
            EXPECT_EQ(j, j_e) << name;  // the live-out value

            // A negative stride over integers (n-1 down to 0, step 3); a stride of 0 throws.
            for (const int stride : {-3, 0}) {
                std::int64_t k = 10, count = 0;
                std::vector<std::int64_t> ks(n, -1);
                const auto call = [&] {
                    return weft::for_loop_strided(policy, static_cast<std::int64_t>(n) - 1, std::int64_t{-1}, stride,
                                                  weft::induction(k), weft::reduction_plus(count),
                                                  [&](std::int64_t i, std::int64_t kv, std::int64_t& c) {
                                                      ks[i] = kv;
                                                      ++c;
                                                  });
                };
                if (stride == 0) {
                    EXPECT_THROW(finish(call), weft::error) << name;
                    continue;
                }
                finish(call);
                std::vector<std::int64_t> ks_e(n, -1);
                std::int64_t k_e = 10;
                for (auto i = static_cast<std::int64_t>(n) - 1; i > -1; i -= 3) ks_e[i] = k_e++;
                EXPECT_EQ(ks, ks_e) << name;
                EXPECT_EQ(k, k_e) << name;
                EXPECT_EQ(count, static_cast<std::int64_t>((n + 2) / 3)) << name;
            }

            // Iterator loops, random-access and bidirectional, both directions.
            const auto last = static_cast<std::ptrdiff_t>(n);
            check_iterator_loop(policy, name, std::vector<std::int64_t>(a), 0, last, 2);
            check_iterator_loop(policy, name, std::list<std::int64_t>(a.begin(), a.end()), 0, last, 3);
            if (n > 0) {
                check_iterator_loop(policy, name, std::vector<std::int64_t>(a), last - 1, 0, -2);
                check_iterator_loop(policy, name, std::list<std::int64_t>(a.begin(), a.end()), last - 1, 0, -3);
            }

            // A throwing element function: a weft::exception_list, the variables untouched
            // (the unsequenced policies terminate instead, as the standard says).
            if constexpr (!unsequenced<decltype(policy)>) {
                if (n > 0) {
                    std::int64_t ind = 1, red = 2;
                    try {
                        FINISH(weft::for_loop(policy, std::size_t{0}, n, weft::induction(ind), weft::reduction_plus(red),
                                              [n](std::size_t i, std::int64_t, std::int64_t& r) {
                                                  ++r;
                                                  if (i == n / 2) throw std::runtime_error("boom");
                                              }));
                        ADD_FAILURE() << name << ": no exception";
                    } catch (const weft::exception_list& e) {
                        EXPECT_EQ(e.size(), 1u) << name;
                    }
                    EXPECT_EQ(ind, 1) << name;
                    EXPECT_EQ(red, 2) << name;
                }
            }
        });
    }
}

TEST_P(for_loop_test, induction_kinds_and_integer_extremes) {
    namespace ex = weft::execution;
    constexpr int n = 1000;
    // Floating point: var + k*stride exactly (0.5 steps are exact), live-out too.
    double d = 0.25;
    std::vector<double> ds(n);
    // A pointer, an unsigned counting down through 0 (wrap-around as repeated
    // subtraction gives), a const (no live-out) and an rvalue.
    std::vector<int> buf(2 * n);
    int* p = buf.data();
    unsigned u = 5;
    const std::int64_t c = 40;
    std::vector<int*> ps(n);
    std::vector<unsigned> us(n);
    std::vector<std::int64_t> cs(n), rs(n);
    weft::for_loop(ex::par.with(ex::static_chunk_size(7)), 0, n, weft::induction(d, 0.5), weft::induction(p, 2),
                   weft::induction(u, -1), weft::induction(c, 2), weft::induction(std::int64_t{9}),
                   [&](int i, double dv, int* pv, unsigned uv, std::int64_t cv, std::int64_t rv) {
                       ds[i] = dv;
                       ps[i] = pv;
                       us[i] = uv;
                       cs[i] = cv;
                       rs[i] = rv;
                   });
    for (int i = 0; i < n; ++i) {
        ASSERT_EQ(ds[i], 0.25 + 0.5 * i);
        ASSERT_EQ(ps[i], buf.data() + 2 * i);
        ASSERT_EQ(us[i], 5u - static_cast<unsigned>(i));
        ASSERT_EQ(cs[i], 40 + 2 * i);
        ASSERT_EQ(rs[i], 9 + i);
    }
    EXPECT_EQ(d, 0.25 + 0.5 * n);
    EXPECT_EQ(p, buf.data() + 2 * n);
    EXPECT_EQ(u, 5u - static_cast<unsigned>(n));

    // Ranges at the ends of their types: no intermediate overflow.
    const auto values = [](auto policy, auto first, auto last, auto stride) {
        std::vector<decltype(last)> got;
        std::mutex m;
        weft::for_loop_strided(policy, first, last, stride, [&](decltype(last) i) {
            std::lock_guard lock(m);
            got.push_back(i);
        });
        std::sort(got.begin(), got.end());
        return got;
    };
    using i8 = std::int8_t;
    using u64 = std::uint64_t;
    using i64 = std::int64_t;
    EXPECT_EQ(values(ex::par, std::numeric_limits<i8>::min(), std::numeric_limits<i8>::max(), 50),
              (std::vector<i8>{-128, -78, -28, 22, 72, 122}));
    EXPECT_EQ(values(ex::par, std::numeric_limits<i8>::max(), std::numeric_limits<i8>::min(), -100),
              (std::vector<i8>{-73, 27, 127}));
    constexpr u64 umax = std::numeric_limits<u64>::max();
    EXPECT_EQ(values(ex::seq, umax - 5, umax, 4), (std::vector<u64>{umax - 5, umax - 1}));
    EXPECT_EQ(values(ex::par, u64{0}, umax, u64{1} << 62),
              (std::vector<u64>{0, u64{1} << 62, u64{2} << 62, u64{3} << 62}));
    constexpr i64 imin = std::numeric_limits<i64>::min(), imax = std::numeric_limits<i64>::max();
    EXPECT_EQ(values(ex::par, imin, imax, imax), (std::vector<i64>{imin, -1, imax - 1}));
    EXPECT_EQ(values(ex::par, imax, imin, imin), (std::vector<i64>{-1, imax}));
    // A range against the stride's direction is empty.
    EXPECT_TRUE(values(ex::par, i64{10}, i64{0}, 1).empty());
    EXPECT_TRUE(values(ex::par, i64{0}, i64{10}, -1).empty());
    EXPECT_TRUE(values(ex::par, i64{3}, i64{3}, 1).empty());
    std::vector<int> v(10);
    int calls = 0;
    weft::for_loop_strided(ex::seq, v.end(), v.begin(), 2, [&](std::vector<int>::iterator) { ++calls; });
    EXPECT_EQ(calls, 0);
}

TEST_P(for_loop_test, forms_errors_and_tasks) {
    namespace ex = weft::execution;
    // The policy-less forms are sequential.
    std::vector<int> order;
    std::int64_t prod = 1;
    unsigned all = 0xffu, any = 0, parity = 0;
    std::size_t k = 0;
    weft::for_loop(1, 11, weft::induction(k), weft::reduction_multiplies(prod), weft::reduction_bit_and(all),
                   weft::reduction_bit_or(any), weft::reduction_bit_xor(parity),
                   [&](int i, std::size_t kv, std::int64_t& pr, unsigned& a, unsigned& o, unsigned& x) {
                       order.push_back(i * 100 + static_cast<int>(kv));
                       pr *= i;
                       a &= static_cast<unsigned>(i) | 1u;
                       o |= static_cast<unsigned>(i);
                       x ^= static_cast<unsigned>(i);
                   });
    EXPECT_EQ(order, (std::vector<int>{100, 201, 302, 403, 504, 605, 706, 807, 908, 1009}));
    EXPECT_EQ(prod, 3628800);
    EXPECT_EQ(all, 1u);
    EXPECT_EQ(any, 15u);
    EXPECT_EQ(parity, 1u ^ 2u ^ 3u ^ 4u ^ 5u ^ 6u ^ 7u ^ 8u ^ 9u ^ 10u);
    EXPECT_EQ(k, 10u);
    order.clear();
    weft::for_loop_strided(20, 0, -7, [&](int i) { order.push_back(i); });
    EXPECT_EQ(order, (std::vector<int>{20, 13, 6}));

    // A negative stride over forward-only iterators, and a stride of 0, are errors.
    std::forward_list<int> fl{1, 2, 3};
    EXPECT_THROW(weft::for_loop_strided(ex::seq, fl.begin(), fl.end(), -1, [](std::forward_list<int>::iterator) {}),
                 weft::error);
    EXPECT_THROW(weft::for_loop_strided(0, 10, 0, [](int) {}), weft::error);
    int forward_sum = 0;
    weft::for_loop_strided(ex::par, fl.begin(), fl.end(), 2, weft::reduction_plus(forward_sum),
                           [](std::forward_list<int>::iterator it, int& s) { s += *it; });
    EXPECT_EQ(forward_sum, 4);

    // A throwing combiner is an element function's exception; seq and par alike.
    const auto throwing_combiner = [](auto policy) {
        std::int64_t r = 0;
        const auto bad = [](std::int64_t, std::int64_t) -> std::int64_t { throw std::logic_error("combiner"); };
        try {
            weft::for_loop(policy, 0, 1000, weft::reduction(r, 0, bad), [](int i, std::int64_t& acc) { acc += i; });
            ADD_FAILURE() << "no exception";
        } catch (const weft::exception_list& e) {
            EXPECT_EQ(e.size(), 1u);
        }
    };
    throwing_combiner(ex::seq);
    throwing_combiner(ex::par);

    // par(task): a future at once; the variables are written when it is ready.
    weft::promise<void> gate;
    weft::shared_future<void> open = gate.get_future().share();
    std::int64_t sum = 0;
    int j = 0;
    auto f = weft::for_loop(ex::par(ex::task), 0, 64, weft::induction(j), weft::reduction_plus(sum),
                            [open](int i, int jv, std::int64_t& s) {
                                open.wait();
                                s += i + jv;
                            });
    static_assert(std::is_same_v<decltype(f), weft::future<void>>);
    EXPECT_FALSE(f.is_ready());
    gate.set_value();
    f.get();
    EXPECT_EQ(sum, 2 * (63 * 64 / 2));
    EXPECT_EQ(j, 64);
    auto failing = weft::for_loop_strided(ex::seq(ex::task), 0, 10, 3, [](int i) {
        if (i == 9) throw std::runtime_error("late");
    });
    EXPECT_THROW(failing.get(), weft::exception_list);
}

// Wrong argument types are rejected by the signatures' constraints.
template <class... A>
concept can_for_loop = requires(A&&... a) { weft::for_loop(std::forward<A>(a)...); };
template <class... A>
concept can_for_loop_strided = requires(A&&... a) { weft::for_loop_strided(std::forward<A>(a)...); };
template <class... A>
concept can_induction = requires(A&&... a) { weft::induction(std::forward<A>(a)...); };
template <class... A>
concept can_reduction = requires(A&&... a) { weft::reduction(std::forward<A>(a)...); };

using seq_t = const weft::execution::sequenced_policy&;
using vec_it = std::vector<int>::iterator;
struct on_int {
    void operator()(int) const {}
};
struct on_int_ref {
    void operator()(int, int&) const {}
};
struct on_it {
    void operator()(vec_it) const {}
};
struct on_it_ref {
    void operator()(vec_it&) const {}
};
using plus_t = decltype(weft::reduction_plus(std::declval<int&>()));
using ind_t = decltype(weft::induction(0));

static_assert(can_for_loop<seq_t, int, int, on_int>);
static_assert(can_for_loop<int, int, on_int>);  // without a policy
static_assert(can_for_loop<seq_t, vec_it, vec_it, on_it>);
static_assert(can_for_loop<seq_t, int, int, plus_t, on_int_ref>);
static_assert(!can_for_loop<seq_t, int, int>);                       // no function
static_assert(!can_for_loop<seq_t, int, int, int>);                  // not invocable
static_assert(!can_for_loop<seq_t, int, int, on_it>);                // not invocable with the index
static_assert(!can_for_loop<seq_t, vec_it, vec_it, on_it_ref>);      // i is a copy
static_assert(!can_for_loop<seq_t, int, int, int, on_int>);          // 5 is not an induction/reduction
static_assert(!can_for_loop<seq_t, int, int, ind_t, on_int_ref>);    // an induction is a value
static_assert(!can_for_loop<seq_t, int, int, plus_t, on_int>);       // f ignores the reduction
static_assert(!can_for_loop<seq_t, double, double, on_int>);         // not an integer or iterator
static_assert(!can_for_loop<seq_t, bool, bool, on_int>);
static_assert(can_for_loop_strided<seq_t, int, int, long, on_int>);
static_assert(!can_for_loop_strided<seq_t, int, int, double, on_int>);  // a stride is an integer
static_assert(can_induction<double&, double>);
static_assert(can_induction<int*&, int>);
static_assert(!can_induction<std::string&>);                    // no k-th value in O(1)
static_assert(!can_induction<std::list<int>::iterator&, int>);  // likewise
static_assert(!can_induction<int&, double>);                    // an integer with a fractional stride
static_assert(can_reduction<int&, int, std::plus<int>>);
static_assert(!can_reduction<const int&, int, std::plus<int>>);  // nowhere to put the result
static_assert(!can_reduction<int, int, std::plus<int>>);         // likewise (an rvalue)
static_assert(!can_reduction<int&, int, int>);                   // not a combiner

}  // namespace
