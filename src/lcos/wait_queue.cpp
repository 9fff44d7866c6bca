// The shared waiter machinery of the local control objects (see
// include/weft/lcos/detail/wait_queue.hpp): blocking, waking, and the timer tickets.
#include <weft/lcos/detail/wait_queue.hpp>

#include <weft/sched/detail/suspend.hpp>

#include <cstddef>
#include <new>

namespace weft::detail {

/// Shared by a timed waiting task and the timer callback armed for it. The claim word
/// decides who resumes the task; the two references (waiter, timer) decide who returns
/// the ticket to the pool. Timers cannot be cancelled, so the callback may run long after
/// the waiter has returned: that is why this lives in a pool and not on the task's stack.
struct timer_ticket {
    std::atomic<std::uint8_t> claim{0};
    std::atomic<std::uint8_t> refs{0};
    task* waiting_task = nullptr;
    steady_time deadline{};
    timer_ticket* next_free = nullptr;
};

namespace {

/// Tickets are carved from chunks that are never freed: a ticket whose timer is dropped
/// when a runtime stops stays reachable (no leak report), and a late timer can never
/// touch freed memory.
class ticket_pool {
public:
    timer_ticket* get(task* t, steady_time deadline) {
        timer_ticket* k = nullptr;
        {
            std::lock_guard g(lock_);
            if (free_ == nullptr) refill();
            k = free_;
            free_ = k->next_free;
        }
        // relaxed (both): the ticket is not shared yet; linking the node that points to
        // it (under the object's lock) and call_at publish it.
        k->claim.store(0, std::memory_order_relaxed);
        k->refs.store(2, std::memory_order_relaxed);
        k->waiting_task = t;
        k->deadline = deadline;
        return k;
    }

    void put(timer_ticket* k) noexcept {
        std::lock_guard g(lock_);
        k->next_free = free_;
        free_ = k;
    }

private:
    struct chunk {
        chunk* next = nullptr;
        timer_ticket tickets[63];
    };

    void refill() {
        auto* c = new chunk;  // throws std::bad_alloc: nothing changed yet
        c->next = chunks_;
        chunks_ = c;
        for (timer_ticket& k : c->tickets) {
            k.next_free = free_;
            free_ = &k;
        }
    }

    ext::backoff_spinlock lock_;
    timer_ticket* free_ = nullptr;
    chunk* chunks_ = nullptr;
};

ticket_pool& pool() {
    static ticket_pool* const p = new ticket_pool;  // never destroyed: timers may outlive main()
    return *p;
}

void release_ticket(timer_ticket* k) noexcept {
    // acq_rel: the last owner must see the other owner's reads of the ticket done before
    // it recycles the ticket for another waiter.
    if (k->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) pool().put(k);
}

}  // namespace

const void* current_agent() noexcept {
    if (const task* t = current_task()) return t;
    static thread_local const char thread_tag = 0;
    return &thread_tag;
}

agent_id current_agent_id() noexcept {
    // t->id is current_holder_id()'s answer, without a second look-up of the task.
    if (const task* t = current_task()) return {t, t->id};
    return {current_agent(), holder_outside_thread};
}

wait_node::wait_node(const steady_time* deadline) : task_(current_task()), deadline_(deadline) {
    if (task_ == nullptr) {
        parker_.emplace();
    } else if (deadline != nullptr) {
        ticket_ = pool().get(task_, *deadline);
        claim_ = &ticket_->claim;
    }
}

wait_node::~wait_node() {
    WEFT_ASSERT(!linked_);
    if (ticket_ != nullptr) {
        // Never blocked: no timer was armed, and its reference is ours too.
        if (!blocked_) release_ticket(ticket_);
        // Our reference is dropped only now that the node is surely unlinked: while a
        // notifier can still find the node, its claim word must not be recycled for
        // another waiter (a notifier would then "claim" this stale node and resume a
        // task that is running).
        release_ticket(ticket_);
    }
}

void wait_node::park_untimed(task* self, void* node) noexcept {
    auto* n = static_cast<wait_node*>(node);
    // acq_rel: pairs with the exchange in wake(); whoever comes second resumes the task,
    // and the hand-off written before wake() is visible when it runs again.
    if (n->park_.exchange(park_parked, std::memory_order_acq_rel) == park_woken) resume(self);
}

void wait_node::park_timed(task* self, void* node) noexcept {
    auto* n = static_cast<wait_node*>(node);
    timer_ticket* k = n->ticket_;
    // acq_rel: as in park_untimed.
    if (n->park_.exchange(park_parked, std::memory_order_acq_rel) == park_woken) {
        release_ticket(k);  // the timer's reference: no timer will be armed
        resume(self);
        return;
    }
    // From here a notifier may resume the task at any moment, so `n` (on its stack) is
    // off limits; the ticket is kept alive by the timer's reference.
    try {
        call_at(k->deadline, &on_timer, k);
    } catch (...) {
        on_timer(k);  // no timer to be had: time out at once rather than wait forever
    }
}

void wait_node::on_timer(void* ticket) noexcept {
    auto* k = static_cast<timer_ticket*>(ticket);
    task* t = k->waiting_task;
    std::uint8_t expected = claim_waiting;
    // acq_rel: against try_claim(); exactly one of the two succeeds, and only the
    // winner resumes the task. The waiter reads the outcome with acquire.
    if (k->claim.compare_exchange_strong(expected, claim_timed_out, std::memory_order_acq_rel,
                                         std::memory_order_acquire))
        resume(t);
    release_ticket(k);
}

wait_status wait_node::block() {
    WEFT_ASSERT(!blocked_ && on_wake_ == nullptr);
    blocked_ = true;
    if (task_ == nullptr) return block_thread();
    // acquire: a notifier that already woke us published its hand-off with the exchange.
    const bool woken = park_.load(std::memory_order_acquire) == park_woken;
    if (ticket_ == nullptr) {
        if (!woken) suspend(&park_untimed, this, reason);
        return wait_status::notified;
    }
    if (woken) {
        release_ticket(ticket_);  // the timer's reference: no timer will be armed
        return wait_status::notified;
    }
    suspend(&park_timed, this, reason);
    // acquire: pairs with the winner's compare-exchange (try_claim or on_timer).
    return ticket_->claim.load(std::memory_order_acquire) == claim_notified ? wait_status::notified
                                                                            : wait_status::timed_out;
}

wait_status wait_node::block_thread() {
    thread_parker& p = *parker_;
    std::unique_lock l(p.m);
    if (deadline_ != nullptr && !p.cv.wait_until(l, *deadline_, [&p] { return p.woken; })) {
        std::uint8_t expected = claim_waiting;
        // acq_rel: as in on_timer().
        if (own_claim_.compare_exchange_strong(expected, claim_timed_out, std::memory_order_acq_rel,
                                               std::memory_order_acquire))
            return wait_status::timed_out;
        // A notifier claimed us just in time: it is about to wake us.
    }
    p.cv.wait(l, [&p] { return p.woken; });
    return wait_status::notified;
}

void wait_node::wake() noexcept {
    if (on_wake_ != nullptr) {
        on_wake_(*this);
        return;
    }
    if (task* t = task_) {
        // acq_rel: pairs with the exchange in park_*; if the task is parked, we resume it,
        // else its own callback sees park_woken and does.
        if (park_.exchange(park_woken, std::memory_order_acq_rel) == park_parked) resume(t);
        return;
    }
    thread_parker& p = *parker_;
    // Notify under the lock: the waiter cannot see `woken` (and destroy the parker)
    // before notify_one() has returned.
    std::lock_guard g(p.m);
    p.woken = true;
    p.cv.notify_one();
}

void wake_list::push(wait_node& n) noexcept {
    WEFT_ASSERT(!n.linked_);
    n.next_ = nullptr;
    (tail_ != nullptr ? tail_->next_ : head_) = &n;
    tail_ = &n;
}

void wake_list::wake_all() noexcept {
    wait_node* n = head_;
    head_ = tail_ = nullptr;
    while (n != nullptr) {
        wait_node* next = n->next_;  // read before wake(): the node may vanish after it
        n->wake();
        n = next;
    }
}

}  // namespace weft::detail
