// Waiting for a future's shared state with a deadline (future::wait_for / wait_until):
// the task suspends (its worker runs other tasks) or the plain thread blocks, until the
// state is ready or the deadline passes, whichever comes first.
//
// The protocol is the one of the LCOs' timed waits (weft/lcos/detail/wait_queue.hpp):
// exactly one of {notifier, timeout} claims the waiter through one compare-exchange on a
// claim word, and only the winner wakes it; a timer cannot be cancelled, so the claim
// word lives in a pooled block with a reference per party that may still touch it. What
// differs is the list: a shared state's waiters are a lock-free stack that is never
// unlinked from (mark_ready takes it whole), so a waiter that timed out stays on it until
// the state is ready, and the block is that waiter: the state's notification drops its
// reference then. (The LCOs' wait_node is unlinked under its object's lock, and lives in
// the lcos layer above this one.)
#pragma once

#include <weft/concurrency/backoff_spinlock.hpp>
#include <weft/futures/detail/shared_state.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <new>
#include <optional>
#include <type_traits>

namespace weft::detail {

using steady_time = std::chrono::steady_clock::time_point;

/// The steady-clock deadline `rel` from now, or nullopt when it is so far away that it
/// means "never" (hours::max() must not overflow into the past). A non-positive `rel` is
/// now. (The same rule as the LCOs' deadline_after.)
template <class Rep, class Period>
std::optional<steady_time> future_deadline_after(const std::chrono::duration<Rep, Period>& rel) {
    using namespace std::chrono;
    const auto now = steady_clock::now();
    if (rel <= rel.zero()) return now;
    // Beyond a century (or a floating-point infinity) we would overflow: treat as never.
    if (!(duration<double>(rel) < duration<double>(hours(24 * 365 * 100)))) return std::nullopt;
    return now + ceil<steady_clock::duration>(rel);
}

/// Memory for a timed_waiter, and its return (see below).
inline void* timed_waiter_node();
inline void recycle_timed_waiter_node(void* p) noexcept;

/// One timed wait on a shared state: registered on its waiter list, and (for a task) the
/// argument of a timer. References: the list's (dropped when the state notifies it), the
/// waiter's, and the timer's for a task. Not hot: one node from a small pool per wait
/// that actually blocks.
class timed_waiter final : public waiter {
public:
    /// Blocks until `s` is ready or `deadline` passes; true if it is ready.
    static bool wait(shared_state_base& s, const steady_time& deadline) {
        if (s.is_ready()) return true;
        if (std::chrono::steady_clock::now() >= deadline) return s.is_ready();
        task* self = current_task();
        const std::uint8_t refs = self != nullptr ? 3 : 2;
        timed_waiter* n = ::new (timed_waiter_node()) timed_waiter(self, refs);
        if (self != nullptr) n->suspend_task(s, deadline);
        else n->block_thread(s, deadline);
        n->release();  // the waiter's reference
        // Ready even if the deadline won by a hair: the status is the state's.
        return s.is_ready();
    }

    timed_waiter(task* t, std::uint8_t refs) noexcept : task_(t), refs_(refs) { callback = &on_ready; }

private:
    static constexpr std::uint8_t claim_waiting = 0;
    static constexpr std::uint8_t claim_notified = 1;
    static constexpr std::uint8_t claim_timed_out = 2;

    /// How a plain thread blocks (a timed futex wait is not portable; this is).
    struct parker {
        std::mutex m;
        std::condition_variable cv;
        bool woken = false;
    };

    void suspend_task(shared_state_base& s, const steady_time& deadline) {
        struct args_t {
            timed_waiter* n;
            shared_state_base* s;
            steady_time deadline;
        } args{this, &s, deadline};
        suspend(
            [](task* me, void* p) noexcept {
                // `p` lives on the suspended stack: once the waiter is on the list, the
                // state may resume us at any moment, so read everything first.
                const args_t a = *static_cast<args_t*>(p);
                if (!a.s->add_waiter(*a.n)) {
                    // Ready already: nobody will notify, and no timer will be armed.
                    a.n->release();
                    a.n->release();
                    resume(me);
                    return;
                }
                try {
                    call_at(a.deadline, &on_timer, a.n);
                } catch (...) {
                    on_timer(a.n);  // no timer to be had: time out at once rather than never
                }
            },
            &args);
    }

    void block_thread(shared_state_base& s, const steady_time& deadline) {
        parker p;
        parker_ = &p;
        if (!s.add_waiter(*this)) {
            release();  // the list's: nobody will notify
            return;
        }
        std::unique_lock l(p.m);
        if (!p.cv.wait_until(l, deadline, [&p] { return p.woken; })) {
            std::uint8_t expected = claim_waiting;
            // acq_rel: against the notifier's claim; exactly one of the two succeeds.
            if (claim_.compare_exchange_strong(expected, claim_timed_out, std::memory_order_acq_rel,
                                               std::memory_order_acquire))
                return;  // the notifier will not touch `p`
            // The state claimed us just in time: wait for it to be done with `p`.
            p.cv.wait(l, [&p] { return p.woken; });
        }
    }

    /// The state is ready (its mark_ready notifies every waiter once).
    static void on_ready(waiter* w) noexcept {
        auto* n = static_cast<timed_waiter*>(w);
        n->claim_and_wake(claim_notified);
        n->release();  // the list's
    }

    static void on_timer(void* p) noexcept {
        auto* n = static_cast<timed_waiter*>(p);
        n->claim_and_wake(claim_timed_out);
        n->release();  // the timer's
    }

    void claim_and_wake(std::uint8_t outcome) noexcept {
        std::uint8_t expected = claim_waiting;
        // acq_rel: exactly one of {notifier, timeout} wins; the winner's writes are
        // visible to the waiter, which acquires through its resumption or the parker.
        if (!claim_.compare_exchange_strong(expected, outcome, std::memory_order_acq_rel, std::memory_order_acquire))
            return;
        if (task_ != nullptr) {
            resume(task_);
            return;
        }
        // Only a notification can win for a thread (its timeout is claimed by the thread
        // itself). Notify under the lock: the thread cannot see `woken` and leave (taking
        // the parker with it) before notify_one() has returned.
        std::lock_guard g(parker_->m);
        parker_->woken = true;
        parker_->cv.notify_one();
    }

    void release() noexcept {
        // acq_rel: the last owner sees every other owner's use of the node before recycling it.
        if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
            this->~timed_waiter();
            recycle_timed_waiter_node(this);
        }
    }

    task* task_;
    parker* parker_ = nullptr;
    std::atomic<std::uint8_t> claim_{claim_waiting};
    std::atomic<std::uint8_t> refs_;
};

/// timed_waiter nodes come from chunks that are never freed, as the LCOs' timer tickets
/// do: a node whose timer a stopping runtime drops stays reachable (no leak report), and a
/// timer firing late never touches freed memory.
class timed_waiter_pool {
public:
    static timed_waiter_pool& instance() {
        static timed_waiter_pool* const p = new timed_waiter_pool;  // never destroyed: timers may outlive main()
        return *p;
    }
    void* get() {
        std::lock_guard g(lock_);
        if (free_ == nullptr) refill();
        slot* s = free_;
        free_ = s->next;
        return s;
    }
    void put(void* p) noexcept {
        std::lock_guard g(lock_);
        free_ = ::new (p) slot{free_};
    }

private:
    union slot {
        slot* next;
        alignas(timed_waiter) unsigned char bytes[sizeof(timed_waiter)];
    };
    struct chunk {
        chunk* next;
        slot slots[63];
    };
    void refill() {
        auto* c = new chunk;  // throws std::bad_alloc: nothing changed yet
        c->next = chunks_;
        chunks_ = c;
        for (slot& s : c->slots) free_ = ::new (&s) slot{free_};
    }

    ext::backoff_spinlock lock_;
    slot* free_ = nullptr;
    chunk* chunks_ = nullptr;
};

inline void* timed_waiter_node() { return timed_waiter_pool::instance().get(); }
inline void recycle_timed_waiter_node(void* p) noexcept { timed_waiter_pool::instance().put(p); }

/// Runs `attempt(const steady_time* deadline) -> bool` (true: ready; a null deadline
/// means no deadline) against an absolute time of any clock. For a clock other than
/// steady_clock, a timeout is checked against that clock and the attempt repeated while
/// its time has not come. (The same rule as the LCOs' until.)
template <class Clock, class Duration, class Attempt>
bool future_wait_until(const std::chrono::time_point<Clock, Duration>& abs, Attempt&& attempt) {
    using namespace std::chrono;
    // In floating point: a time_point<Clock, hours>::max() must not overflow.
    const duration<double> at(abs.time_since_epoch());
    if constexpr (std::is_same_v<Clock, steady_clock>) {
        if (!(at < duration<double>((steady_time::max() - hours(24 * 365 * 100)).time_since_epoch())))
            return attempt(nullptr);
        const steady_time d = ceil<steady_clock::duration>(abs);
        return attempt(&d);
    } else {
        for (;;) {
            const duration<double> left = at - duration<double>(Clock::now().time_since_epoch());
            const std::optional<steady_time> d = future_deadline_after(left);
            if (attempt(d ? &*d : nullptr)) return true;
            if (left <= left.zero() || !(Clock::now() < abs)) return false;
        }
    }
}

}  // namespace weft::detail

namespace weft {
/// How a timed wait on a future ended (as std::future_status): the result is ready, the
/// time ran out first, or the future holds a deferred function that nobody started (a
/// timed wait never starts it).
enum class future_status { ready, timeout, deferred };
}  // namespace weft

namespace weft::detail {

/// future::wait_for on state `s`. A duration so long it would overflow waits forever.
template <class Rep, class Period>
future_status wait_state_for(shared_state_base& s, const std::chrono::duration<Rep, Period>& rel) {
    if (s.deferred_pending()) return future_status::deferred;
    if (s.is_ready()) return future_status::ready;
    const std::optional<steady_time> d = future_deadline_after(rel);
    if (!d) {
        s.wait();
        return future_status::ready;
    }
    return timed_waiter::wait(s, *d) ? future_status::ready : future_status::timeout;
}

/// future::wait_until on state `s`, for a time point of any clock.
template <class Clock, class Duration>
future_status wait_state_until(shared_state_base& s, const std::chrono::time_point<Clock, Duration>& abs) {
    if (s.deferred_pending()) return future_status::deferred;
    if (s.is_ready()) return future_status::ready;
    const bool ready = future_wait_until(abs, [&s](const steady_time* d) {
        if (d != nullptr) return timed_waiter::wait(s, *d);
        s.wait();
        return true;
    });
    return ready ? future_status::ready : future_status::timeout;
}

}  // namespace weft::detail
