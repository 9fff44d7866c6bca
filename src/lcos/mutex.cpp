// The contended paths of weft::mutex (see include/weft/lcos/mutex.hpp).
#include <weft/lcos/mutex.hpp>

#include <mutex>
#include <system_error>

namespace weft {

void mutex::lock_contended() {
    // relaxed: only this agent's own store can make owner_ equal its identity.
    if (owner_.load(std::memory_order_relaxed) == detail::current_agent())
        throw std::system_error(std::make_error_code(std::errc::resource_deadlock_would_occur),
                                "weft::mutex::lock: the calling task already holds this mutex");
    lock_slow(nullptr);
}

bool mutex::lock_slow(const detail::steady_time* deadline) {
    // A short spin first: the owner may be running on another worker and about to unlock.
    constexpr int spin_rounds = 32;
    for (int i = 0; i < spin_rounds; ++i) {
        // relaxed: a probe; the acquire compare-exchange decides.
        if (state_.load(std::memory_order_relaxed) == unlocked) {
            std::uint32_t expected = unlocked;
            // acquire: as in lock().
            if (state_.compare_exchange_weak(expected, locked, std::memory_order_acquire, std::memory_order_relaxed))
                return true;
        }
        detail::cpu_relax();
    }
    detail::wait_node node(deadline);
    {
        std::lock_guard g(lock_);
        // relaxed: a first guess; the compare-exchanges below decide.
        std::uint32_t s = state_.load(std::memory_order_relaxed);
        for (;;) {
            if (s == unlocked) {
                // acquire: as in lock().
                if (state_.compare_exchange_weak(s, locked, std::memory_order_acquire, std::memory_order_relaxed))
                    return true;
            } else if (s == locked) {
                // relaxed: the owner's unlock then fails its locked -> unlocked exchange and
                // takes lock_, which orders everything that matters.
                if (state_.compare_exchange_weak(s, contended, std::memory_order_relaxed)) break;
            } else {
                break;
            }
        }
        if (deadline != nullptr && std::chrono::steady_clock::now() >= *deadline) return false;
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
            // Hand-off: the mutex stays locked and now belongs to `next`.
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

}  // namespace weft
