// weft::collectives under mpirun (issue #24), run by ctest at 1, 2 and 4 ranks with
// --weft:spmd (every locality runs the same function). Each check compares a collective's
// result with the value computed here exactly, and a few with the same MPI collective on
// a duplicate of MPI_COMM_WORLD; the program exits non-zero on a mismatch, naming it;
// ctest's timeout turns a hang into a failure.
//
//   collectives all      every collective on both paths (MPI: int, double, vectors, a
//                        bitwise struct with plus/multiplies/min/max; parcels: strings,
//                        a user struct with a non-commutative operation, a lambda),
//                        sub-groups (split by parity, explicit lists), collectives in
//                        flight at once, reductions of 64 KiB and more (binomial trees:
//                        every root, sub-groups of 2 and 3, in flight at once), misuse,
//                        a mismatch the parcel path detects
//   collectives pending  locality 0 starts two collectives nobody else joins, and
//                        returns: after weft::run, both futures hold runtime_state_error
#include <weft/distributed.hpp>
#include <weft/weft.hpp>

#include "check.hpp"

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

namespace {

using weft_test::failures;

using weft_test::thrown;

namespace wc = weft::collectives;

/// Bitwise: the MPI path moves its bytes.
struct pod {
    int a = 0;
    double b = 0;
    bool operator==(const pod&) const = default;
};

/// Not bitwise (a vector inside): the parcel path; its operation does not commute.
struct trail {
    std::string name;
    std::vector<int> steps;
    template <class Archive>
    void serialize(Archive& ar) {
        ar(name, steps);
    }
    bool operator==(const trail&) const = default;
};
trail join(trail a, const trail& b) {
    a.name += b.name;
    a.steps.insert(a.steps.end(), b.steps.begin(), b.steps.end());
    return a;
}
trail trail_of(std::uint32_t r) { return {"<" + std::to_string(r) + ">", {static_cast<int>(r), -static_cast<int>(r)}}; }
/// join(trail_of(from), ..., trail_of(to - 1)).
trail trails(std::uint32_t from, std::uint32_t to) {
    trail t;
    for (std::uint32_t r = from; r < to; ++r) t = join(std::move(t), trail_of(r));
    return t;
}

auto concat = [](std::string a, const std::string& b) { return a + b; };

/// Waits for an MPI request from a task, as the documented rule for user MPI calls says.
void wait_mpi(MPI_Request& r) {
    for (int done = 0; MPI_Test(&r, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done == 0;) weft::this_task::yield();
}

void check_mpi_path(MPI_Comm ref) {
    const std::uint32_t n = weft::get_num_localities(), me = weft::get_locality_id();
    const int v = static_cast<int>(me) + 1;
    CHECK(wc::world().size() == n && wc::world().rank() == me);
    // Reductions, checked exactly and against MPI itself.
    CHECK(wc::all_reduce(v, std::plus<>{}).get() == static_cast<int>(n * (n + 1) / 2));
    CHECK(wc::all_reduce(v, std::plus<int>{}).get() == static_cast<int>(n * (n + 1) / 2));
    int factorial = 1;
    for (std::uint32_t k = 2; k <= n; ++k) factorial *= static_cast<int>(k);
    CHECK(wc::all_reduce(v, std::multiplies<>{}).get() == factorial);
    CHECK(wc::all_reduce(v, wc::min_op{}).get() == 1);
    CHECK(wc::all_reduce(v, wc::max_op{}).get() == static_cast<int>(n));
    const double x = 0.25 * v - 3.0;
    double expect = 0;
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Iallreduce(&x, &expect, 1, MPI_DOUBLE, MPI_SUM, ref, &r);
    wait_mpi(r);
    CHECK(wc::all_reduce(x, std::plus<>{}).get() == expect);
    MPI_Iallreduce(&x, &expect, 1, MPI_DOUBLE, MPI_MIN, ref, &r);
    wait_mpi(r);
    CHECK(wc::all_reduce(x, wc::min_op{}).get() == expect);
    CHECK(wc::all_reduce(std::uint64_t{me}, wc::max_op{}).get() == n - 1);
    // A vector, element by element.
    std::vector<double> mine(1000);
    for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = static_cast<double>(i) + me;
    std::vector<double> sums(mine.size());
    MPI_Iallreduce(mine.data(), sums.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_SUM, ref, &r);
    wait_mpi(r);
    CHECK(wc::all_reduce(mine, std::plus<>{}).get() == sums);
    // reduce: the combined value on the root, its own value elsewhere.
    const std::uint32_t root = n - 1;
    const int reduced = wc::reduce(v, std::plus<>{}, root).get();
    CHECK(reduced == (me == root ? static_cast<int>(n * (n + 1) / 2) : v));
    const std::vector<double> vreduced = wc::reduce(mine, wc::max_op{}, 0).get();
    CHECK(vreduced.size() == mine.size() && vreduced[7] == (me == 0 ? 7.0 + (n - 1) : mine[7]));
    // exclusive_scan: rank 0 gets T{}.
    CHECK(wc::exclusive_scan(v, std::plus<>{}).get() == static_cast<int>(me * (me + 1) / 2));
    CHECK(wc::exclusive_scan(x, wc::max_op{}).get() == (me == 0 ? 0.0 : 0.25 * me - 3.0));
    // Bitwise collectives.
    CHECK(wc::broadcast(me == root ? 42 : -1, root).get() == 42);
    CHECK((wc::broadcast(pod{static_cast<int>(me), 0.5 * me}, 0).get() == pod{0, 0.0}));
    std::vector<int> ids(n);
    std::iota(ids.begin(), ids.end(), 0);
    CHECK(wc::all_gather(static_cast<int>(me)).get() == ids);
    const std::vector<pod> pods = wc::gather(pod{static_cast<int>(me), 1.5}, root).get();
    CHECK(pods.size() == (me == root ? n : 0u));
    for (std::uint32_t k = 0; k < pods.size(); ++k) CHECK((pods[k] == pod{static_cast<int>(k), 1.5}));
    std::vector<long> parts;
    if (me == 0)
        for (std::uint32_t k = 0; k < n; ++k) parts.push_back(100L + k);
    CHECK(wc::scatter(parts, 0).get() == 100L + me);
    std::vector<int> out(n), want(n);
    for (std::uint32_t s = 0; s < n; ++s) {
        out[s] = static_cast<int>(1000 * me + s);
        want[s] = static_cast<int>(1000 * s + me);
    }
    CHECK(wc::all_to_all(out).get() == want);
    std::vector<int> ref_out(n);
    MPI_Ialltoall(out.data(), 1, MPI_INT, ref_out.data(), 1, MPI_INT, ref, &r);
    wait_mpi(r);
    CHECK(ref_out == want);
    wc::barrier().get();
}

void check_parcel_path() {
    const std::uint32_t n = weft::get_num_localities(), me = weft::get_locality_id();
    const std::string word = "L" + std::to_string(me);
    std::string all;
    for (std::uint32_t k = 0; k < n; ++k) all += "L" + std::to_string(k);
    CHECK(wc::all_reduce(word, concat).get() == all);
    CHECK(wc::all_reduce(trail_of(me), join).get() == trails(0, n));
    // A lambda over ints: not one of MPI's operations, so parcels; ((0*10+1)*10+2)...
    int digits = 0;
    for (std::uint32_t k = 0; k < n; ++k) digits = digits * 10 + static_cast<int>(k);
    CHECK(wc::all_reduce(static_cast<int>(me), [](int a, int b) { return a * 10 + b; }).get() == digits);
    const std::uint32_t root = n > 1 ? 1 : 0;
    CHECK(wc::reduce(trail_of(me), join, root).get() == (me == root ? trails(0, n) : trail_of(me)));
    CHECK(wc::exclusive_scan(trail_of(me), join).get() == trails(0, me));
    CHECK(wc::exclusive_scan(word, concat).get() == all.substr(0, me == 0 ? 0 : all.find("L" + std::to_string(me))));
    CHECK(wc::broadcast(me == root ? std::string("from the root") : std::string("ignored"), root).get() == "from the root");
    std::vector<trail> every;
    for (std::uint32_t k = 0; k < n; ++k) every.push_back(trail_of(k));
    CHECK(wc::all_gather(trail_of(me)).get() == every);
    CHECK(wc::gather(trail_of(me), root).get() == (me == root ? every : std::vector<trail>{}));
    CHECK(wc::scatter(me == root ? every : std::vector<trail>{}, root).get() == trail_of(me));
    std::vector<std::string> out(n), want(n);
    for (std::uint32_t s = 0; s < n; ++s) {
        out[s] = std::to_string(me) + ">" + std::to_string(s);
        want[s] = std::to_string(s) + ">" + std::to_string(me);
    }
    CHECK(wc::all_to_all(out).get() == want);
    // A large value (zero-copy chunks) through the parcel path.
    const std::vector<char> big(1 << 20, static_cast<char>('a' + root));
    CHECK(wc::broadcast(me == root ? big : std::vector<char>{}, root).get() == big);
}

void check_groups() {
    const std::uint32_t n = weft::get_num_localities(), me = weft::get_locality_id();
    const wc::communicator parity = wc::world().split(me % 2);
    std::vector<std::uint32_t> same;
    for (std::uint32_t k = me % 2; k < n; k += 2) same.push_back(k);
    CHECK(parity.localities() == same);
    CHECK(parity.rank() == me / 2);
    const std::uint32_t sum = std::accumulate(same.begin(), same.end(), 0u);
    CHECK(wc::all_reduce(parity, me, std::plus<>{}).get() == sum);
    std::string words;
    for (std::uint32_t k : same) words += "L" + std::to_string(k);
    CHECK(wc::all_reduce(parity, "L" + std::to_string(me), concat).get() == words);
    CHECK(wc::broadcast(parity, me, 0).get() == me % 2);
    CHECK(wc::all_gather(parity, me).get() == same);
    wc::barrier(parity).get();
    // Every locality, in reverse: ranks reversed.
    std::vector<weft::id_type> reversed = weft::find_all_localities();
    std::reverse(reversed.begin(), reversed.end());
    const wc::communicator back(reversed);
    CHECK(back.rank() == n - 1 - me && back.size() == n);
    std::vector<std::uint32_t> down(n);
    for (std::uint32_t k = 0; k < n; ++k) down[k] = n - 1 - k;
    CHECK(wc::all_gather(back, me).get() == down);
    CHECK(wc::exclusive_scan(back, 1, std::plus<>{}).get() == static_cast<int>(n - 1 - me));
    // The same list twice: two communicators, each with calls of its own.
    const wc::communicator again(reversed);
    auto a = wc::all_reduce(back, 1, std::plus<>{});
    auto b = wc::all_reduce(again, 2, std::plus<>{});
    CHECK(b.get() == static_cast<int>(2 * n) && a.get() == static_cast<int>(n));
    // A communicator of this locality alone: completes at once.
    const wc::communicator alone(std::vector<std::uint32_t>{me});
    CHECK(wc::all_gather(alone, std::string("x")).get() == std::vector<std::string>{"x"});
}

void check_in_flight() {
    const std::uint32_t n = weft::get_num_localities(), me = weft::get_locality_id();
    const wc::communicator parity = wc::world().split(me % 2);
    constexpr int rounds = 8;
    std::vector<weft::future<int>> sums, folds, halves;
    std::vector<weft::future<std::string>> words;
    std::vector<weft::future<void>> barriers;
    for (int k = 0; k < rounds; ++k) {
        sums.push_back(wc::all_reduce(k + static_cast<int>(me), std::plus<>{}));
        words.push_back(wc::all_reduce(std::to_string(k) + ":" + std::to_string(me) + ";", concat));
        folds.push_back(wc::all_reduce(static_cast<int>(me) + k, [](int a, int b) { return a - b; }));
        halves.push_back(wc::all_reduce(parity, 1, std::plus<>{}));
        barriers.push_back(wc::barrier());
    }
    const int group = static_cast<int>(parity.size());
    for (int k = 0; k < rounds; ++k) {
        CHECK(sums[static_cast<std::size_t>(k)].get() == static_cast<int>(n) * k + static_cast<int>(n * (n - 1) / 2));
        std::string w;
        int fold = k;
        for (std::uint32_t r = 0; r < n; ++r) {
            w += std::to_string(k) + ":" + std::to_string(r) + ";";
            if (r > 0) fold -= static_cast<int>(r) + k;
        }
        CHECK(words[static_cast<std::size_t>(k)].get() == w);
        CHECK(folds[static_cast<std::size_t>(k)].get() == fold);
        CHECK(halves[static_cast<std::size_t>(k)].get() == group);
        barriers[static_cast<std::size_t>(k)].get();
    }
}

/// Reductions of 64 KiB and more take the binomial trees (src/distributed/mpi_collectives.cpp):
/// every root, sub-groups of 2 and 3 members (not a power of two), and several in flight
/// at once beside small ones. Values are small integers, so every order of summation is
/// exact; checked against MPI's own reduction.
void check_large_reductions(MPI_Comm ref) {
    const std::uint32_t n = weft::get_num_localities(), me = weft::get_locality_id();
    constexpr std::size_t count = 20'000;  // 160 KB of doubles
    std::vector<double> mine(count);
    for (std::size_t i = 0; i < count; ++i) mine[i] = static_cast<double>((i * 7 + me * 13) % 1000);
    std::vector<double> sums(count), maxima(count);
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Iallreduce(mine.data(), sums.data(), static_cast<int>(count), MPI_DOUBLE, MPI_SUM, ref, &r);
    wait_mpi(r);
    MPI_Iallreduce(mine.data(), maxima.data(), static_cast<int>(count), MPI_DOUBLE, MPI_MAX, ref, &r);
    wait_mpi(r);
    CHECK(wc::all_reduce(mine, std::plus<>{}).get() == sums);
    CHECK(wc::all_reduce(mine, wc::max_op{}).get() == maxima);
    for (std::uint32_t root = 0; root < n; ++root)
        CHECK(wc::reduce(mine, std::plus<>{}, root).get() == (me == root ? sums : mine));
    // Integers, several in flight at once, with small calls between them.
    std::vector<std::int64_t> ints(count / 2 + 17);
    std::iota(ints.begin(), ints.end(), std::int64_t{me});
    std::vector<std::int64_t> int_sums(ints.size());
    for (std::size_t i = 0; i < ints.size(); ++i)
        int_sums[i] = static_cast<std::int64_t>(n) * static_cast<std::int64_t>(i) + static_cast<std::int64_t>(n * (n - 1) / 2);
    std::vector<weft::future<std::vector<std::int64_t>>> big;
    std::vector<weft::future<int>> small;
    for (int k = 0; k < 6; ++k) {
        big.push_back(k % 2 == 0 ? wc::all_reduce(ints, std::plus<>{})
                                 : wc::reduce(ints, std::plus<>{}, static_cast<std::uint32_t>(k) % n));
        small.push_back(wc::all_reduce(k, std::plus<>{}));
    }
    for (int k = 0; k < 6; ++k) {
        const bool has_sum = k % 2 == 0 || static_cast<std::uint32_t>(k) % n == me;
        CHECK(big[static_cast<std::size_t>(k)].get() == (has_sum ? int_sums : ints));
        CHECK(small[static_cast<std::size_t>(k)].get() == k * static_cast<int>(n));
    }
    // Sub-groups: the first three localities (3 at 4 ranks), and parity halves.
    if (n >= 3) {
        const wc::communicator three(std::vector<std::uint32_t>{2, 0, 1});
        if (me < 3) {
            std::vector<double> want(count);
            for (std::size_t i = 0; i < count; ++i)
                for (std::uint32_t k = 0; k < 3; ++k) want[i] += static_cast<double>((i * 7 + k * 13) % 1000);
            CHECK(wc::all_reduce(three, mine, std::plus<>{}).get() == want);
            CHECK(wc::reduce(three, mine, std::plus<>{}, 1).get() == (three.rank() == 1 ? want : mine));
        }
    }
    const wc::communicator parity = wc::world().split(me % 2);
    std::vector<double> want(count);
    for (std::uint32_t k : parity.localities())
        for (std::size_t i = 0; i < count; ++i) want[i] += static_cast<double>((i * 7 + k * 13) % 1000);
    CHECK(wc::all_reduce(parity, mine, std::plus<>{}).get() == want);
}

void check_misuse() {
    const std::uint32_t n = weft::get_num_localities(), me = weft::get_locality_id();
    CHECK(thrown<weft::error>([&] { (void)wc::reduce(1, std::plus<>{}, n); }).has_value());
    CHECK(thrown<weft::error>([&] { (void)wc::broadcast(std::string("x"), n + 5); }).has_value());
    // Checked on the root only (the others would wait): on a communicator of one.
    const wc::communicator alone(std::vector<std::uint32_t>{me});
    const auto wrong = thrown<weft::error>([&] { (void)wc::scatter(alone, std::vector<int>(2), 0); });
    CHECK(wrong && wrong->find("values for a communicator of") != std::string::npos);
    CHECK(thrown<weft::error>([&] { (void)wc::all_to_all(std::vector<int>(n + 2)); }).has_value());
    CHECK(thrown<weft::error>([&] { (void)wc::communicator(std::vector<std::uint32_t>{me, me}); }).has_value());
    CHECK(thrown<weft::error>([&] { (void)wc::communicator(std::vector<std::uint32_t>{n}); }).has_value());
    CHECK(thrown<weft::error>([&] { (void)wc::communicator(std::vector<std::uint32_t>{}); }).has_value());
    if (n > 1) {
        const wc::communicator other(std::vector<std::uint32_t>{(me + 1) % n});  // not a member: nothing collective
        const auto outside = thrown<weft::error>([&] { (void)wc::all_reduce(other, 1, std::plus<>{}); });
        CHECK(outside && outside->find("not a member") != std::string::npos);
        CHECK(thrown<weft::error>([&] { (void)other.rank(); }).has_value());
        // Calls that do not match, on the parcel path: every member's future fails.
        const auto mismatch = thrown<weft::error>([&] {
            if (me == 0) (void)wc::all_gather(std::string("a")).get();
            else (void)wc::all_reduce(std::string("b"), concat).get();
        });
        CHECK(mismatch && mismatch->find("match") != std::string::npos);
        // Afterwards the communicator still works.
        CHECK(wc::all_reduce(std::string("z"), concat).get() == std::string(n, 'z'));
    }
}

int run_all() {
    MPI_Comm ref = MPI_COMM_NULL;
    // Every locality reaches this at start: a short blocking call.
    MPI_Comm_dup(MPI_COMM_WORLD, &ref);
    check_mpi_path(ref);
    check_parcel_path();
    check_groups();
    check_in_flight();
    check_large_reductions(ref);
    check_misuse();
    MPI_Comm_free(&ref);
    return failures;
}

std::optional<weft::future<std::string>> pending_words;
std::optional<weft::future<int>> pending_sum;
std::uint32_t localities = 0;  // weft::get_num_localities() inside the run

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "all";
    if (mode != "all" && mode != "pending") {
        std::fprintf(stderr, "usage: collectives [all|pending] --weft:spmd [--weft:...]\n");
        return 2;
    }
    // With no runtime: refused.
    CHECK(thrown<weft::runtime_state_error>([] { (void)wc::all_reduce(1, std::plus<>{}); }).has_value());
    CHECK(thrown<weft::runtime_state_error>([] { (void)wc::world(); }).has_value());
    int rc = weft::run(argc, argv, [&](int, char**) -> int {
        if (mode == "all") return run_all();
        // pending: locality 0 alone starts them (with one locality, they complete).
        localities = weft::get_num_localities();
        if (weft::get_locality_id() == 0) {
            pending_words = wc::all_reduce(std::string("only me"), concat);
            pending_sum = wc::all_reduce(5, std::plus<>{});
        }
        return 0;
    });
    if (mode == "pending" && pending_words) {
        if (localities > 1) {
            const auto w = thrown<weft::runtime_state_error>([] { (void)pending_words->get(); });
            const auto s = thrown<weft::runtime_state_error>([] { (void)pending_sum->get(); });
            CHECK(w && w->find("stopped") != std::string::npos);
            CHECK(s && s->find("stopped") != std::string::npos);
        } else {
            CHECK(pending_words->get() == "only me" && pending_sum->get() == 5);
        }
    }
    std::printf("collectives %s: locality done, result %d, failures %d\n", mode.c_str(), rc, failures);
    return rc != 0 ? rc : failures;
}
