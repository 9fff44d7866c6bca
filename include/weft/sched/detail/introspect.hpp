// Everything the scheduler exports to the layers above it: the runtime creates and stops
// it through scheduler_handle, the counters read its counts and trace, adapt throttles it.
// None of them sees the scheduler class (src/sched/scheduler.hpp); src/sched/introspect.cpp
// implements this header.
#pragma once

#include <weft/config/config.hpp>
#include <weft/ext/scheduler_policy.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace weft {
class topology;
}

namespace weft::detail {

class scheduler;

inline constexpr std::size_t default_stack_size = WEFT_HAVE_ASAN || WEFT_HAVE_TSAN ? 512 * 1024 : 128 * 1024;

struct scheduler_config {
    unsigned threads = 1;
    std::string policy = "local-priority";
    bool bind = true;
    /// The layout workers are placed by; null = topology::machine().
    std::shared_ptr<const topology> topo;
    std::size_t stack_size = default_stack_size;
    /// How often the stack pool gives memory back (runtime_config::stack_trim_ms); zero:
    /// never before stop.
    std::chrono::milliseconds stack_trim{1000};
    /// See runtime_config::deadlock_timeout_ms; zero disables the report.
    std::chrono::milliseconds deadlock_timeout{1000};
    /// What follows a deadlock report (runtime_config::on_deadlock).
    enum class deadlock_action : std::uint8_t {
        exit_if_certain,  ///< "auto": exit with code 3 when no thread outside weft can help
        wait,             ///< keep waiting
        exit,             ///< always exit with code 3
    };
    deadlock_action on_deadlock = deadlock_action::exit_if_certain;
    /// Time task phases and queue waits (the loop reads the cycle clock).
    bool timing = true;
    /// Readied tasks go straight to a worker spinning idle (runtime_config::hand_off).
    bool hand_off = true;
    /// Record a timeline per worker (implies reading the clock); events kept per worker.
    bool tracing = false;
    std::size_t trace_limit = std::size_t{1} << 21;
    /// Handed to the policy's configure() (runtime_config's policy options).
    ext::policy_options policy_options;
};

/// One event of a worker's timeline (--weft:trace).
struct trace_event {
    enum kind_t : std::uint8_t { phase_begin, phase_end, idle_begin, idle_end, steal };
    std::uint64_t ticks;
    std::uint64_t task_id;
    const char* name;     ///< the task's name, or null
    std::uint32_t arg;    ///< phase_end: 1 if it suspended, 0 if it finished; steal: the victim
    kind_t kind;
};

/// Owns one scheduler (the runtime layer's only way to make one); empty when default-made.
class scheduler_handle {
public:
    scheduler_handle() noexcept = default;
    /// Makes a scheduler, its workers not started. @throws weft::bad_option (a policy's worker bound)
    explicit scheduler_handle(scheduler_config cfg);
    scheduler_handle(scheduler_handle&& o) noexcept;
    scheduler_handle& operator=(scheduler_handle&& o) noexcept;
    /// reset().
    ~scheduler_handle();

    /// Destroys the scheduler (stop() it first), leaving the handle empty.
    void reset() noexcept;
    /// True while the handle owns a scheduler.
    explicit operator bool() const noexcept { return s_ != nullptr; }
    /// The scheduler, for the functions below; null when empty.
    const scheduler* get() const noexcept { return s_; }

    /// Starts the workers and makes this the process's active scheduler.
    void start();
    /// Blocks the calling (non-worker) thread until every spawned task has finished.
    void wait_for_quiescence();
    /// From now on a thread outside the runtime that spawns a task gets a runtime_state_error.
    void close_entry();
    /// close_entry(), waits for every task, then stops and joins the workers.
    void stop();
    /// Its worker count.
    unsigned num_workers() const noexcept;
    /// Its task stack size in bytes (rounded to pages).
    std::size_t stack_size() const noexcept;
    /// Tasks each worker has finished so far.
    std::vector<std::uint64_t> finished_per_worker() const;

private:
    scheduler* s_ = nullptr;
};

/// The scheduler of the running runtime, or null.
scheduler* active_scheduler() noexcept;

/// What stays fixed while a scheduler runs.
struct scheduler_info {
    unsigned num_workers = 0;
    std::uint64_t generation = 0;   ///< no other scheduler of this process had it (an address may be reused)
    std::uint64_t start_ticks = 0;  ///< cycle-clock tick at which it started
    std::string_view policy_name;   ///< valid while the scheduler lives
    bool timing = false, tracing = false;
    std::size_t trace_limit = 0;    ///< events kept per worker
};
/// What stays fixed while `s` runs.
scheduler_info read_info(const scheduler& s) noexcept;

/// One worker's counts (the /threads counters; seed 000 §5.2), read at one moment.
struct worker_sample {
    std::uint64_t finished = 0, internal_tasks = 0, suspends = 0, phases = 0;
    std::uint64_t exec_ticks = 0, internal_ticks = 0;  ///< with the part of the phase running now
    std::uint64_t loop_start = 0, loop_end = 0;        ///< ticks; 0: not started / still running
    std::uint64_t pending_accesses = 0, pending_misses = 0;
    std::uint64_t wait_staged_ticks = 0, wait_staged_samples = 0, wait_pending_ticks = 0, wait_pending_samples = 0;
    std::uint64_t stolen_to_staged = 0, stolen_to_pending = 0, stolen_from_staged = 0, stolen_from_pending = 0;
    std::uint64_t queue_length = 0, cached_contexts = 0;
    std::uint64_t resumed_runs = 0, started = 0, resumes = 0, spawned = 0;
    std::uint64_t handoffs_received = 0;  ///< readied tasks handed to its mailbox
};

/// Every worker's counts and the scheduler's own, read at one moment (not atomically).
struct scheduler_sample {
    std::vector<worker_sample> workers;
    std::uint64_t external_spawned = 0, external_resumes = 0;  ///< by threads that are not workers
    std::uint64_t shared_queue_length = 0;                     ///< queued for no worker in particular
    std::size_t contexts_allocated = 0, context_stack_bytes = 0;  ///< task stacks and their usable bytes
    std::size_t contexts_pooled = 0;  ///< of those, in the runtime-wide pool (not in a worker's cache)
    /// Task stacks mapped and unmapped so far, and pooled ones whose memory went back (trim).
    std::uint64_t stacks_mapped = 0, stacks_unmapped = 0, stacks_trimmed = 0;
};
/// Reads `s` at tick `now`, outflows before inflows (finished before started before
/// spawned), so that a task moving between states meanwhile is never counted as missing.
scheduler_sample read_sample(const scheduler& s, std::uint64_t now);

/// Worker `w`'s Linux thread id (for per-thread hardware counters); 0 before start().
int worker_os_thread_id(const scheduler& s, unsigned w) noexcept;
/// Worker `w`'s timeline; read only after stop() joined the workers.
std::span<const trace_event> worker_trace(const scheduler& s, unsigned w) noexcept;
/// Events worker `w` dropped because its timeline was full; read only after stop().
std::uint64_t worker_trace_dropped(const scheduler& s, unsigned w) noexcept;

/// Lets only workers 0..n-1 (n clamped to [1, workers]) take tasks. @throws weft::error if unsupported
void set_active_workers(scheduler& s, unsigned n);
/// Workers allowed to take tasks now.
unsigned active_workers(const scheduler& s) noexcept;

}  // namespace weft::detail
