// The one scheduling loop shared by every policy (seed 000 §2.3.1): workers, their
// stacks, suspension and resumption, idling and parking, quiescence and shutdown.
// Private to the library; the runtime layer drives it.
#pragma once

#include "background.hpp"
#include "policies/local_queues.hpp"

#include <weft/concurrency/handoff_slot.hpp>
#include <weft/concurrency/owner_counter.hpp>
#include <weft/ext/scheduler_policy.hpp>
#include <weft/platform/cycle_clock.hpp>
#include <weft/sched/detail/worker_hot.hpp>
#include <weft/platform/stack.hpp>
#include <weft/platform/topology.hpp>
#include <weft/sched/detail/introspect.hpp>
#include <weft/sched/detail/spawn.hpp>
#include <weft/sched/detail/suspend.hpp>
#include <weft/threads/detail/context_pool.hpp>
#include <weft/threads/task.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace weft::detail {

/// What the loop counts and times for the /threads counters (seed 000 §5.2, digest §1.14):
/// written by the owning worker only, read by the counters layer from any thread.
struct alignas(cache_line_size) loop_stats {
    owner_counter exec_ticks;       ///< Σt_exec: cycle-clock ticks inside application task phases
    owner_counter phases;           ///< activations by the loop (starts and resumptions)
    owner_counter internal_tasks;   ///< runtime-internal tasks finished here
    owner_counter internal_ticks;   ///< ticks inside their phases (scheduler overhead, not Σt_exec)
    owner_counter wait_staged_ticks, wait_staged_samples;    ///< sampled queue waits of new tasks
    owner_counter wait_pending_ticks, wait_pending_samples;  ///< queue waits of resumed tasks
    owner_counter suspends;         ///< phases that ended in a suspension
    owner_counter resumed_runs;     ///< resumed tasks this worker picked up
    owner_counter resumes;          ///< resume() calls this worker made
    owner_counter handoffs_received;  ///< readied tasks handed to this worker's mailbox
    std::atomic<std::uint64_t> loop_start{0};  ///< tick the loop started (0: not yet)
    std::atomic<std::uint64_t> loop_end{0};    ///< tick the loop ended (0: still running)
    /// Start tick of the application phase running now (0: none), so that a reading
    /// taken in the middle of a phase counts the part already run (see read_phase_ticks
    /// in src/sched/introspect.cpp): it and exec_ticks form a sequence lock.
    std::atomic<std::uint64_t> open_phase{0};  ///< (start tick << 1) | internal; 0: none
};

class scheduler;

/// A worker: one OS thread bound to a core, running the loop on pooled task stacks.
/// worker_hot holds what header-only fast paths touch (current task and stack, free
/// lists, spawn and finish counts).
struct alignas(cache_line_size) worker : worker_hot {
    scheduler* sched = nullptr;
    unsigned core = 0;
    std::thread thread;

    // 0 awake, 1 parked (or about to), 2 woken by someone.
    alignas(cache_line_size) std::atomic<std::uint32_t> park{0};

    /// Pinned tasks (task_flag_pinned) for this worker, from any thread. On a line of
    /// its own: the owner reads it once per loop turn, producers write it rarely.
    alignas(cache_line_size) ext::mpsc_inbox<task, &task::next> pinned_inbox;

    /// The direct hand-off mailbox (scheduler::try_hand_off), open while this worker
    /// spins idle. On a line of its own: the owner spins on it.
    ext::handoff_slot<task> handoff;

    // Owner only from here on.
    alignas(cache_line_size) context thread_ctx;  ///< the OS thread's own stack
    context_cache ctx_cache;                      ///< recycled task stacks (first level of contexts_)
    task_fifo pinned;                             ///< pinned tasks taken from the inbox, in order
    task_fifo pinned_yielded;                     ///< those that yielded: run after other work
    task* own_stack_first = nullptr;              ///< the task a new own-stack context starts with
    task* run_next = nullptr;                     ///< fork_to's child: the loop runs it before anything else
    suspend_hook on_suspend{};                    ///< see set_suspend_hook (detail/suspend.hpp)
    std::size_t inline_reserve = 0;               ///< see worker_hot::inline_floor
    unsigned idle_spins = 0;
    /// This worker's bit is set in the scheduler's hand-off mask.
    bool handoff_in_mask = false;
    /// Tasks the loop takes before it runs the background work again (busy workers).
    std::uint32_t background_countdown = 1;
    /// This worker polls the background work instead of parking (scheduler::keep_polling).
    bool polling = false;
    std::chrono::steady_clock::time_point idle_since{};
    std::atomic<int> os_thread_id{0};  ///< Linux thread id, for per-thread hardware counters (set at start)

    // The open phase (owner only): when it started and what it runs.
    std::uint64_t phase_start = 0;
    std::uint64_t phase_task_id = 0;
    const char* phase_task_name = nullptr;
    bool phase_internal = false;
    bool tracing = false;
    bool idle_traced = false;
    std::vector<trace_event> trace;  ///< reserved at start; never grows past trace_limit
    std::uint64_t trace_dropped = 0;

    alignas(cache_line_size) loop_stats stats;

    /// Makes `c` the stack this worker runs on.
    void set_current_ctx(context* c) noexcept {
        current_ctx = c;
        inline_floor = c != nullptr ? static_cast<const char*>(c->stk.bottom) + inline_reserve : nullptr;
    }
};

/// Wakes the worker sleeping on `word` (its park word), if it sleeps (src/sched/park.cpp).
void park_notify(std::atomic<std::uint32_t>& word) noexcept;

/// The scheduler of one running runtime.
class scheduler {
public:
    explicit scheduler(scheduler_config cfg);
    ~scheduler();
    scheduler(const scheduler&) = delete;
    scheduler& operator=(const scheduler&) = delete;

    /// Starts the workers and makes this the process's active scheduler.
    void start();
    /// Blocks the calling (non-worker) thread until every spawned task has finished.
    /// (A deadlock meanwhile is reported by the timer thread's watchdog, see
    /// check_deadlock.) @throws weft::runtime_state_error when called from a task.
    void wait_for_quiescence();
    /// From now on a thread outside the runtime that spawns a task gets a
    /// weft::runtime_state_error; returns once no such thread is inside a spawn (every
    /// task accepted is counted). Idempotent. @throws weft::runtime_state_error from a task.
    void close_entry();
    /// close_entry(), waits for every task accepted and every task those spawn, then
    /// stops and joins the workers. @throws weft::runtime_state_error from a task.
    void stop();

    void spawn(worker* self, task* t);
    void resume(worker* self, task* t) noexcept;
    /// resume() for the continuation of a task that forked (fork_to): on `self`'s
    /// stealing deque, where `self` takes its newest continuation first and thieves the
    /// oldest; through the policy as resume() does if the push fails.
    void resume_continuation(worker* self, task* t) noexcept;
    /// Direct hand-off: gives the readied task `t` to a worker other than `self` that
    /// spins idle with its mailbox open; false if none took it (then queue it as usual).
    /// Normal-priority tasks only, neither pinned nor needing a stack of their own.
    bool try_hand_off(worker* self, task* t) noexcept;
    /// Calls fn(arg) on the timer thread at (or soon after) `when`.
    void add_timer(std::chrono::steady_clock::time_point when, void (*fn)(void*) noexcept, void* arg);

    bool quiescent() const noexcept;
    unsigned num_workers() const noexcept { return static_cast<unsigned>(workers_.size()); }
    /// NUMA domains holding at least one worker's core: 1 + the highest domain index.
    unsigned num_numa_domains() const noexcept { return num_numa_domains_; }
    std::string_view policy_name() const noexcept { return policy_->name(); }
    std::size_t stack_size() const noexcept { return cfg_.stack_size; }
    /// Tasks each worker has finished so far.
    std::vector<std::uint64_t> finished_per_worker() const;
    /// Contexts currently allocated (task stacks in use, cached or pooled).
    std::size_t contexts_allocated() const;
    /// Usable bytes of those contexts' stacks (guard pages not included).
    std::size_t context_stack_bytes() const;
    /// Worker `i` (for the counters layer; its stats may be read from any thread).
    const worker& worker_at(unsigned i) const noexcept { return *workers_[i]; }
    /// Tasks spawned from threads that are not workers, and resume() calls made there.
    /// acquire: read with the finished counts, as in quiescent().
    std::uint64_t external_spawned() const noexcept { return external_spawned_.load(std::memory_order_acquire); }
    std::uint64_t external_resumes() const noexcept { return external_resumes_.load(std::memory_order_relaxed); }  // relaxed: a statistic
    const scheduler_config& config() const noexcept { return cfg_; }
    /// Tick at which start() was called.
    std::uint64_t start_ticks() const noexcept { return start_ticks_; }
    /// A number no other scheduler of this process had (a later one may reuse the address).
    std::uint64_t generation() const noexcept { return generation_; }

    /// The scheduler of the running runtime, or null.
    static scheduler* active() noexcept;

    // Used by the loop's free functions.
    ext::scheduler_policy& policy() noexcept { return *policy_; }
    const ext::scheduler_policy& policy() const noexcept { return *policy_; }
    void after_schedule(worker* self, ext::placement p) noexcept;
    /// The next task for `w`: one handed to its open mailbox, its pinned tasks, then the
    /// policy's, then pinned tasks that yielded. Finding one closes the mailbox.
    task* next_task(worker* w) noexcept;
    /// An idle worker about to spin: opens its mailbox to readied tasks (when hand-off
    /// is on and the worker has a bit in the open mask).
    void open_handoff(worker* w) noexcept;
    /// Another worker spins idle with its hand-off slot open (workers 0-63; looks at a few
    /// candidates, as try_hand_off does). A hint.
    bool spinning_worker(const worker* self) const noexcept;
    /// Some worker is parked. A hint.
    bool parked_workers() const noexcept {
        return sleepers_.load(std::memory_order_relaxed) != 0;  // relaxed: a hint
    }
    /// Closes `w`'s mailbox (and, `leave_mask`, takes it out of the readiers' mask: it
    /// parks); returns the task handed to it meanwhile, if any.
    task* close_handoff(worker* w, bool leave_mask) noexcept;
    /// next_task without the mailbox.
    task* find_task(worker* w) noexcept;
    /// Puts a pinned task into its worker's inbox.
    ext::placement place_pinned(task& t) noexcept;
    task* park_until_work(worker* w) noexcept;
    /// acquire: pairs with stop()'s store; the workers' last look for tasks follows it.
    bool stopping() const noexcept { return stopping_.load(std::memory_order_acquire); }
    /// More workers than processing units: idle workers yield the CPU while they spin.
    bool oversubscribed() const noexcept { return oversubscribed_; }
    /// A context whose stack starts the scheduling loop: a cached one of the runtime's
    /// stack size, or a new one.
    context* fresh_context(worker* w);
    /// A new context with `bytes` of stack (more than the runtime's) that runs `t`
    /// first (task_flag_own_stack), then the scheduling loop.
    context* own_stack_context(std::size_t bytes);
    /// Contexts the worker left for good: kept for reuse when of the runtime's size.
    void recycle_context(worker* w, context* c) noexcept;
    /// Every task stack of this runtime (the deadlock report walks it; the counters read
    /// its statistics).
    const context_pool& contexts() const noexcept { return contexts_; }
    /// The usable stack bytes `t` needs: its own size (task_flag_own_stack), or 0.
    static std::size_t own_stack_bytes(const task& t) noexcept {
        return (t.flags & task_flag_own_stack) != 0 ? round_stack_size(std::size_t{t.stack_kib} * 1024) : 0;
    }
    /// Puts a task the caller took back (but will not run) where the policy wants it.
    void requeue(worker* self, task* t) noexcept;
    /// Throttling (weft::adapt::set_active_workers): only workers 0..n-1 take tasks; n is
    /// clamped to [1, workers]. @throws weft::error if the policy cannot throttle.
    void set_active_workers(unsigned n);
    unsigned active_workers() const noexcept {
        return active_limit_.load(std::memory_order_relaxed);  // relaxed: see set_active_workers
    }
    bool throttled(const worker* w) const noexcept;
    /// A throttled worker going to sleep: wakes an active one if it left tasks behind.
    void wake_for_leftovers(worker* w) noexcept;

    /// The background work workers run besides tasks (ext/background_work.hpp).
    background_registry& background() noexcept { return background_; }
    /// An idle worker about to park: true if it is the one that keeps polling the
    /// background work instead, because something is outstanding.
    bool keep_polling(worker* w) noexcept;
    /// The polling worker found a task: another idle one takes over the polling.
    void stop_polling(worker* w) noexcept;
    /// Nothing queued that worker `w` would run next (its pinned tasks, its policy queue,
    /// the shared queue): approximate, a hint for poll_while_waiting.
    bool nothing_else_to_run(const worker* w) const noexcept;
    /// One more thing outstanding for background work `id` (wakes a worker to poll).
    void background_started(ext::background_work_id id) noexcept;

private:
    void worker_main(worker* w);
    void wake_one(unsigned start) noexcept;
    void wake(worker* w) noexcept;
    static void wake_from_policy(void* s, unsigned index) noexcept;  // worker_context::wake
    void notify_idle_watchers() noexcept;
    void timer_main();
    /// The deadlock watchdog, run by the timer thread every check period: reports when
    /// every worker has been parked, no timer pending and no phase run for the deadlock
    /// timeout while tasks exist; then exits or keeps waiting (cfg_.on_deadlock).
    void check_deadlock(bool timers_pending, std::chrono::steady_clock::time_point now);
    /// Prints the suspended tasks and what each waits on; true if the deadlock is
    /// certain (a cycle of tasks, or a mutex whose owner finished).
    bool report_deadlock();
    std::uint64_t phases_run() const noexcept;

    scheduler_config cfg_;
    std::unique_ptr<ext::scheduler_policy> policy_;
    std::vector<std::unique_ptr<worker>> workers_;
    unsigned num_numa_domains_ = 1;
    std::size_t inline_reserve_ = 0;
    bool oversubscribed_ = false;

    std::uint64_t start_ticks_ = 0;
    std::uint64_t generation_ = 0;
    alignas(cache_line_size) std::atomic<std::uint64_t> external_spawned_{0};
    std::atomic<std::uint64_t> external_resumes_{0};
    // Workers allowed to take tasks; read-mostly, on a line of its own.
    alignas(cache_line_size) std::atomic<unsigned> active_limit_{~0u};
    alignas(cache_line_size) std::atomic<unsigned> sleepers_{0};
    std::atomic<bool> stopping_{false};
    std::atomic<unsigned> idle_watchers_{0};
    bool started_ = false;

    std::mutex idle_mutex_;
    std::condition_variable idle_cv_;
    std::uint64_t idle_epoch_ = 0;

    // Bit i: worker i's hand-off mailbox is open (workers 0-63 only). A readier reads it
    // once per readied task that the bypass slot did not take; on a line of its own,
    // since idle workers flip their bits as they come and go.
    alignas(cache_line_size) std::atomic<std::uint64_t> handoff_mask_{0};
    static constexpr int max_handoff_candidates = 4;

    alignas(cache_line_size) context_pool contexts_;  // every task stack, and the pool behind the workers' caches
    background_registry background_;

    // Timers for sleep_for / sleep_until.
    std::mutex timer_mutex_;
    std::condition_variable timer_cv_;
    struct timer_entry {
        std::chrono::steady_clock::time_point when;
        void (*fn)(void*) noexcept;
        void* arg;
    };
    std::vector<timer_entry> timers_;  // min-heap on `when`
    bool timer_stop_ = false;
    std::thread timer_thread_;

    // The deadlock watchdog's state (timer thread only).
    bool wd_stuck_ = false;
    bool wd_reported_ = false;
    std::uint64_t wd_phases_ = 0;
    std::chrono::steady_clock::time_point wd_since_{};
};

/// The calling thread's worker, or null. Never inlined and never cached across a
/// possible context switch: a task may resume on another OS thread.
worker* current_worker() noexcept;

/// Runs a staged task on the current stack; it may suspend and come back on another worker.
inline void execute(task* t) noexcept {
    t->state.store(task_state::active, std::memory_order_relaxed);  // relaxed: diagnostics only
    execute_taken(current_worker_hot(), t);
}

}  // namespace weft::detail
