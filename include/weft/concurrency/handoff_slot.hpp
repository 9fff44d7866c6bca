// A one-item mailbox that its owner opens while it waits for work, and that any thread
// may fill once while it is open: the direct hand-off of a ready task to an idle worker.
#pragma once

#include <weft/config/config.hpp>

#include <atomic>
#include <cstdint>

namespace weft::ext {

/// @brief One-item mailbox: owner opens it, one giver fills it, the owner takes the item.
///
/// The per-processor mailboxes of locality-guided work stealing (U. A. Acar, G. E.
/// Blelloch, R. D. Blumofe, "The Data Locality of Work Stealing", SPAA 2000) let a
/// producer name the processor that should run a task; here the mailbox is for speed
/// rather than affinity: a worker that spins idle opens its slot, and a worker that
/// readies a task it will not run itself puts the task there instead of in its own deque,
/// where the idle one would have to steal it. One cache line crosses between the cores
/// (the giver's CAS, then the owner's load) instead of a deque's three (its bottom, the
/// array slot, the CAS on its top).
///
/// The slot is one word: `open` (1) while the owner accepts an item; otherwise `closed`
/// (0) or the last item given. Only offer() turns open into an item, with a CAS that
/// fails unless the slot is open, so at most one giver wins an opening. The owner never
/// clears an item it took (anything but open turns givers away), so taking one writes
/// nothing: the line stays shared with the givers that read it. close() exchanges the
/// word, so exactly one of a racing offer() and close() wins: an item is never lost and
/// never delivered twice.
///
/// Owner-only: open(), poll(), close(). Any thread: offer(), is_open().
///
/// @tparam T the item type; items are `T*`, never null, aligned to at least 2 bytes.
///
/// Example (from tests/unit/concurrency/handoff_slot_test.cpp):
/// @code
/// struct item { int value = 0; };
/// weft::ext::handoff_slot<item> slot;
/// item a{1}, b{2};
/// EXPECT_FALSE(slot.offer(&a));      // closed: the giver keeps the item
/// slot.open();
/// EXPECT_EQ(slot.poll(), nullptr);   // open, nothing yet
/// EXPECT_TRUE(slot.offer(&a));
/// EXPECT_FALSE(slot.offer(&b));      // one item per opening
/// EXPECT_EQ(slot.poll(), &a);        // taken; the slot is closed again
/// EXPECT_EQ(slot.close(), nullptr);  // nothing was given since
/// @endcode
template <class T>
class alignas(cache_line_size) handoff_slot {
public:
    handoff_slot() noexcept = default;
    handoff_slot(const handoff_slot&) = delete;
    handoff_slot& operator=(const handoff_slot&) = delete;

    /// @brief Owner: accepts one item from now on. No-op if already open.
    void open() noexcept {
        if (open_) return;
        open_ = true;
        // relaxed: an open slot carries nothing from the owner to a giver.
        word_.store(open_word, std::memory_order_relaxed);
    }

    /// @brief Any thread: gives @p item to the owner if the slot is open.
    /// @return true if the owner now holds it; false if the slot was not open (the caller
    ///         keeps the item).
    bool offer(T* item) noexcept {
        // relaxed: a filter that reads a line the owner rarely writes; the CAS decides.
        if (word_.load(std::memory_order_relaxed) != open_word) return false;
        std::uintptr_t expected = open_word;
        // release: publishes *item to the owner's acquire in poll() or close(); relaxed
        // on failure: nothing was published.
        return word_.compare_exchange_strong(expected, reinterpret_cast<std::uintptr_t>(item),
                                             std::memory_order_release, std::memory_order_relaxed);
    }

    /// @brief Owner, while open: the item given since open(), which closes the slot, or null.
    T* poll() noexcept {
        if (!open_) return nullptr;
        // acquire: pairs with offer()'s release CAS.
        const std::uintptr_t w = word_.load(std::memory_order_acquire);
        if (w == open_word) return nullptr;
        open_ = false;
        return reinterpret_cast<T*>(w);
    }

    /// @brief Owner: closes the slot; returns the item given since open(), or null.
    T* close() noexcept {
        if (!open_) return nullptr;
        open_ = false;
        // acquire: pairs with offer()'s release CAS; the exchange and a racing CAS are
        // ordered, so the item is either returned here or never accepted.
        const std::uintptr_t w = word_.exchange(closed_word, std::memory_order_acquire);
        return w == open_word ? nullptr : reinterpret_cast<T*>(w);
    }

    /// @brief Owner: true between open() and the poll() or close() that ends it.
    bool is_open() const noexcept { return open_; }

    /// @brief Any thread: the slot accepts an item now (a hint; offer() decides).
    bool accepts() const noexcept {
        // relaxed: a hint only.
        return word_.load(std::memory_order_relaxed) == open_word;
    }

private:
    static constexpr std::uintptr_t closed_word = 0, open_word = 1;
    std::atomic<std::uintptr_t> word_{closed_word};
    // Owner only, on a line of its own: poll() writes it when it takes an item, and the
    // givers' copies of the word's line must survive that.
    alignas(cache_line_size) bool open_ = false;
};

}  // namespace weft::ext
