// weft's own executors: sequenced_executor (the caller's thread, in order; the default of
// seq) and parallel_executor (weft tasks on the workers; the default of par).
#pragma once

#include <weft/execution/executor_traits.hpp>
#include <weft/futures/future.hpp>
#include <weft/config/errors.hpp>
#include <weft/sched/post.hpp>
#include <weft/sched/task_group.hpp>
#include <weft/sched/this_task.hpp>
#include <weft/threads/task.hpp>

#include <algorithm>
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
/// Runs f(args...) now and returns a ready future of its result or exception.
template <class F, class... Args>
auto ready_result(F&& f, Args&&... args) {
    using R = std::invoke_result_t<F, Args...>;
    try {
        if constexpr (std::is_void_v<R>) {
            std::invoke(std::forward<F>(f), std::forward<Args>(args)...);
            return weft::make_ready_future();
        } else if constexpr (std::is_lvalue_reference_v<R>) {
            return weft::make_ready_future(std::ref(std::invoke(std::forward<F>(f), std::forward<Args>(args)...)));
        } else {
            return weft::future<R>(
                weft::make_ready_future(std::invoke(std::forward<F>(f), std::forward<Args>(args)...)));
        }
    } catch (...) {
        return weft::make_exceptional_future<R>(std::current_exception());
    }
}
}  // namespace detail

/// Runs everything at once on the calling thread, in the order it is given: agents are
/// the caller itself. Exceptions reach the caller directly (post and bulk_sync_execute
/// rethrow the first; bulk execution stops there).
class sequenced_executor {
public:
    template <class F, class... Args>
        requires std::is_invocable_v<F&&, Args&&...>
    auto async_execute(F&& f, Args&&... args) const {
        return detail::ready_result(std::forward<F>(f), std::forward<Args>(args)...);
    }
    template <class F, class... Args>
        requires std::is_invocable_v<F&&, Args&&...>
    decltype(auto) sync_execute(F&& f, Args&&... args) const {
        return std::invoke(std::forward<F>(f), std::forward<Args>(args)...);
    }
    template <class F, class... Args>
        requires std::is_invocable_v<F&&, Args&&...>
    void post(F&& f, Args&&... args) const {
        std::invoke(std::forward<F>(f), std::forward<Args>(args)...);
    }
    template <class F, shape S, class... Args>
    auto bulk_sync_execute(F&& f, S&& s, Args&&... args) const {
        using R = detail::bulk_result_t<F, S, Args...>;
        if constexpr (std::is_void_v<R>) {
            detail::for_each_in_shape(s, [&](auto&& x) { std::invoke(f, x, args...); });
        } else {
            std::vector<R> out;
            out.reserve(detail::shape_size(s));
            detail::for_each_in_shape(s, [&](auto&& x) { out.push_back(std::invoke(f, x, args...)); });
            return out;
        }
    }
    std::size_t processing_units_count() const noexcept { return 1; }
    bool operator==(const sequenced_executor&) const noexcept = default;
};

/// Runs each agent as a weft task on the runtime's workers, with the priority, name and
/// stack size given to its tasks (weft::task_attributes). The default executor of par.
///
/// With a stack size (with_stack_size, or task_attributes::stack_size) every agent runs
/// on a stack at least that large: bulk_sync_execute then starts its fork from a task
/// with that stack when the caller's own is smaller, and so do the parallel algorithms.
///
/// bulk_sync_execute forks the agents through a weft::task_group in a binary tree (so
/// idle workers steal half of the rest, not one agent at a time) and runs what nobody
/// stole on the calling task: no agent waits in a queue while the caller idles.
class parallel_executor {
public:
    constexpr parallel_executor() noexcept = default;
    /// Agents run as tasks of `priority`, named `name` (a static string, see task_attributes).
    constexpr explicit parallel_executor(task_priority priority, const char* name = nullptr) noexcept
        : attributes_{priority, name} {}
    constexpr explicit parallel_executor(task_attributes attributes) noexcept : attributes_(attributes) {}

    /// The attributes of the tasks this executor creates.
    constexpr const task_attributes& attributes() const noexcept { return attributes_; }
    /// The same executor with another priority.
    constexpr parallel_executor with_priority(task_priority p) const noexcept {
        task_attributes a = attributes_;
        a.priority = p;
        return parallel_executor(a);
    }
    /// The same executor, its tasks on stacks of at least `bytes` usable bytes (0: the
    /// runtime's --weft:stack-size). @throws weft::error above task_attributes::max_stack_size.
    parallel_executor with_stack_size(std::size_t bytes) const {
        if (bytes > task_attributes::max_stack_size)
            throw weft::error("weft::execution::parallel_executor::with_stack_size: " + std::to_string(bytes) +
                              " bytes is above task_attributes::max_stack_size (" +
                              std::to_string(task_attributes::max_stack_size) + ")");
        task_attributes a = attributes_;
        a.stack_size = bytes;
        return parallel_executor(a);
    }

    template <class F, class... Args>
        requires std::is_invocable_v<std::decay_t<F>, std::decay_t<Args>...>
    auto async_execute(F&& f, Args&&... args) const {
        return weft::async(attributes_, std::forward<F>(f), std::forward<Args>(args)...);
    }
    template <class F, class... Args>
        requires std::is_invocable_v<std::decay_t<F>, std::decay_t<Args>...>
    void post(F&& f, Args&&... args) const {
        weft::post(attributes_, std::forward<F>(f), std::forward<Args>(args)...);
    }

    template <class F, shape S, class... Args>
    auto bulk_sync_execute(F&& f, S&& s, Args&&... args) const {
        using R = detail::bulk_result_t<F, S, Args...>;
        const std::size_t n = detail::shape_size(s);
        // The i-th element in O(1): an index, an element of a random-access range, or
        // through a list of iterators made by walking any other range once.
        auto at = [&] {
            using Sh = std::remove_cvref_t<S>;
            if constexpr (std::integral<Sh>) {
                return [](std::size_t i) { return static_cast<Sh>(i); };
            } else if constexpr (std::random_access_iterator<decltype(std::begin(s))>) {
                return [first = std::begin(s)](std::size_t i) -> decltype(auto) {
                    return first[static_cast<std::ptrdiff_t>(i)];
                };
            } else {
                std::vector<decltype(std::begin(s))> its;
                its.reserve(n);
                for (auto it = std::begin(s); it != std::end(s); ++it) its.push_back(it);
                return [its = std::move(its)](std::size_t i) -> decltype(auto) { return *its[i]; };
            }
        }();
        if constexpr (std::is_void_v<R>) {
            fork(n, [&](std::size_t i) { std::invoke(f, at(i), args...); });
        } else {
            std::vector<std::optional<R>> slots(n);
            fork(n, [&](std::size_t i) { slots[i].emplace(std::invoke(f, at(i), args...)); });
            std::vector<R> out;
            out.reserve(n);
            for (auto& r : slots) out.push_back(std::move(*r));
            return out;
        }
    }

    std::size_t processing_units_count() const noexcept { return std::max<std::size_t>(1, weft::num_workers()); }
    bool operator==(const parallel_executor& o) const noexcept {
        return attributes_.priority == o.attributes_.priority && attributes_.name == o.attributes_.name;
    }

private:
    /// Runs agent(i) for i in [0, n) as a binary tree of tasks; the caller runs one leaf
    /// per level. Every agent runs; the group rethrows one exception as is and several
    /// as weft::exception_list.
    template <class Agent>
    void fork(std::size_t n, Agent&& agent) const {
        if (n == 0) return;
        if (attributes_.stack_size > weft::this_task::stack_size()) {
            // The caller would run agents on a stack smaller than asked: fork from a task
            // that has the stack.
            weft::async(attributes_, [this, n, &agent] { fork(n, agent); }).get();
            return;
        }
        if (n == 1) {
            agent(0);
            return;
        }
        // Every agent runs to its end whatever the others do; their exceptions are
        // gathered here (rarely: a lock is fine) and rethrown once all have finished.
        std::mutex m;
        std::vector<std::exception_ptr> errors;
        auto guarded = [&](std::size_t i) noexcept {
            try {
                agent(i);
            } catch (...) {
                std::lock_guard lock(m);
                errors.push_back(std::current_exception());
            }
        };
        {
            weft::task_group g;
            split(g, 0, n, guarded);
            g.wait();
        }
        detail::rethrow_collected(errors);
    }
    template <class Agent>
    void split(weft::task_group& g, std::size_t lo, std::size_t hi, Agent& agent) const {
        while (hi - lo > 1) {
            const std::size_t mid = lo + (hi - lo) / 2;
            g.run(attributes_, [this, mid, hi, &agent] {
                weft::task_group inner;
                split(inner, mid, hi, agent);
                inner.wait();
            });
            hi = mid;
        }
        agent(lo);
    }

    task_attributes attributes_{};
};

}  // namespace weft::execution
