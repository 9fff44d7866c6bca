// The task stacks (contexts) of one runtime, kept in two levels so that a program whose
// number of suspended tasks swings by thousands maps about its peak once, instead of
// mapping, protecting and unmapping stacks all along (issue #22):
//   - context_cache, one per worker (owner only, no atomic read-modify-write): two
//     "magazines" of up to `batch` contexts, as in the magazine layer of Bonwick and
//     Adams, "Magazines and Vmem" (USENIX 2001, §3): a worker takes and puts contexts on
//     its loaded magazine; when it is full and the spare one too, the spare goes to the
//     runtime-wide level whole; when both are empty, a whole batch comes back from it.
//     A worker that swings across a boundary swaps its two magazines instead of moving a
//     batch each time.
//   - context_pool: the registry of every mapped context (the deadlock report walks it)
//     and the runtime-wide level, Bonwick's "depot": a list of batches under a mutex.
// A recycled context never touches the registry: only mapping and unmapping do.
//
// The depot takes a mutex once per batch of 32 contexts, never per task. A lock-free
// stack of batches (Treiber, 1986) would save that uncontended lock (tens of ns per 32
// suspensions) but needs an ABA tag on its top pointer, safe reclamation (a pop reads the
// link of a batch that a trim may have unmapped and freed meanwhile) and gives no access
// to its bottom, where the batches idle longest are; under the mutex all three are
// plain code.
//
// Memory goes back lazily, never per task: trim(), which the scheduler's timer thread
// calls once per trim period (--weft:stack-trim, 1 s by default),
//   1. unmaps idle batches while more contexts are mapped than a high-water mark of the
//      contexts in use (outside the depot) that follows each period's peak and decays by
//      an eighth per period when the program needs fewer (so about 5 periods halve it);
//   2. gives back the pages of every batch that stayed in the depot for a whole period
//      (madvise MADV_DONTNEED: the mapping stays, its memory returns to the system at
//      once; a reuse costs a zero-fill fault per page it touches, no system call).
// The depot is last in, first out, so the batches that idled longest are at its bottom;
// each batch carries the epoch (trim count) in which it arrived. Bonwick's depot keeps
// its "working set" the same way, by the minimum it held over an interval.
//
// Stacks of another size (a task's own bigger stack, task_attributes::stack_size) are
// never pooled: they are mapped for that task and unmapped when its worker leaves them.
#pragma once

#include <weft/config/config.hpp>
#include <weft/platform/stack.hpp>
#include <weft/threads/detail/context.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace weft::detail {

/// Every task stack of one runtime: mapped, counted, listed (the deadlock report walks
/// the list for suspended tasks), pooled for reuse when of the runtime's size, trimmed
/// and unmapped. Thread-safe.
class context_pool {
public:
    /// `pooled_bytes`: the usable stack size the pool keeps for reuse (rounded to pages;
    /// the runtime's stack size). Contexts of any other size are never pooled.
    explicit context_pool(std::size_t pooled_bytes);
    ~context_pool();  ///< unmaps every context still listed
    context_pool(const context_pool&) = delete;
    context_pool& operator=(const context_pool&) = delete;

    /// The usable size of the contexts the pool keeps.
    std::size_t pooled_size() const noexcept { return pooled_bytes_; }

    /// A new context with a stack of `bytes` usable bytes (rounded to pages). When the
    /// kernel refuses, the depot's contexts are unmapped and the mapping tried once more.
    /// @throws std::system_error when the stack cannot be mapped (the message says why).
    context* make(std::size_t bytes);
    /// Unmaps `c` and forgets it.
    void release(context* c) noexcept;

    /// A batch of pooled-size contexts from the depot, linked by pool_next and ended by
    /// null, the most recently pooled first; its length in `n`. Null (n = 0) when the
    /// depot is empty: the caller then maps one (make), which counts towards the peak.
    context* take_batch(std::uint32_t& n) noexcept;
    /// Puts `n` contexts of the pooled size (not in use, linked by pool_next from `first`
    /// and ended by null) into the depot as one batch.
    void give_batch(context* first, std::uint32_t n) noexcept;

    /// One trim period has passed: unmaps idle contexts beyond the decayed high-water mark
    /// and gives back the pages of batches idle for the whole period (see the top of this
    /// header). Holds the depot's mutex only to move one batch at a time: workers keep
    /// taking and giving batches meanwhile. Call it from one thread at a time.
    void trim() noexcept;
    /// Unmaps every context in the depot now (not those in caches or in use); returns
    /// how many. The runtime calls it when it stops, after the workers drained their
    /// caches into the depot.
    std::size_t release_pooled() noexcept;

    // Statistics, from any thread (each value is recent; together they are not a
    // snapshot). relaxed (all six): statistics, read without ordering anything else.
    /// Contexts mapped now (in use, cached or in the depot), and their usable stack bytes.
    std::size_t count() const noexcept { return count_.load(std::memory_order_relaxed); }
    std::size_t stack_bytes() const noexcept { return bytes_.load(std::memory_order_relaxed); }
    /// Contexts in the depot now.
    std::size_t pooled() const noexcept { return depot_count_.load(std::memory_order_relaxed); }
    /// Contexts mapped and unmapped since the pool was made; times a pooled context's
    /// pages were given back by a trim.
    std::uint64_t mapped_total() const noexcept { return mapped_total_.load(std::memory_order_relaxed); }
    std::uint64_t unmapped_total() const noexcept { return unmapped_total_.load(std::memory_order_relaxed); }
    std::uint64_t trimmed_total() const noexcept { return trimmed_total_.load(std::memory_order_relaxed); }
    /// The decaying high-water mark of contexts in use that the last trim kept mapped.
    std::size_t high_water() const noexcept;

    /// Calls f(const context&) for each mapped context, under the registry's lock.
    template <class F>
    void for_each(F&& f) const {
        std::lock_guard lock(registry_mutex_);
        for (const context* c = head_; c != nullptr; c = c->registry_next) f(*c);
    }

private:
    /// Batches in the depot, linked through their first contexts (batch_newer/older).
    struct batch_list {
        context* newest = nullptr;
        context* oldest = nullptr;
        void push_newest(context* b) noexcept;
        context* pop_newest() noexcept;
        context* pop_oldest() noexcept;
    };

    /// Takes the contexts of the list from `first` (linked by pool_next) off the
    /// registry and unmaps them; returns how many.
    std::size_t unmap_list(context* first) noexcept;
    /// Contexts outside the depot now (in use or cached). Depot lock held.
    std::size_t in_use_locked() const noexcept;

    const std::size_t pooled_bytes_;

    // The registry: touched when a context is mapped or unmapped, never when reused.
    mutable std::mutex registry_mutex_;
    context* head_ = nullptr;
    std::atomic<std::size_t> count_{0};  // written under registry_mutex_
    std::atomic<std::size_t> bytes_{0};  // written under registry_mutex_
    std::atomic<std::uint64_t> mapped_total_{0};
    std::atomic<std::uint64_t> unmapped_total_{0};
    std::atomic<std::uint64_t> trimmed_total_{0};

    // The depot, on lines of its own: workers take its mutex once per batch.
    alignas(cache_line_size) mutable std::mutex depot_mutex_;
    batch_list hot_;   // batches given back recently (newest first)
    batch_list cold_;  // batches whose pages a trim gave back (newest first)
    std::atomic<std::size_t> depot_count_{0};  // contexts in hot_ and cold_; written under depot_mutex_
    std::uint64_t epoch_ = 0;                   // trims so far
    std::size_t peak_in_use_ = 0;               // the most contexts in use since the last trim
    std::size_t high_water_ = 0;                // the decaying peak the last trim kept
};

/// One worker's recycled contexts of its pool's size (owner only): two magazines of up to
/// `batch` contexts (see the top of this header), so that a suspension or a resume costs
/// no mapping and no lock in the common case. The worker drains it before it goes away.
class context_cache {
public:
    /// Contexts per batch moved to or from the pool.
    static constexpr std::uint32_t batch = 32;
    /// Contexts a worker keeps at most (its two magazines).
    static constexpr std::size_t keep = 2 * batch;

    context_cache() = default;
    context_cache(const context_cache&) = delete;
    context_cache& operator=(const context_cache&) = delete;

    /// A context of `pool`'s pooled size, not prepared: a cached one, else one of a batch
    /// taken from the pool, else a new one.
    /// @throws std::system_error when a new stack cannot be mapped
    context* take(context_pool& pool) {
        context* c = loaded_;
        if (c == nullptr) [[unlikely]]
            return take_slow(pool);
        loaded_ = c->pool_next;
        --loaded_count_;
        publish_size();
        return c;
    }
    /// Keeps `c` (of `pool`'s pooled size, left for good); when both magazines are full,
    /// the older one goes to the pool first.
    void put(context* c, context_pool& pool) noexcept {
        if (loaded_count_ == batch) [[unlikely]]
            spill(pool);
        c->pool_next = loaded_;
        loaded_ = c;
        ++loaded_count_;
        publish_size();
    }
    /// Gives every cached context to `pool` (its worker is leaving).
    void drain(context_pool& pool) noexcept;
    /// Contexts cached now (any thread, approximate).
    std::size_t size() const noexcept { return count_.load(std::memory_order_relaxed); }  // relaxed: a statistic

private:
    context* take_slow(context_pool& pool);
    void spill(context_pool& pool) noexcept;
    void publish_size() noexcept {
        // relaxed: a statistic; a plain store on the owner's line, no read-modify-write.
        count_.store(loaded_count_ + (spare_ != nullptr ? batch : 0), std::memory_order_relaxed);
    }

    context* loaded_ = nullptr;  // the magazine in use, linked by pool_next
    std::uint32_t loaded_count_ = 0;
    context* spare_ = nullptr;   // a full magazine (`batch` contexts) or null
    std::atomic<std::size_t> count_{0};
};

}  // namespace weft::detail
