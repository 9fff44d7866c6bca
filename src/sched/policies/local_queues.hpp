// The per-worker queue set the built-in policies share: high-priority, pending
// (resumed) and staged (new) work-stealing deques, an inbox for tasks from other
// threads, and owner-only FIFO lists for yielded and low-priority tasks.
#pragma once

#include <weft/concurrency/mpsc_inbox.hpp>
#include <weft/concurrency/work_stealing_deque.hpp>
#include <weft/ext/scheduler_policy.hpp>

namespace weft::detail {

/// An owner-only intrusive FIFO through task::next.
struct task_fifo {
    task* head = nullptr;
    task* tail = nullptr;
    void push(task* t) noexcept {
        t->next = nullptr;
        if (tail != nullptr) tail->next = t;
        else head = t;
        tail = t;
    }
    task* pop() noexcept {
        task* t = head;
        if (t != nullptr) {
            head = t->next;
            if (head == nullptr) tail = nullptr;
            t->next = nullptr;
        }
        return t;
    }
    bool empty() const noexcept { return head == nullptr; }
};

struct alignas(cache_line_size) local_queues {
    ext::work_stealing_deque<task> high;
    ext::work_stealing_deque<task> pending;  ///< resumed tasks; the owner takes them FIFO
    ext::work_stealing_deque<task> staged;   ///< new tasks; the owner takes them LIFO
    ext::mpsc_inbox<task, &task::next> inbox;
    task_fifo yielded;
    task_fifo low;  ///< used by policies without a shared low-priority queue

    /// Puts `t` into the owner-side queue it belongs to (owner only).
    /// Returns false for low-priority tasks, which the caller places.
    bool push_local(task& t) {
        if (t.flags & task_flag_yielded) {
            yielded.push(&t);
        } else if (t.priority == task_priority::high) {
            high.push(&t);
        } else if (t.priority == task_priority::low) {
            return false;
        } else if (t.ctx != nullptr) {
            pending.push(&t);
        } else {
            staged.push(&t);
        }
        return true;
    }

    /// Own queues in seed 000 §2.3.1 order: high, pending (FIFO), staged (LIFO).
    task* pop_own() noexcept {
        // empty() first: an idle worker polls here, and pop() on an empty deque still
        // pays its fence.
        if (!high.empty())
            if (task* t = high.pop()) return t;
        task* t = nullptr;
        while (!pending.empty()) {
            if (pending.steal(t) == ext::steal_status::success) return t;
        }
        return staged.empty() ? nullptr : staged.pop();
    }

    bool take_back(task& t) noexcept {
        auto& dq = t.priority == task_priority::high ? high : staged;
        if (dq.peek_bottom() != &t) return false;
        return dq.pop() == &t;
    }
};

/// Placement of a task made runnable by a thread that is not a worker: a resumed task
/// goes back to the inbox of the worker it last ran on, a new one round-robin.
inline ext::placement place_from_outside(local_queues* queues, unsigned n, std::atomic<unsigned>& rr, task& t) {
    const unsigned target = t.ctx != nullptr && t.last_worker < n
                                ? t.last_worker
                                // relaxed: only spreads work, orders nothing.
                                : rr.fetch_add(1, std::memory_order_relaxed) % n;
    queues[target].inbox.push(&t);
    return {target};
}

}  // namespace weft::detail
