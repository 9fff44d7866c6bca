// The contended paths and the misuse reports of weft::mutex (see
// include/weft/lcos/mutex.hpp).
#include <weft/lcos/mutex.hpp>

#include <mutex>
#include <string>

namespace weft {

bool mutex::lock_slow(const detail::steady_time* deadline, detail::wait_kind kind, const void* object) {
    const detail::agent_id me = detail::current_agent_id();
    // A lock that only our own unlock could grant. With a deadline it just times out.
    // relaxed: only this agent's own store can make owner_ equal its identity.
    if (deadline == nullptr && owner_.load(std::memory_order_relaxed) == me.agent)
        detail::throw_lco_error(std::errc::resource_deadlock_would_occur,
                                kind == detail::wait_kind::recursive_mutex ? "recursive_mutex::lock" : "mutex::lock",
                                std::string("the calling ") + detail::caller_kind() +
                                    " already holds this mutex; locking it again would wait forever");
    // A short spin first: the owner may be running on another worker and about to unlock.
    constexpr int spin_rounds = 32;
    for (int i = 0; i < spin_rounds; ++i) {
        // relaxed: a probe; the acquire compare-exchange decides.
        if (state_.load(std::memory_order_relaxed) == unlocked) {
            std::uint32_t expected = unlocked;
            // acquire: as in lock(); relaxed on failure: the next round probes again.
            if (state_.compare_exchange_weak(expected, locked, std::memory_order_acquire, std::memory_order_relaxed))
                return true;
        }
        detail::cpu_relax();
    }
    detail::wait_node node(deadline);
    {
        std::lock_guard g(lock_);
        // acquire (this load and the locked -> contended exchange): besides a first guess,
        // they order the previous owner's clearing of holder_ (before its release) before
        // our read of holder_ below, so that we never name an owner that has gone.
        std::uint32_t s = state_.load(std::memory_order_acquire);
        for (;;) {
            if (s == unlocked) {
                // acquire: as in lock(); relaxed on failure (here and below): `s` is a new guess.
                if (state_.compare_exchange_weak(s, locked, std::memory_order_acquire, std::memory_order_relaxed))
                    return true;
            } else if (s == locked) {
                // The owner's unlock then fails its locked -> unlocked exchange and takes
                // lock_, which orders everything the hand-off needs.
                if (state_.compare_exchange_weak(s, contended, std::memory_order_acquire, std::memory_order_relaxed))
                    break;
            } else {
                break;
            }
        }
        if (deadline != nullptr && std::chrono::steady_clock::now() >= *deadline) return false;
        // The owner hands the mutex to the front waiter, so only the front one knows who
        // holds it until it gets it; a waiter behind others would name a holder that may
        // have handed it on by then, so it names none.
        // relaxed: diagnostics; the acquire above orders it (0: the owner is still
        // between its compare-exchange and its store).
        node.reason = {kind, object, waiters_.empty() ? holder_.load(std::memory_order_relaxed) : 0};
        node.tag = me.holder;  // unlock_contended() records it as the next holder
        waiters_.push_back(node);
    }
    if (node.block() == detail::wait_status::notified) return true;  // unlock() handed it to us
    std::lock_guard g(lock_);
    if (node.linked()) waiters_.remove(node);
    return false;
}

void mutex::unlock_contended() noexcept {
    detail::wait_node* next = nullptr;
    {
        std::lock_guard g(lock_);
        WEFT_ASSERT(state_.load(std::memory_order_relaxed) == contended);  // relaxed: we hold lock_
        next = waiters_.pop_claimed();
        if (next != nullptr) {
            // Hand-off: the mutex stays locked and now belongs to `next`, which a waiter
            // that queues from now on names (the new owner stores it again when it runs).
            // relaxed: diagnostics; lock_ orders it before such a waiter's read.
            holder_.store(next->tag, std::memory_order_relaxed);
            // relaxed: only changes between locked states; the new owner synchronizes
            // through its claim (try_claim is acq_rel).
            state_.store(waiters_.empty() ? locked : contended, std::memory_order_relaxed);
        } else {
            // release: publishes our critical section to the next locker.
            state_.store(unlocked, std::memory_order_release);
        }
    }
    if (next != nullptr) next->wake();
}

void mutex::unlock_not_owner(const char* where) const {
    // relaxed: diagnostics only.
    const std::uint64_t holder = holder_.load(std::memory_order_relaxed);
    std::string what = std::string("the calling ") + detail::caller_kind() + " does not hold this mutex";
    // relaxed: as above.
    if (state_.load(std::memory_order_relaxed) == unlocked) what += " (nobody does)";
    else if (holder != 0) what += std::string(" (") + detail::describe_holder(holder).text + " does)";
    detail::throw_lco_error(std::errc::operation_not_permitted, where, what);
}

void mutex::destroyed_locked(const char* type) const noexcept {
    // relaxed (both): diagnostics only.
    detail::lco_destroyed_in_use(type, "locked", holder_.load(std::memory_order_relaxed),
                                 owner_.load(std::memory_order_relaxed) == detail::current_agent());
}

}  // namespace weft
