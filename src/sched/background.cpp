// Background work (ext/background_work.hpp): the table the loop polls, and the public
// entry points, which reach the running scheduler as spawns do (sched/entry.hpp).
#include "background.hpp"

#include "entry.hpp"
#include "scheduler.hpp"

#include <weft/config/errors.hpp>

#include <algorithm>
#include <thread>

namespace weft::detail {
namespace {
// The slot whose function this thread is running now (a function may remove itself).
thread_local const void* tl_running_slot = nullptr;
// This thread runs the background work for a waiting task (poll_while_waiting).
thread_local bool tl_waiter_polling = false;

constexpr unsigned slot_bits = 3;  // capacity == 8
static_assert(background_registry::capacity == 1u << slot_bits);
}  // namespace

ext::background_work_id background_registry::add(ext::background_fn fn, void* arg, std::uint32_t every) {
    if (fn == nullptr) throw error("weft::ext::add_background_work: the function is null");
    if (every == 0) throw error("weft::ext::add_background_work: every_tasks must be at least 1");
    std::lock_guard lock(mutex_);
    for (unsigned i = 0; i < capacity; ++i) {
        slot& s = slots_[i];
        // relaxed: fn is written under mutex_ only.
        if (s.removing || s.fn.load(std::memory_order_relaxed) != nullptr) continue;
        s.arg = arg;
        s.every = every;
        // relaxed (both): published by the release below.
        const std::uint32_t generation = s.generation.load(std::memory_order_relaxed) + 1;
        s.generation.store(generation, std::memory_order_relaxed);
        s.outstanding.store(0, std::memory_order_relaxed);  // relaxed: published by the release below
        s.fn.store(fn, std::memory_order_release);  // release: publishes arg, every, generation
        update_period();
        return (generation << slot_bits) | i;
    }
    throw error("weft::ext::add_background_work: " + std::to_string(capacity) +
                " background functions are registered already; remove one first");
}

background_registry::slot* background_registry::find(ext::background_work_id id) noexcept {
    slot& s = slots_[id & (capacity - 1)];
    // acquire: pairs with add's release, so generation is the registered one (relaxed:
    // a slot reused meanwhile has a newer generation, which this id then does not match).
    if (s.fn.load(std::memory_order_acquire) == nullptr || s.generation.load(std::memory_order_relaxed) != id >> slot_bits)
        return nullptr;
    return &s;
}

bool background_registry::remove(ext::background_work_id id, std::int64_t& dropped) noexcept {
    slot* s = nullptr;
    {
        std::lock_guard lock(mutex_);
        s = find(id);
        dropped = 0;
        if (s == nullptr) return false;
        s->fn.store(nullptr);  // seq_cst: ordered before the reads of `calls` below (see run)
        s->removing = true;    // not free until the calls below have ended
        dropped = s->outstanding.exchange(0);
        if (dropped != 0) outstanding_.fetch_sub(dropped);
        update_period();
    }
    // A worker that announced its call before the store above may still be inside; wait
    // without the lock, so that such a call may itself add or remove background work.
    const std::uint32_t self = tl_running_slot == s ? 1 : 0;
    while (s->calls.load() > self) std::this_thread::yield();
    std::lock_guard lock(mutex_);
    s->removing = false;
    return true;
}

void background_registry::update_period() noexcept {
    std::uint32_t p = empty_period;
    for (const slot& s : slots_)
        if (s.fn.load(std::memory_order_relaxed) != nullptr) p = std::min(p, s.every);  // relaxed: under mutex_
    period_.store(p, std::memory_order_relaxed);  // relaxed: a hint, see period()
}

bool background_registry::run(unsigned index) noexcept {
    bool did = false;
    for (slot& s : slots_) {
        // relaxed: a filter; the seq_cst load after announcing the call decides.
        if (s.fn.load(std::memory_order_relaxed) == nullptr) continue;
        // Announce the call, then look again (both seq_cst): remove() clears fn, then waits
        // for calls to drop; either it sees this call, or this load sees its clear.
        s.calls.fetch_add(1);
        if (const ext::background_fn fn = s.fn.load()) {
            const void* outer = tl_running_slot;
            tl_running_slot = &s;
            did = fn(s.arg, index) || did;
            tl_running_slot = outer;
        }
        s.calls.fetch_sub(1);
    }
    return did;
}

std::int64_t background_registry::add_outstanding(ext::background_work_id id, std::int64_t delta) noexcept {
    slot* s = find(id);
    if (s == nullptr) return -1;
    // relaxed: counts; the wake-up that follows a start (scheduler) has its own fence.
    s->outstanding.fetch_add(delta, std::memory_order_relaxed);
    return outstanding_.fetch_add(delta, std::memory_order_relaxed);
}

bool background_registry::claim_poller(unsigned index) noexcept {
    // relaxed (both): which worker polls is a matter of progress, not of data; a worker
    // that loses the race parks, and the poller's own polls see what it needs.
    unsigned p = poller_.load(std::memory_order_relaxed);
    if (p == index) return true;
    return p == no_poller && poller_.compare_exchange_strong(p, index, std::memory_order_relaxed);
}

void background_registry::release_poller(unsigned index) noexcept {
    unsigned p = index;
    poller_.compare_exchange_strong(p, no_poller, std::memory_order_relaxed);  // relaxed: as in claim_poller
}

// ---------------------------------------------------------------------------------
// The scheduler's side.

bool scheduler::keep_polling(worker* w) noexcept {
    if (!background_.outstanding()) {
        if (w->polling) {
            w->polling = false;
            background_.release_poller(w->index);
        }
        return false;
    }
    w->polling = background_.claim_poller(w->index);
    return w->polling;
}

void scheduler::stop_polling(worker* w) noexcept {
    w->polling = false;
    background_.release_poller(w->index);
    // Another worker takes the role if one is parked while something is outstanding.
    if (background_.outstanding()) {
        store_load_fence();  // pairs with the fence in park_until_work
        wake_one(w->index + 1);
    }
}

bool scheduler::nothing_else_to_run(const worker* w) const noexcept {
    return w->pinned.empty() && w->pinned_inbox.empty() && policy_->queue_state_of(w->index).length == 0 &&
           policy_->shared_queue_length() == 0;
}

bool poll_while_waiting(bool (*ready)(const void*) noexcept, const void* arg) noexcept {
    worker* w = current_worker();
    // Not while the task publishes its result as its last act (completion_scope): a task
    // the polls ready would take the bypass slot, which only a finishing task empties, and
    // stay there if this one then suspended (a hang: the slot is nobody's queue).
    if (w == nullptr || w->current_task == nullptr || tl_running_slot != nullptr || w->on_suspend.fn != nullptr ||
        w->completing || w->bypass != nullptr)
        return false;
    scheduler* s = w->sched;
    background_registry& bg = s->background();
    if (!bg.outstanding() || !bg.waiters_poll() || s->oversubscribed() || s->stopping()) return false;
    // The clock is read first after 64 polls (a reply from another locality mostly comes
    // sooner; a read costs about a quarter of a poll), then every 64.
    // Tasks for this worker come from the polls themselves (a message's calls) or, less
    // often, from other threads: its queues are looked at after a poll that did something
    // and every 16 polls (the look costs about half an empty poll).
    if (!s->nothing_else_to_run(w)) return false;
    std::chrono::steady_clock::time_point until{};
    for (unsigned round = 1;; ++round) {
        // The background work runs as it does on the loop, with no current task: what it
        // calls must not suspend this one (it holds the work's own locks, the transport's
        // progress lock, say), nor treat it as completing (the bypass slot).
        task* const self = w->current_task;
        w->current_task = nullptr;
        tl_waiter_polling = true;
        const bool did = bg.run(w->index);
        tl_waiter_polling = false;
        w->current_task = self;
        if (ready(arg)) return true;
        if ((did || round % 16 == 0) && !s->nothing_else_to_run(w)) return false;
        if (round % 64 == 0) {
            const auto now = std::chrono::steady_clock::now();
            if (round == 64) until = now + poll_wait_budget;
            else if (now >= until) return false;
        }
    }
}

void scheduler::background_started(ext::background_work_id id) noexcept {
    if (background_.add_outstanding(id, 1) == 0) {
        // Nothing was outstanding: every worker may be parked; one must poll now.
        store_load_fence();  // pairs with the fence in park_until_work
        wake_one(0);
    }
}

}  // namespace weft::detail

namespace weft::ext {

background_work_id add_background_work(background_fn fn, void* arg, std::uint32_t every_tasks) {
    using namespace weft::detail;
    if (worker* w = current_worker()) return w->sched->background().add(fn, arg, every_tasks);
    const outside_entry entry(true);
    if (entry.sched == nullptr) throw_no_runtime("cannot add background work");
    return entry.sched->background().add(fn, arg, every_tasks);
}

void remove_background_work(background_work_id id) noexcept {
    using namespace weft::detail;
    std::int64_t dropped = 0;
    if (worker* w = current_worker()) {
        (void)w->sched->background().remove(id, dropped);
        return;
    }
    const outside_entry entry(false);
    if (entry.sched != nullptr) (void)entry.sched->background().remove(id, dropped);
}

void background_work_started(background_work_id id) noexcept {
    using namespace weft::detail;
    if (worker* w = current_worker()) {
        w->sched->background_started(id);
        return;
    }
    const outside_entry entry(false);
    if (entry.sched != nullptr) entry.sched->background_started(id);
}

void background_work_finished(background_work_id id) noexcept {
    using namespace weft::detail;
    if (worker* w = current_worker()) {
        (void)w->sched->background().add_outstanding(id, -1);
        return;
    }
    const outside_entry entry(false);
    if (entry.sched != nullptr) (void)entry.sched->background().add_outstanding(id, -1);
}

void set_waiting_tasks_poll(bool on) {
    using namespace weft::detail;
    if (worker* w = current_worker()) {
        w->sched->background().set_waiters_poll(on);
        return;
    }
    const outside_entry entry(false);
    if (entry.sched == nullptr) throw_no_runtime("cannot set whether waiting tasks poll");
    entry.sched->background().set_waiters_poll(on);
}

bool background_caller_waiting() noexcept { return weft::detail::tl_waiter_polling; }

bool background_caller_idle() noexcept {
    // The loop counts idle rounds after calling the background work and resets the count
    // when it takes a task: non-zero here means at least one round found nothing.
    const weft::detail::worker* w = weft::detail::current_worker();
    return w != nullptr && w->idle_spins > 0;
}

}  // namespace weft::ext
