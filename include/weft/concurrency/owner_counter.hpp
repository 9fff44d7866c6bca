// A statistics counter that one thread (its owner) writes and any thread reads.
#pragma once

#include <atomic>
#include <cstdint>

namespace weft::detail {

/// Incremented by its owner only, read by anyone: a relaxed load and store, not an
/// atomic read-modify-write, so an increment costs what a plain one does (no lock
/// prefix). Readers see a recent value, never a torn one.
class owner_counter {
public:
    // relaxed: a statistic; it orders nothing and readers only need some recent value.
    void add(std::uint64_t n = 1) noexcept { v_.store(v_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed); }
    std::uint64_t get() const noexcept { return v_.load(std::memory_order_relaxed); }  // relaxed: as above
    /// add() as a release store: what the owner wrote before it is visible to a reader
    /// that sees the new value through get_acquire() (for sequence locks).
    void add_release(std::uint64_t n) noexcept {
        // relaxed load: only the owner writes v_; release store: as the comment above says.
        v_.store(v_.load(std::memory_order_relaxed) + n, std::memory_order_release);
    }
    // acquire: pairs with add_release(), so the owner's writes before it are visible.
    std::uint64_t get_acquire() const noexcept { return v_.load(std::memory_order_acquire); }

private:
    std::atomic<std::uint64_t> v_{0};
};

}  // namespace weft::detail
