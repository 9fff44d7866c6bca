// weft::event (see include/weft/lcos/event.hpp).
#include <weft/lcos/event.hpp>

#include <mutex>

namespace weft {

bool event::try_wait() noexcept {
    // acquire (all loads and exchanges here): the set() we pass on happens before our return.
    std::uint32_t s = state_.load(std::memory_order_acquire);
    if (mode_ == mode::manual) return (s & set_bit) != 0;
    while ((s & set_bit) != 0)
        if (state_.compare_exchange_weak(s, s & ~set_bit, std::memory_order_acquire, std::memory_order_acquire))
            return true;
    return false;
}

void event::set() noexcept {
    detail::wake_list woken;
    if (mode_ == mode::manual) {
        // acq_rel: release publishes our work to whoever sees the bit; acquire makes the
        // waiters' queued nodes ours when we see their bit.
        if ((state_.fetch_or(set_bit, std::memory_order_acq_rel) & waiting_bit) == 0) return;
        std::lock_guard g(lock_);
        woken.claim_all(waiters_);
        // relaxed: the bit publishes nothing itself; the queue it stands for is only
        // read under lock_.
        state_.fetch_and(~waiting_bit, std::memory_order_relaxed);
        return;
    }
    // Automatic: without waiters, just set the bit; a waiter sets waiting_bit only while
    // the event is clear, so the two compare-exchanges exclude each other.
    // relaxed: a first guess; the compare-exchange decides.
    std::uint32_t s = state_.load(std::memory_order_relaxed);
    while ((s & waiting_bit) == 0)
        // release: publishes our work to the waiter that consumes the event; relaxed on
        // failure: a new guess.
        if (state_.compare_exchange_weak(s, s | set_bit, std::memory_order_release, std::memory_order_relaxed)) return;
    std::lock_guard g(lock_);
    if (detail::wait_node* n = waiters_.pop_claimed()) {
        woken.push(*n);  // hand the event to it: it stays clear
    } else {
        // Every waiter timed out. Nobody else changes the word now: setters wait for
        // lock_ while waiting_bit is set, and the set bit is clear.
        // release: publishes our work to the waiter that consumes the event.
        state_.store(set_bit, std::memory_order_release);
        return;
    }
    // relaxed: as in the manual case.
    if (waiters_.empty()) state_.fetch_and(~waiting_bit, std::memory_order_relaxed);
}

bool event::wait_slow(const detail::steady_time* deadline) {
    detail::wait_node node(deadline);
    {
        std::lock_guard g(lock_);
        // acquire (both orders): a set() we pass on happens before our return.
        std::uint32_t s = state_.load(std::memory_order_acquire);
        for (;;) {
            if ((s & set_bit) != 0) {
                if (mode_ == mode::manual) return true;
                if (state_.compare_exchange_weak(s, s & ~set_bit, std::memory_order_acquire, std::memory_order_acquire))
                    return true;
            } else if (state_.compare_exchange_weak(s, s | waiting_bit, std::memory_order_acq_rel,
                                                    std::memory_order_acquire)) {
                // acq_rel: releases the bit to the set() that will look for our node.
                break;
            }
        }
        if (deadline != nullptr && std::chrono::steady_clock::now() >= *deadline) {
            // relaxed: as in set().
            if (waiters_.empty()) state_.fetch_and(~waiting_bit, std::memory_order_relaxed);
            return false;
        }
        node.reason = {detail::wait_kind::event, this, 0};
        waiters_.push_back(node);
    }
    if (node.block() == detail::wait_status::notified) return true;
    std::lock_guard g(lock_);
    if (node.linked()) {
        waiters_.remove(node);
        // relaxed: as in set().
        if (waiters_.empty()) state_.fetch_and(~waiting_bit, std::memory_order_relaxed);
    }
    return false;
}

}  // namespace weft
