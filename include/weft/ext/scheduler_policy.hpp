// The seam between weft's one scheduling loop and a scheduler policy: what a policy
// author implements (queues, placement, victim selection) and what the loop keeps
// (stacks, counters, idling, parking, shutdown).
#pragma once

#include <weft/concurrency/owner_counter.hpp>
#include <weft/concurrency/owner_deque.hpp>
#include <weft/concurrency/split_queue.hpp>
#include <weft/concurrency/work_stealing_deque.hpp>
#include <weft/threads/task.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weft::ext {

using task = weft::detail::task;

/// What the loop tells a policy about each worker when the runtime starts.
struct worker_info {
    unsigned index;      ///< 0..num_workers-1
    unsigned core;       ///< logical core it is bound to (or would be)
    unsigned numa_node;  ///< logical NUMA node of that core
    unsigned socket = 0;  ///< logical socket (package) of that core
    /// The shared cache of that core: equal values share the outermost cache that several
    /// cores share (the core's own index when none is shared).
    unsigned cache = 0;
};

/// The per-worker state a policy sees; the loop owns the rest of the worker.
struct worker_context {
    unsigned index = 0;
    unsigned numa_node = 0;
    std::uint64_t rng = 0x9e3779b97f4a7c15ULL;  ///< owner-only xorshift state for victim choice

    /// What a policy counts for the /threads counters (seed 000 §5.2; HPX's names). The
    /// policy's next_task increments them on its own worker (owner only, so no atomic
    /// read-modify-write is needed); the counters layer reads them from any thread.
    struct queue_counters {
        /// Looks into the worker's own queues (HPX: its pending queue), and those that
        /// found nothing there.
        detail::owner_counter pending_accesses, pending_misses;
        /// Tasks this worker stole from others: new (staged) ones and resumed (pending) ones.
        detail::owner_counter stolen_to_staged, stolen_to_pending;
    } counters;
    /// The worker a task was last stolen from (for traces), set by the policy with the steal.
    unsigned last_victim = 0;
    /// Set by the loop for the duration of a schedule() call: the spawner can run this
    /// new task at once on its own stack (it allows it (work-first), and has the
    /// stack for it), so the policy may answer placement::run_inline.
    bool may_run_inline = false;

    /// For a policy that hands a task to another worker outside schedule() (a victim
    /// serving a steal request, say): wakes `worker` if it is parked; `any_worker`: one
    /// parked worker, if any (for a task made stealable where any worker may take it).
    /// Issues the store-load fence the parking protocol needs, so call it after the task
    /// is visible.
    void wake(unsigned worker) noexcept {
        if (wake_fn != nullptr) wake_fn(wake_arg, worker);
    }
    static constexpr unsigned any_worker = ~0u;
    /// Set by the loop before the worker starts.
    void (*wake_fn)(void*, unsigned) noexcept = nullptr;
    void* wake_arg = nullptr;

    /// A fast owner-only pseudo-random number (xorshift64).
    std::uint64_t random() noexcept {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
    }
};

/// Where `schedule` put a task, so the loop can wake the right worker.
struct placement {
    static constexpr unsigned local = ~0u;
    /// `local`: on the calling worker's own queues (thieves may take it); otherwise the
    /// index of the worker whose inbox received it, which must be woken if asleep.
    unsigned worker = local;
    /// The policy issued a store-load fence (std::atomic_thread_fence(seq_cst)) after
    /// making the task visible, so the loop's wake-up check needs no second one.
    bool fenced = false;
    /// The policy did not queue the task: the spawner runs it at once, on its own stack
    /// (work-first; seed 002 §3, HotSLAW's bounded queues). Only allowed while
    /// worker_context::may_run_inline is set.
    bool run_inline = false;
};

/// Where a worker's new normal-priority tasks go without a call to schedule(), so that a
/// fork costs no virtual call (the loop's inline spawn, take-back and run-at-spawn paths
/// in include/weft/sched/detail/spawn.hpp). One per worker, said once at start. The
/// queue belongs to the policy; every kind holds new (staged) tasks of that worker.
struct spawn_path {
    enum class kind : std::uint8_t {
        none,      ///< every spawn goes through schedule()
        stealing,  ///< push on `deque`; the owner takes back its newest, thieves steal the oldest
        owner,     ///< push on `owned` while *gate == *open (owner-only: thieves ask, seed 001)
        bounded,   ///< push on `bounded` while it has room (seed 002 §3); then schedule()
    };
    kind how = kind::none;
    union {
        work_stealing_deque<task>* deque;
        owner_deque<task>* owned;  ///< holds new tasks only
        split_queue<task>* bounded;  ///< may also hold resumed tasks: take-back checks
        void* queue = nullptr;
    };
    /// kind::owner only: other threads shut the path by changing *gate (read relaxed at
    /// each spawn); the policy opens it again, on its worker's thread, by setting *open
    /// (owner-only) to the gate's value once nothing needs schedule() any more.
    const std::atomic<std::uint64_t>* gate = nullptr;
    const std::uint64_t* open = nullptr;

    /// Optional, for any kind (none included): called on the worker's thread as it starts
    /// a task that did not come from next_task() (one it takes back to run inline, or the
    /// scheduler bypass: a continuation the finished task readied), with `share_arg`. A
    /// policy whose queues only their owner can reach makes some of them reachable by
    /// idle workers here, as it does in next_task(): no worker may idle while a task is
    /// ready, and the task the worker starts may run for long (issue #22).
    void (*share)(void* arg, worker_context& self) noexcept = nullptr;
    void* share_arg = nullptr;

    static spawn_path stealing_deque(work_stealing_deque<task>* d) noexcept {
        spawn_path p;
        p.how = kind::stealing;
        p.deque = d;
        return p;
    }
    static spawn_path owner_only(owner_deque<task>* d, const std::atomic<std::uint64_t>* gate,
                                 const std::uint64_t* open) noexcept {
        spawn_path p;
        p.how = kind::owner;
        p.owned = d;
        p.gate = gate;
        p.open = open;
        return p;
    }
    static spawn_path bounded_queue(split_queue<task>* q) noexcept {
        spawn_path p;
        p.how = kind::bounded;
        p.bounded = q;
        return p;
    }
};

/// The runtime options meant for scheduler policies (such as --weft:xqueue-domains), by
/// name without the --weft: prefix. The runtime has checked their form; a policy reads
/// the ones it knows and ignores the others.
struct policy_options {
    std::vector<std::pair<std::string, std::string>> values;
    /// The value of `name`, or `fallback` if it was not given.
    std::string_view get(std::string_view name, std::string_view fallback = {}) const noexcept {
        for (const auto& [key, value] : values)
            if (key == name) return value;
        return fallback;
    }
};

/// A scheduler policy: owns the queues. Implementations must be safe for the calls
/// documented on each member; the loop guarantees `self` is the calling worker.
class scheduler_policy {
public:
    virtual ~scheduler_policy() = default;

    /// The name used by --weft:scheduler=NAME.
    virtual std::string_view name() const noexcept = 0;

    /// The largest number of workers the policy supports (e.g. 1 for `single`).
    virtual unsigned max_workers() const noexcept { return ~0u; }

    /// Called once, before attach(), with the runtime's policy options.
    /// @throws weft::bad_option for a value the policy cannot use.
    virtual void configure(const policy_options& /*options*/) {}

    /// Called once before any worker starts.
    virtual void attach(const std::vector<worker_info>& workers) = 0;

    /// Makes `t` runnable. `self` is the calling worker, or null when called from a
    /// thread that is not a worker (then the policy must use a thread-safe inbox).
    /// `t.is_resumed()`: it is being resumed (pending); otherwise it is new (staged).
    /// `t.is_yield()` marks a yield: run it after other work. A policy reads a task only
    /// through these accessors, priority() and home_worker().
    virtual placement schedule(worker_context* self, task& t) = 0;

    /// The next task for `self` to run, or nullptr when the policy found none
    /// (own queues first, then stealing as the policy sees fit).
    virtual task* next_task(worker_context& self) noexcept = 0;

    /// If `t` is the task `self` scheduled most recently, is still new (staged: it
    /// never ran) and nobody has taken it yet, removes it and returns true, so a
    /// waiting owner can run it inline. It must refuse a task that started, suspended
    /// and was resumed onto `self`: that one continues on its own context. Optional.
    virtual bool take_back(worker_context& /*self*/, task& /*t*/) noexcept { return false; }

    /// Optional: how `worker`'s new normal-priority tasks are placed without a call to
    /// schedule() (see spawn_path). Called once per worker at start.
    virtual spawn_path spawn_path_of(unsigned /*worker*/) noexcept { return {}; }
    // (A policy without a fast path may still return kind::none with spawn_path::share.)

    /// What the counters read of one worker's queues, from any thread, at any time
    /// while the runtime runs (approximate values are fine).
    struct queue_state {
        std::uint64_t length = 0;               ///< tasks queued for that worker now
        std::uint64_t stolen_from_staged = 0;   ///< new tasks other workers stole from it so far
        std::uint64_t stolen_from_pending = 0;  ///< resumed tasks other workers stole from it so far
    };
    /// Optional; the default reports nothing queued and nothing stolen.
    virtual queue_state queue_state_of(unsigned /*worker*/) const noexcept { return {}; }
    /// Tasks queued for no worker in particular (a shared low-priority queue, say).
    virtual std::uint64_t shared_queue_length() const noexcept { return 0; }

    /// Optional throttling (weft::adapt::set_active_workers): from now on only workers
    /// 0..n-1 (1 <= n <= workers) take tasks. A policy that supports it returns true and
    /// then: places tasks from outside on active workers only; in next_task() of a
    /// throttled worker, hands the tasks only it could run (its inbox, yielded and
    /// low-priority lists) to the active ones and returns nullptr; its deques stay
    /// open to thieves. May be called from any thread at any time. The default refuses.
    virtual bool set_active_workers(unsigned /*n*/) noexcept { return false; }
};

/// Makes a policy by name; used by --weft:scheduler.
using policy_factory = std::function<std::unique_ptr<scheduler_policy>()>;

/// Adds a policy under `name` (replacing one of the same name). Call before the
/// runtime starts.
void register_scheduler_policy(std::string name, policy_factory factory);

/// The names of every registered policy, built-in ones first.
std::vector<std::string> scheduler_policy_names();

/// A new policy of that name, or nullptr if there is none.
std::unique_ptr<scheduler_policy> make_scheduler_policy(std::string_view name);

}  // namespace weft::ext
