// The loop's background work (ext/background_work.hpp): a small fixed table of
// registered functions that workers call when idle and every few tasks when busy, and the
// count of outstanding things that keeps one worker polling instead of parking.
#pragma once

#include <weft/ext/background_work.hpp>

#include <atomic>
#include <cstdint>
#include <mutex>

namespace weft::detail {

class background_registry {
public:
    static constexpr unsigned capacity = 8;
    static constexpr unsigned no_poller = ~0u;
    /// Tasks between two checks of an empty table by a busy worker.
    static constexpr std::uint32_t empty_period = 1024;

    /// @throws weft::error when the table is full, `fn` is null or `every` is 0.
    ext::background_work_id add(ext::background_fn fn, void* arg, std::uint32_t every);
    /// Returns once no worker runs `id` any more; false if `id` was not registered.
    /// Outstanding counts of `id` are dropped (the caller learns how many: `dropped`).
    bool remove(ext::background_work_id id, std::int64_t& dropped) noexcept;
    /// Calls every registered function once for worker `index`; true if one did something.
    bool run(unsigned index) noexcept;
    /// Tasks a busy worker runs between two calls of run() (empty_period when none).
    std::uint32_t period() const noexcept {
        return period_.load(std::memory_order_relaxed);  // relaxed: a hint; the table decides
    }
    /// Adds `delta` to the outstanding count of `id` (and the total); returns the total
    /// before, or -1 if `id` is not registered.
    std::int64_t add_outstanding(ext::background_work_id id, std::int64_t delta) noexcept;
    /// Something is outstanding: one worker must keep polling.
    bool outstanding() const noexcept {
        return outstanding_.load(std::memory_order_relaxed) > 0;  // relaxed: re-read every idle round
    }
    /// True if worker `index` is (or now becomes) the one that polls instead of parking.
    bool claim_poller(unsigned index) noexcept;
    /// Worker `index` stops being the poller (it found a task, or nothing is outstanding).
    void release_poller(unsigned index) noexcept;
    /// Tasks waiting on a future may poll (ext::set_waiting_tasks_poll).
    bool waiters_poll() const noexcept {
        return waiters_poll_.load(std::memory_order_relaxed);  // relaxed: a setting, read each wait
    }
    void set_waiters_poll(bool on) noexcept {
        waiters_poll_.store(on, std::memory_order_relaxed);  // relaxed: as above
    }

private:
    struct slot {
        /// Null: free. Published with release after arg, every and generation.
        std::atomic<ext::background_fn> fn{nullptr};
        void* arg = nullptr;
        std::uint32_t every = 0;
        /// Bumped by each add, so a stale id finds nothing. Atomic: find() may read it
        /// while an add reuses the slot (relaxed: find re-checks fn around it).
        std::atomic<std::uint32_t> generation{0};
        bool removing = false;  ///< under mutex_: a remove waits for calls; not free yet
        std::atomic<std::uint32_t> calls{0};  ///< workers inside fn now
        std::atomic<std::int64_t> outstanding{0};
    };
    slot* find(ext::background_work_id id) noexcept;
    void update_period() noexcept;  // under mutex_

    std::mutex mutex_;  // add and remove
    slot slots_[capacity];
    std::atomic<std::uint32_t> period_{empty_period};
    std::atomic<std::int64_t> outstanding_{0};
    std::atomic<unsigned> poller_{no_poller};
    std::atomic<bool> waiters_poll_{true};
};

}  // namespace weft::detail
