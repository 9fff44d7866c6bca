// The waiting side of weft's semaphores (see include/weft/lcos/counting_semaphore.hpp).
#include <weft/lcos/counting_semaphore.hpp>

#include <mutex>
#include <string>

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
        node.reason = {wait_kind::counting_semaphore, this, 0};
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

std::ptrdiff_t semaphore_core::checked_initial(std::ptrdiff_t desired, std::ptrdiff_t max) {
    if (desired < 0 || desired > max)
        throw_lco_error(std::errc::invalid_argument, "counting_semaphore",
                        "the initial count " + std::to_string(desired) + " is outside 0.." + std::to_string(max));
    return desired;
}

void semaphore_core::release(std::ptrdiff_t n, std::ptrdiff_t max) {
    if (n < 0)
        throw_lco_error(std::errc::invalid_argument, "counting_semaphore::release",
                        "release(" + std::to_string(n) + "): the count to add cannot be negative");
    if (n == 0) return;
    // relaxed: a first guess; the compare-exchange decides.
    std::ptrdiff_t old = count_.load(std::memory_order_relaxed);
    do {
        // Checked before the count changes: a semaphore past its maximum stays unchanged.
        if (old > max - n)
            throw_lco_error(std::errc::value_too_large, "counting_semaphore::release",
                            "release(" + std::to_string(n) + ") with " + std::to_string(old) +
                                " free permits would pass max() = " + std::to_string(max));
        // seq_cst: the Dekker hand-shake with acquire_slow(); also publishes everything
        // before release() to whoever takes the permit.
    } while (!count_.compare_exchange_weak(old, old + n));
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
            // acquire: the permit's release() happens before the waiter we give it to;
            // relaxed on failure: a new guess.
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
