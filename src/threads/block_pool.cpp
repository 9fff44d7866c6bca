// The task-block pool behind allocate_block / free_node (the inline fast paths are in
// include/weft/threads/detail/block_pool.hpp): per size class, each worker keeps a free
// list of up to block_cache::keep blocks; when it runs dry it takes one whole batch from a
// process-wide stack of batches, which carves new blocks from 64 KiB chunks when empty;
// when it is full it hands its whole list over as one batch. Both moves are O(1): the
// free blocks are cold, so walking a list to split it would cost a cache miss per block
// (it did: 7 % of a fine-grained dataflow run went to that walk). Memory is kept for
// reuse (the footprint is the peak number of live tasks), never returned to the system:
// a future may outlive its runtime, so its block must stay valid. Under ASan every
// block is a real allocation instead, so that use-after-free is caught.
#include <weft/threads/detail/block_pool.hpp>

#include <cstdint>
#include <mutex>
#include <new>
#include <vector>

namespace weft::detail {
namespace {

constexpr std::size_t chunk_bytes = 64 * 1024;

/// A free block: the first word links the blocks of one list (the only word the inline
/// fast paths use); the first block of a batch in the pool also records the next batch
/// and its own length. Every block is at least a cache line, so this fits.
struct free_node {
    free_node* next;
    free_node* next_batch;
    std::uint32_t count;
};
static_assert(sizeof(free_node) <= cache_line_size);

struct size_class_pool {
    std::mutex mutex;
    free_node* batches = nullptr;  // a stack of null-terminated lists
};

struct pool {
    size_class_pool classes[block_cache::classes];
    std::mutex chunks_mutex;
    std::vector<void*> chunks;  // kept reachable: the pool lives as long as the process
};

pool& the_pool() {
    static pool* p = new pool;  // never destroyed: blocks may be freed during static destruction
    return *p;
}

free_node* as_free(void* block) noexcept { return static_cast<free_node*>(block); }

// Carves a new chunk into blocks of `bytes`; returns them as one list of `n` (out).
free_node* carve(std::size_t bytes, std::uint32_t& n) {
    void* chunk = ::operator new(chunk_bytes, std::align_val_t{cache_line_size});
    {
        pool& p = the_pool();
        std::lock_guard lock(p.chunks_mutex);
        p.chunks.push_back(chunk);
    }
    n = static_cast<std::uint32_t>(chunk_bytes / bytes);
    auto* base = static_cast<char*>(chunk);
    for (std::uint32_t i = 0; i + 1 < n; ++i) as_free(base + i * bytes)->next = as_free(base + (i + 1) * bytes);
    as_free(base + (n - 1) * bytes)->next = nullptr;
    return as_free(chunk);
}

// Takes one batch of class `cls` (carving a chunk if there is none); its length in `got`.
free_node* take(std::size_t cls, std::uint32_t& got) {
    size_class_pool& c = the_pool().classes[cls - 1];
    {
        std::lock_guard lock(c.mutex);
        if (free_node* b = c.batches) {
            c.batches = b->next_batch;
            got = b->count;
            return b;
        }
    }
    return carve(cls * cache_line_size, got);
}

// Gives the null-terminated list `first` of `n` blocks to the pool as one batch.
void give(std::size_t cls, void* first, std::uint32_t n) noexcept {
    size_class_pool& c = the_pool().classes[cls - 1];
    free_node* b = as_free(first);
    b->count = n;
    std::lock_guard lock(c.mutex);
    b->next_batch = c.batches;
    c.batches = b;
}

bool pooled(std::size_t cls) { return !WEFT_HAVE_ASAN && cls >= 1 && cls <= block_cache::classes; }

}  // namespace

void* allocate_block_slow(block_cache* c, std::size_t size) {
    const std::size_t cls = (size + cache_line_size - 1) / cache_line_size;
    if (!pooled(cls)) return ::operator new(cls * cache_line_size, std::align_val_t{cache_line_size});
    std::uint32_t got = 0;
    free_node* block = take(cls, got);
    if (c != nullptr) {  // the thread keeps the rest of the batch
        c->free_blocks[cls - 1] = block->next;
        c->free_count[cls - 1] = got - 1;
    } else if (got > 1) {  // not a worker: the rest goes back as a batch
        give(cls, block->next, got - 1);
    }
    return block;
}

void free_block_slow(block_cache* c, void* p, std::size_t size) noexcept {
    const std::size_t cls = (size + cache_line_size - 1) / cache_line_size;
    if (!pooled(cls)) {
        ::operator delete(p, std::align_val_t{cache_line_size});
        return;
    }
    if (c == nullptr) {
        as_free(p)->next = nullptr;
        give(cls, p, 1);
        return;
    }
    if (c->free_count[cls - 1] >= block_cache::keep) {
        // The list is full: it goes to the pool whole, and p starts a new one.
        give(cls, c->free_blocks[cls - 1], c->free_count[cls - 1]);
        c->free_blocks[cls - 1] = nullptr;
        c->free_count[cls - 1] = 0;
    }
    as_free(p)->next = as_free(c->free_blocks[cls - 1]);
    c->free_blocks[cls - 1] = p;
    ++c->free_count[cls - 1];
}

std::size_t task_block_pool_bytes() noexcept {
    pool& p = the_pool();
    std::lock_guard lock(p.chunks_mutex);
    return p.chunks.size() * chunk_bytes;
}

void release_block_cache(block_cache& c) noexcept {
    for (std::size_t k = 0; k < block_cache::classes; ++k) {
        if (c.free_blocks[k] != nullptr) give(k + 1, c.free_blocks[k], c.free_count[k]);
        c.free_blocks[k] = nullptr;
        c.free_count[k] = 0;
    }
}

}  // namespace weft::detail
