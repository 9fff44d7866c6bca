// The last template task instance that a task body readies runs next on the body's
// worker, through the scheduler bypass (completion_scope / try_bypass), as a
// continuation that a finishing task readies does. Without it a chain of instances
// (each body sending to the next key) goes through the spawn queue at every step, where
// an idle worker steals it, and the chain bounces between cores: 6x the cost of a
// dataflow chain at 2 workers (bench/RESULTS.md, 2026-11-29).
//
// While a body runs, the instances it readies are held back one at a time: a new one
// spawns the one held before it, and the one left when the body returns takes the
// bypass slot (or is spawned, if the slot is taken or the body's task was not started by
// the scheduling loop). Only normal-priority instances are held; a priomap's high or
// low ones spawn at once.
//
// A body may wait, and then suspend, with an instance held that the thing it waits for
// needs: so the first hold sets a suspend hook (sched/detail/suspend.hpp) that spawns
// the held instance and ends holding for that body, before the task switches away. The
// hook set before (a parcel batch's, when a body runs inline inside one) is called from
// it and put back when the body ends.
//
// The hold is found through the thread's record, which names the body's task by its
// unique spawn id: a send from any other task spawns at once. Every access to that
// record goes through a function that is never inlined, so that a thread-local's address
// is never cached across a task switch.
#pragma once

#include <weft/sched/detail/spawn.hpp>
#include <weft/sched/detail/suspend.hpp>
#include <weft/sched/detail/task_block.hpp>
#include <weft/threads/task.hpp>

#include <cstdint>
#include <utility>

namespace weft::ttg::detail {

class body_scope;

/// The calling thread's record: the body running on it that holds instances back, and
/// that body's task id. Defined in src/ttg/ttg.cpp, never inlined.
struct hold_ref {
    body_scope* scope = nullptr;
    std::uint64_t owner = 0;
};
hold_ref& this_thread_hold() noexcept;

/// Spawns `t` now (or, if the scheduler refuses, runs it here: it must not be lost).
inline void spawn_now(weft::detail::task* t) noexcept {
    try {
        if (!weft::detail::try_spawn_fast(weft::detail::current_worker_hot(), t)) weft::detail::spawn(t);
    } catch (...) {
        t->invoke(t);
    }
}

/// Holds back what a body readies while it runs; at its end, the last of it runs next.
class body_scope {
public:
    body_scope() noexcept {
        const weft::detail::worker_hot* w = weft::detail::current_worker_hot();
        if (w == nullptr || w->current_task == nullptr || w->current_task->id == 0) return;
        hold_ref& h = this_thread_hold();
        outer_ = h;  // a body run inline inside another's (at a full bounded queue, say)
        h = {this, w->current_task->id};
        active_ = true;
    }
    ~body_scope() {
        if (!active_) return;
        stop_holding();
        if (hooked_) weft::detail::set_suspend_hook(outer_hook_);  // no suspension came
        if (held_ == nullptr) return;
        weft::detail::task* t = std::exchange(held_, nullptr);
        weft::detail::completion_scope last_act;
        if (!weft::detail::try_bypass(t)) spawn_now(t);
    }
    body_scope(const body_scope&) = delete;
    body_scope& operator=(const body_scope&) = delete;

    /// Holds `t` if the calling task is a body that holds; returns false otherwise.
    static bool hold(weft::detail::task* t) noexcept {
        const weft::detail::worker_hot* w = weft::detail::current_worker_hot();
        if (w == nullptr || w->current_task == nullptr || t->prio != task_priority::normal) return false;
        const hold_ref& h = this_thread_hold();
        if (h.scope == nullptr || h.owner != w->current_task->id) return false;
        body_scope& s = *h.scope;
        if (!s.hooked_) {
            s.outer_hook_ = weft::detail::current_suspend_hook();
            weft::detail::set_suspend_hook({&on_suspend, &s});  // on a worker, in a task: no throw
            s.hooked_ = true;
        }
        if (weft::detail::task* before = std::exchange(s.held_, t)) spawn_now(before);
        return true;
    }

private:
    /// The body is about to suspend: hold no more, spawn what is held, then the outer
    /// hook (suspend() cleared the hook slot before calling this one).
    static void on_suspend(void* arg) noexcept {
        auto& s = *static_cast<body_scope*>(arg);
        s.hooked_ = false;
        s.stop_holding();
        if (weft::detail::task* t = std::exchange(s.held_, nullptr)) spawn_now(t);
        if (s.outer_hook_.fn != nullptr) s.outer_hook_.fn(s.outer_hook_.arg);
    }
    /// Puts the thread's record back as it was if it is still this body's (it is not
    /// when the body moved to another thread; that thread's names another task).
    void stop_holding() noexcept {
        hold_ref& h = this_thread_hold();
        if (h.scope == this) h = outer_;
    }

    weft::detail::task* held_ = nullptr;
    hold_ref outer_;
    weft::detail::suspend_hook outer_hook_{};
    bool active_ = false, hooked_ = false;
};

/// Spawns the task that runs an instance, or holds it back for the end of the body that
/// readied it.
inline void spawn_or_hold(weft::detail::task* t) noexcept {
    if (!body_scope::hold(t)) spawn_now(t);
}

}  // namespace weft::ttg::detail
