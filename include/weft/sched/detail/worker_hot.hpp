// The part of a worker that header-only fast paths (spawn, take-back, inline run, task
// blocks) touch directly, so that a fork-join step costs no out-of-line call beyond
// finding the worker once.
#pragma once

#include <weft/concurrency/owner_deque.hpp>
#include <weft/concurrency/split_queue.hpp>
#include <weft/concurrency/work_stealing_deque.hpp>
#include <weft/platform/cycle_clock.hpp>
#include <weft/threads/task.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace weft::detail {

struct context;

/// Owner-only unless marked otherwise.
struct worker_hot {
    /// The policy's deque for new normal-priority tasks of this worker (see
    /// ext::scheduler_policy::spawn_queue), or null: then spawns take the policy's path.
    ext::work_stealing_deque<task>* spawn_queue = nullptr;
    /// Or the policy's owner-only deque for them, used while *owner_spawn_gate equals
    /// *owner_spawn_open (ext::scheduler_policy::owner_spawn); null: none.
    ext::owner_deque<task>* owner_spawn = nullptr;
    const std::atomic<std::uint64_t>* owner_spawn_gate = nullptr;
    /// Or the policy's bounded split queue, used while it has room
    /// (ext::scheduler_policy::bounded_spawn); null: none.
    ext::split_queue<task>* bounded_spawn = nullptr;
    const std::uint64_t* owner_spawn_open = nullptr;
    task* current_task = nullptr;
    context* current_ctx = nullptr;
    /// Inline execution only while the stack pointer is above this (a quarter of the
    /// current stack plus a page must stay free).
    const char* inline_floor = nullptr;
    /// Parked workers (shared, read-mostly): spawns wake one when it is not zero.
    const std::atomic<unsigned>* sleepers = nullptr;
    std::uint64_t spawn_seq = 0;
    std::uint32_t worker_index = 0;
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

    static constexpr std::size_t block_classes = 8;  ///< task blocks of 64..512 bytes
    void* free_blocks[block_classes] = {};
    std::uint32_t free_block_count[block_classes] = {};

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

}  // namespace weft::detail
