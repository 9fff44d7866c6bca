// The waiter machinery every local control object shares: an intrusive FIFO of waiting
// tasks or threads, a wake-up that can race with a timeout, and deadline arithmetic.
#pragma once

#include <weft/concurrency/backoff_spinlock.hpp>
#include <weft/config/config.hpp>
#include <weft/sched/detail/suspend.hpp>
#include <weft/threads/task.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <type_traits>

namespace weft::detail {

/// How a blocked wait ended.
enum class wait_status : std::uint8_t {
    notified,   ///< a notifier claimed the waiter (and handed it whatever it waited for)
    timed_out,  ///< the deadline passed first; nobody handed it anything
};

/// Process-wide, never-freed record shared by a timed waiting task and its timer
/// callback, so that a timer firing after the waiter has gone touches valid memory.
struct timer_ticket;

/// How a plain OS thread blocks in a wait_node (a timed futex wait is not portable; this
/// is).
struct thread_parker {
    std::mutex m;
    std::condition_variable cv;
    bool woken = false;
};

/// Identifies the calling agent for ownership checks: the running task, or the calling
/// OS thread when it runs no task. Stable across a task's migrations between workers.
const void* current_agent() noexcept;

/// The calling agent (current_agent()) and its id for wait_reason::holder
/// (current_holder_id()), from one look-up: what a lock records about its owner.
struct agent_id {
    const void* agent;
    std::uint64_t holder;
};
agent_id current_agent_id() noexcept;

/// One party blocked on a local control object: a suspended task or a blocked OS
/// thread, or (with on_wake) an asynchronous operation completed by a callback.
///
/// The protocol (see docs of block() and wake()):
///  1. the waiter constructs a node (with its deadline, if any), takes the object's
///     lock, checks its condition, links the node into the object's wait_queue and
///     unlocks; then it calls block().
///  2. a notifier, under the object's lock, unlinks the node and calls try_claim(); only
///     if that succeeds does it hand the waiter what it waited for (ownership, a value)
///     and, after unlocking, call wake(). A failed claim means the waiter timed out:
///     the notifier just drops the node and tries the next one.
///  3. block() returns notified, or timed_out; a timed-out waiter takes the object's
///     lock and unlinks its node if it is still linked.
/// Exactly one of {notifier, timeout} claims a waiter, through one compare-exchange on
/// its claim word; only the winner resumes it, so a waiter is resumed exactly once.
///
/// Where the claim word lives: in the node for untimed waits and for plain threads (a
/// thread times itself out). A timed task arms a timer on the runtime's timer thread;
/// timers cannot be cancelled, so its claim word lives in a pooled timer_ticket with two
/// references, the timer's and the node's. The node drops its reference only in its
/// destructor, once it is surely unlinked: while a notifier can still find the node, its
/// claim word must not be recycled for another waiter.
///
/// A task parks with a two-party exchange on park_ (idle -> parked by the suspend
/// callback, idle -> woken by wake()): whoever comes second resumes the task. So the
/// node can be linked before the task suspends (a condition variable must link it
/// before releasing the user's lock), and wake() never resumes a running task.
class wait_node {
public:
    /// A node for the calling task or thread, optionally with a deadline.
    /// @throws std::bad_alloc if a timer ticket cannot be allocated.
    explicit wait_node(const std::chrono::steady_clock::time_point* deadline = nullptr);

    /// Callback completing an asynchronous node (the node is its first base; it must
    /// dispose of itself). Called by wake() outside every lock.
    using wake_fn = void (*)(wait_node& self) noexcept;
    /// A node that no task or thread blocks on: wake() calls `on_wake` instead.
    explicit wait_node(wake_fn on_wake) noexcept : on_wake_(on_wake) {}

    wait_node(const wait_node&) = delete;
    wait_node& operator=(const wait_node&) = delete;
    ~wait_node();

    /// Called by the waiter after linking the node and unlocking: suspends the task
    /// (its worker runs other tasks) or blocks the thread until wake() or the deadline.
    /// Call at most once.
    wait_status block();

    /// Notifier side, under the object's lock, on an unlinked node: true if this call
    /// won the waiter (it will not time out); then call wake() exactly once.
    bool try_claim() noexcept {
        std::uint8_t expected = claim_waiting;
        // acq_rel: release orders the hand-off written before wake() with the waiter's
        // acquire after it resumes; acquire orders against a concurrent timeout.
        return claim_->compare_exchange_strong(expected, claim_notified, std::memory_order_acq_rel,
                                               std::memory_order_acquire);
    }

    /// Resumes the waiter after a successful try_claim(). Call without holding the
    /// object's lock if possible; the node may be gone as soon as this returns.
    void wake() noexcept;

    /// True while the node is in a wait_queue (only under the owning object's lock).
    bool linked() const noexcept { return linked_; }

    /// Object-specific data the waiter sets before linking (e.g. shared vs. exclusive).
    std::uintptr_t tag = 0;
    /// Object-specific pointer (e.g. where a channel delivers a value).
    void* slot = nullptr;
    /// Object-specific result the notifier sets before wake() (e.g. channel closed).
    std::uint8_t outcome = 0;
    /// What the waiter waits on (kind, object, holder), set before block(): the
    /// deadlock report names it.
    wait_reason reason;

private:
    friend class wait_queue;
    friend class wake_list;
    static constexpr std::uint8_t claim_waiting = 0;
    static constexpr std::uint8_t claim_notified = 1;
    static constexpr std::uint8_t claim_timed_out = 2;
    static constexpr std::uint8_t park_idle = 0;
    static constexpr std::uint8_t park_parked = 1;
    static constexpr std::uint8_t park_woken = 2;

    static void park_untimed(task* self, void* node) noexcept;
    static void park_timed(task* self, void* node) noexcept;
    static void on_timer(void* ticket) noexcept;
    wait_status block_thread();

    wait_node* prev_ = nullptr;
    wait_node* next_ = nullptr;
    bool linked_ = false;
    bool blocked_ = false;
    task* task_ = nullptr;
    wake_fn on_wake_ = nullptr;
    timer_ticket* ticket_ = nullptr;
    const std::chrono::steady_clock::time_point* deadline_ = nullptr;
    std::atomic<std::uint8_t> own_claim_{claim_waiting};
    std::atomic<std::uint8_t>* claim_ = &own_claim_;
    std::atomic<std::uint8_t> park_{park_idle};
    std::optional<thread_parker> parker_;
};

/// An intrusive FIFO of wait_nodes; every call must hold the owning object's lock.
class wait_queue {
public:
    bool empty() const noexcept { return head_ == nullptr; }
    wait_node* front() const noexcept { return head_; }

    void push_back(wait_node& n) noexcept {
        WEFT_ASSERT(!n.linked_);
        n.prev_ = tail_;
        n.next_ = nullptr;
        (tail_ != nullptr ? tail_->next_ : head_) = &n;
        tail_ = &n;
        n.linked_ = true;
    }

    void remove(wait_node& n) noexcept {
        WEFT_ASSERT(n.linked_);
        (n.prev_ != nullptr ? n.prev_->next_ : head_) = n.next_;
        (n.next_ != nullptr ? n.next_->prev_ : tail_) = n.prev_;
        n.prev_ = n.next_ = nullptr;
        n.linked_ = false;
    }

    wait_node* pop_front() noexcept {
        wait_node* n = head_;
        if (n != nullptr) remove(*n);
        return n;
    }

    /// Unlinks nodes from the front until one is claimed (timed-out ones are dropped:
    /// their waiters see them unlinked); nullptr if none is left.
    wait_node* pop_claimed() noexcept {
        while (wait_node* n = pop_front())
            if (n->try_claim()) return n;
        return nullptr;
    }

private:
    wait_node* head_ = nullptr;
    wait_node* tail_ = nullptr;
};

/// Claimed nodes to wake once the object's lock is released: declare it before the
/// lock guard, so that its destructor runs after the guard's.
class wake_list {
public:
    wake_list() = default;
    wake_list(const wake_list&) = delete;
    wake_list& operator=(const wake_list&) = delete;
    ~wake_list() { wake_all(); }

    /// Adds an unlinked, claimed node (reuses its link).
    void push(wait_node& n) noexcept;
    /// Claims and moves every node of `q` here (timed-out ones are dropped).
    void claim_all(wait_queue& q) noexcept {
        while (wait_node* n = q.pop_claimed()) push(*n);
    }
    void wake_all() noexcept;

private:
    wait_node* head_ = nullptr;
    wait_node* tail_ = nullptr;
};

using steady_time = std::chrono::steady_clock::time_point;

/// The steady-clock deadline `rel` from now, or nullopt when it is so far away that it
/// means "never" (no timer is armed for it then). A non-positive `rel` is now.
template <class Rep, class Period>
std::optional<steady_time> deadline_after(const std::chrono::duration<Rep, Period>& rel) {
    using namespace std::chrono;
    const auto now = steady_clock::now();
    if (rel <= rel.zero()) return now;
    // Beyond a century (or a floating-point infinity) we would overflow: treat as never.
    if (!(duration<double>(rel) < duration<double>(hours(24 * 365 * 100)))) return std::nullopt;
    return now + ceil<steady_clock::duration>(rel);
}

/// Runs `attempt(const steady_time* deadline) -> bool` (true: done) against an
/// absolute time of any clock. For a clock other than steady_clock, a timeout is
/// re-checked against that clock and the attempt repeated while its time has not come.
template <class Clock, class Duration, class Attempt>
bool until(const std::chrono::time_point<Clock, Duration>& abs, Attempt&& attempt) {
    using namespace std::chrono;
    if constexpr (std::is_same_v<Clock, steady_clock>) {
        if (abs >= steady_time::max() - hours(24 * 365 * 100)) return attempt(nullptr);
        const steady_time d = ceil<steady_clock::duration>(abs);
        return attempt(&d);
    } else {
        for (;;) {
            const auto left = abs - Clock::now();
            const std::optional<steady_time> d = deadline_after(left);
            if (attempt(d ? &*d : nullptr)) return true;
            if (left <= left.zero() || Clock::now() >= abs) return false;
        }
    }
}

}  // namespace weft::detail
