// partitioned_vector and its segmented algorithms (issue #25) under mpirun, at 1, 2 and 4
// ranks: every algorithm's result against the same std:: algorithm on the gathered data
// (or on a std::vector built alongside), over even, uneven, cyclic and mostly empty
// layouts, whole ranges and sub-ranges, seq, par and par(task); element access,
// segments, naming; and each misuse's weft::error.
//
//   partitioned_vector all      locality 0 runs everything
//   partitioned_vector connect  every locality connects to a vector locality 0 registered
//                               (--weft:spmd) and sums its part of it
#include <weft/distributed.hpp>
#include <weft/weft.hpp>

#include "check.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

namespace {

using weft_test::failures;
using weft_test::thrown;
namespace ex = weft::execution;

/// The layouts every check runs on, for n elements.
std::vector<weft::container_layout> layouts(std::size_t localities) {
    std::vector<weft::container_layout> l;
    l.emplace_back(localities);                               // one per locality
    l.emplace_back(3 * localities + 1);                       // uneven
    l.push_back(weft::container_layout::cyclic(2 * localities + 1));
    l.emplace_back(std::size_t{1});                           // everything on locality 0
    l.emplace_back(std::size_t{40});                          // more partitions than elements (n small)
    return l;
}

std::int64_t value_at(std::size_t i) { return static_cast<std::int64_t>((i * 7919 + 13) % 1000) - 500; }

std::vector<std::int64_t> reference(std::size_t n) {
    std::vector<std::int64_t> r(n);
    for (std::size_t i = 0; i < n; ++i) r[i] = value_at(i);
    return r;
}

template <class P>
void check_algorithms(const P& policy, std::size_t n, const weft::container_layout& layout) {
    using V = weft::partitioned_vector<std::int64_t>;
    V v(n, layout);
    CHECK(v.size() == n);
    CHECK(v.get_num_partitions() == layout.count);
    // generate + for_each: v[i] = value_at(i) through a value-capturing lambda per element.
    weft::generate(policy, v.begin(), v.end(), [] { return std::int64_t{0}; });
    CHECK(weft::count(policy, v.begin(), v.end(), 0) == static_cast<std::ptrdiff_t>(n));
    for (const auto& s : v.segments()) {
        // Each partition's elements know their global index through its range.
        weft::for_each(policy, v.begin() + static_cast<std::ptrdiff_t>(s.begin),
                       v.begin() + static_cast<std::ptrdiff_t>(s.end), [b = s.begin](std::int64_t& x) { x = static_cast<std::int64_t>(b); });
    }
    // Rebuild exact values element by element where small, else through transform from an
    // index vector.
    V index(n, layout);
    std::vector<std::int64_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    {
        std::int64_t k = 0;
        for (const auto& s : index.segments()) {
            (void)s;
            ++k;
        }
        CHECK(k == static_cast<std::int64_t>(layout.count));
    }
    // index[i] = i: an inclusive scan of ones, minus one.
    weft::fill(policy, index.begin(), index.end(), 1);
    weft::inclusive_scan(policy, index.begin(), index.end(), index.begin());
    weft::transform(policy, index.begin(), index.end(), index.begin(), [](std::int64_t x) { return x - 1; });
    CHECK(index.gather() == idx);
    weft::transform(policy, index.begin(), index.end(), v.begin(),
                    [](std::int64_t i) { return static_cast<std::int64_t>((static_cast<std::size_t>(i) * 7919 + 13) % 1000) - 500; });
    const std::vector<std::int64_t> ref = reference(n);
    CHECK(v.gather() == ref);

    // Reductions.
    CHECK(weft::reduce(policy, v.begin(), v.end(), std::int64_t{5}) == std::reduce(ref.begin(), ref.end(), std::int64_t{5}));
    CHECK(weft::reduce(policy, v.begin(), v.end()) == std::reduce(ref.begin(), ref.end(), std::int64_t{0}));
    auto sq = [](std::int64_t x) { return x * x; };
    CHECK(weft::transform_reduce(policy, v.begin(), v.end(), std::int64_t{0}, std::plus<>{}, sq) ==
          std::transform_reduce(ref.begin(), ref.end(), std::int64_t{0}, std::plus<>{}, sq));
    CHECK(weft::transform_reduce(policy, v.begin(), v.end(), index.begin(), std::int64_t{1}) ==
          std::transform_reduce(ref.begin(), ref.end(), idx.begin(), std::int64_t{1}));
    auto neg = [](std::int64_t x) { return x < 0; };
    CHECK(weft::count_if(policy, v.begin(), v.end(), neg) == std::count_if(ref.begin(), ref.end(), neg));
    CHECK(weft::count(policy, v.begin(), v.end(), ref.empty() ? 0 : ref[n / 2]) ==
          std::count(ref.begin(), ref.end(), ref.empty() ? 0 : ref[n / 2]));

    // Searches: indices must match std's.
    auto pos = [&](auto it) { return static_cast<std::ptrdiff_t>(it.index()); };
    auto spos = [&](auto it) { return it - ref.begin(); };
    auto big = [](std::int64_t x) { return x > 490; };
    CHECK(pos(weft::find_if(policy, v.begin(), v.end(), big)) == spos(std::find_if(ref.begin(), ref.end(), big)));
    CHECK(pos(weft::find_if_not(policy, v.begin(), v.end(), neg)) == spos(std::find_if_not(ref.begin(), ref.end(), neg)));
    CHECK(pos(weft::find(policy, v.begin(), v.end(), 12345)) == static_cast<std::ptrdiff_t>(n));
    if (n > 0) CHECK(pos(weft::find(policy, v.begin(), v.end(), ref[n - 1])) == spos(std::find(ref.begin(), ref.end(), ref[n - 1])));
    CHECK(weft::any_of(policy, v.begin(), v.end(), big) == std::any_of(ref.begin(), ref.end(), big));
    CHECK(weft::all_of(policy, v.begin(), v.end(), neg) == std::all_of(ref.begin(), ref.end(), neg));
    CHECK(weft::none_of(policy, v.begin(), v.end(), big) == std::none_of(ref.begin(), ref.end(), big));
    CHECK(pos(weft::min_element(policy, v.begin(), v.end())) == spos(std::min_element(ref.begin(), ref.end())));
    CHECK(pos(weft::max_element(policy, v.begin(), v.end())) == spos(std::max_element(ref.begin(), ref.end())));
    {
        auto [lo, hi] = weft::minmax_element(policy, v.begin(), v.end());
        auto [slo, shi] = std::minmax_element(ref.begin(), ref.end());
        CHECK(pos(lo) == spos(slo));
        CHECK(pos(hi) == spos(shi));
    }

    // Scans into another vector of the same layout.
    V out(n, layout);
    std::vector<std::int64_t> sout(n);
    weft::inclusive_scan(policy, v.begin(), v.end(), out.begin());
    std::inclusive_scan(ref.begin(), ref.end(), sout.begin());
    CHECK(out.gather() == sout);
    weft::inclusive_scan(policy, v.begin(), v.end(), out.begin(), std::plus<>{}, std::int64_t{100});
    std::inclusive_scan(ref.begin(), ref.end(), sout.begin(), std::plus<>{}, std::int64_t{100});
    CHECK(out.gather() == sout);
    weft::exclusive_scan(policy, v.begin(), v.end(), out.begin(), std::int64_t{-7});
    std::exclusive_scan(ref.begin(), ref.end(), sout.begin(), std::int64_t{-7});
    CHECK(out.gather() == sout);

    // copy, binary transform.
    V w(n, layout);
    auto end = weft::copy(policy, v.begin(), v.end(), w.begin());
    CHECK(end == w.end());
    CHECK(w.gather() == ref);
    weft::transform(policy, v.begin(), v.end(), index.begin(), w.begin(), [](std::int64_t a, std::int64_t b) { return a * 3 + b; });
    std::vector<std::int64_t> sw(n);
    std::transform(ref.begin(), ref.end(), idx.begin(), sw.begin(), [](std::int64_t a, std::int64_t b) { return a * 3 + b; });
    CHECK(w.gather() == sw);

    // Sub-ranges that start and end inside partitions.
    if (n >= 10) {
        const auto b = static_cast<std::ptrdiff_t>(n / 3), e = static_cast<std::ptrdiff_t>(n - n / 5);
        CHECK(weft::reduce(policy, v.begin() + b, v.begin() + e, std::int64_t{0}) ==
              std::reduce(ref.begin() + b, ref.begin() + e, std::int64_t{0}));
        CHECK(pos(weft::max_element(policy, v.begin() + b, v.begin() + e)) == spos(std::max_element(ref.begin() + b, ref.begin() + e)));
        weft::exclusive_scan(policy, v.begin() + b, v.begin() + e, out.begin() + b, std::int64_t{3});
        std::exclusive_scan(ref.begin() + b, ref.begin() + e, sout.begin() + b, std::int64_t{3});
        const std::vector<std::int64_t> got = out.gather();
        CHECK(std::equal(got.begin() + b, got.begin() + e, sout.begin() + b));
        auto it = weft::for_each_n(policy, w.begin() + b, e - b, [](std::int64_t& x) { x = 1; });
        CHECK(it == w.begin() + e);
        CHECK(weft::count(policy, w.begin(), w.end(), 1) >= e - b);
    }
}

void check_task_policy(std::size_t n, const weft::container_layout& layout) {
    weft::partitioned_vector<double> v(n, 2.0, layout);
    weft::future<void> filled = weft::fill(ex::par(ex::task), v.begin(), v.end(), 0.5);
    filled.get();
    weft::future<double> sum = weft::reduce(ex::par(ex::task), v.begin(), v.end(), 0.0);
    CHECK(sum.get() == 0.5 * static_cast<double>(n));
    weft::future<bool> any = weft::any_of(ex::par(ex::task), v.begin(), v.end(), [](double x) { return x > 1; });
    CHECK(!any.get());
    auto found = weft::find(ex::par(ex::task), v.begin(), v.end(), 0.5);
    CHECK(found.get().index() == (n == 0 ? 0 : 0));
    auto mm = weft::minmax_element(ex::par(ex::task), v.begin(), v.end());
    CHECK(mm.get().second.index() == (n == 0 ? 0 : n - 1));  // the last largest
}

void check_access_and_segments(std::size_t localities) {
    weft::partitioned_vector<int> v(10, 3, weft::container_layout(4));
    const auto segs = v.segments();
    CHECK(segs.size() == 4);
    CHECK(segs[0].begin == 0 && segs[0].end == 3 && segs[1].end == 6 && segs[2].end == 8 && segs[3].end == 10);
    const auto all = weft::find_all_localities();
    // Blocks: 4 partitions over L localities.
    weft::container_layout l4(4);
    const auto shares = l4.shares(localities);
    std::size_t k = 0;
    for (std::size_t l = 0; l < localities; ++l)
        for (std::size_t j = 0; j < shares[l]; ++j) CHECK(segs[k++].locality == all[l]);
    for (std::uint64_t i = 0; i < 10; ++i) CHECK(v.get_value(i) == 3);
    v.set_value(7, 70);
    CHECK(v.get_value_async(7).get() == 70);
    auto it = v.begin() + 7;
    CHECK(it.segment() == 2 && it.local_index() == 1);
    CHECK(static_cast<int>(*it) == 70);
    *(v.begin() + 9) = 90;
    CHECK(v.get_value(9) == 90);
    CHECK(v.end() - v.begin() == 10);
    // Empty partitions: 5 elements in 8 partitions.
    weft::partitioned_vector<int> e(5, 1, weft::container_layout(8));
    CHECK(e.segments()[5].begin == e.segments()[5].end);
    CHECK((e.begin() + 4).segment() == 4);
    CHECK(weft::reduce(ex::par, e.begin(), e.end(), 0) == 5);
    weft::partitioned_vector<int> none;
    CHECK(none.size() == 0 && none.get_num_partitions() == 0);
    CHECK(weft::reduce(ex::par, none.begin(), none.end(), 4) == 4);
}

void check_misuse(std::size_t localities) {
    weft::partitioned_vector<int> v(10, 1, weft::container_layout(3));
    auto msg = thrown<weft::error>([&] { (void)v.get_value(10); });
    CHECK(msg && msg->find("index 10 is out of range (size 10)") != std::string::npos);
    CHECK(thrown<weft::error>([&] { v.set_value(11, 0); }).has_value());
    CHECK(thrown<weft::error>([&] { (void)(v.end()).segment(); }).has_value());
    weft::partitioned_vector<int> other(10, 1, weft::container_layout(4));
    msg = thrown<weft::error>([&] { weft::copy(ex::par, v.begin(), v.end(), other.begin()); });
    CHECK(msg && msg->find("another layout") != std::string::npos);
    msg = thrown<weft::error>([&] { weft::transform(ex::par, v.begin(), v.end(), other.begin(), v.begin(), std::plus<>{}); });
    CHECK(msg && msg->find("another layout") != std::string::npos);
    weft::partitioned_vector<int> same(10, 1, weft::container_layout(3));
    msg = thrown<weft::error>([&] { weft::copy(ex::par, v.begin(), v.begin() + 5, same.begin() + 1); });
    CHECK(msg && msg->find("same index") != std::string::npos);
    msg = thrown<weft::error>([&] { weft::fill(ex::par, v.begin() + 5, v.begin() + 2, 0); });
    CHECK(msg && msg->find("not a range") != std::string::npos);
    msg = thrown<weft::error>([&] { weft::fill(ex::par, v.begin(), same.end(), 0); });
    CHECK(msg && msg->find("different partitioned_vectors") != std::string::npos);
    CHECK(thrown<weft::error>([&] { weft::partitioned_vector<int> bad(10, weft::container_layout(0)); }).has_value());
    // Exceptions from the functions reach the caller.
    msg = thrown<std::runtime_error>([&] {
        weft::for_each(ex::par, v.begin(), v.end(), [](int&) { throw std::runtime_error("from a partition"); });
    });
    CHECK(msg.has_value());
    // connect_to a name nobody registered: an error after the timeout, not a hang.
    msg = thrown<weft::error>([&] {
        (void)weft::partitioned_vector<int>::connect_to("nobody-registered-this", std::chrono::milliseconds(200));
    });
    CHECK(msg && msg->find("nobody-registered-this") != std::string::npos);
    v.register_as("pv-misuse");
    msg = thrown<weft::error>([&] { same.register_as("pv-misuse"); });
    CHECK(msg && msg->find("taken") != std::string::npos);
    (void)localities;
}

/// Sums of doubles over sub-ranges of every length 0..9 at every start in a few partitions
/// (the local reduce combines four elements at a time: its remainders), against the
/// exact sum of small integers.
void check_double_sums(const weft::container_layout& layout) {
    const std::size_t n = 37;
    weft::partitioned_vector<double> v(n, layout);
    std::vector<double> ref(n);
    for (std::size_t i = 0; i < n; ++i) ref[i] = static_cast<double>(i % 5 + 1);
    for (const auto& s : v.segments())
        for (std::uint64_t i = s.begin; i < s.end; ++i) v.set_value(i, ref[static_cast<std::size_t>(i)]);
    for (std::size_t b = 0; b < n; b += 3)
        for (std::size_t len = 0; len <= 9 && b + len <= n; ++len) {
            const auto first = static_cast<std::ptrdiff_t>(b), last = static_cast<std::ptrdiff_t>(b + len);
            const double expect = std::accumulate(ref.begin() + first, ref.begin() + last, 0.5);
            CHECK(weft::reduce(ex::par, v.begin() + first, v.begin() + last, 0.5) == expect);
            CHECK(weft::transform_reduce(ex::seq, v.begin() + first, v.begin() + last, 0.5, std::plus<>{},
                                         [](double x) { return 2 * x; }) == 2 * expect - 0.5);
        }
}

int run_all() {
    const std::size_t L = weft::get_num_localities();
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1000}, std::size_t{20'011}})
        for (const auto& layout : layouts(L)) {
            check_algorithms(ex::par, n, layout);
            if (n <= 1000) check_algorithms(ex::seq, n, layout);
            check_task_policy(n, layout);
        }
    for (const auto& layout : layouts(L)) check_double_sums(layout);
    check_access_and_segments(L);
    check_misuse(L);
    std::printf("partitioned_vector all: %zu localities, %d failures\n", L, failures);
    return failures;
}

/// Every locality, in SPMD style: locality 0 makes and registers a vector; each locality
/// connects to it and checks the elements of the partitions that live there.
int run_connect() {
    const std::uint32_t here = weft::get_locality_id();
    const std::size_t L = weft::get_num_localities();
    weft::partitioned_vector<std::int64_t> owner;
    if (here == 0) {
        owner = weft::partitioned_vector<std::int64_t>(1000, 2, weft::container_layout(2 * L));
        owner.register_as("pv-connect");
    }
    auto v = weft::partitioned_vector<std::int64_t>::connect_to("pv-connect", std::chrono::seconds(30));
    CHECK(v.size() == 1000 && v.get_num_partitions() == 2 * L);
    std::int64_t mine = 0;
    for (const auto& s : v.segments())
        if (s.locality == weft::find_here())
            mine += weft::reduce(ex::par, v.begin() + static_cast<std::ptrdiff_t>(s.begin),
                                 v.begin() + static_cast<std::ptrdiff_t>(s.end), std::int64_t{0});
    const std::int64_t total = weft::collectives::all_reduce(mine, std::plus<>{}).get();
    CHECK(total == 2000);
    // Keep the owner alive until everyone is done with it.
    weft::collectives::barrier().get();
    std::printf("partitioned_vector connect: locality %u, %d failures\n", here, failures);
    return failures;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "all";
    if (mode != "all" && mode != "connect") {
        std::fprintf(stderr, "usage: partitioned_vector [all|connect] [--weft:...]\n");
        return 2;
    }
    return weft::run(argc, argv, [&](int, char**) { return mode == "all" ? run_all() : run_connect(); });
}
