// XQueue: a lock-less, relaxed-order multi-producer multi-consumer queue made of SPSC
// rings, one per producer-consumer pair (seed 001 ch.3; digest 001 §4.3-4.6; issue #7).
#pragma once

#include <weft/concurrency/spsc_ring.hpp>
#include <weft/config/config.hpp>
#include <weft/config/errors.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace weft::ext {

/// Which workers XQueue connects. Workers of one domain each get an SPSC ring from every
/// other member (the seed's full mesh within the domain, N^2 rings for N members); no ring
/// crosses domains, so work crosses them only by stealing. The seed suggests confining
/// the round-robin ring to a NUMA zone (digest 001 §5.8): with D domains of N/D workers
/// there are N^2/D rings instead of N^2.
struct xqueue_topology {
    std::vector<unsigned> domain_of;  ///< per worker, any labels; equal labels = one domain

    /// One domain: every worker pushes to every other (the seed's topology).
    static xqueue_topology full_mesh(unsigned workers) { return {std::vector<unsigned>(workers, 0)}; }
    /// Consecutive groups of `size` workers (the last may be smaller); e.g. one per NUMA
    /// node when workers are numbered node by node. @throws weft::error if size is 0.
    static xqueue_topology groups(unsigned workers, unsigned size) {
        if (size == 0) throw weft::error("weft::ext::xqueue_topology::groups: the group size is 0");
        xqueue_topology t;
        for (unsigned w = 0; w < workers; ++w) t.domain_of.push_back(w / size);
        return t;
    }
};

/// Where enqueue() sends an item first.
enum class xqueue_placement {
    round_robin,  ///< the next other member of the producer's domain, in turn (seed 001 Algorithm 1)
    local_first,  ///< the producer's own local ring; others only when it is full
};
// A third placement, hinted (the producer names the consumer), is enqueue_hinted().

/// @brief XQueue: per worker a local ring and one inbound SPSC ring from each other member
/// of its domain; only the worker consumes its rings, and ring (i -> j) is written only
/// by worker i, so every ring stays SPSC and no operation needs a lock or a
/// read-modify-write on the fast path (seed 001 ch.3, Figure 3.1).
///
/// Order is relaxed: FIFO per ring, none across rings.
///
/// **Finding work without scanning.** Each consumer has a doorbell: a bit per producer
/// (a word per 64 producers). A producer, after its push, sets its bit if it sees it
/// clear; a consumer pops from the rings whose bits are set and clears a bit when it
/// finds that ring empty, then looks once more. The seed's "hint" was a racy flag
/// (digest 001 §4.4); here a store-load fence on each side (the producer's after its
/// push, the consumer's after its clear) makes a lost item impossible: either the
/// producer sees the cleared bit and sets it again, or the consumer's second look sees
/// the item (the SC-fence rule, [atomics.fences]). The bit is written only when it
/// changes, so a busy pair does not bounce the doorbell's line.
///
/// **Full rings.** enqueue() tries the placement's target, then every other connected
/// ring in round-robin order, then the producer's local ring, and returns xqueue::none if
/// all are full. The caller decides what then: the xqueue scheduler policy keeps such a
/// task on an unbounded owner-only list (tasks link intrusively, so that costs no
/// allocation); running it inline would nest tasks on the spawner's stack without bound,
/// and blocking until a ring drains could deadlock two workers filling each other's.
///
/// **NUMA.** A consumer's rings are allocated by attach(consumer), called on the
/// consumer's thread, so Linux's first-touch policy puts them on its node. Until then a
/// ring into that consumer counts as full.
///
/// @tparam T a trivially copyable item (a task pointer).
///
/// Example (from tests/unit/concurrency/xqueue_test.cpp):
/// @code
/// weft::ext::xqueue<int> q(weft::ext::xqueue_topology::full_mesh(3), 8);
/// q.attach_all();                       // each consumer's thread calls attach(itself)
/// EXPECT_EQ(q.enqueue(0, 10), 1u);      // round-robin: worker 0's first item goes to 1,
/// EXPECT_EQ(q.enqueue(0, 11), 2u);      // its second to 2,
/// EXPECT_EQ(q.enqueue(0, 12), 1u);      // skipping itself
/// int v = 0;
/// EXPECT_TRUE(q.pop(1, v));             // worker 1 consumes its rings
/// EXPECT_EQ(v, 10);
/// @endcode
template <class T>
class xqueue {
public:
    static constexpr unsigned none = ~0u;

    /// @param ring_capacity slots per ring (rounded up to a power of two).
    /// @throws weft::error for no workers, more than 2^20, or what spsc_ring refuses.
    xqueue(xqueue_topology topology, std::size_t ring_capacity,
           xqueue_placement placement = xqueue_placement::round_robin)
        : capacity_(ring_capacity), placement_(placement) {
        const std::size_t n = topology.domain_of.size();
        if (n == 0 || n > (std::size_t{1} << 20))
            throw weft::error("weft::ext::xqueue: need 1 to 2^20 workers (got " + std::to_string(n) + ")");
        if (ring_capacity == 0 || ring_capacity > (std::size_t{1} << 32))
            throw weft::error("weft::ext::xqueue: ring capacity must be 1 to 2^32 (got " +
                              std::to_string(ring_capacity) + ")");
        workers_ = std::make_unique<worker[]>(n);
        n_ = static_cast<unsigned>(n);
        // Members of each domain, in worker order; a worker's rank is its place there.
        for (unsigned w = 0; w < n_; ++w) {
            worker& me = workers_[w];
            for (unsigned v = 0; v < n_; ++v) {
                if (topology.domain_of[v] != topology.domain_of[w]) continue;
                if (v == w) me.rank = static_cast<unsigned>(me.members.size());
                me.members.push_back(v);
            }
            me.cursor = (me.rank + 1) % static_cast<unsigned>(me.members.size());
            me.rings = std::make_unique<std::atomic<ring*>[]>(me.members.size());
            me.bell = std::make_unique<std::atomic<std::uint64_t>[]>((me.members.size() + 63) / 64);
        }
    }
    ~xqueue() {
        for (unsigned w = 0; w < n_; ++w)
            for (std::size_t i = 0; i < workers_[w].members.size(); ++i)
                delete workers_[w].rings[i].load(std::memory_order_relaxed);  // relaxed: no one else runs now
    }
    xqueue(const xqueue&) = delete;
    xqueue& operator=(const xqueue&) = delete;

    unsigned workers() const noexcept { return n_; }
    xqueue_placement placement() const noexcept { return placement_; }
    /// The workers of w's domain, w included (1: w has only its local ring).
    std::size_t domain_size(unsigned w) const noexcept { return w < n_ ? workers_[w].members.size() : 0; }
    /// True if `from` may push to `to` (same domain; from == to is the local ring).
    bool connected(unsigned from, unsigned to) const noexcept {
        return from < n_ && to < n_ && rank_in(to, from) != none;
    }

    /// The consumer's thread, once, before its first pop: allocates its rings there.
    void attach(unsigned consumer) {
        worker& c = at(consumer);
        for (std::size_t i = 0; i < c.members.size(); ++i) {
            if (c.rings[i].load(std::memory_order_relaxed) != nullptr) continue;  // relaxed: only we store
            // release: producers that load the pointer (acquire) see a constructed ring.
            c.rings[i].store(new ring(capacity_), std::memory_order_release);
        }
    }
    /// attach() for every worker from this thread (tests; placement ignores NUMA then).
    void attach_all() {
        for (unsigned w = 0; w < n_; ++w) attach(w);
    }

    /// Producer `from` (its thread only) to consumer `to`'s ring from `from` (`to ==
    /// from`: the local ring). False if not connected, not attached yet, or full.
    bool push(unsigned from, unsigned to, const T& v) noexcept {
        if (from >= n_ || to >= n_) return false;
        const unsigned r = rank_in(to, from);
        if (r == none) return false;
        worker& c = workers_[to];
        // acquire: pairs with attach()'s release store.
        ring* q = c.rings[r].load(std::memory_order_acquire);
        if (q == nullptr || !q->try_push(v)) return false;
        if (to != from) ring_bell(c, r);
        return true;
    }

    /// Producer `from`: the placement's target, then the other connected rings in turn,
    /// then the local ring. Returns the consumer that got `v`, or none if all were full.
    unsigned enqueue(unsigned from, const T& v) noexcept {
        if (from >= n_) return none;
        if (placement_ == xqueue_placement::local_first && push(from, from, v)) return from;
        const unsigned to = push_round_robin(from, v);
        if (to != none) return to;
        if (placement_ == xqueue_placement::round_robin && push(from, from, v)) return from;
        return none;
    }

    /// Producer `from` with a hint (the consumer whose data the item touches, say): the
    /// hinted ring first, if `from` can reach it, then as enqueue(). Returns the consumer
    /// that got `v`, or none if all were full.
    unsigned enqueue_hinted(unsigned from, unsigned hint, const T& v) noexcept {
        if (from >= n_) return none;
        if (push(from, hint, v)) return hint;
        return enqueue(from, v);
    }

    /// Producer `from`: the other members of its domain in turn, from its cursor, until
    /// a ring takes `v` (each tried once). Returns that consumer, or none (all full, or
    /// no other member).
    unsigned push_round_robin(unsigned from, const T& v) noexcept {
        if (from >= n_) return none;
        worker& p = workers_[from];
        const auto m = static_cast<unsigned>(p.members.size());
        // Seed 001 Algorithm 1, with the skip-self bug of digest 001 §4.4 avoided: the
        // cursor never rests on the producer's own rank.
        for (unsigned k = 0; k + 1 < m; ++k) {
            const unsigned r = p.cursor;
            p.cursor = next_other(r, p.rank, m);
            if (push(from, p.members[r], v)) return p.members[r];
        }
        return none;
    }

    /// Consumer `self` (its thread only): its local ring first, then the inbound rings
    /// whose doorbell bits are set. False if it found nothing.
    bool pop(unsigned self, T& out) noexcept { return pop_local(self, out) || pop_inbound(self, out); }

    /// Consumer `self`: its local ring only.
    bool pop_local(unsigned self, T& out) noexcept {
        if (self >= n_) return false;
        worker& c = workers_[self];
        ring* q = c.rings[c.rank].load(std::memory_order_relaxed);  // relaxed: we stored it
        return q != nullptr && q->try_pop(out);
    }

    /// Any thread: true if a doorbell bit of consumer `self` is set, so that its inbound
    /// rings may hold items (a hint: a bit stays set until the consumer finds its ring
    /// empty; an item pushed a moment ago may not show yet).
    bool inbound_hint(unsigned self) const noexcept {
        if (self >= n_) return false;
        const worker& c = workers_[self];
        const auto words = (c.members.size() + 63) / 64;
        for (std::size_t i = 0; i < words; ++i)
            if (c.bell[i].load(std::memory_order_relaxed) != 0) return true;  // relaxed: a hint
        return false;
    }

    /// Consumer `self` (or one thread at a time standing in for it, with its own mutual
    /// exclusion): its inbound rings only (doorbell order, from the last ring that
    /// gave an item, so a busy producer is drained before the scan moves on).
    bool pop_inbound(unsigned self, T& out) noexcept {
        if (self >= n_) return false;
        worker& c = workers_[self];
        const auto m = static_cast<unsigned>(c.members.size());
        const unsigned words = (m + 63) / 64;
        for (unsigned k = 0; k <= words; ++k) {  // words + 1: the start word again, below the start bit
            const unsigned wi = (c.scan / 64 + k) % words;
            // relaxed: a hint; try_pop's acquire load of the ring's tail orders the item.
            std::uint64_t bits = c.bell[wi].load(std::memory_order_relaxed);
            if (k == 0) bits &= ~std::uint64_t{0} << (c.scan % 64);
            else if (k == words) bits &= ~(~std::uint64_t{0} << (c.scan % 64));
            while (bits != 0) {
                const unsigned b = static_cast<unsigned>(std::countr_zero(bits));
                bits &= bits - 1;
                const unsigned r = wi * 64 + b;
                // acquire: the consumer may be a thread standing in for the worker (a
                // policy's rescue, under its lock), not the one whose attach() stored it.
                ring* q = c.rings[r].load(std::memory_order_acquire);
                if (q == nullptr) continue;  // a bit is set only for an attached ring; defensive
                if (q->try_pop(out)) {
                    c.scan = r;
                    return true;
                }
                // Empty: clear the bit, then look once more (see the class comment).
                // relaxed + fence: the fence orders the clear before the second look.
                c.bell[wi].fetch_and(~(std::uint64_t{1} << b), std::memory_order_relaxed);
                detail::store_load_fence();
                if (q->try_pop(out)) {
                    // relaxed: as the producer's set; the ring may hold more.
                    c.bell[wi].fetch_or(std::uint64_t{1} << b, std::memory_order_relaxed);
                    c.scan = r;
                    return true;
                }
            }
        }
        return false;
    }

    /// Any thread: items queued for `worker` (local and inbound), approximately.
    std::size_t size_approx(unsigned w) const noexcept {
        if (w >= n_) return 0;
        const worker& c = workers_[w];
        std::size_t s = 0;
        for (std::size_t i = 0; i < c.members.size(); ++i)
            // acquire: pairs with attach()'s release store.
            if (const ring* q = c.rings[i].load(std::memory_order_acquire)) s += q->size_approx();
        return s;
    }
    /// Any thread: whether a doorbell bit of `w` is set (some inbound ring may hold items).
    bool bell_approx(unsigned w) const noexcept {
        if (w >= n_) return false;
        const worker& c = workers_[w];
        for (std::size_t i = 0; i < (c.members.size() + 63) / 64; ++i)
            if (c.bell[i].load(std::memory_order_relaxed) != 0) return true;  // relaxed: an estimate
        return false;
    }

private:
    using ring = spsc_ring<T>;

    struct alignas(cache_line_size) worker {
        // Read by producers (after construction: members, rank, rings' pointers).
        std::vector<unsigned> members;              // the domain, in worker order
        unsigned rank = 0;                          // this worker's place in members
        std::unique_ptr<std::atomic<ring*>[]> rings;  // by producer rank; [rank] = local ring
        std::unique_ptr<std::atomic<std::uint64_t>[]> bell;  // a bit per producer rank
        // Owner-only, on a line of their own: written on every push and pop.
        alignas(cache_line_size) unsigned cursor = 0;  // round-robin: the next rank to push to
        unsigned scan = 0;                             // the ring pop_inbound looks at first
    };

    worker& at(unsigned w) {
        if (w >= n_) throw weft::error("weft::ext::xqueue: no worker " + std::to_string(w));
        return workers_[w];
    }
    /// `from`'s rank in `to`'s domain, or none.
    unsigned rank_in(unsigned to, unsigned from) const noexcept {
        const auto& m = workers_[to].members;
        const auto it = std::lower_bound(m.begin(), m.end(), from);
        return it != m.end() && *it == from ? static_cast<unsigned>(it - m.begin()) : none;
    }
    static unsigned next_other(unsigned r, unsigned self, unsigned m) noexcept {
        r = (r + 1) % m;
        if (r == self) r = (r + 1) % m;  // modulo again: self may be the last rank
        return r;
    }
    void ring_bell(worker& c, unsigned r) noexcept {
        // The producer's half of the doorbell protocol (class comment): the fence orders
        // our push before the read of the bit.
        detail::store_load_fence();
        const std::uint64_t bit = std::uint64_t{1} << (r % 64);
        // relaxed: ordered by the fences; the bit is a hint, the ring holds the item.
        std::atomic<std::uint64_t>& word = c.bell[r / 64];
        if ((word.load(std::memory_order_relaxed) & bit) == 0) word.fetch_or(bit, std::memory_order_relaxed);
    }

    std::size_t capacity_;
    xqueue_placement placement_;
    unsigned n_ = 0;
    std::unique_ptr<worker[]> workers_;
};

}  // namespace weft::ext
