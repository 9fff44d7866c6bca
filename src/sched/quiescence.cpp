// Quiescence (every task spawned has finished), the wait for it, and the closing of the
// entry that stop() begins with.
#include "entry.hpp"
#include "scheduler.hpp"

#include <chrono>
#include <mutex>

namespace weft::detail {

bool scheduler::quiescent() const noexcept {
    // Finished counts first, spawned counts second (all acquire): every finish we see
    // happens after its spawn and after the spawns the task made, so finished == spawned
    // means that, at the moment between the two passes, no task existed.
    std::uint64_t finished = 0;
    for (const auto& w : workers_) finished += w->finished.load(std::memory_order_acquire);
    std::uint64_t spawned = external_spawned_.load(std::memory_order_acquire);
    for (const auto& w : workers_) spawned += w->spawned.load(std::memory_order_acquire);
    return finished == spawned;
}

std::vector<std::uint64_t> scheduler::finished_per_worker() const {
    std::vector<std::uint64_t> v;
    for (const auto& w : workers_) v.push_back(w->finished.load(std::memory_order_acquire));  // acquire: as in quiescent()
    return v;
}

void scheduler::close_entry() {
    if (tl_worker != nullptr) throw_called_from_task("weft::runtime::stop()");
    close_entry_bits(entry_closed);
}

void scheduler::wait_for_quiescence() {
    if (tl_worker != nullptr) throw_called_from_task("weft::runtime::wait()");
    idle_watchers_.fetch_add(1, std::memory_order_acq_rel);  // acq_rel: see notify_idle_watchers; the 50 ms poll bounds a miss
    while (!quiescent()) {
        std::unique_lock lock(idle_mutex_);
        const std::uint64_t epoch = idle_epoch_;
        idle_cv_.wait_for(lock, std::chrono::milliseconds(50), [&] { return idle_epoch_ != epoch; });
    }
    idle_watchers_.fetch_sub(1, std::memory_order_acq_rel);  // acq_rel: as above
}

std::uint64_t scheduler::phases_run() const noexcept {
    // acquire (all): a progress measure read with the counts it is compared to.
    std::uint64_t n = external_spawned_.load(std::memory_order_acquire);
    for (const auto& w : workers_) n += w->stats.phases.get() + w->spawned.load(std::memory_order_acquire);
    return n;
}

}  // namespace weft::detail
