// weft::define_task_block (N4411's task block, seed 003 §5.4, with an execution policy as
// HPX extends it): a body that forks tasks with tb.run(f) and joins them all at its end.
#pragma once

#include <weft/algorithms/detail/loop.hpp>
#include <weft/sched/task_group.hpp>

#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft {

/// What the body of define_task_block receives: run() forks a task, wait() joins the
/// tasks forked so far. Under a parallel policy the tasks are weft tasks (untaken ones run
/// inline on wait, like task_group); under seq, run() calls f at once. A task_block is
/// used only by the task that runs its body, and only during the call.
template <class Policy = execution::parallel_policy>
class task_block {
public:
    using execution_policy = Policy;

    task_block(const task_block&) = delete;
    task_block& operator=(const task_block&) = delete;

    /// The policy the block was defined with.
    const Policy& policy() const noexcept { return policy_; }

    /// Runs f(args...) as a task of the block (decay-copied arguments). Its exception is
    /// kept and thrown by define_task_block, with every other, as a weft::exception_list.
    template <class F, class... Args>
        requires std::is_invocable_v<std::decay_t<F>&, std::decay_t<Args>&...>
    void run(F&& f, Args&&... args) {
        auto job = [this, fn = std::forward<F>(f), ... a = std::forward<Args>(args)]() mutable {
            try {
                std::invoke(fn, a...);
            } catch (...) {
                keep(std::current_exception());
            }
        };
        if constexpr (Policy::kind::parallel) group_.run(policy_.executor().attributes(), std::move(job));
        else job();
    }

    /// Waits for every task run so far (their exceptions wait for the end of the block).
    void wait() {
        if constexpr (Policy::kind::parallel) group_.wait();  // jobs never throw
    }

private:
    template <class P, class F>
    friend void detail_run_task_block(const P& policy, F& body);

    explicit task_block(const Policy& p) : policy_(p) {}

    void keep(std::exception_ptr e) {
        std::lock_guard lock(m_);
        errors_.push_back(std::move(e));
    }
    void finish() {
        wait();
        if (errors_.empty()) return;
        const std::string what = "weft::define_task_block: " + std::to_string(errors_.size()) +
                                 (errors_.size() == 1 ? " task threw" : " tasks threw");
        throw weft::exception_list(std::move(errors_), what);
    }

    Policy policy_;
    weft::task_group group_;
    std::mutex m_;
    std::vector<std::exception_ptr> errors_;
};

/// Runs body(tb) and then waits for every task the body ran; throws weft::exception_list
/// of the body's and the tasks' exceptions, if any. Not for direct use.
template <class P, class F>
void detail_run_task_block(const P& policy, F& body) {
    task_block<P> tb(policy);
    try {
        body(tb);
    } catch (...) {
        tb.keep(std::current_exception());
    }
    tb.finish();
}

/// Defines a task block under `policy` (seq, par, or their task variants; executors and
/// parameters carried by the policy): calls body(tb) with a task_block and returns once
/// the body and every task it ran have finished; a task policy returns a
/// weft::future<void> at once instead. @throws weft::exception_list of the body's and the
/// tasks' exceptions (through the future for a task policy).
template <execution::execution_policy P, class F>
    requires std::is_invocable_v<F&, task_block<std::remove_cvref_t<decltype(std::declval<P>().sync())>>&>
auto define_task_block(P&& policy, F&& body) {
    static_assert(!std::remove_cvref_t<P>::kind::unsequenced, "a task block needs seq or par (or their task variants)");
    return detail::algo::dispatch(policy, [b = std::forward<F>(body)](const auto& p) mutable {
        detail_run_task_block(p, b);
    });
}

/// define_task_block(execution::par, body).
template <class F>
    requires std::is_invocable_v<F&, task_block<execution::parallel_policy>&>
void define_task_block(F&& body) {
    weft::define_task_block(execution::par, std::forward<F>(body));
}

}  // namespace weft
