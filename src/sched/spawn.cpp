// Spawning and resuming: where a task goes (the policy's schedule(), a pinned task's
// inbox, or at once on the spawner's stack), and the wake-up that follows; the entry
// points header-only code calls (sched/detail/spawn.hpp and suspend.hpp).
#include "entry.hpp"
#include "scheduler.hpp"

#include <weft/config/errors.hpp>
#include <weft/sched/detail/spawn.hpp>
#include <weft/sched/detail/suspend.hpp>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

namespace weft::detail {
namespace {
std::atomic<std::uint64_t> g_external_task_seq{0};  // ids of tasks spawned from outside
}  // namespace

void wake_for_spawn(worker_hot* w) noexcept {
    auto* self = static_cast<worker*>(w);
    self->sched->after_schedule(self, ext::placement{});
}

void scheduler::requeue(worker* self, task* t) noexcept {
    try {
        after_schedule(self, policy_->schedule(self, *t));
    } catch (...) {
        std::fprintf(stderr, "weft: the scheduler policy failed to requeue a task\n");
        std::terminate();
    }
}

void scheduler::spawn(worker* self, task* t) {
    if ((t->flags & task_flag_pinned) != 0 && t->last_worker >= workers_.size())
        throw error("weft: a task was pinned to worker " + std::to_string(t->last_worker) + ", but the runtime has " +
                    std::to_string(workers_.size()) + " worker(s) (task_attributes::worker must be below num_workers())");
    if ((t->flags & task_flag_own_stack) != 0) {
        const std::size_t bytes = std::size_t{t->stack_kib} * 1024;
        if (bytes > task_attributes::max_stack_size)
            throw error("weft: task_attributes::stack_size of " + std::to_string(bytes) +
                        " bytes is above the maximum, task_attributes::max_stack_size (" +
                        std::to_string(task_attributes::max_stack_size) + " bytes)");
        // The runtime's stacks are big enough: nothing special to do.
        if (round_stack_size(bytes) <= cfg_.stack_size) t->flags = static_cast<std::uint8_t>(t->flags & ~task_flag_own_stack);
    }
    if (self != nullptr) {
        self->ran_at_spawn.store(nullptr, std::memory_order_relaxed);  // relaxed: see worker_hot
        note_spawn(self, t);
        sample_queue_wait(self, t);
    } else {
        t->id = (g_external_task_seq.fetch_add(1, std::memory_order_relaxed) + 1) << 12;  // relaxed: only unique; never 0 (0 = no task)
        if (cfg_.timing || cfg_.tracing) t->queued_at = cycle_clock_now();
        external_spawned_.fetch_add(1, std::memory_order_seq_cst);
    }
    t->state.store(task_state::staged, std::memory_order_relaxed);  // relaxed: diagnostics and take-back, owner-ordered
    if ((t->flags & task_flag_pinned) != 0) {
        after_schedule(self, place_pinned(*t));
        return;
    }
    if (self == nullptr || (t->flags & task_flag_work_first) == 0) {
        after_schedule(self, policy_->schedule(self, *t));
        return;
    }
    // Work-first is possible: on a task's stack with room left for one more frame chain
    // (the floor of try_run_inline), for a task that needs no stack of its own.
    self->may_run_inline = self->current_ctx != nullptr && stack_room_left(self) &&
                           (t->flags & task_flag_own_stack) == 0 && t->prio == task_priority::normal;
    const ext::placement p = policy_->schedule(self, *t);
    self->may_run_inline = false;
    if (p.run_inline) {
        // Not task_flag_inline: to its spawner the task ran like any other (a task_group
        // child still reports to its group).
        execute(t);  // may suspend and return on another worker: `self` is stale after it
        current_worker_hot()->ran_at_spawn.store(t, std::memory_order_relaxed);  // relaxed: see worker_hot
        return;
    }
    after_schedule(self, p);
}

ext::placement scheduler::place_pinned(task& t) noexcept {
    // Read before the push: once in the inbox, the task belongs to its worker.
    const unsigned target = t.last_worker;
    workers_[target]->pinned_inbox.push(&t);
    return {target};
}

void scheduler::resume(worker* self, task* t) noexcept {
    t->state.store(task_state::pending, std::memory_order_relaxed);  // relaxed: published by the queue push
    if (cfg_.timing || cfg_.tracing) t->queued_at = cycle_clock_now();
    if (self != nullptr) self->stats.resumes.add();
    else external_resumes_.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
    if (self != nullptr && try_hand_off(self, t)) return;
    ext::placement p;
    try {
        p = (t->flags & task_flag_pinned) != 0 ? place_pinned(*t) : policy_->schedule(self, *t);
    } catch (...) {
        std::fprintf(stderr, "weft: the scheduler policy failed to requeue a resumed task\n");
        std::terminate();
    }
    after_schedule(self, p);
}

void scheduler::resume_continuation(worker* self, task* t) noexcept {
    t->state.store(task_state::pending, std::memory_order_relaxed);  // relaxed: published by the push
    if (cfg_.timing || cfg_.tracing) t->queued_at = cycle_clock_now();
    self->stats.resumes.add();
    try {
        self->spawn.deque->push(t);  // fork_to checked that the path is a stealing deque
    } catch (...) {
        // The deque could not grow: the policy's queues take it as any resumed task.
        ext::placement p;
        try {
            p = policy_->schedule(self, *t);
        } catch (...) {
            std::fprintf(stderr, "weft: the scheduler policy failed to requeue a forking task's continuation\n");
            std::terminate();
        }
        after_schedule(self, p);
        return;
    }
    after_schedule(self, ext::placement{});  // on this worker's own deque
}

void scheduler::after_schedule(worker* self, ext::placement p) noexcept {
    if (p.worker == ext::placement::local && self != nullptr) {
        // Deliberately without a fence (as oneTBB does for spawns): a wake-up missed in
        // the tiny window while a worker parks costs parallelism, never progress, since
        // `self` is awake and will run the task itself.
        // relaxed: a hint only, see above.
        if (sleepers_.load(std::memory_order_relaxed) != 0) wake_one(self->index + 1);
        return;
    }
    // The task sits in one worker's inbox (or, from outside, anywhere): that worker
    // must not sleep through it. The fence pairs with the one in park_until_work.
    if (!p.fenced) store_load_fence();
    if (p.worker < workers_.size()) wake(workers_[p.worker].get());
    else if (sleepers_.load(std::memory_order_relaxed) != 0) wake_one(0);  // relaxed: ordered by the fence above
}

// ---------------------------------------------------------------------------------
// The functions header-only code calls (sched/detail/spawn.hpp and suspend.hpp).

bool scheduler::try_hand_off(worker* self, task* t) noexcept {
    if (t->prio != task_priority::normal || (t->flags & (task_flags_slow_path | task_flag_yielded)) != 0) return false;
    // relaxed: the mask only steers (its bits outlive a worker's idle spell, see
    // open_handoff); the slot's CAS decides, and its release publishes the task.
    std::uint64_t open = handoff_mask_.load(std::memory_order_relaxed);
    if (self->index < 64) open &= ~(std::uint64_t{1} << self->index);
    if (open == 0) return false;
    // From the first worker after the readier: readiers spread over idle workers. A few
    // candidates at most: a busy worker's slot costs a read of a line that stays in the
    // readier's cache, but a readier must not scan a machine for every task.
    const int shift = static_cast<int>((self->index + 1) % 64);
    open = std::rotr(open, shift);
    const bool fresh = !t->is_resumed();
    std::uint64_t before = 0;
    bool counted = false;
    for (int tries = 0; open != 0 && tries < max_handoff_candidates; ++tries) {
        const int bit = std::countr_zero(open);
        open &= open - 1;
        const auto target = static_cast<std::size_t>((bit + shift) % 64);
        if (target >= workers_.size() || !workers_[target]->handoff.accepts()) continue;
        if (fresh && !counted) {
            before = note_spawn(self, t);  // counted before anyone can finish it
            sample_queue_wait(self, t);
            counted = true;
        }
        if (workers_[target]->handoff.offer(t)) return true;
    }
    if (counted) self->spawned.store(before, std::memory_order_release);  // release: as in note_spawn
    return false;
}

bool scheduler::spinning_worker(const worker* self) const noexcept {
    // relaxed: as in try_hand_off (the bits outlive an idle spell; the slot tells).
    std::uint64_t open = handoff_mask_.load(std::memory_order_relaxed);
    if (self->index < 64) open &= ~(std::uint64_t{1} << self->index);
    for (int tries = 0; open != 0 && tries < max_handoff_candidates; ++tries) {
        const auto target = static_cast<std::size_t>(std::countr_zero(open));
        open &= open - 1;
        if (target < workers_.size() && workers_[target]->handoff.accepts()) return true;
    }
    return false;
}

void spawn_ready(task* t) {
    if (worker* w = current_worker(); w != nullptr && w->sched->try_hand_off(w, t)) return;
    spawn(t);
}

void spawn(task* t) {
    worker* w = current_worker();
    if (try_spawn_fast(w, t)) return;
    if (w != nullptr) {
        w->sched->spawn(w, t);
        return;
    }
    const outside_entry entry(true);
    if (entry.sched == nullptr) throw_no_runtime("cannot spawn a task");
    entry.sched->spawn(nullptr, t);
}

bool try_run_inline(task* t, std::uint8_t flags) noexcept {
    worker* w = current_worker();
    if (w == nullptr || w->current_ctx == nullptr || !stack_room_left(w)) return false;
    if (!try_take_back_fast(w, t)) {
        if (!w->sched->policy().take_back(*w, *t)) return false;
        if (scheduler::own_stack_bytes(*t) > w->current_ctx->stk.size) {
            // It needs a bigger stack than this one: back to the queues, where the loop
            // starts it on a stack of its own.
            w->sched->requeue(w, t);
            return false;
        }
        if (t->is_resumed()) {
            // Running it inline would restart a task that already ran part way.
            std::fprintf(stderr, "weft: scheduler policy '%.*s' took back a task that had already started "
                                 "(take_back must refuse resumed tasks)\n",
                         static_cast<int>(w->sched->policy().name().size()), w->sched->policy().name().data());
            std::abort();
        }
    }
    t->flags = static_cast<std::uint8_t>(t->flags | flags);
    execute(t);
    return true;
}


void resume(task* t) noexcept {
    if (worker* w = current_worker()) {
        w->sched->resume(w, t);
        return;
    }
    // A suspended task keeps the runtime from stopping, so the entry is open here.
    const outside_entry entry(false);
    if (entry.sched == nullptr) {
        std::fprintf(stderr, "weft: internal error: a task was resumed while no runtime runs\n");
        std::abort();
    }
    entry.sched->resume(nullptr, t);
}


}  // namespace weft::detail
