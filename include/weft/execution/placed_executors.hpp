// Executors that decide which workers run their agents (seed 003 §4.2, §6.1): a
// thread_pool_executor over a subset of the workers, one numa_executor per NUMA domain,
// and the fork_join_executor for loop-heavy code. They pin their tasks
// (task_attributes::worker): a pinned task is never stolen, so agent i of a bulk call
// runs on the same worker every time, and memory first-touched by agent i (see
// numa_allocator) stays local to the worker that later computes on it.
#pragma once

#include <weft/config/errors.hpp>
#include <weft/execution/executor_traits.hpp>
#include <weft/futures/future.hpp>
#include <weft/sched/post.hpp>
#include <weft/sched/this_task.hpp>
#include <weft/threads/task.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft::execution {

namespace detail {

/// The workers of a placed executor, checked against the running runtime.
inline std::shared_ptr<const std::vector<unsigned>> checked_workers(std::vector<unsigned> workers, const char* who) {
    const unsigned n = weft::num_workers();
    if (n == 0) throw weft::runtime_state_error(std::string(who) + ": no runtime is running (its workers are chosen at construction)");
    if (workers.empty()) throw weft::error(std::string(who) + ": the set of workers is empty");
    for (unsigned w : workers)
        if (w >= n)
            throw weft::error(std::string(who) + ": no worker " + std::to_string(w) + " (the runtime has " +
                              std::to_string(n) + ")");
    return std::make_shared<const std::vector<unsigned>>(std::move(workers));
}

/// Runs agent(i) for every i in [0, n), split into one contiguous block per worker of
/// `workers` (block j: agents [j*n/k, (j+1)*n/k) on workers[j]), and returns when all
/// have run (each agent runs even if others threw). The calling task runs its own block
/// inline when it sits on one of the workers; the others run as pinned tasks. The join
/// is an atomic count the caller polls, yielding its worker to other tasks between
/// polls: no future, no allocation beyond the tasks (a caller that is not a worker
/// waits on a task instead). Exceptions are gathered and rethrown (one as is, several
/// as weft::exception_list).
template <class Agent>
void pinned_blocks(const std::vector<unsigned>& workers, const task_attributes& base, std::size_t n, Agent& agent) {
    if (n == 0) return;
    const int here = weft::this_task::worker_index();
    if (here < 0) {
        // Not on a worker (main, say): a spinning thread here would take a core from the
        // workers that run the blocks. Wait on a task's future instead, which blocks.
        weft::async(base, [&] { pinned_blocks(workers, base, n, agent); }).get();
        return;
    }
    const std::size_t k = std::min<std::size_t>(workers.size(), n);
    std::mutex m;
    std::vector<std::exception_ptr> errors;
    // release on the count: a block's writes happen before the caller's acquire that
    // sees the count reach zero.
    std::atomic<std::size_t> remaining{k};
    auto run_block = [&](std::size_t j) noexcept {
        for (std::size_t i = j * n / k, e = (j + 1) * n / k; i < e; ++i) {
            try {
                agent(i);
            } catch (...) {
                std::lock_guard lock(m);
                errors.push_back(std::current_exception());
            }
        }
    };
    std::size_t mine = k;
    for (std::size_t j = 0; j < k; ++j) {
        if (mine == k && workers[j] == static_cast<unsigned>(here)) {
            mine = j;
            continue;
        }
        task_attributes a = base;
        a.worker = workers[j];
        try {
            weft::post(a, [&run_block, &remaining, j]() noexcept {
                run_block(j);
                // release: the block's last touch of the region; publishes its writes to the acquire poll below
                remaining.fetch_sub(1, std::memory_order_release);
            });
        } catch (...) {
            // Could not spawn (out of memory): run the block here instead.
            run_block(j);
            remaining.fetch_sub(1, std::memory_order_release);  // release: publishes the block's writes to the poll below
        }
    }
    if (mine != k) {
        run_block(mine);
        remaining.fetch_sub(1, std::memory_order_release);  // release: publishes the block's writes to the poll below
    }
    // The worker runs other tasks between polls (its pinned ones included, so nested
    // fork-join calls cannot deadlock).
    // acquire: pairs with every block's release decrement: all blocks' writes are visible after.
    for (unsigned spins = 0; remaining.load(std::memory_order_acquire) != 0; ++spins)
        if (spins >= 64) weft::this_task::yield();
    rethrow_collected(errors);
}

/// The bulk_sync_execute of a placed executor: results in shape order.
template <class F, class S, class... Args>
auto pinned_bulk(const std::vector<unsigned>& workers, const task_attributes& base, F&& f, S&& s, Args&&... args) {
    using R = bulk_result_t<F, S, Args...>;
    const std::size_t n = shape_size(s);
    auto at = [&] {
        using Sh = std::remove_cvref_t<S>;
        if constexpr (std::integral<Sh>) {
            return [](std::size_t i) { return static_cast<Sh>(i); };
        } else {
            std::vector<decltype(std::begin(s))> its;
            its.reserve(n);
            for (auto it = std::begin(s); it != std::end(s); ++it) its.push_back(it);
            return [its = std::move(its)](std::size_t i) -> decltype(auto) { return *its[i]; };
        }
    }();
    if constexpr (std::is_void_v<R>) {
        auto agent = [&](std::size_t i) { std::invoke(f, at(i), args...); };
        pinned_blocks(workers, base, n, agent);
    } else {
        std::vector<std::optional<R>> slots(n);
        auto agent = [&](std::size_t i) { slots[i].emplace(std::invoke(f, at(i), args...)); };
        pinned_blocks(workers, base, n, agent);
        std::vector<R> out;
        out.reserve(n);
        for (auto& r : slots) out.push_back(std::move(*r));
        return out;
    }
}

inline std::vector<unsigned> worker_range(unsigned first, unsigned count) {
    std::vector<unsigned> v(count);
    for (unsigned i = 0; i < count; ++i) v[i] = first + i;
    return v;
}

}  // namespace detail

/// Runs its agents on a fixed subset of the workers, as pinned tasks: single agents
/// (async_execute, post) go round-robin over the subset; bulk agents are split into one
/// contiguous block per worker, the same worker for the same block on every call. Work
/// of this executor is never stolen by workers outside the subset, and is not balanced
/// inside it either (each task runs where it was placed): use it to partition a machine
/// between independent jobs, or for locality; use parallel_executor for load balance.
///
/// The subset is checked at construction against the running runtime.
/// @throws weft::runtime_state_error without a runtime, weft::error for an empty subset
///         or a worker that does not exist.
class thread_pool_executor {
public:
    /// Workers [first, first + count).
    thread_pool_executor(unsigned first, unsigned count, task_attributes attributes = {})
        : thread_pool_executor(detail::worker_range(first, count), attributes) {}
    /// The given workers (each index below num_workers(); order sets the bulk blocks).
    explicit thread_pool_executor(std::vector<unsigned> workers, task_attributes attributes = {})
        : workers_(detail::checked_workers(std::move(workers), "weft::execution placed executor")),
          next_(std::make_shared<std::atomic<unsigned>>(0)), attributes_(attributes) {
        attributes_.worker = task_attributes::any_worker;
    }

    /// The workers this executor runs on.
    const std::vector<unsigned>& workers() const noexcept { return *workers_; }
    const task_attributes& attributes() const noexcept { return attributes_; }

    template <class F, class... Args>
        requires std::is_invocable_v<std::decay_t<F>, std::decay_t<Args>...>
    auto async_execute(F&& f, Args&&... args) const {
        return weft::async(placed(), std::forward<F>(f), std::forward<Args>(args)...);
    }
    template <class F, class... Args>
        requires std::is_invocable_v<std::decay_t<F>, std::decay_t<Args>...>
    void post(F&& f, Args&&... args) const {
        weft::post(placed(), std::forward<F>(f), std::forward<Args>(args)...);
    }
    template <class F, shape S, class... Args>
    auto bulk_sync_execute(F&& f, S&& s, Args&&... args) const {
        return detail::pinned_bulk(*workers_, attributes_, std::forward<F>(f), std::forward<S>(s), args...);
    }
    std::size_t processing_units_count() const noexcept { return workers_->size(); }

    /// Equal when they run on the same workers with the same attributes.
    bool operator==(const thread_pool_executor& o) const noexcept {
        return *workers_ == *o.workers_ && attributes_.priority == o.attributes_.priority &&
               attributes_.name == o.attributes_.name;
    }

private:
    task_attributes placed() const noexcept {
        task_attributes a = attributes_;
        // relaxed: only spreads tasks over the subset; orders nothing.
        a.worker = (*workers_)[next_->fetch_add(1, std::memory_order_relaxed) % workers_->size()];
        return a;
    }

    std::shared_ptr<const std::vector<unsigned>> workers_;
    std::shared_ptr<std::atomic<unsigned>> next_;
    task_attributes attributes_;
};

/// A thread_pool_executor over the workers of one NUMA domain (seed 003 §6.1: one
/// executor per domain, the domain's data first-touched and computed by its workers).
/// @throws weft::error if no worker sits in that domain.
class numa_executor : public thread_pool_executor {
public:
    explicit numa_executor(unsigned domain, task_attributes attributes = {})
        : thread_pool_executor(workers_of(domain), attributes), domain_(domain) {}
    unsigned domain() const noexcept { return domain_; }

private:
    static std::vector<unsigned> workers_of(unsigned domain) {
        std::vector<unsigned> ws;
        for (unsigned w = 0, n = weft::num_workers(); w < n; ++w)
            if (weft::worker_numa_domain(w) == domain) ws.push_back(w);
        if (ws.empty() && weft::num_workers() > 0)
            throw weft::error("weft::execution::numa_executor: no worker sits in NUMA domain " + std::to_string(domain) +
                              " (the runtime's workers use " + std::to_string(weft::num_numa_domains()) + " domain(s))");
        return ws;
    }
    unsigned domain_;
};

/// One numa_executor per NUMA domain that holds a worker, by domain index.
inline std::vector<numa_executor> numa_executors(task_attributes attributes = {}) {
    std::vector<numa_executor> out;
    const unsigned domains = weft::num_numa_domains();
    if (domains == 0) throw weft::runtime_state_error("weft::execution::numa_executors: no runtime is running");
    for (unsigned d = 0; d < domains; ++d) {
        bool used = false;
        for (unsigned w = 0, n = weft::num_workers(); w < n && !used; ++w) used = weft::worker_numa_domain(w) == d;
        if (used) out.emplace_back(d, attributes);
    }
    return out;
}

/// For loop-heavy code (seed 003 §4.2; HPX's fork_join_executor): bulk work split into
/// one contiguous block per worker, the calling task running its own block inline and
/// the rest pinned to the other workers, joined by one atomic count: less overhead per
/// parallel loop than parallel_executor's stealable tree of tasks, and the same worker
/// for the same block on every call (good for caches and NUMA first touch). There is no
/// load balancing between blocks, so it suits even loops; uneven work belongs to
/// parallel_executor. Single agents (async_execute, post) go round-robin over its
/// workers, like thread_pool_executor's, which it is with every worker by default.
class fork_join_executor : public thread_pool_executor {
public:
    /// All the running runtime's workers.
    explicit fork_join_executor(task_attributes attributes = {})
        : thread_pool_executor(detail::worker_range(0, weft::num_workers()), attributes) {}
    /// The given workers.
    explicit fork_join_executor(std::vector<unsigned> workers, task_attributes attributes = {})
        : thread_pool_executor(std::move(workers), attributes) {}
};

}  // namespace weft::execution
