// Idle workers: parking and waking (the store-load fence protocol with
// after_schedule), throttling (weft::adapt::set_active_workers), and the watchers that
// wait for the workers to go idle.
#include "scheduler.hpp"

#include <weft/config/errors.hpp>

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <ctime>
#include <string>

namespace weft::detail {
namespace {

// A parked worker sleeps in the kernel on its park word (a futex: std::atomic::wait has
// no timeout). Waits while the word holds `expected`, at most `timeout`; false when the
// timeout ran out.
bool park_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected, std::chrono::nanoseconds timeout) noexcept {
    timespec ts{};
    ts.tv_sec = static_cast<time_t>(timeout.count() / 1000000000);
    ts.tv_nsec = static_cast<long>(timeout.count() % 1000000000);
    const long r = syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT_PRIVATE, expected, &ts,
                           nullptr, 0);
    return !(r == -1 && errno == ETIMEDOUT);
}

// How long a parked worker sleeps before it looks for work by itself: from the first
// to the last value, doubling. A spawn onto the spawner's own queues wakes a sleeper
// without a fence (after_schedule), so in the instant a worker parks its wake-up can be
// missed; the first timeout bounds what that costs, and no ready task ever waits for a
// wake-up that does not come. Long idle periods cost a few wake-ups a second.
constexpr auto first_park_timeout = std::chrono::milliseconds(1);
constexpr auto last_park_timeout = std::chrono::milliseconds(128);

}  // namespace

void park_notify(std::atomic<std::uint32_t>& word) noexcept {
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

void scheduler::wake(worker* w) noexcept {
    // relaxed: a cheap filter (the caller's fence orders it), so that a push to a busy
    // worker writes nothing to its line; the CAS decides.
    if (w->park.load(std::memory_order_relaxed) != 1) return;
    std::uint32_t parked = 1;
    // acq_rel: the woken worker acquires what the waker published before this CAS.
    if (w->park.compare_exchange_strong(parked, 2, std::memory_order_acq_rel)) park_notify(w->park);
}

void scheduler::wake_from_policy(void* s, unsigned index) noexcept {
    auto* self = static_cast<scheduler*>(s);
    const bool any = index == ext::worker_context::any_worker;
    if (!any && index >= self->workers_.size()) return;
    store_load_fence();  // pairs with the fence in park_until_work, as in after_schedule
    if (!any) self->wake(self->workers_[index].get());
    // relaxed: ordered by the fence above.
    else if (self->sleepers_.load(std::memory_order_relaxed) != 0) self->wake_one(0);
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
                park_notify(w->park);
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
    // A parked worker watches no mailbox: close it first (and run what came meanwhile).
    if (task* t = close_handoff(w, true)) return t;
    // relaxed: ordered by the fence below.
    w->park.store(1, std::memory_order_relaxed);
    sleepers_.fetch_add(1, std::memory_order_relaxed);
    // Pairs with the fence in after_schedule(): either the producer sees park == 1 and
    // wakes us, or the recheck below sees its task.
    store_load_fence();
    task* t = next_task(w);
    if (t == nullptr && !stopping_.load(std::memory_order_acquire)) {  // acquire: see stopping()
        notify_idle_watchers();
        std::chrono::nanoseconds timeout = first_park_timeout;
        // acquire: pairs with the acq_rel CAS of the waker.
        while (w->park.load(std::memory_order_acquire) == 1) {
            if (park_wait(w->park, 1, timeout)) continue;
            // Timed out: look again, still counted as parked (a waker may still wake us).
            if ((t = next_task(w)) != nullptr || stopping_.load(std::memory_order_acquire)) break;  // acquire: see stopping()
            timeout = std::min<std::chrono::nanoseconds>(timeout * 2, last_park_timeout);
        }
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
