// weft::task_group: structured fork-join, the fast path for recursive parallelism.
#pragma once

#include <weft/config/errors.hpp>
#include <weft/sched/detail/child_list.hpp>
#include <weft/sched/detail/task_block.hpp>

#include <atomic>
#include <cstdint>
#include <exception>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft {

/// Runs tasks and waits for all of them.
///
/// `run(f)` spawns `f` as a task on the calling worker's queue, where idle workers can
/// steal it. `wait()` first runs, inline on the caller's own stack, every child that no
/// other worker has taken yet (newest first, like a depth-first serial execution, so a
/// recursive program uses one stack per worker); then it suspends the calling task (not
/// the worker) until the stolen children finish. Without thieves, a fork costs a
/// queue push and pop and no context switch.
///
/// Exceptions: `wait()` rethrows a child's exception as is; if several children threw,
/// it throws weft::exception_list with all of them. No exception is dropped.
///
/// A task_group is used by one task at a time (the one that calls run and wait); its
/// children may themselves use task_groups. The destructor waits for unfinished
/// children; if one threw and wait() was never called, it terminates with a message
/// naming the exception (or, when the destructor runs during stack unwinding, prints it).
///
/// Example (from tests/unit/sched/task_group_test.cpp):
/// @code
/// std::uint64_t fib(unsigned n) {
///     if (n < 2) return n;
///     std::uint64_t a = 0;
///     weft::task_group g;
///     g.run([&] { a = fib(n - 1); });
///     std::uint64_t b = fib(n - 2);
///     g.wait();
///     return a + b;
/// }
/// @endcode
class task_group {
public:
    task_group() noexcept = default;
    task_group(const task_group&) = delete;
    task_group& operator=(const task_group&) = delete;

    ~task_group() {
        // relaxed: after wait() or with no children, nobody else writes errors_.
        if (children_.spawned == 0 && errors_.head.load(std::memory_order_relaxed) == nullptr) return;
        detail::wait_in_destructor([this] { wait(); }, "a weft::task_group was destroyed during stack unwinding "
                                                       "while a child's exception was pending");
    }

    /// Spawns `f()` as a child task. Under the `hierarchical` policy, when the calling
    /// worker's bounded queue is full, the child runs at once inside run() (work-first,
    /// seed 002): do not hold a lock across run() that the child takes.
    /// @throws weft::runtime_state_error without a runtime.
    template <class F>
        requires std::is_invocable_v<std::decay_t<F>&>
    void run(F&& f) {
        run(task_attributes{}, std::forward<F>(f));
    }

    /// As run(f), with a priority and a name for the child.
    template <class F>
        requires std::is_invocable_v<std::decay_t<F>&>
    void run(const task_attributes& attributes, F&& f) {
        using block = child<std::decay_t<F>>;
        detail::worker_hot* w = detail::current_worker_hot();
        block* b = detail::make_block_on<block>(w, this, std::forward<F>(f));
        detail::apply_attributes(*b, attributes);
        // A bounded queue that is full may run the child right here (work-first).
        b->flags = static_cast<std::uint8_t>(b->flags | detail::task_flag_work_first);
        b->prev = children_.last;
        children_.spawn(w, b, sizeof(block));
    }

    /// Waits for every child spawned so far, running untaken ones inline; then the
    /// group can be reused. Rethrows the children's exceptions (see the class comment).
    void wait() {
        // 1. Run our untaken children inline, newest first, while each is still the
        //    newest task in this worker's queue.
        std::uint64_t done_inline = 0;
        children_.run_untaken(detail::current_worker_hot(), [&](detail::worker_hot*, child_base*) { ++done_inline; });
        // 2. The rest run elsewhere; each one decrements pending_ when it finishes.
        const auto remote = static_cast<std::int64_t>(children_.spawned - done_inline);
        if (remote != 0) {
            // acq_rel: acquire the finished children's writes; release nothing but order.
            if (pending_.fetch_add(remote, std::memory_order_acq_rel) + remote != 0) {
                detail::wait_until_notified([this](detail::waiter& me) {
                    std::uintptr_t empty = 0;
                    // acq_rel: publishes the waiter; fails if the last child already notified.
                    return waiter_.compare_exchange_strong(empty, reinterpret_cast<std::uintptr_t>(&me),
                                                           std::memory_order_acq_rel);
                }, detail::wait_reason{detail::wait_kind::task_group, this, 0});
            }
            // acquire: the last child's writes happen before its exchange in child_done().
            (void)waiter_.load(std::memory_order_acquire);
            waiter_.store(0, std::memory_order_relaxed);  // relaxed: no child touches it any more
            children_.free_finished();
        }
        // With no remote child, the list is empty already: every listed child is counted in
        // spawned and not in done_inline.
        children_.spawned = 0;
        rethrow_errors();
    }

private:
    struct child_base : detail::task {
        task_group* group;
        child_base* prev = nullptr;
        std::uint32_t block_size = 0;
    };

    template <class F>
    struct child : child_base {
        F fn;

        template <class F2>
        child(task_group* g, F2&& f) : fn(std::forward<F2>(f)) {
            this->group = g;
            this->block_size = sizeof(child);
            this->invoke = &run_child;
        }

        static void run_child(detail::task* self) noexcept {
            auto* c = static_cast<child*>(self);
            task_group* g = c->group;
            const bool run_inline = (c->flags & detail::task_flag_inline) != 0;
            try {
                c->fn();
            } catch (...) {
                g->errors_.capture(std::current_exception());
            }
            if (run_inline) {
                detail::destroy_block(c);
            } else {
                c->fn.~F();  // the owner frees the block after wait (see wait())
                g->child_done();
            }
        }
    };

    void child_done() noexcept {
        // acq_rel: releases this child's writes to the owner, which acquires them.
        if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
            // acq_rel: takes the waiter published by the owner (or marks "done" first).
            const std::uintptr_t w = waiter_.exchange(1, std::memory_order_acq_rel);
            if (w > 1) reinterpret_cast<detail::waiter*>(w)->notify();
        }
    }

    void rethrow_errors() {
        // acquire: pairs with the release in capture(). Every child has finished, so no
        // one writes errors_ concurrently: a plain load and store replace an exchange.
        detail::child_errors::node* list = errors_.head.load(std::memory_order_acquire);
        if (list == nullptr) return;
        errors_.head.store(nullptr, std::memory_order_relaxed);
        std::vector<std::exception_ptr> errors = detail::child_errors::in_completion_order(list);
        if (errors.size() == 1) std::rethrow_exception(errors.front());
        throw exception_list(std::move(errors));
    }

    // Owner only.
    detail::child_list<child_base> children_;
    // Shared with children that run elsewhere.
    std::atomic<std::int64_t> pending_{0};
    std::atomic<std::uintptr_t> waiter_{0};  ///< 0 none, 1 all done, else a detail::waiter*
    detail::child_errors errors_;
};

}  // namespace weft
