// The one loop every parallel algorithm runs on: [0, n) cut into chunks as the policy's
// parameters say, the chunks run by the policy's executor, the element functions'
// exceptions gathered (HPX semantics: weft::exception_list for seq and par; terminate
// for the unsequenced policies, as the standard says).
#pragma once

#include <weft/config/errors.hpp>
#include <weft/execution/policy.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <exception>
#include <iterator>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft::detail::algo {

namespace ex = weft::execution;

/// The last chunk parameter in `t` (a tuple of parameters), or auto_chunk_size.
template <std::size_t I, class Tuple>
auto last_chunk_parameter(const Tuple& t) {
    if constexpr (I == 0) return ex::auto_chunk_size{};
    else if constexpr (ex::chunk_parameter<std::tuple_element_t<I - 1, Tuple>>) return std::get<I - 1>(t);
    else return last_chunk_parameter<I - 1>(t);
}

/// The processing units a loop of n iterations uses: the last cores parameter's choice
/// out of what the executor has, at least 1 and at most n.
template <std::size_t I, class Tuple>
std::size_t cores_for(const Tuple& t, std::size_t available, std::size_t n) {
    if constexpr (I == 0) return std::clamp<std::size_t>(available, 1, std::max<std::size_t>(n, 1));
    else if constexpr (ex::cores_parameter<std::tuple_element_t<I - 1, Tuple>>)
        return std::clamp<std::size_t>(std::get<I - 1>(t).processing_units_count(available, n), 1,
                                       std::max<std::size_t>(n, 1));
    else return cores_for<I - 1>(t, available, n);
}

/// Gathers the exceptions of a loop's chunks (rarely: a lock is fine).
class error_sink {
public:
    void add(std::exception_ptr e) {
        std::lock_guard lock(m_);
        errors_.push_back(std::move(e));
    }
    /// HPX's rule: std::bad_alloc passes as is; anything else as a weft::exception_list.
    void rethrow(const char* algorithm) {
        if (errors_.empty()) return;
        for (const auto& e : errors_) {
            try {
                std::rethrow_exception(e);
            } catch (const std::bad_alloc&) {
                throw;
            } catch (...) {
            }
        }
        const std::string what = std::string(algorithm) + ": " + std::to_string(errors_.size()) +
                                 (errors_.size() == 1 ? " element function threw" : " element functions threw");
        throw weft::exception_list(std::move(errors_), what);
    }

private:
    std::mutex m_;
    std::vector<std::exception_ptr> errors_;
};

/// A chunk body called through one function pointer (as a function_ref: what it refers
/// to must outlive the call it is passed to). run_loop erases every body to this one type,
/// so that the loop (its schedules, for each executor: the costly part to compile) is
/// compiled once per policy rather than once per algorithm, element function and pass.
/// One indirect call per chunk costs nothing next to the chunk.
class chunk_fn {
public:
    template <class F>
        requires(!std::is_same_v<std::remove_cvref_t<F>, chunk_fn>)
    explicit chunk_fn(F&& f) noexcept
        : f_(static_cast<const void*>(std::addressof(f))), call_([](const void* x, std::size_t b, std::size_t e) {
              (*static_cast<std::remove_reference_t<F>*>(const_cast<void*>(x)))(b, e);
          }) {}
    void operator()(std::size_t b, std::size_t e) const { call_(f_, b, e); }

private:
    const void* f_;
    void (*call_)(const void*, std::size_t, std::size_t);
};

/// Runs `body` on [0, n) in chunks; exceptions go to `errors` (null: they may not happen).
template <class Policy, class Body>
void run_chunks(const Policy& policy, std::size_t n, Body& body, error_sink* errors) {
    const auto chunk = [&](std::size_t b, std::size_t e) {
        if (errors == nullptr) {
            body(b, e);
            return;
        }
        try {
            body(b, e);
        } catch (...) {
            errors->add(std::current_exception());
        }
    };
    using kind = typename std::remove_cvref_t<Policy>::kind;
    const auto& exec = policy.executor();
    if constexpr (!kind::parallel) {
        // seq and unseq: one chunk, in order, through the executor (the caller, unless
        // the policy was put on another executor).
        ex::sync_execute(exec, [&] { chunk(0, n); });
        return;
    } else {
        using params_t = std::remove_cvref_t<decltype(policy.parameters().get())>;
        const auto& params = policy.parameters().get();
        const std::size_t cores =
            cores_for<std::tuple_size_v<params_t>>(params, ex::processing_units_count(exec), n);
        // The caller may run chunks itself only on parallel_executor (whose agents run
        // anywhere); any other executor decides where every iteration runs (a placed
        // executor's worker, for locality), so the caller hands them over.
        constexpr bool caller_may_run = std::is_same_v<std::remove_cvref_t<decltype(exec)>, ex::parallel_executor>;
        // Iterations timed by the chunk parameter run first, and count as done.
        std::size_t done = 0;
        ex::loop_shape shape{n, cores, {}};
        if (cores > 1) {
            shape.measure = [&](std::size_t k) {
                k = std::min(k, n - done);
                auto timed = [&] {
                    const auto t0 = std::chrono::steady_clock::now();
                    chunk(done, done + k);
                    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0);
                };
                const auto t = caller_may_run ? timed() : ex::sync_execute(exec, timed);
                done += k;
                return t;
            };
        }
        // A chunk parameter that learns (reporting_chunk_parameter) hears what the loop
        // cost; the clock is read for it only.
        const auto param = last_chunk_parameter<std::tuple_size_v<params_t>>(params);
        constexpr bool reporting = ex::reporting_chunk_parameter<std::remove_cvref_t<decltype(param)>>;
        [[maybe_unused]] std::chrono::steady_clock::time_point start{};
        if constexpr (reporting) start = std::chrono::steady_clock::now();
        const ex::chunking plan = param.chunks(shape);
        // The rest of the loop: returns once every chunk has run (the element functions'
        // exceptions are in `errors` by then).
        const auto run_plan = [&] {
            const std::size_t left = n - done;
            if (left == 0) return;
            const std::size_t size = std::max<std::size_t>(plan.chunk, 1);
            const std::size_t chunks = left / size + (left % size != 0 ? 1 : 0);
            const std::size_t agents = std::min(cores, plan.schedule == ex::chunk_schedule::static_blocks ? chunks : left);
            if (agents <= 1) {
                // One agent: the plan's chunks in order (an exception still ends only its own
                // chunk, as with several agents).
                auto all = [&](std::size_t = 0) {
                    for (std::size_t b = done; b < n;) {
                        const std::size_t take =
                            plan.schedule == ex::chunk_schedule::guided ? std::max(size, (n - b) / 2) : size;
                        const std::size_t e = std::min(b + take, n);
                        chunk(b, e);
                        b = e;
                    }
                };
                if constexpr (caller_may_run) all();
                else ex::bulk_sync_execute(exec, all, 1);
                return;
            }
            switch (plan.schedule) {
                case ex::chunk_schedule::static_blocks:
                    ex::bulk_sync_execute(exec, [&](std::size_t a) {
                        for (std::size_t c = a; c < chunks; c += agents) {
                            const std::size_t b = done + c * size;
                            chunk(b, std::min(b + size, n));
                        }
                    }, agents);
                    break;
                case ex::chunk_schedule::dynamic: {
                    // relaxed: the counter only deals out indices; the chunks' writes are
                    // published to the caller by the join of bulk_sync_execute.
                    std::atomic<std::size_t> next{done};
                    ex::bulk_sync_execute(exec, [&](std::size_t) {
                        for (;;) {
                            // relaxed: deals out an index
                            const std::size_t b = next.fetch_add(size, std::memory_order_relaxed);
                            if (b >= n) return;
                            chunk(b, std::min(b + size, n));
                        }
                    }, agents);
                    break;
                }
                case ex::chunk_schedule::guided: {
                    std::atomic<std::size_t> next{done};
                    ex::bulk_sync_execute(exec, [&](std::size_t) {
                        // relaxed: as above, the counter only deals out indices.
                        std::size_t b = next.load(std::memory_order_relaxed);
                        for (;;) {
                            if (b >= n) return;
                            const std::size_t take = std::max(size, (n - b) / (2 * agents));
                            const std::size_t e = std::min(b + take, n);
                            if (next.compare_exchange_weak(b, e, std::memory_order_relaxed)) {  // relaxed: claims [b, e) only
                                chunk(b, e);
                                b = next.load(std::memory_order_relaxed);  // relaxed: the next index only
                            }
                        }
                    }, agents);
                    break;
                }
            }
        };
        run_plan();
        if constexpr (reporting)
            param.loop_done(ex::loop_report{n, cores, plan, std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                                std::chrono::steady_clock::now() - start)});
    }
}

/// Runs body(b, e) once per chunk [b, e) of [0, n), as `policy` says, and returns when
/// every chunk has run. Every chunk runs even if others threw; an exception stops only
/// its own chunk.
template <class Policy>
void run_erased_loop(const Policy& policy, std::size_t n, chunk_fn body, const char* algorithm) {
    using kind = typename std::remove_cvref_t<Policy>::kind;
    static_assert(!kind::is_task, "run_loop runs the synchronous variant of a policy");
    if (n == 0) return;
    if constexpr (kind::unsequenced) {
        // Vectorization-unsafe exceptions: the standard's std::terminate.
        auto guarded = [&body](std::size_t b, std::size_t e) noexcept { body(b, e); };
        run_chunks<Policy>(policy, n, guarded, nullptr);
    } else {
        error_sink errors;
        run_chunks<Policy>(policy, n, body, &errors);
        errors.rethrow(algorithm);
    }
}
template <class Policy, class Body>
void run_loop(const Policy& policy, std::size_t n, Body&& body, const char* algorithm) {
    if constexpr (std::is_same_v<std::remove_cvref_t<Body>, chunk_fn>) run_erased_loop(policy, n, body, algorithm);
    else run_erased_loop(policy, n, chunk_fn(body), algorithm);
}

}  // namespace weft::detail::algo

namespace weft::detail::algo {

/// The i-th iterator of a range in O(1): random-access iterators are indexed; others are
/// listed once when the loop is parallel (a sequential loop only ever asks for the first).
template <class It, bool Parallel>
class iterator_index {
public:
    iterator_index(It first, std::size_t n) : first_(first) {
        if constexpr (Parallel && !std::random_access_iterator<It>) {
            its_.reserve(n);
            for (std::size_t i = 0; i < n; ++i, ++first) its_.push_back(first);
        }
    }
    It operator()(std::size_t i) const {
        if constexpr (std::random_access_iterator<It>) return first_ + static_cast<std::iter_difference_t<It>>(i);
        else if constexpr (Parallel) return its_[i];
        else return std::next(first_, static_cast<std::iter_difference_t<It>>(i));
    }

private:
    It first_;
    std::vector<It> its_;
};

template <class Policy, class It>
auto index_of(It first, std::size_t n) {
    return iterator_index<It, std::remove_cvref_t<Policy>::kind::parallel>(first, n);
}

/// Runs `run(policy)` now; for a task policy, runs run(policy.sync()) as a new task (on
/// the policy's executor, or a weft task if that executor is the caller) and returns its
/// future at once.
template <class Policy, class Run>
decltype(auto) dispatch(const Policy& policy, Run&& run) {
    using P = std::remove_cvref_t<Policy>;
    if constexpr (P::kind::is_task) {
        auto sync = policy.sync();
        auto job = [sync, r = std::forward<Run>(run)]() mutable { return r(sync); };
        if constexpr (std::is_same_v<typename P::executor_type, ex::sequenced_executor>) return weft::async(std::move(job));
        else return ex::async_execute(policy.executor(), std::move(job));
    } else if constexpr (P::kind::parallel && std::is_same_v<typename P::executor_type, ex::parallel_executor>) {
        // Called from a thread that is not a weft worker (main, say): that thread would
        // run a share of the chunks itself, unbound, while a worker idles. Run the whole
        // algorithm as a task instead and wait for it.
        // So is an algorithm whose executor asks for a bigger stack than the caller's: the
        // caller runs chunks too.
        const task_attributes& a = policy.executor().attributes();
        if ((weft::this_task::worker_index() < 0 && weft::num_workers() > 0) || a.stack_size > weft::this_task::stack_size())
            return weft::async(a, [&policy, &run] { return run(policy); }).get();
        return std::forward<Run>(run)(policy);
    } else {
        return std::forward<Run>(run)(policy);
    }
}

/// The number of elements in [first, last) as a size.
template <class It>
std::size_t count_of(It first, It last) {
    const auto d = std::distance(first, last);
    if (d < 0) throw weft::error("weft: a parallel algorithm was given a range whose last precedes its first");
    return static_cast<std::size_t>(d);
}

}  // namespace weft::detail::algo

namespace weft::detail::algo {

/// The smallest i in [0, n) for which the chunk scanner reports a hit, or n: scan(b, e)
/// returns the first hit in [b, e), or e. Chunks that start past the best hit found so
/// far are skipped and a scan stops there, so a hit near the front ends the loop early.
template <class Policy, class Scan>
std::size_t find_first(const Policy& p, std::size_t n, Scan&& scan, const char* algorithm) {
    // relaxed: `best` only prunes work; the result is read after the loop's join, which
    // publishes every chunk's store.
    std::atomic<std::size_t> best{n};
    run_loop(p, n, [&](std::size_t b, std::size_t e) {
        const std::size_t limit = std::min(e, best.load(std::memory_order_relaxed));  // relaxed: a stale hint scans more
        if (b >= limit) return;
        const std::size_t hit = scan(b, limit);
        if (hit >= limit) return;
        std::size_t cur = best.load(std::memory_order_relaxed);  // relaxed: the CAS below re-reads it
        // relaxed: lowers the hint; the loop's join publishes the final value
        while (hit < cur && !best.compare_exchange_weak(cur, hit, std::memory_order_relaxed)) {
        }
    }, algorithm);
    return best.load(std::memory_order_relaxed);  // relaxed: after run_loop's join, which orders every store
}

}  // namespace weft::detail::algo
