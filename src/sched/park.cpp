// Idle workers: parking and waking (the store-load fence protocol with
// after_schedule), throttling (weft::adapt::set_active_workers), and the watchers that
// wait for the workers to go idle.
#include "scheduler.hpp"

#include <weft/config/errors.hpp>

#include <algorithm>
#include <string>

namespace weft::detail {

void scheduler::wake(worker* w) noexcept {
    // relaxed: a cheap filter (the caller's fence orders it), so that a push to a busy
    // worker writes nothing to its line; the CAS decides.
    if (w->park.load(std::memory_order_relaxed) != 1) return;
    std::uint32_t parked = 1;
    // acq_rel: the woken worker acquires what the waker published before this CAS.
    if (w->park.compare_exchange_strong(parked, 2, std::memory_order_acq_rel)) w->park.notify_one();
}

void scheduler::wake_from_policy(void* s, unsigned index) noexcept {
    auto* self = static_cast<scheduler*>(s);
    if (index >= self->workers_.size()) return;
    store_load_fence();  // pairs with the fence in park_until_work, as in after_schedule
    self->wake(self->workers_[index].get());
}

void scheduler::wake_one(unsigned start) noexcept {
    const auto n = static_cast<unsigned>(workers_.size());
    // A throttled worker would take nothing: wake an active one. relaxed: see set_active_workers.
    const unsigned active = active_limit_.load(std::memory_order_relaxed);
    for (unsigned i = 0; i < n; ++i) {
        if ((start + i) % n >= active) continue;
        worker* w = workers_[(start + i) % n].get();
        // relaxed: a cheap filter; the CAS in wake() decides.
        if (w->park.load(std::memory_order_relaxed) == 1) {
            std::uint32_t parked = 1;
            if (w->park.compare_exchange_strong(parked, 2, std::memory_order_acq_rel)) {  // acq_rel: as in wake()
                w->park.notify_one();
                return;
            }
        }
    }
}

bool scheduler::throttled(const worker* w) const noexcept {
    return w->index >= active_limit_.load(std::memory_order_relaxed);  // relaxed: see set_active_workers
}

void scheduler::wake_for_leftovers(worker* w) noexcept {
    const ext::scheduler_policy::queue_state q = policy_->queue_state_of(w->index);
    if (q.length == 0 && policy_->shared_queue_length() == 0) return;
    // Pairs with the fence in park_until_work, as in after_schedule.
    store_load_fence();
    wake_one(0);
}

void scheduler::set_active_workers(unsigned n) {
    const auto workers = static_cast<unsigned>(workers_.size());
    n = std::clamp(n, 1u, workers);
    if (!policy_->set_active_workers(n))
        throw weft::error("weft::adapt::set_active_workers: the scheduler policy '" + std::string(policy_name()) +
                          "' cannot throttle workers (it never moves a task from one worker to another); run with "
                          "--weft:scheduler=local-priority");
    // relaxed: a worker that reads the old limit runs a few more tasks or sleeps a little
    // longer; the wake below makes every worker look again.
    active_limit_.store(n, std::memory_order_relaxed);
    store_load_fence();
    for (auto& w : workers_) wake(w.get());
}

task* scheduler::park_until_work(worker* w) noexcept {
    // relaxed: ordered by the fence below.
    w->park.store(1, std::memory_order_relaxed);
    sleepers_.fetch_add(1, std::memory_order_relaxed);
    // Pairs with the fence in after_schedule(): either the producer sees park == 1 and
    // wakes us, or the recheck below sees its task.
    store_load_fence();
    task* t = next_task(w);
    if (t == nullptr && !stopping_.load(std::memory_order_acquire)) {  // acquire: see stopping()
        notify_idle_watchers();
        // acquire: pairs with the acq_rel CAS of the waker.
        while (w->park.load(std::memory_order_acquire) == 1) w->park.wait(1, std::memory_order_acquire);
    }
    // relaxed (both): only this worker reads its park word as 0; sleepers is a hint.
    w->park.store(0, std::memory_order_relaxed);
    sleepers_.fetch_sub(1, std::memory_order_relaxed);
    return t;
}

void scheduler::notify_idle_watchers() noexcept {
    // acquire: pairs with the acq_rel increment in wait_for_quiescence (then the epoch lock orders the rest).
    if (idle_watchers_.load(std::memory_order_acquire) == 0) return;
    {
        std::lock_guard lock(idle_mutex_);
        ++idle_epoch_;
    }
    idle_cv_.notify_all();
}

}  // namespace weft::detail
