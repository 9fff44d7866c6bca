// weft::shared_mutex (see include/weft/lcos/shared_mutex.hpp).
#include <weft/lcos/shared_mutex.hpp>

#include <mutex>

namespace weft {

bool shared_mutex::try_lock() noexcept {
    std::lock_guard g(lock_);
    if (!admissible(exclusive) || !waiters_.empty()) return false;
    writer_ = true;
    return true;
}

bool shared_mutex::try_lock_shared() noexcept {
    std::lock_guard g(lock_);
    if (!admissible(shared) || !waiters_.empty()) return false;
    ++readers_;
    return true;
}

bool shared_mutex::acquire(std::uintptr_t kind, const detail::steady_time* deadline) {
    detail::wait_node node(deadline);
    node.tag = kind;
    {
        std::lock_guard g(lock_);
        // Nobody overtakes a queued waiter: that is what keeps writers from starving.
        if (admissible(kind) && waiters_.empty()) {
            if (kind == exclusive) {
                writer_ = true;
            } else {
                ++readers_;
            }
            return true;
        }
        if (deadline != nullptr && std::chrono::steady_clock::now() >= *deadline) return false;
        waiters_.push_back(node);
    }
    if (node.block() == detail::wait_status::notified) return true;  // admitted by admit()
    // Timed out. If we were at the front, the waiters behind us may fit now (a reader
    // behind a writer that gave up, while readers hold the lock).
    detail::wake_list woken;
    std::lock_guard g(lock_);
    if (node.linked()) {
        waiters_.remove(node);
        admit(woken);
    }
    return false;
}

void shared_mutex::unlock() noexcept {
    detail::wake_list woken;
    std::lock_guard g(lock_);
    WEFT_ASSERT(writer_);
    writer_ = false;
    admit(woken);
}

void shared_mutex::unlock_shared() noexcept {
    detail::wake_list woken;
    std::lock_guard g(lock_);
    WEFT_ASSERT(readers_ > 0);
    if (--readers_ == 0) admit(woken);
}

void shared_mutex::admit(detail::wake_list& woken) noexcept {
    while (detail::wait_node* n = waiters_.front()) {
        if (!admissible(n->tag)) return;
        waiters_.remove(*n);
        if (!n->try_claim()) continue;  // it timed out: skip it
        if (n->tag == exclusive) {
            writer_ = true;
        } else {
            ++readers_;
        }
        woken.push(*n);
    }
}

}  // namespace weft
