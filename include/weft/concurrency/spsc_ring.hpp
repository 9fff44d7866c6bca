// A bounded single-producer, single-consumer ring: the building block of XQueue
// (seed 001 ch.3, digest 001 §4.2-4.6; issue #7).
#pragma once

#include <weft/config/config.hpp>
#include <weft/config/errors.hpp>

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

namespace weft::ext {

/// @brief Bounded lock-less SPSC ring of trivially copyable values (task pointers, say).
///
/// One producer thread calls try_push(), one consumer thread calls try_pop(); any thread
/// may call the approximate observers. The fast path has no atomic read-modify-write and
/// no fence: the producer publishes a slot with a release store of `tail_`, the consumer
/// frees it with a release store of `head_`, and each reads the other's index with an
/// acquire load only when its cached copy says the ring is full (producer) or empty
/// (consumer). Caching the far index is Lamport's ring (L. Lamport, "Specifying
/// concurrent program modules", TOPLAS 1983) with the index caches of MCRingBuffer (Lee,
/// Bu and Chandranmenon, IPDPS 2010); B-queue (Wang et al., IJPP 2013; seed 001 §3.2)
/// gets the same effect by probing batches of slots, which needs a null value and a
/// backtracking probe that cached indices do without. On x86 the acquire loads and
/// release stores are plain moves, so an operation costs the seed's "no locks, no atomic
/// operations, no barriers" (digest 001 §4.6), and the ring is also correct under the C++
/// memory model on ARM and POWER.
///
/// Producer state (`tail_`, the cached head) and consumer state (`head_`, the cached
/// tail) live on separate cache lines, so each side writes only its own line and reads
/// the other's only when its cache runs out.
///
/// @tparam T a trivially copyable value type.
/// @tparam Alloc allocates the slots (e.g. on the consumer's NUMA node).
///
/// Example (from tests/unit/concurrency/spsc_ring_test.cpp):
/// @code
/// weft::ext::spsc_ring<int> ring(3);   // rounded up to 4 slots
/// EXPECT_EQ(ring.capacity(), 4u);
/// EXPECT_TRUE(ring.try_push(1));
/// EXPECT_TRUE(ring.try_push(2));
/// int v = 0;
/// EXPECT_TRUE(ring.try_pop(v));        // FIFO: 1, then 2
/// EXPECT_EQ(v, 1);
/// @endcode
template <class T, class Alloc = std::allocator<T>>
class alignas(cache_line_size) spsc_ring {  // aligned: nothing else shares the consumer's line
    static_assert(std::is_trivially_copyable_v<T>, "spsc_ring holds trivially copyable values");

public:
    /// Indices are 64-bit and never wrap in practice (2^64 operations).
    using index_type = std::uint64_t;

    /// @param capacity at least 1; rounded up to a power of two.
    /// @throws weft::error for a capacity of 0 or above 2^32.
    explicit spsc_ring(std::size_t capacity, const Alloc& alloc = Alloc()) : alloc_(alloc) {
        if (capacity == 0 || capacity > (std::size_t{1} << 32))
            throw weft::error("weft::ext::spsc_ring: capacity must be 1 to 2^32 (got " + std::to_string(capacity) +
                              ")");
        capacity_ = std::bit_ceil(capacity);
        mask_ = capacity_ - 1;
        slots_ = std::allocator_traits<Alloc>::allocate(alloc_, capacity_);
        // Written here, by the constructing thread: under Linux's first-touch policy the
        // slots' pages land on its NUMA node (xqueue constructs a ring on its consumer).
        std::uninitialized_value_construct_n(slots_, capacity_);
    }
    ~spsc_ring() { std::allocator_traits<Alloc>::deallocate(alloc_, slots_, capacity_); }
    spsc_ring(const spsc_ring&) = delete;
    spsc_ring& operator=(const spsc_ring&) = delete;

    /// Producer only: appends `v`; false (and nothing changes) if the ring is full.
    bool try_push(const T& v) noexcept {
        // relaxed: only the producer writes tail_.
        const index_type t = tail_.load(std::memory_order_relaxed);
        if (t - head_cache_ == capacity_) {
            // acquire: the consumer's reads of the slots it freed happen before we
            // overwrite them.
            head_cache_ = head_.load(std::memory_order_acquire);
            if (t - head_cache_ == capacity_) return false;
        }
        slots_[t & mask_] = v;
        // release: the slot's contents are visible to the consumer that sees the new tail.
        tail_.store(t + 1, std::memory_order_release);
        return true;
    }

    /// Consumer only: removes the oldest value into `out`; false if the ring is empty.
    bool try_pop(T& out) noexcept {
        // relaxed: only the consumer writes head_.
        const index_type h = head_.load(std::memory_order_relaxed);
        if (h == tail_cache_) {
            // acquire: pairs with the producer's release store of tail_ (slot contents).
            tail_cache_ = tail_.load(std::memory_order_acquire);
            if (h == tail_cache_) return false;
        }
        out = slots_[h & mask_];
        // release: our read of the slot happens before the producer reuses it.
        head_.store(h + 1, std::memory_order_release);
        return true;
    }

    /// Producer only: appends the first values of in[0..n) that fit, in order, with one
    /// release store of the tail for all of them; returns how many (0 if the ring is full).
    /// Batching is what B-queue's figure of ~20 cycles per item across cores rests on
    /// (seed 001 §3.2): one index update, and slot lines that move whole, per batch.
    std::size_t try_push_bulk(const T* in, std::size_t n) noexcept {
        // relaxed: only the producer writes tail_.
        const index_type t = tail_.load(std::memory_order_relaxed);
        std::size_t room = capacity_ - static_cast<std::size_t>(t - head_cache_);
        if (room < n) {
            head_cache_ = head_.load(std::memory_order_acquire);  // acquire: as in try_push
            room = capacity_ - static_cast<std::size_t>(t - head_cache_);
        }
        const std::size_t k = n < room ? n : room;
        for (std::size_t i = 0; i < k; ++i) slots_[(t + i) & mask_] = in[i];
        if (k != 0) tail_.store(t + k, std::memory_order_release);  // release: as in try_push
        return k;
    }

    /// Consumer only: removes up to n of the oldest values into out[0..n), in order, with
    /// one release store of the head for all of them; returns how many (0 if empty).
    std::size_t try_pop_bulk(T* out, std::size_t n) noexcept {
        // relaxed: only the consumer writes head_.
        const index_type h = head_.load(std::memory_order_relaxed);
        std::size_t ready = static_cast<std::size_t>(tail_cache_ - h);
        if (ready < n) {
            tail_cache_ = tail_.load(std::memory_order_acquire);  // acquire: as in try_pop
            ready = static_cast<std::size_t>(tail_cache_ - h);
        }
        const std::size_t k = n < ready ? n : ready;
        for (std::size_t i = 0; i < k; ++i) out[i] = slots_[(h + i) & mask_];
        if (k != 0) head_.store(h + k, std::memory_order_release);  // release: as in try_pop
        return k;
    }

    /// Consumer only: true if try_pop() would fail now (refreshes the cached tail).
    bool empty_for_consumer() noexcept {
        // relaxed: only the consumer writes head_.
        const index_type h = head_.load(std::memory_order_relaxed);
        if (h != tail_cache_) return false;
        tail_cache_ = tail_.load(std::memory_order_acquire);  // acquire: as in try_pop
        return h == tail_cache_;
    }

    /// Producer only: true if try_push() would fail now.
    bool full_for_producer() noexcept {
        const index_type t = tail_.load(std::memory_order_relaxed);  // relaxed: only we write it
        if (t - head_cache_ != capacity_) return false;
        head_cache_ = head_.load(std::memory_order_acquire);  // acquire: as in try_push
        return t - head_cache_ == capacity_;
    }

    /// Any thread: the number of values, approximately (exact when neither side moves).
    std::size_t size_approx() const noexcept {
        // relaxed: an estimate; head first, so that the difference never goes negative
        // for long (a head read after tail could pass it).
        const index_type h = head_.load(std::memory_order_relaxed);
        const index_type t = tail_.load(std::memory_order_relaxed);
        return t > h ? static_cast<std::size_t>(t - h) : 0;
    }
    /// Any thread: size_approx() == 0.
    bool empty_approx() const noexcept { return size_approx() == 0; }
    std::size_t capacity() const noexcept { return capacity_; }

private:
    // Written once by the constructor, read by both sides.
    std::size_t capacity_ = 0;
    std::size_t mask_ = 0;
    T* slots_ = nullptr;
    [[no_unique_address]] Alloc alloc_;
    // Producer's line: its index and its copy of the consumer's.
    alignas(cache_line_size) std::atomic<index_type> tail_{0};
    index_type head_cache_ = 0;
    // Consumer's line.
    alignas(cache_line_size) std::atomic<index_type> head_{0};
    index_type tail_cache_ = 0;
};

}  // namespace weft::ext
