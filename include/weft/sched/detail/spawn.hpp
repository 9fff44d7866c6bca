// What header-only code (post, async, task_group, task_queue, futures) calls to spawn:
// task-block memory, the inline fast paths (spawn path, bypass slot, take-back, run at
// spawn) and the compiled slow paths behind them (src/sched/spawn.cpp).
#pragma once

#include <weft/sched/detail/task_flags.hpp>
#include <weft/sched/detail/worker_hot.hpp>
#include <weft/threads/detail/block_pool.hpp>
#include <weft/threads/task.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace weft::detail {

/// Memory for a task block of `size` bytes, aligned to a cache line; from worker `w`'s
/// free list when it has one of that size class (no allocation). `w` may be null.
inline void* allocate_task_block(worker_hot* w, std::size_t size) {
    return allocate_block(w != nullptr ? &w->blocks : nullptr, size);
}
inline void* allocate_task_block(std::size_t size) { return allocate_task_block(current_worker_hot(), size); }

/// Returns a block from allocate_task_block (any thread may free any block).
inline void free_task_block(worker_hot* w, void* p, std::size_t size) noexcept {
    free_block(w != nullptr ? &w->blocks : nullptr, p, size);
}
inline void free_task_block(void* p, std::size_t size) noexcept { free_task_block(current_worker_hot(), p, size); }

inline worker_hot* execute_taken(worker_hot* w, task* t) noexcept;

/// A new task that found `w`'s bounded queue full: runs it at once on the caller's stack
/// (work-first, seed 002 §3) when its spawner allows it and enough stack is left, and
/// returns true; false otherwise (the scheduler then sets it aside).
inline bool try_run_at_spawn(worker_hot* w, task* t) {
    if ((t->flags & task_flag_work_first) == 0 || w->current_ctx == nullptr || !stack_room_left(w)) return false;
    note_spawn(w, t);
    w->spawn.bounded->note_inlined();
    t->state.store(task_state::active, std::memory_order_relaxed);  // relaxed: diagnostics only
    w = execute_taken(w, t);  // may suspend: w is the worker we are on afterwards
    w->ran_at_spawn.store(t, std::memory_order_relaxed);  // relaxed: see worker_hot
    return true;
}

/// Pushes a new task on worker `w`'s spawn path (ext::spawn_path) when the policy offers
/// one that is open and the task has normal priority; returns false otherwise (then call
/// spawn()).
inline bool try_spawn_fast(worker_hot* w, task* t) {
    if (w == nullptr || t->prio != task_priority::normal || (t->flags & task_flags_slow_path) != 0) return false;
    using kind = ext::spawn_path::kind;
    const ext::spawn_path& path = w->spawn;
    switch (path.how) {
        case kind::none: return false;
        case kind::bounded:
            w->ran_at_spawn.store(nullptr, std::memory_order_relaxed);  // relaxed: see worker_hot
            if (path.bounded->full()) return try_run_at_spawn(w, t);
            break;
        case kind::owner:
            // relaxed: the gate carries no data; a steal request this load misses is
            // served at a later spawn or when the owner next takes a task from its queues.
            if (path.gate->load(std::memory_order_relaxed) != *path.open) return false;
            break;
        case kind::stealing: break;
    }
    const std::uint64_t before = note_spawn(w, t);
    sample_queue_wait(w, t);
    try {
        switch (path.how) {
            case kind::stealing: path.deque->push(t); break;
            case kind::bounded: (void)path.bounded->push(t); break;  // not full: only the owner fills it
            default: path.owned->push_back(t); break;
        }
    } catch (...) {
        w->spawned.store(before, std::memory_order_release);  // release: as in note_spawn
        throw;
    }
    // relaxed: a hint; a wake-up missed here costs parallelism, never progress (the
    // spawner runs the task itself), see scheduler::after_schedule.
    if (w->sleepers->load(std::memory_order_relaxed) != 0) wake_for_spawn(w);
    return true;
}

/// Marks the scope in which a task that the loop started publishes its result as its
/// last act: a continuation it readies may then take the bypass slot (run next on this
/// worker, cache-warm, instead of going through the queue where an idle thief would
/// take it and bounce a sequential chain between cores).
class completion_scope {
public:
    completion_scope() noexcept : w_(current_worker_hot()) {
        if (w_ != nullptr && w_->current_task != nullptr && w_->current_task == w_->loop_task) {
            active_ = true;
            w_->completing = true;
        }
    }
    ~completion_scope() {
        if (active_) w_->completing = false;
    }
    completion_scope(const completion_scope&) = delete;
    completion_scope& operator=(const completion_scope&) = delete;

private:
    worker_hot* w_;
    bool active_ = false;
};

/// Puts a new normal-priority task in the bypass slot when called inside a
/// completion_scope and the slot is free; false otherwise (then spawn it).
inline bool try_bypass(task* t) noexcept {
    worker_hot* w = current_worker_hot();
    if (w == nullptr || !w->completing || w->bypass != nullptr || t->prio != task_priority::normal ||
        (t->flags & task_flags_slow_path) != 0)
        return false;
    note_spawn(w, t);
    w->bypass = t;
    return true;
}

/// Runs a task taken back by the caller (on worker `w`) on the current stack. It may
/// suspend and come back on another worker: returns the worker the caller is on then.
inline worker_hot* execute_taken(worker_hot* w, task* t) noexcept {
    task* const outer = w->current_task;
    w->current_task = t;
    // relaxed: read only by the instantaneous counters, which are statistics.
    w->started.store(w->started.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    t->last_worker = w->index;
    t->invoke(t);  // disposes of t
    w = current_worker_hot();
    w->current_task = outer;
    // release: a quiescence check that sees this count also sees the spawns t made.
    w->finished.store(w->finished.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    return w;
}

/// The inline fast path of try_run_inline: `t` is the newest task on `w`'s spawn path
/// and enough stack is left; takes it (or returns false) without running it.
inline bool try_take_back_fast(worker_hot* w, task* t) noexcept {
    using kind = ext::spawn_path::kind;
    if (w == nullptr || w->spawn.how == kind::none || !stack_room_left(w)) return false;
    const ext::spawn_path& path = w->spawn;
    switch (path.how) {
        case kind::stealing:
            // A fork's continuation (fork_to) on this deque has started: never restart it.
            // relaxed: if t is in our deque, we put it there after its last state change.
            if (path.deque->peek_bottom() != t || !t->is_staged() || path.deque->pop() != t) return false;
            break;
        case kind::bounded:
            // This queue also holds resumed tasks, which continue on their own context.
            // relaxed: if t is in our queue, we put it there after its last state change.
            if (!t->is_staged() || !path.bounded->take_back(t)) return false;
            break;
        default:
            // Owner-only: nobody else takes from it, so the newest is still ours to take.
            if (path.owned->back() != t) return false;
            path.owned->pop_back();
            break;
    }
    // Ours now, so its flags can be read: a task that needs a bigger stack goes back
    // (to the end it came from: the slot is free, so the push cannot allocate).
    if (WEFT_UNLIKELY((t->flags & task_flag_own_stack) != 0)) {
        switch (path.how) {
            case kind::stealing: path.deque->push(t); break;
            case kind::bounded: (void)path.bounded->push(t); break;  // room: it was just taken
            default: path.owned->push_back(t); break;
        }
        return false;
    }
    if (path.share != nullptr) path.share(path.share_arg, *w);  // w runs t now: see spawn_path::share
    return true;
}

/// Makes a new (staged) task runnable. Throws weft::runtime_state_error when no
/// runtime is running.
void spawn(task* t);
/// spawn() for a task that a finished input readied (dataflow, continuations): on a
/// worker, it first offers it to a worker spinning idle (direct hand-off,
/// runtime_config::hand_off).
void spawn_ready(task* t);

/// Runs `t` inline on the caller's stack if it is the task the calling worker spawned
/// most recently, nobody took it yet and enough stack is left; returns true if it ran.
/// `flags` are or-ed into t->flags once it is taken, before it runs. `t` must stay
/// allocated during the call (its address is compared with queued tasks).
bool try_run_inline(task* t, std::uint8_t flags = 0) noexcept;

/// launch::fork: runs the new task `child` (not yet spawned) next on this worker and
/// suspends the calling task, whose continuation thieves may take meanwhile; returns once
/// the caller runs again (here or on another worker), true. Returns false, doing
/// nothing, outside a task, for a pinned caller, a pinned, own-stack or prioritised child,
/// or when the policy's spawn path is not a stealing deque: spawn the child instead.
bool fork_to(task* child);

/// Called by a runtime-internal task as its last act (see post_internal): counts it on
/// the worker it finishes on.
void count_internal_task_finished() noexcept;

}  // namespace weft::detail
