// The context pool: task stacks mapped with their guard regions, listed for the
// deadlock report, and unmapped; and the names of what a suspended task waits on.
#include "fiber_switch.hpp"

#include <weft/threads/detail/context.hpp>

#include <memory>

namespace weft::detail {

context_pool::~context_pool() {
    std::lock_guard lock(mutex_);
    while (head_ != nullptr) {
        context* c = head_;
        head_ = c->registry_next;
        release_fiber(c->fiber);
        deallocate_stack(c->stk);
        delete c;
    }
}

context* context_pool::make(std::size_t bytes) {
    auto c = std::make_unique<context>();
    c->stk = allocate_stack(bytes);
    init_fiber_for_stack(c->fiber, c->stk);
    std::lock_guard lock(mutex_);
    c->registry_next = head_;
    if (head_ != nullptr) head_->registry_prev = c.get();
    head_ = c.get();
    ++count_;
    bytes_ += c->stk.size;
    return c.release();
}

void context_pool::release(context* c) noexcept {
    {
        std::lock_guard lock(mutex_);
        if (c->registry_prev != nullptr) c->registry_prev->registry_next = c->registry_next;
        else head_ = c->registry_next;
        if (c->registry_next != nullptr) c->registry_next->registry_prev = c->registry_prev;
        --count_;
        bytes_ -= c->stk.size;
    }
    release_fiber(c->fiber);
    deallocate_stack(c->stk);
    delete c;
}

std::size_t context_pool::count() const {
    std::lock_guard lock(mutex_);
    return count_;
}

std::size_t context_pool::stack_bytes() const {
    std::lock_guard lock(mutex_);
    return bytes_;
}

const char* wait_kind_name(wait_kind k) noexcept {
    switch (k) {
        case wait_kind::unknown: return "unknown object";
        case wait_kind::future: return "future";
        case wait_kind::task_group: return "task_group (its children)";
        case wait_kind::task_queue: return "task_queue (its tasks)";
        case wait_kind::mutex: return "mutex";
        case wait_kind::recursive_mutex: return "recursive_mutex";
        case wait_kind::shared_mutex: return "shared_mutex";
        case wait_kind::condition_variable: return "condition_variable";
        case wait_kind::counting_semaphore: return "counting_semaphore";
        case wait_kind::latch: return "latch";
        case wait_kind::barrier: return "barrier";
        case wait_kind::event: return "event";
        case wait_kind::channel: return "channel";
        case wait_kind::once_flag: return "once_flag";
    }
    return "unknown object";
}

}  // namespace weft::detail
