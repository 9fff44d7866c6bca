// weft::call_once's waiting (see include/weft/lcos/once.hpp).
#include <weft/lcos/once.hpp>

#include <mutex>

namespace weft::detail {

bool once_begin(once_flag& flag) {
    for (;;) {
        wait_node node;
        {
            std::lock_guard g(flag.lock_);
            // relaxed: every change of state_ is made under lock_, which orders us after
            // it (and after the completed call, if it is done).
            const std::uint8_t s = flag.state_.load(std::memory_order_relaxed);
            if (s == once_flag::done) return false;
            if (s == once_flag::idle) {
                flag.state_.store(once_flag::running, std::memory_order_relaxed);  // relaxed: under lock_
                return true;
            }
            node.reason = {wait_kind::once_flag, &flag, 0};
            flag.waiters_.push_back(node);
        }
        (void)node.block();  // the runner finished (or threw): look again
    }
}

void once_end(once_flag& flag, bool succeeded) noexcept {
    wake_list woken;
    std::lock_guard g(flag.lock_);
    // release: the completed call happens before every caller that sees done.
    flag.state_.store(succeeded ? once_flag::done : once_flag::idle, std::memory_order_release);
    woken.claim_all(flag.waiters_);
}

}  // namespace weft::detail
