// weft::task_queue: HotSLAW's task library (seed 002 §2.1, Figure 1) as a C++ object.
#pragma once

#include <weft/concurrency/backoff_spinlock.hpp>
#include <weft/config/errors.hpp>
#include <weft/sched/detail/child_list.hpp>
#include <weft/sched/detail/task_block.hpp>

#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft {

namespace detail {
/// The task is a weft::task_queue task: its block holds, right after this header, the
/// frame that its own puts and waits use (task_queue::calling_frame reads it from
/// current_task()). task_queue's bit of task::flags (threads/task.hpp).
inline constexpr std::uint8_t task_flag_queue_frame = task_flag_upper_layer;
}  // namespace detail

/// A task queue in the sense of HotSLAW's task library: tasks put on it form a tree, each
/// task waits for the tasks it put, and `fence()` orders a frame's tasks in epochs.
///
/// The seed's C calls and their weft counterparts (seed 002 §2.1, Figure 1):
///
/// | seed                        | weft                                                   |
/// |-----------------------------|--------------------------------------------------------|
/// | `taskq_all_alloc(nFunc,...)`| `weft::task_queue q;` (any callable, any argument types) |
/// | `taskq_put(q, f, in, out)`  | `q.put(f, args...)` (arguments decay-copied into the task) |
/// | `taskq_wait(q)`             | `q.wait()` (runs untaken children inline, else suspends) |
/// | `taskq_fence(q)`            | `q.fence()` (non-blocking)                              |
/// | `taskq_all_isEmpty(q)`      | `q.empty()`                                             |
/// | `taskq_execute`, `taskq_steal` | none: weft's scheduler runs and steals tasks; the  |
/// |                             | `hierarchical` policy (`--weft:scheduler=hierarchical`) |
/// |                             | is HotSLAW's bounded queues and hierarchical stealing   |
///
/// **Frames.** Every put and wait acts on the *calling frame*: the innermost running task
/// that this queue started, or, when the caller is not running a task of this queue (the
/// main task, a plain thread, a task_group child, a task of another task_queue), the
/// queue's *root frame*. So a put from a task of queue A onto queue B goes to B's root
/// frame. A task's frame is used only by that task; the root frame may be used by any
/// number of tasks and threads at once.
///
/// **put(f, args...)** spawns `f(args...)` as a child of the calling frame. `f` and the
/// arguments are decay-copied (or moved) into the task's block, like std::async: pass
/// pointers for outputs, as the seed's tasks do. A return value is discarded. The child
/// may be stolen; it carries task_flag_work_first, so under the `hierarchical` policy a
/// full bounded queue runs it at once inside put() (HotSLAW's work-first switch, seed 002
/// §3); other policies queue it. One pooled block per task, no other allocation.
///
/// **Tasks end with an implicit wait**: a task put on the queue finishes only after every
/// task it put has finished, so a wait covers whole subtrees.
///
/// **wait()** blocks until every task the calling frame has put so far has finished.
/// A task's wait first runs, inline and newest first, the children no other worker took
/// yet (as task_group::wait does); then it suspends the task, never the worker, which runs
/// and steals other tasks meanwhile. On the root frame, wait() suspends (or blocks a plain
/// thread) until the root frame has no task running or queued; tasks that other threads
/// put concurrently may be included. Then the frame can be used again. Hence a root-frame
/// wait from inside a root task's subtree (say, from a task_group child of a queue task)
/// waits for that task itself and never returns: the runtime reports it as a deadlock.
///
/// **fence()** does not block: the tasks the calling frame puts after it start only once
/// every task the frame put before it (their subtrees included) has finished. Several
/// fences make successive epochs; a fence with nothing outstanding does nothing. Tasks put
/// behind a fence wait in the frame, allocated but not spawned, and whichever thread
/// finishes the last task of an epoch spawns the next epoch's tasks: no thread spins. On
/// the root frame, a fence orders the puts that happen before it against those that
/// happen after it; puts racing with it from other threads fall on either side.
///
/// **Exceptions** go up the tree: a child's exception is rethrown by its parent's wait(),
/// or, when the parent does not wait, by its implicit end-of-task wait into the
/// grandparent, and so on up to the root frame's wait(). As with task_group, one
/// exception is rethrown as is and several arrive together in a weft::exception_list (a
/// task whose body threw and whose implicit wait threw passes both on). None is dropped.
///
/// **Destruction** waits for the root frame's tasks still outstanding (as std::jthread
/// joins); if one of them threw and no wait() received it, the destructor terminates with
/// a message naming the exception (or prints it when already unwinding). Destroy the queue
/// only after its tasks can no longer put on it.
///
/// Misuse: put() with no runtime running throws weft::runtime_state_error. A task_queue
/// is neither copyable nor movable (tasks hold its address).
///
/// Example (seed 002 Figure 2; from tests/unit/sched/task_queue_test.cpp):
/// @code
/// weft::task_queue q;
/// void fib(int n, long* out) {
///     if (n < cutoff) { *out = fib_serial(n); return; }
///     long x, y;
///     q.put(fib, n - 1, &x);
///     q.put(fib, n - 2, &y);
///     q.wait();
///     *out = x + y;
/// }
/// @endcode
class task_queue {
public:
    task_queue() noexcept = default;
    task_queue(const task_queue&) = delete;
    task_queue& operator=(const task_queue&) = delete;

    ~task_queue() {
        if (root_.idle_without_errors()) return;
        detail::wait_in_destructor([this] { root_.wait(); }, "a weft::task_queue was destroyed during stack unwinding "
                                                             "while a task's exception was pending");
    }

    /// Spawns `f(args...)` as a child of the calling frame (see the class comment).
    /// @throws weft::runtime_state_error when no runtime is running; whatever copying
    ///         `f` or the arguments throws.
    template <class F, class... Args>
        requires std::is_invocable_v<std::decay_t<F>, std::decay_t<Args>...>
    void put(F&& f, Args&&... args) {
        using block = qtask<detail::bound_call<F, Args...>>;
        detail::worker_hot* w = detail::current_worker_hot();
        frame& parent = frame_of(w != nullptr ? w->current_task : nullptr);
        block* b = detail::make_block_on<block>(w, &parent, std::forward<F>(f), std::forward<Args>(args)...);
        // A bounded queue that is full may run the child right here (work-first).
        b->flags = static_cast<std::uint8_t>(b->flags | detail::task_flag_work_first | detail::task_flag_queue_frame);
        parent.put(w, b);
    }

    /// Waits until every task the calling frame has put so far has finished (see the
    /// class comment); rethrows their exceptions.
    void wait() {
        detail::worker_hot* w = detail::current_worker_hot();
        frame_of(w != nullptr ? w->current_task : nullptr).wait(w);
    }

    /// Tasks the calling frame puts from now on start only after all it has put so far
    /// have finished. Does not block.
    void fence() { calling_frame().fence(); }

    /// True when no task put on this queue is queued, deferred or running (seed 002's
    /// taskq_all_isEmpty). Every task is in the subtree of a root-frame task, which ends
    /// only after its subtree, so this reads the root frame alone: no queue-wide counter
    /// that every put and completion would contend on.
    [[nodiscard]] bool empty() const noexcept { return root_.idle(); }

private:
    struct qtask_base;

    /// The children of one task (or the queue's root): counts, the waiting owner, the
    /// tasks held back by a fence, and the children's exceptions.
    ///
    /// Counting. `alive_` counts spawned children not finished (deferred ones are not
    /// spawned yet). A task's frame starts in the fast mode of task_group: put() counts in
    /// `children_.spawned`, owner-only, each child that finishes elsewhere decrements
    /// `alive_` (one that wait() ran inline is taken off `children_.spawned` instead), so
    /// `alive_` stays <= 0 and no child sees it cross zero; wait() (or the first fence())
    /// adds `children_.spawned`, and then the child that brings it to zero is the last.
    /// After a fence the frame counts eagerly (puts add to `alive_` under `lock_`) until
    /// its next wait; the root frame, shared by many threads, always does.
    ///
    /// Zero crossings. The child whose decrement brings `alive_` to zero calls
    /// on_zero(): under `lock_`, if no put came in meanwhile, it spawns the next epoch
    /// held back by a fence, or, when none is left, sets `quiet_` and wakes the waiters.
    /// A waiter leaves only when it sees `quiet_` (or made the last change to the count
    /// itself), so no child touches the frame after its owner has moved on.
    class frame {
    public:
        frame(task_queue* q, bool root) noexcept : queue_(q), root_(root) {}

        task_queue* queue() const noexcept { return queue_; }

        void put(detail::worker_hot* w, qtask_base* b) {
            b->prev = children_.last;  // read by our wait() only; unused on the root frame
            if (!root_ && !fence_mode_) {
                children_.spawn(w, b, b->block_size);
                return;
            }
            bool spawn_now = true;
            {
                std::lock_guard g(lock_);
                quiet_ = false;
                // acquire: a zero seen here means the epoch's tasks are done.
                if (deferred_head_ != nullptr || (fence_pending_ && alive_.load(std::memory_order_acquire) > 0)) {
                    b->starts_epoch = fence_pending_;
                    b->next = nullptr;
                    if (deferred_tail_ != nullptr) deferred_tail_->next = b;
                    else deferred_head_ = b;
                    deferred_tail_ = b;
                    spawn_now = false;
                } else {
                    // relaxed: the lock orders it with on_zero(); the child's decrement is an RMW.
                    alive_.fetch_add(1, std::memory_order_relaxed);
                }
                fence_pending_ = false;
            }
            if (spawn_now) {
                try {
                    detail::spawn_block(w, b);
                } catch (...) {
                    // b is destroyed: take back its count.
                    if (alive_.fetch_sub(1, std::memory_order_acq_rel) == 1) on_zero();
                    throw;
                }
            }
            if (!root_) children_.last = b;
        }

        void fence() {
            if (!root_ && !fence_mode_) {
                if (children_.spawned == 0) return;  // nothing outstanding since the last wait
                quiet_ = false;                      // owner-only until the count can reach zero
                const auto n = static_cast<std::int64_t>(std::exchange(children_.spawned, 0));
                // acq_rel: acquires the finished children's writes; from here a child may
                // see the count cross zero.
                if (alive_.fetch_add(n, std::memory_order_acq_rel) + n == 0) {
                    quiet_ = true;  // we made the last change: no child calls on_zero()
                    return;
                }
                fence_mode_ = true;
            }
            std::lock_guard g(lock_);
            // acquire: as in put().
            if (deferred_head_ != nullptr || alive_.load(std::memory_order_acquire) > 0) fence_pending_ = true;
        }

        /// `w`: the calling worker, when the caller has it at hand (else looked up).
        void wait(detail::worker_hot* w = nullptr) {
            if (root_) {
                wait_quiet();
                rethrow_errors();
                return;
            }
            if (!fence_mode_) {
                // 1. Run our untaken children inline, newest first, while each is still the
                //    newest task in this worker's queue (as task_group::wait does).
                if (children_.last != nullptr && w == nullptr) w = detail::current_worker_hot();
                children_.run_untaken(w, [this](detail::worker_hot* now, qtask_base* c) {
                    // It did not count itself down (see run_task): it was one of spawned.
                    --children_.spawned;
                    detail::free_task_block(now, c, c->block_size);
                });
                // 2. The rest run elsewhere.
                if (children_.spawned != 0) {
                    quiet_ = false;  // owner-only until the count can reach zero
                    const auto n = static_cast<std::int64_t>(std::exchange(children_.spawned, 0));
                    // acq_rel: acquires the finished children's writes.
                    if (alive_.fetch_add(n, std::memory_order_acq_rel) + n == 0) quiet_ = true;
                    else wait_quiet();
                }
            } else {
                wait_quiet();
                fence_mode_ = false;
            }
            children_.free_finished();
            rethrow_errors();
        }

        /// A child finished (its body and its own implicit wait): the last act of its
        /// task; `b` may be freed by the owner as soon as the count is decremented.
        void child_done(qtask_base* b) noexcept {
            const bool free_self = root_;  // the root keeps no list of its children
            const std::uint32_t size = b->block_size;
            // acq_rel: releases this child's writes to the waiter; acquires the others'
            // for on_zero().
            if (alive_.fetch_sub(1, std::memory_order_acq_rel) == 1) on_zero();
            if (free_self) detail::free_task_block(b, size);
        }

        void capture(std::exception_ptr e) noexcept { errors_.capture(std::move(e)); }

        bool idle() const noexcept {
            std::lock_guard g(lock_);
            return quiet_;
        }

        bool idle_without_errors() const noexcept {
            std::lock_guard g(lock_);
            // relaxed: with the frame quiet, no child writes errors_ any more.
            return quiet_ && errors_.head.load(std::memory_order_relaxed) == nullptr;
        }

    private:
        /// Suspends (or blocks) until on_zero() finds nothing left: see the class comment.
        void wait_quiet() {
            {
                std::lock_guard g(lock_);
                if (quiet_) return;
            }
            detail::wait_until_notified([this](detail::waiter& me) {
                std::lock_guard g(lock_);
                if (quiet_) return false;
                me.next = waiters_;
                waiters_ = &me;
                return true;
            }, detail::wait_reason{detail::wait_kind::task_queue, this, 0});
        }

        /// Called by the child whose decrement brought alive_ to zero (see the class comment).
        void on_zero() noexcept {
            lock_.lock();
            // acquire: pairs with the decrements of the children that finished.
            if (alive_.load(std::memory_order_acquire) != 0) {
                lock_.unlock();  // a put came in after the crossing: its child will cross again
                return;
            }
            if (qtask_base* first = deferred_head_) {
                // The next epoch (seed 002 §2.1: taskq_fence): every task up to the next
                // fence mark, spawned in put order.
                std::int64_t n = 0;
                qtask_base* last = first;
                for (qtask_base* t = first; t != nullptr && (t == first || !t->starts_epoch); t = next_of(t)) {
                    last = t;
                    ++n;
                }
                deferred_head_ = next_of(last);
                if (deferred_head_ == nullptr) deferred_tail_ = nullptr;
                last->next = nullptr;
                // relaxed: under the lock; the epoch's children decrement it with RMWs.
                alive_.fetch_add(n, std::memory_order_relaxed);
                lock_.unlock();
                // The frame stays alive: the count cannot reach zero before these finish.
                for (qtask_base* t = first; t != nullptr;) {
                    qtask_base* next = next_of(t);  // read first: t may finish during its spawn
                    try {
                        detail::spawn_block(detail::current_worker_hot(), t);
                    } catch (...) {
                        detail::terminate_on_unhandled_exception(nullptr);
                    }
                    t = next;
                }
                return;
            }
            quiet_ = true;
            detail::waiter* ws = std::exchange(waiters_, nullptr);
            // After this unlock the owner may leave and free the frame: touch only waiters.
            lock_.unlock();
            while (ws != nullptr) {
                detail::waiter* next = ws->next;  // read first: ws may be gone after notify
                ws->notify();
                ws = next;
            }
        }

        void rethrow_errors() {
            // relaxed: a probe that spares the common case an RMW; the exchange decides.
            if (errors_.head.load(std::memory_order_relaxed) == nullptr) return;
            // acquire: pairs with the release in capture(). exchange: on the root frame,
            // tasks put concurrently by other threads may be capturing now.
            detail::child_errors::node* list = errors_.head.exchange(nullptr, std::memory_order_acquire);
            if (list == nullptr) return;
            std::vector<std::exception_ptr> errors = detail::child_errors::in_completion_order(list);
            if (errors.size() == 1) std::rethrow_exception(errors.front());
            const std::size_t count = errors.size();
            throw exception_list(std::move(errors),
                                 std::to_string(count) + " tasks put on a weft::task_queue threw");
        }

        task_queue* const queue_;
        // Owner only (a task's frame; the root frame keeps no list and counts eagerly).
        /// Children put since the last wait, newest first; `spawned`: fast-mode puts not yet
        /// added to alive_.
        detail::child_list<qtask_base> children_;
        const bool root_;
        bool fence_mode_ = false;  ///< a fence came since the last wait: count eagerly
        // Under lock_ (quiet_ also by the owner while no child can cross zero).
        bool fence_pending_ = false;  ///< the next put starts a new epoch
        bool quiet_ = true;           ///< nothing running or deferred, nobody will touch us
        mutable ext::backoff_spinlock lock_;
        qtask_base* deferred_head_ = nullptr;  ///< tasks behind a fence, in put order
        qtask_base* deferred_tail_ = nullptr;
        detail::waiter* waiters_ = nullptr;
        // Shared with children that run elsewhere.
        std::atomic<std::int64_t> alive_{0};
        detail::child_errors errors_;
    };

    /// The part of a task block that does not depend on the callable: the frame sits at
    /// a fixed offset right after the task header, so calling_frame() finds it from
    /// detail::current_task() whatever the callable's type.
    struct qtask_base : detail::task {
        frame fr;
        frame* parent;
        qtask_base* prev = nullptr;  ///< the parent's list of children
        // task::next links the parent's list of deferred children (no queue holds them).
        std::uint32_t block_size = 0;
        bool starts_epoch = false;  ///< deferred: the first task put after a fence

        qtask_base(frame* p, std::uint32_t size) noexcept : fr(p->queue(), false), parent(p), block_size(size) {}
    };

    template <class Fn>
    struct qtask : qtask_base {
        Fn fn;

        template <class... A>
        explicit qtask(frame* p, A&&... a) : qtask_base(p, sizeof(qtask)), fn(std::forward<A>(a)...) {
            this->invoke = &run_task;
        }

        static void run_task(detail::task* self) noexcept {
            auto* t = static_cast<qtask*>(self);
            std::exception_ptr body_error;
            std::exception_ptr wait_error;
            try {
                t->fn();
            } catch (...) {
                body_error = std::current_exception();
            }
            try {
                t->fr.wait();  // the implicit end-of-task wait
            } catch (...) {
                wait_error = std::current_exception();
            }
            frame* parent = t->parent;
            // Run inline by its parent's wait(): the parent counts it and frees the block.
            const bool ran_inline = (t->flags & detail::task_flag_inline) != 0;
            t->fn.~Fn();  // the block itself is freed by the parent's owner (or child_done)
            if (body_error) parent->capture(std::move(body_error));
            if (wait_error) parent->capture(std::move(wait_error));
            if (!ran_inline) parent->child_done(t);
        }
    };

    static qtask_base* next_of(qtask_base* t) noexcept { return static_cast<qtask_base*>(t->next); }

    frame& calling_frame() noexcept { return frame_of(detail::current_task()); }

    /// The frame of `t`, the running task, if it is one of ours; else the root frame.
    frame& frame_of(detail::task* t) noexcept {
        if (t != nullptr && (t->flags & detail::task_flag_queue_frame) != 0) {
            frame& f = static_cast<qtask_base*>(t)->fr;
            if (f.queue() == this) return f;
        }
        return root_;
    }

    frame root_{this, true};
};

}  // namespace weft
