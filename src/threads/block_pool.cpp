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
//
// Larger blocks (a closure that captures a few KiB, as BOTS's floorplan does), up to
// 32 KiB, come in power-of-two classes with the same batches, behind a thread_local
// cache of this file (the slow path: the inline fast paths and block_cache stay as they
// are). Before, they came from operator new: freed on another worker's glibc arena, they
// made glibc trim and regrow its heaps (madvise) at every few tasks, 55 % of a floorplan
// run and 13 times its time.
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

/// The large classes: 1, 2, 4, 8, 16 and 32 KiB.
constexpr std::size_t large_classes = 6;
constexpr unsigned large_min_shift = 10;
/// Blocks a thread keeps per large class before it hands its list to the pool.
constexpr std::uint32_t large_keep = 64;
/// Large blocks per chunk.
constexpr std::size_t large_per_chunk = 16;

struct pool {
    size_class_pool classes[block_cache::classes];
    size_class_pool large[large_classes];
    std::mutex chunks_mutex;
    std::vector<void*> chunks;  // kept reachable: the pool lives as long as the process
    std::size_t chunk_total = 0;  // bytes in `chunks`
};

pool& the_pool() {
    static pool* p = new pool;  // never destroyed: blocks may be freed during static destruction
    return *p;
}

free_node* as_free(void* block) noexcept { return static_cast<free_node*>(block); }

// Carves a new chunk of `chunk` bytes into blocks of `bytes`; returns them as one list of
// `n` (out).
free_node* carve(std::size_t bytes, std::uint32_t& n, std::size_t chunk_size = chunk_bytes) {
    void* chunk = ::operator new(chunk_size, std::align_val_t{cache_line_size});
    {
        pool& p = the_pool();
        std::lock_guard lock(p.chunks_mutex);
        p.chunks.push_back(chunk);
        p.chunk_total += chunk_size;
    }
    n = static_cast<std::uint32_t>(chunk_size / bytes);
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

// The large class of a block of `size` bytes (index into pool::large), or -1 for one
// too small (the small classes) or too large (operator new), or under ASan.
int large_class(std::size_t size) noexcept {
    if (WEFT_HAVE_ASAN || size <= block_cache::classes * cache_line_size) return -1;
    for (std::size_t k = 0; k < large_classes; ++k)
        if (size <= (std::size_t{1} << (large_min_shift + k))) return static_cast<int>(k);
    return -1;
}

std::size_t large_bytes(int k) noexcept { return std::size_t{1} << (large_min_shift + static_cast<unsigned>(k)); }

// One thread's lists of large blocks; handed to the pool when the thread ends.
struct large_cache {
    free_node* head[large_classes] = {};
    std::uint32_t count[large_classes] = {};
    large_cache() = default;
    large_cache(const large_cache&) = delete;
    large_cache& operator=(const large_cache&) = delete;
    ~large_cache() {
        for (std::size_t k = 0; k < large_classes; ++k) {
            give_large(k, head[k], count[k]);
            head[k] = nullptr;  // a block freed later (static destruction) starts a new list
            count[k] = 0;
        }
    }
    static void give_large(std::size_t k, free_node* first, std::uint32_t n) noexcept {
        if (first == nullptr) return;
        size_class_pool& c = the_pool().large[k];
        first->count = n;
        std::lock_guard lock(c.mutex);
        first->next_batch = c.batches;
        c.batches = first;
    }
};

thread_local large_cache tl_large;

void* allocate_large(int k) {
    large_cache& lc = tl_large;
    if (free_node* b = lc.head[k]) {
        lc.head[k] = b->next;
        --lc.count[k];
        return b;
    }
    std::uint32_t got = 0;
    free_node* batch = nullptr;
    {
        size_class_pool& c = the_pool().large[k];
        std::lock_guard lock(c.mutex);
        if ((batch = c.batches) != nullptr) {
            c.batches = batch->next_batch;
            got = batch->count;
        }
    }
    if (batch == nullptr) batch = carve(large_bytes(k), got, large_bytes(k) * large_per_chunk);
    lc.head[k] = batch->next;
    lc.count[k] = got - 1;
    return batch;
}

void free_large(int k, void* p) noexcept {
    large_cache& lc = tl_large;
    if (lc.count[k] >= large_keep) {
        // The list is full: it goes to the pool whole, and p starts a new one.
        large_cache::give_large(static_cast<std::size_t>(k), lc.head[k], lc.count[k]);
        lc.head[k] = nullptr;
        lc.count[k] = 0;
    }
    as_free(p)->next = lc.head[k];
    lc.head[k] = as_free(p);
    ++lc.count[k];
}

}  // namespace

void* allocate_block_slow(block_cache* c, std::size_t size) {
    const std::size_t cls = (size + cache_line_size - 1) / cache_line_size;
    if (const int k = large_class(size); k >= 0) return allocate_large(k);
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
    if (const int k = large_class(size); k >= 0) {
        free_large(k, p);
        return;
    }
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
    return p.chunk_total;
}

void release_block_cache(block_cache& c) noexcept {
    for (std::size_t k = 0; k < block_cache::classes; ++k) {
        if (c.free_blocks[k] != nullptr) give(k + 1, c.free_blocks[k], c.free_count[k]);
        c.free_blocks[k] = nullptr;
        c.free_count[k] = 0;
    }
}

}  // namespace weft::detail
