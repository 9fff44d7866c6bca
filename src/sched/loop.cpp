// The one scheduling loop (seed 000 §2.3.1, Figure 4): every policy shares it.
//
// Stacks. A worker always runs the loop on a pooled task stack. A staged task runs
// directly on the stack the loop is on (it gets its "context" by starting there); when
// it finishes, the loop simply continues on the same stack, so a stream of tasks that
// never block costs no context switch at all. A task that suspends keeps its stack, and
// the worker continues the loop on a fresh one. Picking a pending (resumed) task
// abandons the loop's current stack (only the loop frame is on it), recycles it, and
// jumps into the task's saved context. The worker's own OS stack is left on start and
// returned to on shutdown. The switches themselves are the threads layer's
// (threads/detail/context.hpp).
#include "entry.hpp"
#include "phases.hpp"
#include "scheduler.hpp"

#include <weft/config/errors.hpp>
#include <weft/sched/detail/spawn.hpp>
#include <weft/sched/detail/suspend.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>
#include <utility>

namespace weft::detail {
namespace {

// How long an idle worker keeps looking for work before it parks. Waking a parked worker
// costs a futex call and, on a VM, a virtual CPU wake-up (hundreds of microseconds), so
// a worker between two phases of a program should still be spinning.
constexpr auto spin_before_park = std::chrono::microseconds(500);
constexpr unsigned spin_rounds_per_clock_check = 64;

// Landing on a context after leaving another for good: the left one is recycled.
void recycle_left(context* left, void*) noexcept {
    worker* w = current_worker();
    w->sched->recycle_context(w, left);
}

// What a suspending task leaves for the landing on the next stack. It lives on the
// suspended stack: the landing copies it before the callback publishes the task.
struct suspend_record {
    task* t;
    suspend_callback cb;
    void* arg;
};

void on_suspend_landing(context*, void* arg) noexcept {
    const suspend_record rec = *static_cast<const suspend_record*>(arg);
    rec.cb(rec.t, rec.arg);
}

// Leaves the current stack for good and continues the suspended task `t`.
[[noreturn]] void switch_to_pending(worker* w, task* t) noexcept {
    context* abandoned = w->current_ctx;
    context* target = t->ctx;
    t->ctx = nullptr;
    t->flags = static_cast<std::uint8_t>(t->flags & ~task_flag_yielded);
    t->state.store(task_state::active, std::memory_order_relaxed);  // relaxed: diagnostics only
    t->last_worker = w->index;
    w->stats.resumed_runs.add();
    begin_phase(w, t, true, phase_clock(w));
    target->suspended_task.store(nullptr, std::memory_order_relaxed);  // relaxed: the report reads only tasks that stay suspended
    w->set_current_ctx(target);
    w->current_task = t;
    leave_context(abandoned, target, recycle_left, nullptr);
}

void run_from_loop(worker* w, task* t) noexcept;
[[noreturn]] void switch_to_own_stack(worker* w, task* t, std::size_t bytes) noexcept;

void worker_loop() noexcept {
    for (;;) {
        worker* w = current_worker();
        scheduler* s = w->sched;
        const std::uint64_t stolen_before =
            w->tracing ? w->counters.stolen_to_staged.get() + w->counters.stolen_to_pending.get() : 0;
        // A fork's child first (fork_to), then what the queues hold.
        task* t = w->run_next != nullptr ? std::exchange(w->run_next, nullptr) : s->next_task(w);
        if (t == nullptr && s->throttled(w)) {
            // Throttled: what it queued goes to the active workers (they steal it), and
            // it sleeps at once instead of spinning.
            s->wake_for_leftovers(w);
            t = s->park_until_work(w);
            if (t == nullptr) {
                if (s->stopping()) return;
                continue;
            }
        }
        if (t == nullptr) {
            s->open_handoff(w);  // from now on readiers may hand it a task directly
            // Background work first: if it did something (a message arrived, a task was
            // spawned), look for tasks again at once.
            if (s->background().run(w->index)) {
                w->idle_spins = 0;
                continue;
            }
            if (w->idle_spins++ == 0) {
                w->idle_since = std::chrono::steady_clock::now();
                if (w->tracing && !w->idle_traced) {
                    w->idle_traced = true;
                    trace_add(w, trace_event::idle_begin, cycle_clock_now(), 0, nullptr, 0);
                }
            }
            if (w->idle_spins % spin_rounds_per_clock_check != 0 ||
                std::chrono::steady_clock::now() - w->idle_since < spin_before_park) {
                // With more workers than processing units, a spinning worker would keep
                // the one that was just woken off the CPU: give the CPU away instead.
                if (s->oversubscribed()) std::this_thread::yield();
                else cpu_relax();
                continue;
            }
            // Something outstanding in the background work: one worker keeps polling
            // (spinning, and yielding every spin_rounds_per_clock_check rounds).
            if (!s->stopping() && s->keep_polling(w)) {
                std::this_thread::yield();
                continue;
            }
            w->idle_spins = 0;
            t = s->park_until_work(w);
            if (t == nullptr) {
                if (s->stopping()) return;
                continue;
            }
        }
        w->idle_spins = 0;
        if (WEFT_UNLIKELY(w->polling)) s->stop_polling(w);
        if (WEFT_UNLIKELY(--w->background_countdown == 0)) {
            s->background().run(w->index);
            w->background_countdown = s->background().period();
        }
        if (w->tracing) {
            const std::uint64_t now = cycle_clock_now();
            if (w->idle_traced) {
                w->idle_traced = false;
                trace_add(w, trace_event::idle_end, now, 0, nullptr, 0);
            }
            if (w->counters.stolen_to_staged.get() + w->counters.stolen_to_pending.get() != stolen_before)
                trace_add(w, trace_event::steal, now, t->id, t->name, w->last_victim);
        }
        if (t->ctx != nullptr) switch_to_pending(w, t);
        if (const std::size_t bytes = scheduler::own_stack_bytes(*t); bytes > w->current_ctx->stk.size)
            switch_to_own_stack(w, t, bytes);
        run_from_loop(w, t);
    }
}

// Runs the new task `t` from the loop, then the tasks it readies through the bypass slot.
void run_from_loop(worker* w, task* t) noexcept {
    w->loop_task = t;
    begin_phase(w, t, false, phase_clock(w));
    execute(t);
    // Scheduler bypass: run what the finished task readied as its last act.
    for (w = current_worker(); w->bypass != nullptr; w = current_worker()) {
        task* next = std::exchange(w->bypass, nullptr);
        if (w->spawn.share != nullptr) w->spawn.share(w->spawn.share_arg, *w);  // see spawn_path::share
        continue_phase(w, next);
        w->loop_task = next;
        execute(next);
    }
    end_phase(w, false);
    w->loop_task = nullptr;
}

// Leaves the current stack for good and starts the new task `t` on a stack of its own
// (task_flag_own_stack); the worker then goes on with its loop on that stack.
[[noreturn]] void switch_to_own_stack(worker* w, task* t, std::size_t bytes) noexcept {
    context* target = nullptr;
    try {
        target = w->sched->own_stack_context(bytes);
    } catch (const std::exception& e) {
        std::fflush(stdout);
        std::fprintf(stderr, "weft: cannot map a %zu-byte stack for task %s: %s\n", bytes,
                     t->name != nullptr ? t->name : "(unnamed)", e.what());
        std::abort();
    }
    context* abandoned = w->current_ctx;
    w->own_stack_first = t;
    w->set_current_ctx(target);
    leave_context(abandoned, target, recycle_left, nullptr);
}

[[noreturn]] void leave_for_thread_stack() noexcept {
    worker* w = current_worker();
    context* here = w->current_ctx;
    w->set_current_ctx(nullptr);
    leave_context(here, &w->thread_ctx, recycle_left, nullptr);
}

[[noreturn]] void loop_entry() noexcept {
    worker_loop();
    leave_for_thread_stack();
}

[[noreturn]] void own_stack_entry() noexcept {
    worker* w = current_worker();
    run_from_loop(w, std::exchange(w->own_stack_first, nullptr));
    worker_loop();
    leave_for_thread_stack();
}

}  // namespace

void scheduler::worker_main(worker* w) {
    tl_worker = w;
    if (cfg_.bind) {
        const std::string why = (cfg_.topo ? *cfg_.topo : topology::machine()).bind_this_thread_to_core(w->core);
        if (!why.empty() && w->index == 0)
            std::fprintf(stderr, "weft: warning: cannot bind workers to cores (%s); running unbound\n",
                         why.c_str());
    }
    const alt_signal_stack signal_stack;  // so that a stack overflow can still be reported
    w->os_thread_id.store(static_cast<int>(::gettid()), std::memory_order_release);  // see start()
    // relaxed (both): read by the counters as statistics.
    w->stats.loop_start.store(cycle_clock_now(), std::memory_order_relaxed);
    context* first = fresh_context(w);
    w->set_current_ctx(first);
    enter_from_thread(&w->thread_ctx, first, nullptr, nullptr);
    // Back on the thread's own stack: the loop saw stopping() with nothing left to run.
    if (w->tracing && w->idle_traced) trace_add(w, trace_event::idle_end, cycle_clock_now(), 0, nullptr, 0);
    w->stats.loop_end.store(cycle_clock_now(), std::memory_order_relaxed);  // relaxed: a statistic

    w->ctx_cache.drain(contexts_);  // into the runtime-wide pool; stop() unmaps it
    release_block_cache(w->blocks);
    tl_worker = nullptr;
}

context* scheduler::fresh_context(worker* w) {
    context* c = w->ctx_cache.take(contexts_);
    prepare_context(c, loop_entry);
    return c;
}

context* scheduler::own_stack_context(std::size_t bytes) {
    context* c = contexts_.make(bytes);
    prepare_context(c, own_stack_entry);
    return c;
}

void scheduler::recycle_context(worker* w, context* c) noexcept {
    // A task's own (larger) stack is unmapped at once: it was sized for that task.
    if (c->stk.size == contexts_.pooled_size()) w->ctx_cache.put(c, contexts_);
    else contexts_.release(c);
}

task* scheduler::next_task(worker* w) noexcept {
    if (!w->handoff.is_open()) return find_task(w);
    if (task* t = w->handoff.poll()) {
        w->stats.handoffs_received.add();
        return t;
    }
    task* t = find_task(w);
    if (t == nullptr) return nullptr;
    // Found one itself: a task handed over meanwhile goes to its queues, where another
    // idle worker can take it.
    if (task* late = close_handoff(w, false)) {
        try {
            after_schedule(w, policy_->schedule(w, *late));
        } catch (...) {
            std::terminate();  // a queue could not grow: out of memory
        }
        // The policy shared what it holds before we took `t` (xqueue's offer, the
        // hierarchical policy's split queue), when `late` was not there yet: share again,
        // or `late` waits in an owner-only list behind `t`, which may wait for `late`
        // (two tasks readied together, issue #22's liveness; found by liveness_test).
        if (w->spawn.share != nullptr) w->spawn.share(w->spawn.share_arg, *w);
    }
    return t;
}

void scheduler::open_handoff(worker* w) noexcept {
    if (!cfg_.hand_off || w->index >= 64 || workers_.size() < 2) return;
    w->handoff.open();
    if (!w->handoff_in_mask) {
        // The bit stays while the worker is busy (readiers then find its slot closed, in
        // a line that stays in their caches) and goes when it parks: a worker that goes
        // idle at every step writes the shared mask once, not twice a step.
        // relaxed: the bit only steers readiers; the slot's CAS decides.
        handoff_mask_.fetch_or(std::uint64_t{1} << w->index, std::memory_order_relaxed);
        w->handoff_in_mask = true;
    }
}

task* scheduler::close_handoff(worker* w, bool leave_mask) noexcept {
    if (leave_mask && w->handoff_in_mask) {
        // relaxed: as in open_handoff.
        handoff_mask_.fetch_and(~(std::uint64_t{1} << w->index), std::memory_order_relaxed);
        w->handoff_in_mask = false;
    }
    task* t = w->handoff.close();
    if (t != nullptr) w->stats.handoffs_received.add();
    return t;
}

task* scheduler::find_task(worker* w) noexcept {
    // Pinned tasks first (nobody else may run them), then the policy's, then pinned
    // tasks that yielded (a task yielding in a loop must not starve the worker).
    if (w->pinned.empty() && !w->pinned_inbox.empty()) {
        for (task* t = w->pinned_inbox.take_all(); t != nullptr;) {
            task* next = t->next;
            (t->is_yield() ? w->pinned_yielded : w->pinned).push(t);
            t = next;
        }
    }
    if (task* t = w->pinned.pop()) return t;
    if (task* t = policy_->next_task(*w)) return t;
    return w->pinned_yielded.pop();
}

task* current_task() noexcept {
    worker* w = current_worker();
    return w != nullptr ? w->current_task : nullptr;
}

void set_suspend_hook(suspend_hook h) {
    worker* w = current_worker();
    if (w == nullptr || w->current_task == nullptr)
        throw runtime_state_error("weft: only a weft task can set a suspend hook");
    w->on_suspend = h;
}

void clear_suspend_hook() noexcept {
    if (worker* w = current_worker()) w->on_suspend = {};
}

suspend_hook current_suspend_hook() noexcept {
    const worker* w = current_worker();
    return w != nullptr ? w->on_suspend : suspend_hook{};
}

idle_workers_now idle_workers() noexcept {
    const worker* w = current_worker();
    if (w == nullptr) return {};
    return {w->sched->spinning_worker(w), w->sched->parked_workers()};
}

void suspend(suspend_callback cb, void* arg, const wait_reason& why) {
    worker* w = current_worker();
    if (w == nullptr || w->current_task == nullptr)
        throw runtime_state_error("weft: only a weft task can suspend");
    if (w->on_suspend.fn != nullptr) {
        const suspend_hook h = std::exchange(w->on_suspend, {});
        h.fn(h.arg);  // must not suspend (set_suspend_hook)
    }
    task* t = w->current_task;
    context* next = nullptr;
    try {
        next = w->sched->fresh_context(w);
    } catch (const std::exception& e) {
        // A waiter that cannot suspend cannot wait correctly (its task_group or future
        // would be left half-waited): stop with the reason instead.
        std::fflush(stdout);
        std::fprintf(stderr, "weft: task %s cannot suspend: %s\n", t->name != nullptr ? t->name : "(unnamed)", e.what());
        std::abort();
    }
    context* here = w->current_ctx;
    end_phase(w, true);
    t->ctx = here;
    t->state.store(task_state::suspended, std::memory_order_relaxed);  // relaxed: diagnostics only
    here->suspended_id = t->id;
    here->suspended_name = t->name;
    here->waiting = why;
    here->suspended_task.store(t, std::memory_order_release);  // release: see context
    w->set_current_ctx(next);
    w->current_task = nullptr;
    suspend_record rec{t, cb, arg};
    // Carries the task's exception state (it may suspend inside a catch block).
    switch_context(here, next, on_suspend_landing, &rec);
    // Resumed, possibly on another worker: switch_to_pending set that worker's state.
}

bool fork_to(task* child) {
    worker* w = current_worker();
    if (w == nullptr || w->current_task == nullptr || w->spawn.how != ext::spawn_path::kind::stealing) return false;
    task* parent = w->current_task;
    if ((parent->flags & task_flag_pinned) != 0 || (child->flags & task_flags_slow_path) != 0 ||
        child->prio != task_priority::normal)
        return false;
    w->ran_at_spawn.store(nullptr, std::memory_order_relaxed);  // relaxed: see worker_hot
    note_spawn(w, child);  // counted before the parent can be stolen and finish
    child->state.store(task_state::staged, std::memory_order_relaxed);  // relaxed: diagnostics and take-back
    // Continuation stealing (Cilk-5's work-first principle, Frigo, Leiserson and Randall,
    // PLDI 1998; HPX's launch::fork): the parent suspends, its continuation goes on this
    // worker's deque where thieves take the oldest, and the loop runs the child next.
    suspend(
        [](task* me, void* arg) noexcept {
            worker* here = current_worker();
            here->run_next = static_cast<task*>(arg);
            here->sched->resume_continuation(here, me);
        },
        child);
    return true;
}

std::uint64_t current_holder_id() noexcept {
    const task* t = current_task();
    return t != nullptr ? t->id : holder_outside_thread;
}

void count_internal_task_finished() noexcept {
    // release: published before the loop's `finished` store (see read_sample in src/sched/introspect.cpp).
    if (worker* w = current_worker()) w->stats.internal_tasks.add_release(1);
}


}  // namespace weft::detail
