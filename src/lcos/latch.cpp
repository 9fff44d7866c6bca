// weft::latch (see include/weft/lcos/latch.hpp).
#include <weft/lcos/latch.hpp>

#include <mutex>
#include <string>

namespace weft {

std::ptrdiff_t latch::checked_initial(std::ptrdiff_t expected) {
    if (expected < 0 || expected > max())
        detail::throw_lco_error(std::errc::invalid_argument, "latch",
                                "the expected count " + std::to_string(expected) + " is outside 0.." +
                                    std::to_string(max()));
    return expected;
}

void latch::count_down_past_zero(std::ptrdiff_t n, std::ptrdiff_t left) {
    if (n < 0)
        detail::throw_lco_error(std::errc::invalid_argument, "latch::count_down",
                                "count_down(" + std::to_string(n) + "): the count cannot be negative");
    detail::throw_lco_error(std::errc::invalid_argument, "latch::count_down",
                            "count_down(" + std::to_string(n) + ") with " + std::to_string(left) +
                                " left would count past zero");
}

void latch::count_down(std::ptrdiff_t n) {
    // relaxed: a first guess; the compare-exchange decides.
    std::ptrdiff_t old = state_.load(std::memory_order_relaxed);
    do {
        // Checked before the counter changes: a latch counted past zero stays as it was.
        if (n < 0 || old / 2 < n) count_down_past_zero(n, old / 2);
        // acq_rel: release makes our work visible to whoever sees zero; acquire makes the
        // waiters' bit (set under lock_) and their queued nodes ours when we see it.
        // relaxed on failure: a new guess.
    } while (!state_.compare_exchange_weak(old, old - n * 2, std::memory_order_acq_rel, std::memory_order_relaxed));
    if (old / 2 != n || (old & waiting_bit) == 0 || n == 0) return;
    detail::wake_list woken;
    std::lock_guard g(lock_);
    woken.claim_all(waiters_);
}

void latch::wait() const {
    if (try_wait()) return;
    detail::wait_node node;
    {
        std::lock_guard g(lock_);
        // acq_rel: the bit is set before we check the count, in the same word that the
        // last count_down() changes, so either it sees the bit or we see zero.
        const std::ptrdiff_t old = state_.fetch_or(waiting_bit, std::memory_order_acq_rel);
        if (old < 2) return;
        node.reason = {detail::wait_kind::latch, this, 0};
        waiters_.push_back(node);
    }
    (void)node.block();
}

}  // namespace weft
