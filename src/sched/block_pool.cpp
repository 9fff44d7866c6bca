// The task-block pool behind allocate_task_block / free_task_block (the inline fast paths
// are in include/weft/sched/detail/core.hpp): per size class, each worker keeps a free
// list; when it runs dry it takes a batch from a process-wide list, which carves new
// blocks from 64 KiB chunks; when it overflows it hands a batch back. Memory is kept for
// reuse (the footprint is the peak number of live tasks), never returned to the system:
// a future may outlive its runtime, so its block must stay valid. Under ASan every
// block is a real allocation instead, so that use-after-free is caught.
#include <weft/sched/detail/core.hpp>

#include <mutex>
#include <new>
#include <vector>

namespace weft::detail {
namespace {

constexpr std::size_t chunk_bytes = 64 * 1024;
constexpr std::uint32_t batch = 256;       // blocks moved between a worker and the pool
constexpr std::uint32_t worker_keep = 4096;  // must match free_task_block's inline cap

struct size_class_pool {
    std::mutex mutex;
    void* head = nullptr;
    std::size_t count = 0;
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

void*& next_of(void* block) { return *static_cast<void**>(block); }

// Carves a chunk into blocks of `bytes` and returns them as a list of `n` (out).
void* carve(std::size_t bytes, std::uint32_t& n) {
    void* chunk = ::operator new(chunk_bytes, std::align_val_t{cache_line_size});
    {
        pool& p = the_pool();
        std::lock_guard lock(p.chunks_mutex);
        p.chunks.push_back(chunk);
    }
    n = static_cast<std::uint32_t>(chunk_bytes / bytes);
    auto* base = static_cast<char*>(chunk);
    for (std::uint32_t i = 0; i + 1 < n; ++i) next_of(base + i * bytes) = base + (i + 1) * bytes;
    next_of(base + (n - 1) * bytes) = nullptr;
    return chunk;
}

// Takes up to `want` blocks of class `cls` from the pool (carving if it is empty).
void* take(std::size_t cls, std::uint32_t want, std::uint32_t& got) {
    size_class_pool& c = the_pool().classes[cls - 1];
    {
        std::lock_guard lock(c.mutex);
        if (c.head != nullptr) {
            void* first = c.head;
            void* last = first;
            got = 1;
            while (got < want && next_of(last) != nullptr) {
                last = next_of(last);
                ++got;
            }
            c.head = next_of(last);
            c.count -= got;
            next_of(last) = nullptr;
            return first;
        }
    }
    return carve(cls * cache_line_size, got);
}

void give(std::size_t cls, void* first, void* last, std::uint32_t n) {
    size_class_pool& c = the_pool().classes[cls - 1];
    std::lock_guard lock(c.mutex);
    next_of(last) = c.head;
    c.head = first;
    c.count += n;
}

bool pooled(std::size_t cls) { return !WEFT_HAVE_ASAN && cls >= 1 && cls <= worker_hot::block_classes; }

}  // namespace

void* allocate_task_block_slow(std::size_t size) {
    const std::size_t cls = (size + cache_line_size - 1) / cache_line_size;
    if (!pooled(cls)) return ::operator new(cls * cache_line_size, std::align_val_t{cache_line_size});
    worker_hot* w = current_worker_hot();
    std::uint32_t got = 0;
    void* list = take(cls, w != nullptr ? batch : 1, got);
    void* block = list;
    if (w != nullptr) {  // keep the rest of the batch
        w->free_blocks[cls - 1] = next_of(block);
        w->free_block_count[cls - 1] = got - 1;
    } else if (got > 1) {
        void* last = next_of(block);
        while (next_of(last) != nullptr) last = next_of(last);
        give(cls, next_of(block), last, got - 1);
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
    if (w == nullptr || w->free_block_count[cls - 1] < worker_keep) {
        give(cls, p, p, 1);
        return;
    }
    // The worker's list is full: hand `batch` blocks (p and the newest others) back.
    void* last = p;
    next_of(p) = w->free_blocks[cls - 1];
    for (std::uint32_t i = 1; i < batch; ++i) last = next_of(last);
    w->free_blocks[cls - 1] = next_of(last);
    w->free_block_count[cls - 1] -= batch - 1;
    give(cls, p, last, batch);
}

/// Returns a worker's cached blocks to the pool (when the worker exits).
void release_worker_blocks(worker_hot* w) noexcept {
    for (std::size_t k = 0; k < worker_hot::block_classes; ++k) {
        void* first = w->free_blocks[k];
        if (first == nullptr) continue;
        void* last = first;
        std::uint32_t n = 1;
        while (next_of(last) != nullptr) {
            last = next_of(last);
            ++n;
        }
        give(k + 1, first, last, n);
        w->free_blocks[k] = nullptr;
        w->free_block_count[k] = 0;
    }
}

}  // namespace weft::detail
