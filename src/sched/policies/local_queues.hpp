// The per-worker queue set the built-in policies share: high-priority, pending
// (resumed) and staged (new) work-stealing deques, an inbox for tasks from other
// threads, and owner-only FIFO lists for yielded and low-priority tasks.
#pragma once

#include <weft/concurrency/mpsc_inbox.hpp>
#include <weft/concurrency/backoff_spinlock.hpp>
#include <weft/concurrency/work_stealing_deque.hpp>
#include <weft/ext/scheduler_policy.hpp>

#include <atomic>
#include <cstddef>
#include <mutex>
#include <utility>

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

/// The low-priority queue every worker shares (seed 000 §2.3.1: its tasks run only when
/// nothing else is ready): a locked FIFO with a count that keeps idle workers off the lock.
class shared_low_queue {
public:
    void push(task& t) {
        push_all([p = &t]() mutable { return std::exchange(p, nullptr); });
    }
    /// Pushes every task `next()` returns until it returns null, under one lock.
    template <class Next>
    void push_all(Next next) {
        std::size_t n = 0;
        std::lock_guard lock(lock_);
        while (task* t = next()) {
            fifo_.push(t);
            ++n;
        }
        if (n != 0) count_.fetch_add(n, std::memory_order_relaxed);  // relaxed: a hint, see pop
    }
    task* pop() noexcept {
        // relaxed: an emptiness hint that keeps idle workers off the lock; the lock decides.
        if (count_.load(std::memory_order_relaxed) == 0) return nullptr;
        std::lock_guard lock(lock_);
        task* t = fifo_.pop();
        if (t != nullptr) count_.fetch_sub(1, std::memory_order_relaxed);  // relaxed: as above
        return t;
    }
    std::size_t size() const noexcept { return count_.load(std::memory_order_relaxed); }  // relaxed: a statistic

private:
    alignas(cache_line_size) ext::backoff_spinlock lock_;
    task_fifo fifo_;
    std::atomic<std::size_t> count_{0};
};

struct alignas(cache_line_size) local_queues {
    ext::work_stealing_deque<task> high;
    ext::work_stealing_deque<task> pending;  ///< resumed tasks; the owner takes them FIFO
    ext::work_stealing_deque<task> staged;   ///< new tasks; the owner takes them LIFO
    ext::mpsc_inbox<task, &task::next> inbox;
    task_fifo yielded;
    task_fifo low;  ///< used by policies without a shared low-priority queue
    /// Owner-written sizes of the two owner-only lists, for queue/length.
    owner_counter yielded_in, yielded_out, low_in, low_out;
    /// Tasks thieves took from here; written by the thieves (fetch_add), so on a line
    /// of their own, away from the owner's.
    alignas(cache_line_size) std::atomic<std::uint64_t> stolen_from_staged{0};
    std::atomic<std::uint64_t> stolen_from_pending{0};

    /// Puts `t` into the owner-side queue it belongs to (owner only).
    /// Returns false for low-priority tasks, which the caller places.
    bool push_local(task& t) {
        if (t.is_yield()) {
            yielded.push(&t);
            yielded_in.add();
        } else if (t.priority() == task_priority::high) {
            high.push(&t);
        } else if (t.priority() == task_priority::low) {
            return false;
        } else if (t.is_resumed()) {
            pending.push(&t);
        } else {
            staged.push(&t);
        }
        return true;
    }

    /// Own queues in seed 000 §2.3.1 order: high, pending (FIFO), staged (LIFO). Counts
    /// the access, and the miss when all three are empty (HPX's pending-accesses/misses).
    task* pop_own(ext::worker_context& self) noexcept {
        self.counters.pending_accesses.add();
        // empty() first: an idle worker polls here, and pop() on an empty deque still
        // pays its fence.
        if (!high.empty())
            if (task* t = high.pop()) return t;
        task* t = nullptr;
        while (!pending.empty()) {
            if (pending.steal(t) == ext::steal_status::success) return t;
        }
        if (!staged.empty())
            if ((t = staged.pop()) != nullptr) return t;
        self.counters.pending_misses.add();
        return nullptr;
    }

    task* pop_yielded() noexcept {
        task* t = yielded.pop();
        if (t != nullptr) yielded_out.add();
        return t;
    }
    void push_low(task& t) noexcept {
        low.push(&t);
        low_in.add();
    }
    task* pop_low() noexcept {
        task* t = low.pop();
        if (t != nullptr) low_out.add();
        return t;
    }

    /// A thief's steal from queue `dq` of these queues: counted on both sides.
    task* steal_from(ext::work_stealing_deque<task>& dq, ext::worker_context& thief, unsigned victim) noexcept {
        task* t = nullptr;
        for (int attempt = 0; attempt < 2 && !dq.empty(); ++attempt) {
            if (dq.steal(t) == ext::steal_status::success) {
                // relaxed: a statistic; thieves share the line, the owner never writes it.
                if (t->is_resumed()) {
                    stolen_from_pending.fetch_add(1, std::memory_order_relaxed);
                    thief.counters.stolen_to_pending.add();
                } else {
                    stolen_from_staged.fetch_add(1, std::memory_order_relaxed);
                    thief.counters.stolen_to_staged.add();
                }
                thief.last_victim = victim;
                return t;
            }
        }
        return nullptr;
    }

    /// For the counters, from any thread.
    ext::scheduler_policy::queue_state state() const noexcept {
        ext::scheduler_policy::queue_state s;
        s.length = high.size_approx() + pending.size_approx() + staged.size_approx();
        const std::uint64_t yi = yielded_in.get(), yo = yielded_out.get(), li = low_in.get(), lo = low_out.get();
        s.length += (yi > yo ? yi - yo : 0) + (li > lo ? li - lo : 0);
        // relaxed: statistics.
        s.stolen_from_staged = stolen_from_staged.load(std::memory_order_relaxed);
        s.stolen_from_pending = stolen_from_pending.load(std::memory_order_relaxed);
        return s;
    }

    bool take_back(task& t) noexcept {
        auto& dq = t.priority() == task_priority::high ? high : staged;
        if (dq.peek_bottom() != &t) return false;
        // `high` also holds resumed high-priority tasks: a child that was stolen, then
        // suspended and resumed onto this worker, must continue on its own context, not
        // restart inline. relaxed: whoever last wrote the state published it to this
        // thread before t entered this deque (our own resume, or the inbox's acquire).
        if (!t.is_staged()) return false;
        return dq.pop() == &t;
    }
};

/// An idle worker takes everything waiting in another worker's inbox: tasks from threads
/// outside the runtime (resumed ones among them), which would otherwise wait until that
/// worker, busy in a task, drains it (issue #22: no worker idles while a task is ready).
/// take_all is one exchange, so any thread may take it. Returns the first task, null if
/// none; `place(task&)` gets each of the others, in order. Not counted as a steal (the
/// steal counters count tasks taken from queues).
template <class Place>
task* take_inbox(ext::mpsc_inbox<task, &task::next>& inbox, Place&& place) noexcept {
    if (inbox.empty()) return nullptr;
    task* first = inbox.take_all();
    if (first == nullptr) return nullptr;
    for (task* t = first->next; t != nullptr;) {
        task* next = t->next;
        t->next = nullptr;
        try {
            place(*t);
        } catch (...) {
            std::terminate();  // a queue could not grow: out of memory
        }
        t = next;
    }
    first->next = nullptr;
    return first;
}

/// Placement of a task made runnable by a thread that is not a worker: a resumed task
/// goes back to the inbox of the worker it last ran on, a new one round-robin.
inline ext::placement place_from_outside(local_queues* queues, unsigned n, std::atomic<unsigned>& rr, task& t) {
    const unsigned target = t.is_resumed() && t.home_worker() < n
                                ? t.home_worker()
                                // relaxed: only spreads work, orders nothing.
                                : rr.fetch_add(1, std::memory_order_relaxed) % n;
    queues[target].inbox.push(&t);
    return {target};
}

}  // namespace weft::detail
