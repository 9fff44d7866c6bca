// Shared by the algorithms tests: random inputs, the policy x executor x parameter
// combinations every algorithm is checked with, and result helpers.
#pragma once

#include "support/policy_test.hpp"

#include <weft/algorithms.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <list>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace weft::test::algorithms {

namespace ex = weft::execution;

// Under a sanitizer, and with clang, the tests instantiate three policy types instead of
// nine (seq, par and par(task), which still run every chunk parameter, core count and
// executor): the sanitizers look for races and memory errors in the shared loop and
// executors, which those three reach; the clang build checks that the algorithms compile
// and behave with a second compiler, and g++'s release build runs every combination.
// Every combination in all four builds would cost CI over ten minutes.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(__clang__)
#define WEFT_TEST_FEWER_POLICIES 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define WEFT_TEST_FEWER_POLICIES 1
#endif
#endif

// The input sizes: empty, tiny, odd, and one big enough for many chunks on every
// worker (smaller in the instrumented and second-compiler builds, which are slower).
#ifndef WEFT_TEST_FEWER_POLICIES
inline const std::size_t sizes[] = {0, 1, 2, 17, 1000, 100'003};
#else
inline const std::size_t sizes[] = {0, 1, 2, 17, 1000, 20'011};
#endif

inline std::vector<std::int64_t> random_values(std::size_t n, unsigned seed) {
    std::mt19937_64 g(seed);
    std::uniform_int_distribution<std::int64_t> d(-1000, 1000);
    std::vector<std::int64_t> v(n);
    for (auto& x : v) x = d(g);
    return v;
}

// Returns the algorithm's result, waiting on the future of a task policy.
template <class R>
decltype(auto) result_of(R&& r) {
    if constexpr (weft::detail::is_future_v<std::remove_cvref_t<R>>) return r.get();
    else return std::forward<R>(r);
}
// Runs an algorithm call that returns nothing (or, for a task policy, a future<void>).
template <class Call>
void finish(Call&& call) {
    using R = decltype(call());
    if constexpr (weft::detail::is_future_v<R>) call().get();
    else (void)call();
}
#define FINISH(...) finish([&] { return __VA_ARGS__; })

// A chunk parameter chosen at run time (a user-defined parameter, as the concept
// allows): one policy type covers every chunking, which keeps this file's compile time
// reasonable.
struct any_chunk {
    int which = 0;
    ex::chunking chunks(ex::loop_shape& s) const {
        switch (which) {
            case 0: return ex::static_chunk_size().chunks(s);
            case 1: return ex::static_chunk_size(7).chunks(s);
            case 2: return ex::dynamic_chunk_size().chunks(s);
            case 3: return ex::dynamic_chunk_size(100).chunks(s);
            case 4: return ex::guided_chunk_size(3).chunks(s);
            case 5: return ex::auto_chunk_size(std::chrono::microseconds(1)).chunks(s);
            default: return ex::auto_chunk_size().chunks(s);
        }
    }
};
inline const char* const chunk_names[] = {"static", "static(7)", "dynamic(1)", "dynamic(100)", "guided(3)", "auto(1us)", "auto"};
// And a cores parameter chosen at run time (0: all the executor has).
struct any_cores {
    std::size_t n = 0;
    std::size_t processing_units_count(std::size_t available, std::size_t) const noexcept {
        return n == 0 ? available : std::min(available, n);
    }
};
static_assert(ex::chunk_parameter<any_chunk> && ex::cores_parameter<any_cores>);

// An executor chosen at run time among weft's: one policy type covers them all (each
// executor as its own type would multiply the compile time by their number).
class any_executor {
public:
    static constexpr int kinds = 5;
    static constexpr const char* names[kinds] = {"parallel_executor(high)", "fork_join_executor", "thread_pool_executor(upper half)",
                                                 "limiting_executor(parallel, 2)", "numa_executor(0)"};
    explicit any_executor(int which) : e_(make(which)) {}

    template <class F, class... Args>
    auto async_execute(F&& f, Args&&... args) const {
        return std::visit([&](const auto& e) { return ex::async_execute(e, std::forward<F>(f), std::forward<Args>(args)...); }, e_);
    }
    template <class F, class S, class... Args>
    auto bulk_sync_execute(F&& f, S&& s, Args&&... args) const {
        return std::visit([&](const auto& e) { return ex::bulk_sync_execute(e, f, s, args...); }, e_);
    }
    std::size_t processing_units_count() const {
        return std::visit([](const auto& e) { return ex::processing_units_count(e); }, e_);
    }
    bool operator==(const any_executor& o) const { return e_ == o.e_; }

private:
    using variant = std::variant<ex::parallel_executor, ex::fork_join_executor, ex::thread_pool_executor,
                                 ex::limiting_executor<ex::parallel_executor>, ex::numa_executor>;
    static variant make(int which) {
        const unsigned n = weft::num_workers();
        switch (which) {
            case 0: return ex::parallel_executor(weft::task_priority::high);
            case 1: return ex::fork_join_executor();
            case 2: return ex::thread_pool_executor(n / 2, n - n / 2);
            case 3: return ex::limiting_executor<ex::parallel_executor>(ex::parallel_executor(), 2);
            default: return ex::numa_executor(0);
        }
    }
    variant e_;
};
static_assert(ex::executor<any_executor>);

// Calls check on the next of weft's other executors (see below).
template <class Check>
void check_next_executor(Check&& check) {
    // weft's other executors, one per call, in turn (each with its own chunking), so that
    // a test's loop over the input sizes meets every one of them. One per call: the
    // placed executors wait for every worker they pin to, and on a loaded machine (or
    // with more workers than cores, as some test runtimes have) that costs an OS time
    // slice per call.
    constexpr int chunking_for[any_executor::kinds] = {6, 0, 3, 6, 5};
    static std::atomic<unsigned> turn{0};
    const int e = static_cast<int>(turn.fetch_add(1) % any_executor::kinds);
    const std::string name = std::string("par on ") + any_executor::names[e] + " " + chunk_names[chunking_for[e]];
    check(ex::par.on(any_executor(e)).with(any_chunk{chunking_for[e]}), name.c_str());
}

// Inputs above this size run on a few combinations per call (see for_every_policy):
// the large size is there for the long loops (many chunks per worker, the parallel
// sort's quicksort and merge rounds), which any one chunking reaches, and every
// combination at 100,003 elements was most of the release suite's time (and 5-20x that
// under a sanitizer). The sizes up to this one run every combination.
inline constexpr std::size_t large_input = 5'003;

// Which chunking the next reduced call uses: they rotate, so a test's calls over its
// sizes and policies still meet every chunking at a large size.
inline std::atomic<unsigned> reduced_turn{0};

// Calls check(policy, name) for each policy, executor and parameter combination. For an
// input of more than large_input elements (n): seq, then par, par(task) (and par_unseq,
// when all types are instantiated) with one chunking, rotating from call to call, and
// the next executor.
template <class Check>
void for_every_policy(std::size_t n, Check&& check) {
    check(ex::seq, "seq");
    if (n > large_input) {
        const int c = static_cast<int>(reduced_turn.fetch_add(1) % 7);
        // The same policy types as below (no new instantiations to compile).
        check(ex::par.with(any_chunk{c}, any_cores{0}), (std::string("par ") + chunk_names[c]).c_str());
        check(ex::par(ex::task).with(any_chunk{c}), (std::string("par(task) ") + chunk_names[c]).c_str());
#ifndef WEFT_TEST_FEWER_POLICIES
        check(ex::par_unseq.with(any_chunk{c}), (std::string("par_unseq ") + chunk_names[c]).c_str());
#endif
        check_next_executor(check);
        return;
    }
#ifndef WEFT_TEST_FEWER_POLICIES
    check(ex::unseq, "unseq");
    check(ex::seq(ex::task), "seq(task)");
    check(ex::par.on(ex::sequenced_executor{}), "par on sequenced");
    check(ex::seq.on(ex::parallel_executor{}), "seq on parallel");
    constexpr bool all = true;
#else
    constexpr bool all = false;
#endif
    for (int c = 0; c < 7; ++c) {
        for (std::size_t cores : {0, 1, 2}) {
            const std::string name = std::string(chunk_names[c]) + " cores=" + std::to_string(cores);
            check(ex::par.with(any_chunk{c}, any_cores{cores}), ("par " + name).c_str());
            if (cores == 0) {
                if constexpr (all) check(ex::par_unseq.with(any_chunk{c}), ("par_unseq " + name).c_str());
                check(ex::par(ex::task).with(any_chunk{c}), ("par(task) " + name).c_str());
            }
        }
    }
    if constexpr (all) check(ex::par, "par (default parameters)");
    check_next_executor(check);
}

// As for_every_policy(n, check) with every combination whatever the size.
template <class Check>
void for_every_policy(Check&& check) {
    for_every_policy(0, std::forward<Check>(check));
}

}  // namespace weft::test::algorithms
