// HotSLAW's per-worker task queue (seed 002 §3.1, Figure 3; after Dinan et al.'s split
// queues): a bounded ring split into a private part, used by its owner alone as a stack
// with no synchronization, and a public part that thieves take from, oldest first, under
// a lock. A split point marks the boundary; tasks change part by moving it, not by being
// copied.
#pragma once

#include <weft/concurrency/backoff_spinlock.hpp>
#include <weft/config/config.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace weft::ext {

/// @brief A bounded split queue of `T*` (seed 002 §3.1).
///
/// Slots [head, split) are public, [split, tail) private; indices only grow (a ring of
/// power-of-two size at least `capacity`). The owner pushes and pops the private end
/// (newest first) with plain loads and stores; thieves take a chunk of the oldest public
/// tasks in one locked operation. The owner makes the older half of its private part
/// public (release, locked; at most `public_capacity` public in all) when the private
/// part is full (capacity - public_capacity tasks, the seed's rule) or a thief found the
/// public part empty (on demand, at the owner's next push or pop: a lone worker never
/// locks), and takes the newest public task back when its private part runs dry
/// (reclaim, locked). push() refuses a task when `capacity` tasks are queued: the caller runs it
/// at once (HotSLAW's switch to work-first, §3 / L107). Nothing allocates after
/// construction.
///
/// Thread safety: push, pop, take_back and size() are owner-only; steal and the *_approx
/// statistics may be called from any thread.
///
/// Example (from tests/unit/concurrency/split_queue_test.cpp):
/// @code
/// weft::ext::split_queue<int> q(4, 2);
/// int a = 1, b = 2, c = 3;
/// q.push(&a); q.push(&b); q.push(&c);      // a, b released to the public part
/// int* got[2];
/// EXPECT_EQ(q.steal(got, 2, [](std::size_t n) { return n; }), 2u);  // a, b: oldest first
/// EXPECT_EQ(q.pop(), &c);                                            // newest first
/// @endcode
template <class T>
class split_queue {
public:
    /// @throws std::invalid_argument unless 1 <= public_capacity <= capacity <= 2^20.
    explicit split_queue(std::size_t capacity = 40, std::size_t public_capacity = 20)
        : capacity_(capacity), public_capacity_(public_capacity) {
        if (capacity == 0 || capacity > (std::size_t{1} << 20) || public_capacity == 0 || public_capacity > capacity)
            throw std::invalid_argument("weft::ext::split_queue: need 1 <= public_capacity <= capacity <= 1048576");
        std::size_t ring = 1;
        while (ring < capacity) ring *= 2;
        mask_ = ring - 1;
        buf_ = std::make_unique<T*[]>(ring);
    }
    split_queue(const split_queue&) = delete;
    split_queue& operator=(const split_queue&) = delete;

    std::size_t capacity() const noexcept { return capacity_; }
    std::size_t public_capacity() const noexcept { return public_capacity_; }

    /// Queues `t` as the newest task; false (nothing changed) when the queue is full.
    /// Owner only.
    bool push(T* t) noexcept {
        // acquire: a thief read the slots below head before it released head, so the
        // slot we may overwrite now is no longer read.
        const std::uint64_t head = shared_.head.load(std::memory_order_acquire);
        if (tail_ - head >= capacity_) return false;
        buf_[tail_ & mask_] = t;
        ++tail_;
        publish_tail();
        if (tail_ - head > high_water_cache_) {
            high_water_cache_ = static_cast<std::size_t>(tail_ - head);
            high_water_.store(high_water_cache_, std::memory_order_relaxed);  // relaxed: a statistic
        }
        maybe_release(head);
        return true;
    }

    /// The newest task, removed: from the private part, else the newest public one;
    /// nullptr when empty. Owner only.
    T* pop() noexcept {
        if (tail_ != split_) {
            T* t = buf_[--tail_ & mask_];
            publish_tail();
            // relaxed: the thieves' hint (see steal); a stale read delays a release only.
            maybe_release(shared_.head.load(std::memory_order_relaxed));
            return t;
        }
        return reclaim(nullptr);
    }

    /// Called by the owner as it starts a task it popped, which may run for long: if the
    /// public part is empty and tasks stay private, makes the older half of them public
    /// (at least one), so that a thief that comes while the owner runs does not wait for
    /// its next queue operation (Dinan et al.'s release on demand assumes the owner comes
    /// back soon; issue #22). Returns true if it made any public. Owner only.
    bool share() noexcept {
        if (tail_ == split_) return false;
        // relaxed: thieves only make the public part smaller; a stale head says "not
        // empty" and delays the release to the next task.
        if (shared_.head.load(std::memory_order_relaxed) != split_) return false;
        release_locked((tail_ - split_ + 1) / 2);
        return true;
    }

    /// The newest task if it is `t` (private, or the newest public one while the private
    /// part is empty): removes it and returns true, so a waiting owner runs it inline.
    /// Owner only.
    bool take_back(T* t) noexcept {
        if (tail_ == split_) return reclaim(t) != nullptr;
        if (buf_[(tail_ - 1) & mask_] != t) return false;
        --tail_;
        publish_tail();
        return true;
    }

    /// The newest private task, or nullptr. Owner only.
    T* peek_private() const noexcept { return tail_ == split_ ? nullptr : buf_[(tail_ - 1) & mask_]; }

    /// Takes up to `max` of the oldest public tasks, as many as `chunk(n)` says for a
    /// public part of n tasks (clamped to [0, min(n, max)]), into out[0..k) oldest
    /// first, in one locked operation; returns k. Any thread but the owner.
    template <class Chunk>
    std::size_t steal(T** out, std::size_t max, Chunk&& chunk) noexcept(noexcept(chunk(std::size_t{}))) {
        if (public_size_approx() == 0) {  // no lock for an empty victim
            ask();
            return 0;
        }
        std::lock_guard lock(shared_.lock);
        // relaxed (both): written only under the lock we hold.
        const std::uint64_t head = shared_.head.load(std::memory_order_relaxed);
        const std::uint64_t n = shared_.split.load(std::memory_order_relaxed) - head;
        if (n == 0) {
            ask();
            return 0;
        }
        std::size_t k = chunk(static_cast<std::size_t>(n));
        if (k > n) k = static_cast<std::size_t>(n);
        if (k > max) k = max;
        for (std::size_t i = 0; i < k; ++i) out[i] = buf_[(head + i) & mask_];
        // release: our reads of the slots happen before the owner, acquiring head in
        // push(), writes them again.
        shared_.head.store(head + k, std::memory_order_release);
        return k;
    }

    /// No room for another task: push() would refuse it (owner only).
    bool full() const noexcept {
        // relaxed: thieves only make room; a stale head says full a little longer.
        return tail_ - shared_.head.load(std::memory_order_relaxed) >= capacity_;
    }

    /// Counts a task its owner ran at once because the queue was full (owner only).
    void note_inlined() noexcept {
        inlined_.store(inlined_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);  // relaxed: a statistic
    }
    /// Tasks noted by note_inlined() (a statistic, from any thread).
    std::uint64_t inlined() const noexcept { return inlined_.load(std::memory_order_relaxed); }  // relaxed: a statistic

    /// The most tasks the queue has held at once (a statistic, from any thread).
    std::size_t high_water() const noexcept { return high_water_.load(std::memory_order_relaxed); }  // relaxed: a statistic

    /// Tasks queued (owner only, exact).
    std::size_t size() const noexcept {
        // relaxed: the owner reads it for a bound; thieves only make it smaller.
        return static_cast<std::size_t>(tail_ - shared_.head.load(std::memory_order_relaxed));
    }
    /// Tasks in the private part (owner only, exact).
    std::size_t private_size() const noexcept { return static_cast<std::size_t>(tail_ - split_); }

    /// Tasks queued, from any thread (a statistic; may be stale).
    std::size_t size_approx() const noexcept {
        // relaxed: statistics.
        const std::uint64_t t = tail_pub_.load(std::memory_order_relaxed);
        const std::uint64_t h = shared_.head.load(std::memory_order_relaxed);
        return t > h ? static_cast<std::size_t>(t - h) : 0;
    }
    /// Tasks in the public part, from any thread (a hint for thieves; may be stale).
    std::size_t public_size_approx() const noexcept {
        // relaxed: a hint; steal() re-reads both under the lock.
        const std::uint64_t s = shared_.split.load(std::memory_order_relaxed);
        const std::uint64_t h = shared_.head.load(std::memory_order_relaxed);
        return s > h ? static_cast<std::size_t>(s - h) : 0;
    }

private:
    // A thief found the public part empty: asks the owner to release work at its next
    // queue operation (Dinan et al.'s release, on demand: a lone worker never locks).
    void ask() noexcept {
        // relaxed (both): a hint; a missed one delays a release, it loses no task.
        if (!shared_.hungry.load(std::memory_order_relaxed)) shared_.hungry.store(true, std::memory_order_relaxed);
    }

    // Seed 002 §3.1: the private part is full (capacity - public_capacity tasks), or a
    // thief asked while the public part is empty: make the older half of the private
    // part public (at least one task, while at least two are private: the newest stays
    // with its owner, who runs it next), as much as the public part has room for.
    void maybe_release(std::uint64_t head) noexcept {
        const std::uint64_t priv = tail_ - split_;
        if (priv < 2) return;
        const bool full = priv >= capacity_ - public_capacity_;
        // relaxed: a hint (see ask()).
        if (!full && !(head == split_ && shared_.hungry.load(std::memory_order_relaxed))) return;
        release_locked(priv / 2);
    }

    // Makes up to `want` of the oldest private tasks public, as much as the public part
    // has room for, under the lock.
    void release_locked(std::uint64_t want) noexcept {
        std::lock_guard lock(shared_.lock);
        // relaxed: head changes only under the lock we hold.
        const std::uint64_t pub = split_ - shared_.head.load(std::memory_order_relaxed);
        shared_.hungry.store(false, std::memory_order_relaxed);  // relaxed: a hint
        if (pub >= public_capacity_) return;
        std::uint64_t move = want;
        if (move > public_capacity_ - pub) move = public_capacity_ - pub;
        split_ += move;
        // relaxed: thieves read split under the lock, whose release orders this store and
        // the slot writes before it; public_size_approx() readers only take a hint.
        shared_.split.store(split_, std::memory_order_relaxed);
    }

    // The private part is empty: takes the newest public task back (if `want` is not
    // null, only if it is that task), under the lock; nullptr if none.
    T* reclaim(const T* want) noexcept {
        // relaxed: a probe; the lock below decides.
        if (shared_.head.load(std::memory_order_relaxed) == split_) return nullptr;
        std::lock_guard lock(shared_.lock);
        // relaxed: head changes only under the lock we hold.
        if (shared_.head.load(std::memory_order_relaxed) == split_) return nullptr;
        T* t = buf_[(split_ - 1) & mask_];
        if (want != nullptr && t != want) return nullptr;
        --split_;
        // relaxed: thieves read split under the lock, which orders it.
        shared_.split.store(split_, std::memory_order_relaxed);
        --tail_;
        publish_tail();
        return t;
    }

    void publish_tail() noexcept {
        tail_pub_.store(tail_, std::memory_order_relaxed);  // relaxed: read by statistics only
    }

    // Owner-only state, on the owner's line.
    std::uint64_t tail_ = 0;
    std::uint64_t split_ = 0;  ///< owner's copy of shared_.split (it alone writes it)
    std::size_t mask_ = 0;
    std::size_t capacity_, public_capacity_;
    std::unique_ptr<T*[]> buf_;
    std::atomic<std::uint64_t> tail_pub_{0};
    std::size_t high_water_cache_ = 0;  ///< owner's copy of high_water_
    std::atomic<std::size_t> high_water_{0};
    std::atomic<std::uint64_t> inlined_{0};
    // What thieves touch: the lock, the oldest index and the split point.
    struct alignas(cache_line_size) shared_state {
        backoff_spinlock lock;
        std::atomic<std::uint64_t> head{0};
        std::atomic<std::uint64_t> split{0};
        std::atomic<bool> hungry{false};  ///< a thief found the public part empty
    } shared_;
};

}  // namespace weft::ext
