// weft::latch (see include/weft/lcos/latch.hpp).
#include <weft/lcos/latch.hpp>

#include <mutex>

namespace weft {

void latch::count_down(std::ptrdiff_t n) noexcept {
    WEFT_ASSERT(n >= 0);
    // acq_rel: release makes our work visible to whoever sees zero; acquire makes the
    // waiters' bit (set under lock_) and their queued nodes ours when we see it.
    const std::ptrdiff_t old = state_.fetch_sub(n * 2, std::memory_order_acq_rel);
    WEFT_ASSERT(old / 2 >= n);
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
        waiters_.push_back(node);
    }
    (void)node.block();
}

}  // namespace weft
