// What the header-only parts of weft (post, async, task_group, futures) call in the
// compiled scheduler: spawning, suspension, resumption and task-block allocation.
#pragma once

#include <weft/threads/task.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace weft::detail {

/// Memory for a task block of `size` bytes, aligned to a cache line; from the calling
/// worker's free list when it has one of that size class (no allocation).
void* allocate_task_block(std::size_t size);
/// Returns a block from allocate_task_block (any thread may free any block).
void free_task_block(void* p, std::size_t size) noexcept;

/// Makes a new (staged) task runnable. Throws weft::runtime_state_error when no
/// runtime is running.
void spawn(task* t);

/// Runs `t` inline on the caller's stack if it is the task the calling worker spawned
/// most recently, nobody took it yet and enough stack is left; returns true if it ran.
/// `flags` are or-ed into t->flags once it is taken, before it runs. `t` must stay
/// allocated during the call (its address is compared with queued tasks).
bool try_run_inline(task* t, std::uint8_t flags = 0) noexcept;

/// The task running on this thread, or nullptr on a thread that is not a weft worker.
task* current_task() noexcept;

/// Called on the new stack once the suspending task's context is saved: this is the
/// only safe moment to publish it to whoever will resume it.
using suspend_callback = void (*)(task* self, void* arg) noexcept;

/// Suspends the current task (there must be one) and runs `cb(self, arg)` after its
/// context is saved; returns once some thread calls resume(self).
void suspend(suspend_callback cb, void* arg);

/// Makes a suspended task runnable again (any thread).
void resume(task* t) noexcept;

/// Reports an exception escaping a task that nobody can receive, then terminates.
/// Call from inside a catch block.
[[noreturn]] void terminate_on_unhandled_exception(const task* t) noexcept;

/// A next unique task id (per process).
std::uint64_t next_task_id() noexcept;

/// One party waiting for a notification: a suspended task or a blocked OS thread.
struct waiter {
    waiter* next = nullptr;
    task* waiting_task = nullptr;  ///< null: an OS thread blocked on `signaled`
    std::atomic<std::uint32_t> signaled{0};

    /// Wakes the waiter. The waiter may be gone as soon as this returns.
    void notify() noexcept {
        if (task* t = waiting_task) {
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
void wait_until_notified(Enlist&& enlist) {
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
            &args);
    } else if (enlist(w)) {
        // acquire: pairs with the release in notify().
        while (w.signaled.load(std::memory_order_acquire) == 0)
            w.signaled.wait(0, std::memory_order_acquire);
    }
}

}  // namespace weft::detail
