// The waiter queue of weft's condition variables (see include/weft/lcos/condition_variable.hpp).
#include <weft/lcos/condition_variable.hpp>

namespace weft::detail {

void cv_queue::enqueue(wait_node& n) noexcept {
    std::lock_guard g(lock_);
    waiters_.push_back(n);
}

void cv_queue::cancel(wait_node& n) noexcept {
    std::lock_guard g(lock_);
    if (n.linked()) waiters_.remove(n);
}

void cv_queue::notify_one() noexcept {
    wait_node* n = nullptr;
    {
        std::lock_guard g(lock_);
        n = waiters_.pop_claimed();
    }
    if (n != nullptr) n->wake();
}

void cv_queue::notify_all() noexcept {
    wake_list woken;
    std::lock_guard g(lock_);
    woken.claim_all(waiters_);
}

}  // namespace weft::detail
