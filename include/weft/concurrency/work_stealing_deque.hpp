// A Chase–Lev work-stealing deque of pointers: its owning worker pushes and pops at the
// bottom, any thread steals from the top.
#pragma once

#include <weft/config/config.hpp>

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace weft::ext {

/// Outcome of work_stealing_deque::steal().
enum class steal_status : std::uint8_t {
    success,    ///< an item was taken and stored in the out parameter
    empty,      ///< the deque was seen empty
    lost_race,  ///< another thief or the owner's pop() took that item first; retrying may succeed
};

/// @brief Unbounded single-owner, multi-thief deque of `T*` (Chase–Lev).
///
/// The owning worker calls push(), pop() and peek_bottom() at the bottom (LIFO end); any
/// thread, the owner included, calls steal() at the top (FIFO end). push() allocates only
/// when the ring is full and doubles it; pop() and steal() never allocate and never block.
/// The deque stores pointers and never dereferences or deletes them.
///
/// Memory orders are those of N. M. Lê, A. Pop, A. Cohen, F. Zappa Nardelli, "Correct and
/// Efficient Work-Stealing for Weak Memory Models", PPoPP 2013, Fig. 1; the algorithm is
/// D. Chase, Y. Lev, "Dynamic Circular Work-Stealing Deque", SPAA 2005. Departures from
/// that figure: indices are signed (`std::int64_t`), so pop() on an empty deque cannot wrap
/// `bottom - 1` around as the paper's `size_t` does; steal() loads the ring with acquire
/// where the paper says consume (every compiler promotes consume to acquire, and P0371
/// discourages it); retired rings are kept until destruction instead of being leaked or
/// reclaimed, because a thief may still be reading one.
///
/// ThreadSanitizer models no `std::atomic_thread_fence` (and g++ rejects one under
/// `-fsanitize=thread` with -Wtsan), so a TSan build replaces each fence of the paper by
/// strengthening the accesses on both sides of it to the fence's order: a release store of
/// `bottom_` in push(), and seq_cst accesses around the seq_cst fences of pop() and steal().
/// That is at least as strong, so TSan checks a deque that is no weaker than the real one.
///
/// The destructor must not run while a thief may still call steal().
///
/// @tparam T the pointee type; the deque holds `T*`.
///
/// Example (from tests/unit/concurrency/work_stealing_deque_test.cpp):
/// @code
/// weft::ext::work_stealing_deque<int> dq(2);
/// int a = 1, b = 2, c = 3;
/// dq.push(&a); dq.push(&b); dq.push(&c);   // grows from 2 to 4 slots
/// int* stolen = nullptr;
/// EXPECT_EQ(dq.steal(stolen), weft::ext::steal_status::success);
/// EXPECT_EQ(stolen, &a);                   // thieves take the oldest
/// EXPECT_EQ(dq.pop(), &c);                 // the owner takes the newest
/// @endcode
template <class T>
class work_stealing_deque {
public:
    /// @brief Makes an empty deque.
    /// @param initial_capacity slots of the first ring, rounded up to a power of two (at least 1).
    explicit work_stealing_deque(std::size_t initial_capacity = 256)
        : ring_(new ring(round_up_capacity(initial_capacity))) {}

    /// @brief Frees the current ring and every ring retired by growth. Items are not touched.
    ~work_stealing_deque() {
        // relaxed: no thread may use the deque concurrently with its destruction.
        ring* r = ring_.load(std::memory_order_relaxed);
        while (r != nullptr) {
            ring* older = r->retired_;
            delete r;
            r = older;
        }
    }

    work_stealing_deque(const work_stealing_deque&) = delete;
    work_stealing_deque& operator=(const work_stealing_deque&) = delete;

    /// @brief Owner only: pushes @p item at the bottom, doubling the ring if it is full.
    /// @param item the pointer to store; may be any value, nullptr included, but pop()
    ///        reports a popped nullptr as "nothing", so callers should not push one.
    /// @throws std::bad_alloc if growing fails; the deque is then unchanged.
    void push(T* item) {
        // relaxed: only the owner (this thread) writes bottom_.
        const std::int64_t b = bottom_.load(std::memory_order_relaxed);
        // relaxed: only the owner writes ring_.
        ring* r = ring_.load(std::memory_order_relaxed);
        // top_cache_ is a top_ the owner read earlier. top_ only grows, so the cached value
        // can only overstate how full the ring is: re-read top_ only when it looks full.
        // This keeps push() off the cache line thieves CAS on (one miss per push otherwise).
        if (WEFT_UNLIKELY(b - top_cache_ > r->capacity_ - 1)) {
            // acquire: pairs with the CAS of the thief that took slot t - 1, so its read of
            // that slot happens before we overwrite it when the ring wraps around (paper,
            // Fig. 1). Every slot reused below lies under a top_ value acquired here.
            top_cache_ = top_.load(std::memory_order_acquire);
            if (b - top_cache_ > r->capacity_ - 1) r = grow(r, top_cache_, b);
        }
        // relaxed: published to thieves by the release (fence) on bottom_ just below.
        r->slot(b).store(item, std::memory_order_relaxed);
#if WEFT_HAVE_TSAN
        // release: publishes the slot (and *item) to the thief that acquires bottom_.
        bottom_.store(b + 1, std::memory_order_release);
#else
        // release: publishes the slot (and *item) to the thief that acquires bottom_.
        std::atomic_thread_fence(std::memory_order_release);
        // relaxed: ordered after the slot store by the release fence above.
        bottom_.store(b + 1, std::memory_order_relaxed);
#endif
    }

    /// @brief Owner only: takes the most recently pushed item (LIFO end).
    /// @return the item, or nullptr if the deque was empty or a thief won the last item.
    T* pop() noexcept {
        // relaxed: only the owner writes bottom_.
        const std::int64_t b = bottom_.load(std::memory_order_relaxed) - 1;
        // relaxed: only the owner writes ring_.
        ring* r = ring_.load(std::memory_order_relaxed);
        // Reserve slot b before looking at top_: the store of bottom_ and the load of top_
        // must not be reordered (a store-buffering pattern with steal()), hence seq_cst.
#if WEFT_HAVE_TSAN
        bottom_.store(b, std::memory_order_seq_cst);
        std::int64_t t = top_.load(std::memory_order_seq_cst);
#else
        // relaxed: ordered before the load of top_ by the seq_cst fence that follows.
        bottom_.store(b, std::memory_order_relaxed);
        std::atomic_thread_fence(std::memory_order_seq_cst);
        // relaxed: ordered after the store of bottom_ by the seq_cst fence above.
        std::int64_t t = top_.load(std::memory_order_relaxed);
#endif
        if (t > b) {
            // Empty (t == b + 1): undo the reservation.
            // relaxed: the deque is empty, so any bottom_ value a thief reads leads it to
            // `empty` or to a CAS on top_ that fails.
            bottom_.store(b + 1, std::memory_order_relaxed);
            return nullptr;
        }
        // relaxed: the owner wrote this slot itself.
        T* item = r->slot(b).load(std::memory_order_relaxed);
        if (t < b) {
            return item;  // at least one more item above: no thief can reach slot b
        }
        // The last item: race the thieves for it through top_, like a steal.
        // seq_cst on success as in the paper; relaxed on failure: we only learn we lost.
        const bool won =
            top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_relaxed);
        // relaxed: top_ == b + 1 now, the deque is empty, same argument as above.
        bottom_.store(b + 1, std::memory_order_relaxed);
        return won ? item : nullptr;
    }

    /// @brief Owner only: the item pop() would return if it won, without taking it.
    /// @return the bottom item, or nullptr if the deque looks empty. A thief may still take
    ///         that item before the next pop().
    T* peek_bottom() const noexcept {
        // relaxed: only the owner writes bottom_.
        const std::int64_t b = bottom_.load(std::memory_order_relaxed) - 1;
        // relaxed: a hint only; pop() decides again behind its seq_cst fence.
        const std::int64_t t = top_.load(std::memory_order_relaxed);
        if (t > b) {
            return nullptr;
        }
        // relaxed (both): only the owner writes ring_ and it wrote this slot itself.
        return ring_.load(std::memory_order_relaxed)->slot(b).load(std::memory_order_relaxed);
    }

    /// @brief Any thread: tries to take the oldest item (FIFO end).
    /// @param out receives the item on success; untouched otherwise.
    /// @return success, empty, or lost_race when another thread took that item first.
    steal_status steal(T*& out) noexcept {
#if WEFT_HAVE_TSAN
        // The fence below, folded into its neighbours (see the class comment).
        std::int64_t t = top_.load(std::memory_order_seq_cst);
        const std::int64_t b = bottom_.load(std::memory_order_seq_cst);
#else
        // acquire: pairs with the CAS that set top_ to t, so this thief sees the deque at
        // least as recent as the taker of slot t - 1 did (paper, Fig. 1).
        std::int64_t t = top_.load(std::memory_order_acquire);
        // The load of top_ and the load of bottom_ must not be reordered against pop()'s
        // store of bottom_ and load of top_ (store-buffering pattern), hence seq_cst.
        std::atomic_thread_fence(std::memory_order_seq_cst);
        // acquire: pairs with push()'s release fence, making slot t (and *item) visible.
        const std::int64_t b = bottom_.load(std::memory_order_acquire);
#endif
        if (t >= b) {
            return steal_status::empty;
        }
        // acquire (the paper's consume): sees the slots grow() copied into a newer ring.
        ring* r = ring_.load(std::memory_order_acquire);
        // relaxed: made visible by the acquires above; the CAS below validates the read.
        T* item = r->slot(t).load(std::memory_order_relaxed);
        // seq_cst on success as in the paper; relaxed on failure: the item is not used.
        if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                          std::memory_order_relaxed)) {
            return steal_status::lost_race;
        }
        out = item;
        return steal_status::success;
    }

    /// @brief Any thread: whether the deque looks empty; may be stale by the time it returns.
    bool empty() const noexcept { return size_approx() == 0; }

    /// @brief Any thread: the number of items at some recent moment; exact on the owner
    ///        thread when no thief is active.
    std::size_t size_approx() const noexcept {
        // relaxed (both): a snapshot used as a hint; nothing is read through it.
        const std::int64_t b = bottom_.load(std::memory_order_relaxed);
        const std::int64_t t = top_.load(std::memory_order_relaxed);
        return b > t ? static_cast<std::size_t>(b - t) : 0;
    }

private:
    /// A power-of-two circular array of slots; logical index i lives at i & mask_.
    struct ring {
        explicit ring(std::int64_t capacity)
            : capacity_(capacity),
              mask_(static_cast<std::size_t>(capacity) - 1),
              slots_(std::make_unique<std::atomic<T*>[]>(static_cast<std::size_t>(capacity))) {}

        std::atomic<T*>& slot(std::int64_t i) const noexcept {
            return slots_[static_cast<std::size_t>(i) & mask_];
        }

        const std::int64_t capacity_;
        const std::size_t mask_;
        const std::unique_ptr<std::atomic<T*>[]> slots_;
        ring* retired_ = nullptr;  ///< owner-only: the ring this one replaced, kept for thieves
    };

    static std::int64_t round_up_capacity(std::size_t requested) noexcept {
        constexpr std::size_t max_capacity = std::size_t{1} << 40;
        WEFT_ASSERT(requested <= max_capacity);
        return static_cast<std::int64_t>(std::bit_ceil(requested == 0 ? std::size_t{1} : requested));
    }

    /// Owner only: replaces the full ring @p old by one twice as large holding [t, b).
    WEFT_NOINLINE ring* grow(ring* old, std::int64_t t, std::int64_t b) {
        WEFT_ASSERT(old->capacity_ <= (std::int64_t{1} << 61));
        auto bigger = std::make_unique<ring>(old->capacity_ * 2);
        for (std::int64_t i = t; i < b; ++i) {
            // relaxed (both): the owner wrote these slots; thieves see the copies through
            // the release store of ring_ below.
            bigger->slot(i).store(old->slot(i).load(std::memory_order_relaxed),
                                  std::memory_order_relaxed);
        }
        bigger->retired_ = old;
        ring* r = bigger.release();
        // release: a thief that acquires ring_ sees the copied slots.
        ring_.store(r, std::memory_order_release);
        return r;
    }

    /// Next slot a thief takes; written by thieves' and the owner's CAS.
    alignas(cache_line_size) std::atomic<std::int64_t> top_{0};
    /// One past the owner's newest item; written only by the owner.
    alignas(cache_line_size) std::atomic<std::int64_t> bottom_{0};
    std::int64_t top_cache_ = 0;  ///< owner only: a top_ read earlier (see push())
    /// The current ring; written only by the owner (in grow()), read by every steal.
    std::atomic<ring*> ring_;
};

}  // namespace weft::ext
