// What header-only code (futures, task_group, LCOs) calls to wait: suspension of the
// running task, its resumption from any thread, timers, and waiters that are either a
// suspended task or a blocked OS thread (src/sched/loop.cpp, spawn.cpp, timer.cpp).
#pragma once

#include <weft/threads/detail/wait_reason.hpp>
#include <weft/threads/task.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>

namespace weft::detail {

/// The task running on this thread, or nullptr on a thread that is not a weft worker.
task* current_task() noexcept;

/// Called on the new stack once the suspending task's context is saved: this is the
/// only safe moment to publish it to whoever will resume it.
using suspend_callback = void (*)(task* self, void* arg) noexcept;

/// The id of the calling agent for wait_reason::holder: the running task's id, or
/// holder_outside_thread on a plain thread.
std::uint64_t current_holder_id() noexcept;

/// Suspends the current task (there must be one) and runs `cb(self, arg)` after its
/// context is saved; returns once some thread calls resume(self). `why` says what it
/// waits on, for the deadlock report. If no stack can be mapped for the worker to
/// continue on, prints why and aborts.
void suspend(suspend_callback cb, void* arg, const wait_reason& why = {});

/// How long a task waiting on something not ready polls the background work itself
/// (poll_while_waiting) before it suspends.
inline constexpr std::chrono::microseconds poll_wait_budget{50};

/// Called by a task about to suspend until `ready(arg)` holds: if its worker has nothing
/// else to run and some background work is outstanding (the distributed layer's
/// transport, waiting for messages), polls that work itself, on this stack, until
/// ready(arg) (returns true), a task appears for this worker, or poll_wait_budget passes
/// (returns false: suspend as usual). Saves a suspension and a resumption, and polls at
/// a tighter period than the scheduling loop, when the answer comes from another
/// locality (issue #23: about a tenth of an 8-byte round trip). Never when turned off
/// (ext::set_waiting_tasks_poll) or the runtime has more workers than processing units
/// (the core is given away instead), inside background work, or with a suspend hook set
/// (its pieces of work must not wait).
bool poll_while_waiting(bool (*ready)(const void*) noexcept, const void* arg) noexcept;

/// Makes a suspended task runnable again (any thread).
void resume(task* t) noexcept;

/// Called when the running task suspends: see set_suspend_hook.
struct suspend_hook {
    void (*fn)(void* arg) noexcept = nullptr;
    void* arg = nullptr;
};

/// Sets a hook on the calling task's worker, around code that may suspend the task: if
/// it does, suspend() first calls `h.fn(h.arg)` (once, on the task's stack, before the
/// switch) and clears the hook. A task that runs several independent pieces of work in
/// turn (the distributed layer's batches of parcels) hands the pieces not yet run to a
/// new task there, instead of holding them while one piece waits. Clear it with
/// clear_suspend_hook() when the code returned without suspending. Only one hook at a
/// time (a second replaces the first). The hook must not suspend (it may spawn).
/// @throws weft::runtime_state_error on a thread that is not running a weft task.
void set_suspend_hook(suspend_hook h);
/// Clears the calling worker's hook (no effect outside a worker).
void clear_suspend_hook() noexcept;
/// The calling worker's hook (none outside a worker): code that sets its own around
/// code run inside another's keeps the outer one, calls it from its own, and puts it
/// back after.
suspend_hook current_suspend_hook() noexcept;

/// Whether other workers of the calling thread's scheduler idle: a hint for a task
/// holding several independent pieces of work to hand some to a new task.
struct idle_workers_now {
    /// One spins with its hand-off slot open: it takes a new task at once.
    bool spinning = false;
    /// One is parked: a new task wakes it (a futex call; on a VM, a vCPU wake-up).
    bool parked = false;
};
/// Reads the hand-off mask, a few hand-off slots and the parked count (all false outside
/// a worker).
idle_workers_now idle_workers() noexcept;

/// Calls fn(arg) on the runtime's timer thread at (or soon after) `when`; fn must be
/// short and must not block. Pending timers count as "something will happen" for the
/// deadlock report. @throws weft::runtime_state_error when no runtime is running.
void call_at(std::chrono::steady_clock::time_point when, void (*fn)(void*) noexcept, void* arg);

/// One party waiting for a notification: a suspended task, a blocked OS thread, or a
/// callback (a continuation that runs or schedules itself when notified).
struct waiter {
    waiter* next = nullptr;
    /// Without a callback: the task to resume (null: an OS thread blocked on `signaled`).
    /// With one: never resumed here; the callback may keep the task it belongs to in it.
    task* waiting_task = nullptr;
    void (*callback)(waiter* self) noexcept = nullptr;  ///< if set: called instead of waking
    std::atomic<std::uint32_t> signaled{0};

    /// Wakes the waiter. The waiter may be gone as soon as this returns.
    void notify() noexcept {
        if (callback != nullptr) {
            callback(this);
        } else if (task* t = waiting_task) {
            resume(t);
        } else {
            // release: publishes whatever the notifier did to the thread that acquires it.
            signaled.store(1, std::memory_order_release);
            signaled.notify_one();
        }
    }
};

/// Blocks the caller until notified: suspends the current task, or blocks the calling
/// OS thread. `enlist(waiter&)` registers the waiter and returns false if the
/// condition already holds (then nobody will notify it and the caller continues).
template <class Enlist>
void wait_until_notified(Enlist&& enlist, const wait_reason& why = {}) {
    waiter w;
    if (task* self = current_task()) {
        w.waiting_task = self;
        struct args_t {
            Enlist* enlist;
            waiter* w;
        } args{&enlist, &w};
        suspend(
            [](task* me, void* p) noexcept {
                auto* a = static_cast<args_t*>(p);
                // `a` lives on the suspended stack; once enlisted, a notifier may resume
                // us at any moment, so nothing here touches `a` after enlist returns true.
                if (!(*a->enlist)(*a->w)) resume(me);
            },
            &args, why);
    } else if (enlist(w)) {
        // acquire: pairs with the release in notify().
        while (w.signaled.load(std::memory_order_acquire) == 0)
            w.signaled.wait(0, std::memory_order_acquire);
    }
}

}  // namespace weft::detail
