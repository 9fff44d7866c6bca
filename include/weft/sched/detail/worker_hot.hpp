// The part of a worker that header-only fast paths (spawn, take-back, inline run, task
// blocks) touch directly, so that a fork-join step costs no out-of-line call beyond
// finding the worker once.
#pragma once

#include <weft/ext/scheduler_policy.hpp>
#include <weft/platform/cycle_clock.hpp>
#include <weft/threads/detail/block_pool.hpp>
#include <weft/threads/task.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace weft::detail {

struct context;

/// Owner-only unless marked otherwise. The policy's view of the worker
/// (ext::worker_context: its index, NUMA node, queue counters) comes first.
struct worker_hot : ext::worker_context {
    /// Where this worker's new normal-priority tasks go without schedule() (the policy's
    /// ext::scheduler_policy::spawn_path_of), or kind::none.
    ext::spawn_path spawn{};
    task* current_task = nullptr;
    context* current_ctx = nullptr;
    /// Inline execution only while the stack pointer is above this (a quarter of the
    /// current stack plus a page must stay free); see stack_room_left.
    const char* inline_floor = nullptr;
    /// Parked workers (shared, read-mostly): spawns wake one when it is not zero.
    const std::atomic<unsigned>* sleepers = nullptr;
    std::uint64_t spawn_seq = 0;
    /// The task the scheduling loop itself started (not one run inline inside it).
    task* loop_task = nullptr;
    /// Set while that task publishes its result at its very end (see completion_scope).
    bool completing = false;
    /// Task timing is on (--weft:counter-timing): spawns sample their queue wait.
    bool timing = false;
    /// Scheduler bypass: a task readied by the finishing task, run next on this worker.
    task* bypass = nullptr;
    /// The task the latest spawn on this worker ran at once, inside the spawn (work-first
    /// at a full bounded queue), or null: reset by every spawn through a bounded queue or
    /// the scheduler, so a spawner that finds its own child here knows it has finished.
    /// relaxed atomic: a spawner that moved to another worker while its child ran reads
    /// this (stale) worker's value, which then never names its child.
    std::atomic<task*> ran_at_spawn{nullptr};

    block_cache blocks;  ///< free task blocks (threads/detail/block_pool.hpp)

    // Written by the owner only (release stores); read by quiescence checks.
    alignas(cache_line_size) std::atomic<std::uint64_t> spawned{0};
    std::atomic<std::uint64_t> finished{0};
    /// Tasks started on this worker, by the loop or inline (for the instantaneous counts).
    std::atomic<std::uint64_t> started{0};
};

/// The calling thread's worker, or null. Never inlined, and never to be cached across
/// anything that may switch tasks: a task can resume on another OS thread.
worker_hot* current_worker_hot() noexcept;

/// Wakes a parked worker for a task this worker just spawned (the slow path of spawn).
void wake_for_spawn(worker_hot* w) noexcept;

/// True while the stack in use has room for one more chain of frames above
/// worker_hot::inline_floor (running a task inline, or at its spawn, needs it).
__attribute__((always_inline)) inline bool stack_room_left(const worker_hot* w) noexcept {
    const char probe = 0;
    return &probe >= w->inline_floor;
}

/// Gives the new task `t` its id and counts it as spawned on `w`; returns the count
/// before (to undo it if the task cannot be queued after all).
inline std::uint64_t note_spawn(worker_hot* w, task* t) noexcept {
    t->id = (++w->spawn_seq << 12) | ((w->index + 1) & 0xfff);
    const std::uint64_t before = w->spawned.load(std::memory_order_relaxed);  // relaxed: owner-only writer
    // release: the count is published before the task can be stolen and finished
    // (quiescence relies on it, see scheduler::quiescent).
    w->spawned.store(before + 1, std::memory_order_release);
    return before;
}

/// Stamps one new task in wait_sample_period with its queueing time (the wait counters).
inline void sample_queue_wait(const worker_hot* w, task* t) noexcept {
    if ((w->spawn_seq & (wait_sample_period - 1)) == 0 && w->timing) t->queued_at = cycle_clock_now();
}

}  // namespace weft::detail
