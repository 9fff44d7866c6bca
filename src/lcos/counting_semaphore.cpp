// The waiting side of weft's semaphores (see include/weft/lcos/counting_semaphore.hpp).
#include <weft/lcos/counting_semaphore.hpp>

#include <mutex>

namespace weft::detail {

bool semaphore_core::acquire_slow(const steady_time* deadline) {
    wait_node node(deadline);
    {
        std::lock_guard g(lock_);
        // seq_cst (this increment, the count_ load below, and release()'s pair): the
        // Dekker hand-shake described at the class.
        waiters_.fetch_add(1);
        std::ptrdiff_t c = count_.load();
        while (c > 0)
            if (count_.compare_exchange_weak(c, c - 1)) {
                waiters_.fetch_sub(1);
                return true;
            }
        if (deadline != nullptr && std::chrono::steady_clock::now() >= *deadline) {
            waiters_.fetch_sub(1);
            return false;
        }
        queue_.push_back(node);
    }
    if (node.block() == wait_status::notified) return true;  // hand_out() took a permit for us
    std::lock_guard g(lock_);
    if (node.linked()) {
        queue_.remove(node);
        waiters_.fetch_sub(1);
    }
    return false;
}

void semaphore_core::release(std::ptrdiff_t n, std::ptrdiff_t max) noexcept {
    WEFT_ASSERT(n >= 0);
    if (n == 0) return;
    // seq_cst: the Dekker hand-shake with acquire_slow(); also publishes everything
    // before release() to whoever takes the permit.
    const std::ptrdiff_t old = count_.fetch_add(n);
    WEFT_ASSERT(old <= max - n);
    if (waiters_.load() == 0) return;
    wake_list woken;
    std::lock_guard g(lock_);
    hand_out(woken);
}

void semaphore_core::hand_out(wake_list& woken) noexcept {
    while (!queue_.empty()) {
        // relaxed: a first guess; the compare-exchange decides.
        std::ptrdiff_t c = count_.load(std::memory_order_relaxed);
        do {
            if (c <= 0) return;
            // acquire: the permit's release() happens before the waiter we give it to.
        } while (!count_.compare_exchange_weak(c, c - 1, std::memory_order_acquire, std::memory_order_relaxed));
        wait_node* n = queue_.pop_front();
        waiters_.fetch_sub(1);
        if (n->try_claim()) {
            woken.push(*n);
        } else {
            count_.fetch_add(1);  // it timed out: the permit goes back
        }
    }
}

}  // namespace weft::detail
