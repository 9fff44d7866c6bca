// The task: weft's unit of work (an HPX thread, a PX-thread), a fixed-size intrusive
// descriptor that the scheduler queues by pointer and never allocates itself.
#pragma once

#include <weft/config/config.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace weft {

/// Task priorities with seed 000 §2.3.1's meaning: `high` runs before any normal
/// task, `low` runs only when no other work is ready anywhere.
enum class task_priority : std::uint8_t { low, normal, high };

/// Optional attributes for a spawned task.
struct task_attributes {
    task_priority priority = task_priority::normal;
    /// Name for diagnostics (stack-overflow and deadlock reports, traces). Must stay
    /// valid until the runtime stops (a trace is written then): pass a string literal
    /// or another static string.
    const char* name = nullptr;
    /// Worker the task must run on (0..num_workers()-1), or any_worker. A pinned task is
    /// never stolen and resumes on the same worker after a suspension; spawning one for
    /// a worker that does not exist throws weft::error. Executors that place work
    /// (fork_join_executor, thread_pool_executor, the NUMA executors) use this.
    unsigned worker = any_worker;
    static constexpr unsigned any_worker = ~0u;
    /// Usable stack bytes the task needs, or 0 for the runtime's (--weft:stack-size).
    /// A task asking for more than the runtime's size runs on a stack of its own, mapped
    /// when it starts and unmapped when it ends (rounded up to whole pages, at most
    /// max_stack_size; more throws weft::error at spawn). Such a task is never run
    /// inline on a smaller stack (by a waiting get() or task_group::wait()). Asking
    /// for less than the runtime's size changes nothing.
    std::size_t stack_size = 0;
    static constexpr std::size_t max_stack_size = std::size_t{1} << 30;
};

namespace detail {

struct context;

/// Lifecycle of seed 000 §2.3.1 (Figure 4). A staged task has no stack; it gets one
/// (the worker's current stack) when it becomes active. A task that suspends keeps its
/// stack; resumed, it is pending; its stack is recycled when it terminates.
enum class task_state : std::uint8_t { staged, pending, active, suspended, terminated };

/// The fixed-size task descriptor. Spawned work embeds it at the start of one
/// allocation that also holds the closure (and, for async, the future's shared state).
struct alignas(cache_line_size) task {
    /// Runs the body on the current stack, then disposes of the task (frees it or drops
    /// its reference). May suspend and return on another worker.
    void (*invoke)(task* self) noexcept = nullptr;
    task* next = nullptr;                      ///< intrusive link (inboxes, local lists)
    context* ctx = nullptr;                    ///< the stack it is suspended on; null while staged
    const char* name = nullptr;
    std::uint64_t id = 0;                      ///< unique per spawn, for diagnostics
    task_priority prio = task_priority::normal;
    std::atomic<task_state> state{task_state::staged};  // relaxed everywhere: diagnostics only
    /// Bits of the layers that use tasks: the lifecycle's below (task_flag_*), the
    /// scheduler's (sched/detail/task_flags.hpp) and bit 7 for a layer above it
    /// (task_flag_upper_layer).
    std::uint8_t flags = 0;
    std::uint32_t last_worker = 0;             ///< where it last ran (placement of resumes)
    /// Cycle-clock tick when it was queued, for the wait-time counters; 0 when not
    /// sampled (new tasks are sampled one in wait_sample_period, resumed ones always).
    std::uint64_t queued_at = 0;
    /// task_attributes::stack_size in KiB (rounded up) when task_flag_own_stack is set.
    std::uint32_t stack_kib = 0;

    // What a scheduler policy asks of a task (ext::scheduler_policy).
    /// It ran, suspended and was resumed (pending): it continues on its own stack.
    /// Otherwise it is new (staged) and starts on whatever stack the loop is on.
    bool is_resumed() const noexcept { return ctx != nullptr; }
    /// Being rescheduled by a yield: run it after other work.
    bool is_yield() const noexcept;
    task_priority priority() const noexcept { return prio; }
    /// Still new: it has not started (relaxed: a policy asks about a task it holds,
    /// queued after its last state change).
    bool is_staged() const noexcept { return state.load(std::memory_order_relaxed) == task_state::staged; }
    /// The worker it last ran on (where a policy may prefer to resume it).
    unsigned home_worker() const noexcept { return last_worker; }
};
static_assert(sizeof(task) == cache_line_size);

// The lifecycle's bits of task::flags (the scheduler's are in sched/detail/task_flags.hpp).
/// Set while a yield reschedules it.
inline constexpr std::uint8_t task_flag_yielded = 1u << 0;
/// Needs a stack larger than the runtime's (task::stack_kib): started on a stack of its
/// own, never run inline, never through the spawn fast path or the bypass slot.
inline constexpr std::uint8_t task_flag_own_stack = 1u << 4;
/// The bit a layer above the scheduler may use for its own tasks (task_queue does).
inline constexpr std::uint8_t task_flag_upper_layer = 1u << 7;

inline bool task::is_yield() const noexcept { return (flags & task_flag_yielded) != 0; }

/// One new task in this many has its queue wait timed (a power of two): the wait-time
/// counters are averages, and timing every spawn would cost more than all the other
/// counters together on fine-grained work.
inline constexpr std::uint64_t wait_sample_period = 64;

}  // namespace detail
}  // namespace weft
