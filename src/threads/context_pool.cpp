// The context pool (include/weft/threads/detail/context_pool.hpp): the registry of
// every mapped task stack, the runtime-wide level of batches and its trim, and the slow
// paths of the per-worker caches; and the names of what a suspended task waits on.
#include "fiber_switch.hpp"

#include <weft/threads/detail/context_pool.hpp>

#include <algorithm>
#include <memory>
#include <system_error>

namespace weft::detail {

namespace {

// Unmaps one context the registry no longer lists.
void destroy(context* c) noexcept {
    release_fiber(c->fiber, c->lives);
    deallocate_stack(c->stk);
    delete c;
}

}  // namespace

context_pool::context_pool(std::size_t pooled_bytes) : pooled_bytes_(round_stack_size(pooled_bytes)) {}

context_pool::~context_pool() {
    // The depot's contexts are listed too: one walk unmaps everything.
    std::lock_guard lock(registry_mutex_);
    while (head_ != nullptr) {
        context* c = head_;
        head_ = c->registry_next;
        destroy(c);
    }
}

context* context_pool::make(std::size_t bytes) {
    auto c = std::make_unique<context>();
    try {
        c->stk = allocate_stack(bytes);
    } catch (const std::system_error&) {
        // Out of memory, address space or mappings (vm.max_map_count) while the depot
        // holds idle stacks (of another size, or given back meanwhile): they go first.
        if (release_pooled() == 0) throw;
        c->stk = allocate_stack(bytes);
    }
    init_fiber_for_stack(c->fiber, c->stk, c->lives);
    std::lock_guard lock(registry_mutex_);
    c->registry_next = head_;
    if (head_ != nullptr) head_->registry_prev = c.get();
    head_ = c.get();
    // relaxed (the three): statistics, written under the registry's lock.
    count_.store(count_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    bytes_.store(bytes_.load(std::memory_order_relaxed) + c->stk.size, std::memory_order_relaxed);
    mapped_total_.store(mapped_total_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    return c.release();
}

void context_pool::release(context* c) noexcept {
    c->pool_next = nullptr;
    unmap_list(c);
}

std::size_t context_pool::unmap_list(context* first) noexcept {
    std::size_t n = 0, bytes = 0;
    {
        std::lock_guard lock(registry_mutex_);
        for (context* c = first; c != nullptr; c = c->pool_next) {
            if (c->registry_prev != nullptr) c->registry_prev->registry_next = c->registry_next;
            else head_ = c->registry_next;
            if (c->registry_next != nullptr) c->registry_next->registry_prev = c->registry_prev;
            ++n;
            bytes += c->stk.size;
        }
        // relaxed (the three): statistics, written under the registry's lock.
        count_.store(count_.load(std::memory_order_relaxed) - n, std::memory_order_relaxed);
        bytes_.store(bytes_.load(std::memory_order_relaxed) - bytes, std::memory_order_relaxed);
        unmapped_total_.store(unmapped_total_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    }
    // The system calls outside the lock: the deadlock report may walk the registry.
    for (context* c = first; c != nullptr;) {
        context* next = c->pool_next;
        destroy(c);
        c = next;
    }
    return n;
}

// ---------------------------------------------------------------------------------
// The depot: batches, newest first; the oldest are the ones a trim looks at.

void context_pool::batch_list::push_newest(context* b) noexcept {
    b->batch_newer = nullptr;
    b->batch_older = newest;
    if (newest != nullptr) newest->batch_newer = b;
    else oldest = b;
    newest = b;
}

context* context_pool::batch_list::pop_newest() noexcept {
    context* b = newest;
    if (b == nullptr) return nullptr;
    newest = b->batch_older;
    if (newest != nullptr) newest->batch_newer = nullptr;
    else oldest = nullptr;
    b->batch_older = nullptr;
    return b;
}

context* context_pool::batch_list::pop_oldest() noexcept {
    context* b = oldest;
    if (b == nullptr) return nullptr;
    oldest = b->batch_newer;
    if (oldest != nullptr) oldest->batch_older = nullptr;
    else newest = nullptr;
    b->batch_newer = nullptr;
    return b;
}

std::size_t context_pool::in_use_locked() const noexcept {
    // Contexts enter the depot after they are counted mapped and leave it before they
    // are counted unmapped, so the difference is never negative; the clamp only guards
    // against reading count_ before a mapping on another thread is seen. Relaxed reads
    // (count(), pooled()) are enough: the result only steers how lazily the trim unmaps,
    // and it only ever unmaps contexts that are in the depot under this lock.
    const std::size_t mapped = count();
    const std::size_t pooled_now = pooled();
    return mapped > pooled_now ? mapped - pooled_now : 0;
}

context* context_pool::take_batch(std::uint32_t& n) noexcept {
    std::lock_guard lock(depot_mutex_);
    // Recently given batches first: their pages are still there.
    context* b = hot_.pop_newest();
    if (b == nullptr) b = cold_.pop_newest();
    n = b != nullptr ? b->batch_size : 0;
    // relaxed: a statistic; written under depot_mutex_ (this one).
    depot_count_.store(pooled() - n, std::memory_order_relaxed);
    // With none, the caller maps one: it is in use too.
    peak_in_use_ = std::max(peak_in_use_, in_use_locked() + (b == nullptr ? 1 : 0));
    return b;
}

void context_pool::give_batch(context* first, std::uint32_t n) noexcept {
    first->batch_size = n;
    std::lock_guard lock(depot_mutex_);
    first->batch_epoch = epoch_;
    hot_.push_newest(first);
    // relaxed: a statistic; written under depot_mutex_ (this one).
    depot_count_.store(pooled() + n, std::memory_order_relaxed);
}

std::size_t context_pool::high_water() const noexcept {
    std::lock_guard lock(depot_mutex_);
    return high_water_;
}

void context_pool::trim() noexcept {
    std::uint64_t epoch = 0;
    std::size_t keep_mapped = 0;
    {
        std::lock_guard lock(depot_mutex_);
        epoch = ++epoch_;
        // The mark follows the last period's peak up at once and decays by an eighth
        // per period below it; one batch to spare, so that the last one is not unmapped
        // and mapped again around the mark.
        high_water_ = std::max(peak_in_use_, high_water_ - high_water_ / 8);
        peak_in_use_ = in_use_locked();
        keep_mapped = high_water_ + context_cache::batch;
    }
    // 1. Beyond the mark: unmap batches whose pages an earlier trim gave back (idle for
    //    a period at least), oldest first. Each leaves the depot before it is unmapped.
    for (;;) {
        context* b = nullptr;
        {
            std::lock_guard lock(depot_mutex_);
            if (count() <= keep_mapped || (b = cold_.pop_oldest()) == nullptr) break;
            // relaxed: a statistic; written under depot_mutex_ (this one).
            depot_count_.store(pooled() - b->batch_size, std::memory_order_relaxed);
        }
        unmap_list(b);
    }
    // 2. Batches that arrived before the last trim have stayed a whole period: their
    //    pages go back to the system; they move to the cold list, still ready for use.
    //    A batch is out of the depot while its pages go back (the system calls run
    //    without the lock); a worker that finds the depot empty meanwhile maps one.
    for (;;) {
        context* b = nullptr;
        std::uint32_t n = 0;
        {
            std::lock_guard lock(depot_mutex_);
            b = hot_.oldest;
            if (b == nullptr || b->batch_epoch + 2 > epoch) break;
            hot_.pop_oldest();
            n = b->batch_size;
            // relaxed: a statistic; written under depot_mutex_ (this one).
            depot_count_.store(pooled() - n, std::memory_order_relaxed);
        }
        for (const context* c = b; c != nullptr; c = c->pool_next) discard_stack_pages(c->stk);
        trimmed_total_.fetch_add(n, std::memory_order_relaxed);  // relaxed: a statistic
        std::lock_guard lock(depot_mutex_);
        cold_.push_newest(b);
        depot_count_.store(pooled() + n, std::memory_order_relaxed);  // relaxed: as above
    }
}

std::size_t context_pool::release_pooled() noexcept {
    context* lists[2] = {nullptr, nullptr};
    {
        std::lock_guard lock(depot_mutex_);
        // The batches, chained into one list by pool_next: the last context of each
        // batch links to the first of the next.
        context* first = nullptr;
        for (batch_list* l : {&hot_, &cold_}) {
            while (context* b = l->pop_newest()) {
                context* last = b;
                while (last->pool_next != nullptr) last = last->pool_next;
                last->pool_next = first;
                first = b;
            }
        }
        lists[0] = first;
        depot_count_.store(0, std::memory_order_relaxed);  // relaxed: a statistic, under depot_mutex_
    }
    return lists[0] != nullptr ? unmap_list(lists[0]) : 0;
}

// ---------------------------------------------------------------------------------
// The per-worker cache's slow paths.

context* context_cache::take_slow(context_pool& pool) {
    if (spare_ != nullptr) {
        loaded_ = spare_;
        loaded_count_ = batch;
        spare_ = nullptr;
    } else {
        std::uint32_t n = 0;
        loaded_ = pool.take_batch(n);
        loaded_count_ = n;
        if (loaded_ == nullptr) {
            publish_size();
            return pool.make(pool.pooled_size());
        }
    }
    return take(pool);
}

void context_cache::spill(context_pool& pool) noexcept {
    // Both full: the spare (the colder one) goes to the pool, the loaded one becomes
    // the spare, and puts start an empty magazine.
    if (spare_ != nullptr) pool.give_batch(spare_, batch);
    spare_ = loaded_;
    loaded_ = nullptr;
    loaded_count_ = 0;
}

void context_cache::drain(context_pool& pool) noexcept {
    if (spare_ != nullptr) pool.give_batch(spare_, batch);
    if (loaded_ != nullptr) pool.give_batch(loaded_, loaded_count_);
    spare_ = loaded_ = nullptr;
    loaded_count_ = 0;
    publish_size();
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
