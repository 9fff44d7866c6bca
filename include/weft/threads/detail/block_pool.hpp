// Memory for task blocks (a task, its closure and, for async, its shared state in one
// allocation): per-thread free lists in front of a process-wide pool of batches
// (src/threads/block_pool.cpp). The inline paths below are the whole cost of a
// spawn's allocation in the common case.
#pragma once

#include <weft/config/config.hpp>

#include <cstddef>
#include <cstdint>

namespace weft::detail {

/// One thread's free lists of task blocks, by size class (owner only). A worker embeds
/// one; a thread that is not a worker has none and goes to the pool each time.
struct block_cache {
    static constexpr std::size_t classes = 8;  ///< blocks of 64..512 bytes
    /// Blocks a list keeps before it goes to the pool whole (block_pool.cpp relies on it).
    static constexpr std::uint32_t keep = 4096;
    void* free_blocks[classes] = {};
    std::uint32_t free_count[classes] = {};
};

/// Memory for a block of `size` bytes when `c` (may be null) has none of that class.
void* allocate_block_slow(block_cache* c, std::size_t size);
/// Returns a block when `c`'s list is full (or `c` is null).
void free_block_slow(block_cache* c, void* p, std::size_t size) noexcept;
/// Hands a cache's blocks back to the process-wide pool (its thread is leaving).
void release_block_cache(block_cache& c) noexcept;
/// Bytes the pool has taken from the system so far (0 under ASan, where every block is
/// its own allocation). It only grows: blocks are kept for reuse.
std::size_t task_block_pool_bytes() noexcept;

/// A block of `size` bytes aligned to a cache line; from `c`'s free list when it has one
/// of that size class (no allocation). `c` may be null.
inline void* allocate_block(block_cache* c, std::size_t size) {
    const std::size_t cls = (size + cache_line_size - 1) / cache_line_size;
    if constexpr (!WEFT_HAVE_ASAN) {  // under ASan every block is a real allocation
        if (c != nullptr && cls >= 1 && cls <= block_cache::classes) {
            if (void* p = c->free_blocks[cls - 1]) {
                c->free_blocks[cls - 1] = *static_cast<void**>(p);
                --c->free_count[cls - 1];
                return p;
            }
        }
    }
    return allocate_block_slow(c, size);
}

/// Returns a block from allocate_block (any thread may free any block).
inline void free_block(block_cache* c, void* p, std::size_t size) noexcept {
    const std::size_t cls = (size + cache_line_size - 1) / cache_line_size;
    if constexpr (!WEFT_HAVE_ASAN) {
        if (c != nullptr && cls >= 1 && cls <= block_cache::classes && c->free_count[cls - 1] < block_cache::keep) {
            *static_cast<void**>(p) = c->free_blocks[cls - 1];
            c->free_blocks[cls - 1] = p;
            ++c->free_count[cls - 1];
            return;
        }
    }
    free_block_slow(c, p, size);
}

}  // namespace weft::detail
