// The task-block pool behind allocate_task_block / free_task_block (the inline fast paths
// are in include/weft/sched/detail/core.hpp): per size class, each worker keeps a free
// list of up to `worker_keep` blocks; when it runs dry it takes one whole batch from a
// process-wide stack of batches, which carves new blocks from 64 KiB chunks when empty;
// when it is full it hands its whole list over as one batch. Both moves are O(1): the
// free blocks are cold, so walking a list to split it would cost a cache miss per block
// (it did: 7 % of a fine-grained dataflow run went to that walk). Memory is kept for
// reuse (the footprint is the peak number of live tasks), never returned to the system:
// a future may outlive its runtime, so its block must stay valid. Under ASan every
// block is a real allocation instead, so that use-after-free is caught.
#include <weft/sched/detail/core.hpp>

#include <cstdint>
#include <mutex>
#include <new>
#include <vector>

namespace weft::detail {
namespace {

constexpr std::size_t chunk_bytes = 64 * 1024;
constexpr std::uint32_t worker_keep = 4096;  // must match free_task_block's inline cap

/// A free block: the first word links the blocks of one list (the only word the inline
/// fast paths use); the first block of a batch in the pool also records the next batch
/// and its own length. Every block is at least a cache line, so this fits.
struct free_block {
    free_block* next;
    free_block* next_batch;
    std::uint32_t count;
};
static_assert(sizeof(free_block) <= cache_line_size);

struct size_class_pool {
    std::mutex mutex;
    free_block* batches = nullptr;  // a stack of null-terminated lists
};

struct pool {
    size_class_pool classes[worker_hot::block_classes];
    std::mutex chunks_mutex;
    std::vector<void*> chunks;  // kept reachable: the pool lives as long as the process
};

pool& the_pool() {
    static pool* p = new pool;  // never destroyed: blocks may be freed during static destruction
    return *p;
}

free_block* as_free(void* block) noexcept { return static_cast<free_block*>(block); }

// Carves a new chunk into blocks of `bytes`; returns them as one list of `n` (out).
free_block* carve(std::size_t bytes, std::uint32_t& n) {
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
free_block* take(std::size_t cls, std::uint32_t& got) {
    size_class_pool& c = the_pool().classes[cls - 1];
    {
        std::lock_guard lock(c.mutex);
        if (free_block* b = c.batches) {
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
    free_block* b = as_free(first);
    b->count = n;
    std::lock_guard lock(c.mutex);
    b->next_batch = c.batches;
    c.batches = b;
}

bool pooled(std::size_t cls) { return !WEFT_HAVE_ASAN && cls >= 1 && cls <= worker_hot::block_classes; }

}  // namespace

void* allocate_task_block_slow(std::size_t size) {
    const std::size_t cls = (size + cache_line_size - 1) / cache_line_size;
    if (!pooled(cls)) return ::operator new(cls * cache_line_size, std::align_val_t{cache_line_size});
    worker_hot* w = current_worker_hot();
    std::uint32_t got = 0;
    free_block* block = take(cls, got);
    if (w != nullptr) {  // the worker keeps the rest of the batch
        w->free_blocks[cls - 1] = block->next;
        w->free_block_count[cls - 1] = got - 1;
    } else if (got > 1) {  // not a worker: the rest goes back as a batch
        give(cls, block->next, got - 1);
    }
    return block;
}

void free_task_block_slow(void* p, std::size_t size) noexcept {
    const std::size_t cls = (size + cache_line_size - 1) / cache_line_size;
    if (!pooled(cls)) {
        ::operator delete(p, std::align_val_t{cache_line_size});
        return;
    }
    worker_hot* w = current_worker_hot();
    if (w == nullptr) {
        as_free(p)->next = nullptr;
        give(cls, p, 1);
        return;
    }
    if (w->free_block_count[cls - 1] >= worker_keep) {
        // The worker's list is full: it goes to the pool whole, and p starts a new one.
        give(cls, w->free_blocks[cls - 1], w->free_block_count[cls - 1]);
        w->free_blocks[cls - 1] = nullptr;
        w->free_block_count[cls - 1] = 0;
    }
    as_free(p)->next = as_free(w->free_blocks[cls - 1]);
    w->free_blocks[cls - 1] = p;
    ++w->free_block_count[cls - 1];
}

std::size_t task_block_pool_bytes() noexcept {
    pool& p = the_pool();
    std::lock_guard lock(p.chunks_mutex);
    return p.chunks.size() * chunk_bytes;
}

/// Returns a worker's cached blocks to the pool (when the worker exits).
void release_worker_blocks(worker_hot* w) noexcept {
    for (std::size_t k = 0; k < worker_hot::block_classes; ++k) {
        if (w->free_blocks[k] != nullptr) give(k + 1, w->free_blocks[k], w->free_block_count[k]);
        w->free_blocks[k] = nullptr;
        w->free_block_count[k] = 0;
    }
}

}  // namespace weft::detail
