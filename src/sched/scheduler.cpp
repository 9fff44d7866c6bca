// The one scheduling loop (seed 000 §2.3.1, Figure 4): every policy shares it.
//
// Stacks. A worker always runs the loop on a pooled task stack. A staged task runs
// directly on the stack the loop is on (it gets its "context" by starting there); when
// it finishes, the loop simply continues on the same stack, so a stream of tasks that
// never block costs no context switch at all. A task that suspends keeps its stack, and
// the worker continues the loop on a fresh one. Picking a pending (resumed) task
// abandons the loop's current stack (only the loop frame is on it), recycles it, and
// jumps into the task's saved context. The worker's own OS stack is left on start and
// returned to on shutdown.
#include "sched/scheduler.hpp"

#include <weft/config/errors.hpp>
#include <weft/sched/detail/core.hpp>

#include <cxxabi.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <new>
#include <typeinfo>
#include <mutex>
#include <vector>
#include <utility>

namespace weft::detail {

namespace {

// initial-exec: weft is linked into the executable, so the TLS offset is fixed and the
// signal handler can read it without calling into the dynamic linker.
thread_local worker* tl_worker __attribute__((tls_model("initial-exec"))) = nullptr;

std::atomic<scheduler*> g_active{nullptr};
std::atomic<std::uint64_t> g_external_task_seq{0};

// The entry for threads outside the runtime (the main thread, I/O threads, the timer
// and counter threads): spawn, resume and timers from there pass through it, so that
// stop() never frees a scheduler that such a thread is still using, and a spawn either
// runs or throws. The low bits count the threads inside. entry_closed: new tasks from
// outside are refused (stop() has begun); entry_gone: everything is (no runtime, or
// its workers are stopping). All seq_cst: a thread that entered before stop() set a
// bit is waited for; one that enters after it sees the bit.
constexpr std::uint64_t entry_closed = std::uint64_t{1} << 63;
constexpr std::uint64_t entry_gone = std::uint64_t{1} << 62;
constexpr std::uint64_t entry_count = entry_gone - 1;
std::atomic<std::uint64_t> g_entry{entry_closed | entry_gone};

// Sets `bits` on the entry, then waits until no thread is inside it.
void close_entry_bits(std::uint64_t bits) noexcept {
    g_entry.fetch_or(bits);
    while ((g_entry.load() & entry_count) != 0) std::this_thread::yield();
}
// Set in the child of a fork() taken while a runtime ran: its workers do not exist there.
std::atomic<bool> g_forked_child{false};

// A pass through the entry: `sched` is the running scheduler, or null when the entry is
// closed (then nothing may be touched; the caller throws or reports).
class outside_entry {
public:
    /// `spawning`: the caller brings a new task (refused once stop() has begun); else
    /// it acts on tasks that exist (a resume, a timer), allowed until the workers stop.
    explicit outside_entry(bool spawning) noexcept {
        if ((g_entry.fetch_add(1) & (spawning ? entry_closed | entry_gone : entry_gone)) != 0) {
            g_entry.fetch_sub(1);
            return;
        }
        sched = g_active.load(std::memory_order_acquire);  // non-null while the entry is open
    }
    ~outside_entry() {
        if (sched != nullptr) g_entry.fetch_sub(1);
    }
    outside_entry(const outside_entry&) = delete;
    outside_entry& operator=(const outside_entry&) = delete;

    scheduler* sched = nullptr;
};

[[noreturn]] void throw_no_runtime(const char* what) {
    if (g_forked_child.load(std::memory_order_relaxed))  // relaxed: set once, in a one-thread child
        throw runtime_state_error(std::string("weft: ") + what +
                                  ": this process is the child of a fork() taken while a weft runtime ran, and that "
                                  "runtime's workers do not exist here; start a new weft::runtime in the child "
                                  "(after the parent's has stopped) or exec");
    if (g_active.load(std::memory_order_acquire) != nullptr)
        throw runtime_state_error(std::string("weft: ") + what + ": the runtime is stopping");
    throw runtime_state_error(std::string("weft: ") + what +
                              ": no runtime is running; start one with weft::run() or a weft::runtime object");
}

// How long an idle worker keeps looking for work before it parks. Waking a parked worker
// costs a futex call and, on a VM, a virtual CPU wake-up (hundreds of microseconds), so
// a worker between two phases of a program should still be spinning.
constexpr auto spin_before_park = std::chrono::microseconds(500);
constexpr unsigned spin_rounds_per_clock_check = 64;

// ---------------------------------------------------------------------------------
// Switching (platform/fiber_switch.hpp does the sanitizer annotations).

[[noreturn]] void context_entry(transfer_t) noexcept;
[[noreturn]] void own_stack_entry(transfer_t) noexcept;

// The per-thread exception-handling state of the Itanium C++ ABI (what
// abi::__cxa_get_globals() returns): exceptions caught and being handled, and the count
// of exceptions thrown and not yet caught.
struct eh_globals {
    void* caught_exceptions;
    unsigned int uncaught_exceptions;
};
// Called through a volatile pointer: the declaration is __attribute__((const)), and a
// task may resume on another thread between two calls, so no call may be reused.
auto* volatile g_get_eh_globals = &abi::__cxa_get_globals;
eh_globals* current_eh_globals() noexcept { return reinterpret_cast<eh_globals*>(g_get_eh_globals()); }

struct suspend_record {
    task* t;
    context* from;
    suspend_callback cb;
    void* arg;
};

transfer_t on_first_landing(transfer_t tr) noexcept {
    worker* w = current_worker();
    after_switch(w->current_ctx->fiber, &w->thread_ctx.fiber);
    w->thread_ctx.fctx = tr.fctx;
    return {nullptr, nullptr};
}

transfer_t on_suspend_landing(transfer_t tr) noexcept {
    worker* w = current_worker();
    after_switch(w->current_ctx->fiber);
    // Copy the record out: it lives on the suspended stack, which another worker may
    // resume (and unwind) as soon as the callback publishes the task.
    const suspend_record rec = *static_cast<suspend_record*>(tr.data);
    rec.from->fctx = tr.fctx;
    rec.cb(rec.t, rec.arg);
    return {nullptr, nullptr};
}

transfer_t on_resume_landing(transfer_t tr) noexcept {
    worker* w = current_worker();
    after_switch(w->current_ctx->fiber);
    w->sched->recycle_context(w, static_cast<context*>(tr.data));
    return {nullptr, nullptr};
}

// ---------------------------------------------------------------------------------
// Phases (seed 000 §2.3.1: a phase begins each time the loop activates a task, new or
// resumed). With timing on, the loop reads the cycle clock at each phase boundary:
// Σt_exec is the sum of phase times; Σt_func, the whole loop's time, is read off the
// clock by the counters, so idle spinning and parking cost no clock reads.

void trace_add(worker* w, trace_event::kind_t kind, std::uint64_t now, std::uint64_t id, const char* name,
               std::uint32_t arg) noexcept {
    if (w->trace.size() < w->trace.capacity()) w->trace.push_back({now, id, name, arg, kind});
    else ++w->trace_dropped;
}

// Opens a phase for `t` at tick `now` (0 when timing is off). `resumed`: t was pending.
void begin_phase(worker* w, task* t, bool resumed, std::uint64_t now) noexcept {
    w->stats.phases.add();
    w->phase_internal = (t->flags & task_flag_internal) != 0;
    if (now == 0) return;
    w->phase_start = now;
    // release: a reader that sees this phase open also sees the sums of the phases
    // before it (a sequence lock, see end_phase; a plain mov on x86). The low bit says
    // whether the phase is a runtime-internal task's.
    w->stats.open_phase.store(now << 1 | (w->phase_internal ? 1u : 0u), std::memory_order_release);
    if (const std::uint64_t q = t->queued_at; q != 0) {
        t->queued_at = 0;
        const std::uint64_t waited = now > q ? now - q : 0;  // another core's clock may lag a little
        if (resumed) {
            w->stats.wait_pending_ticks.add(waited);
            w->stats.wait_pending_samples.add();
        } else {
            w->stats.wait_staged_ticks.add(waited);
            w->stats.wait_staged_samples.add();
        }
    }
    if (w->tracing) {
        w->phase_task_id = t->id;
        w->phase_task_name = t->name;
        trace_add(w, trace_event::phase_begin, now, t->id, t->name, resumed ? 1u : 0u);
    }
}

// Closes the open phase; returns the tick it read (0 when timing is off).
std::uint64_t end_phase(worker* w, bool suspended) noexcept {
    if (suspended) w->stats.suspends.add();
    if (!w->timing) return 0;
    const std::uint64_t now = cycle_clock_now();
    const std::uint64_t spent = now > w->phase_start ? now - w->phase_start : 0;
    // Close the open phase before its time joins the sums: a reader that sees the new
    // sum (release here, acquire in read_all) then sees open_phase changed and reads
    // again, a sequence lock. Both stores are plain movs on x86.
    w->stats.open_phase.store(0, std::memory_order_relaxed);  // relaxed: published by the release below
    (w->phase_internal ? w->stats.internal_ticks : w->stats.exec_ticks).add_release(spent);
    if (w->tracing) trace_add(w, trace_event::phase_end, now, w->phase_task_id, w->phase_task_name, suspended ? 1u : 0u);
    return now;
}

std::uint64_t phase_clock(const worker* w) noexcept { return w->timing ? cycle_clock_now() : 0; }

// The loop goes straight from a finished task to `next`, the task it readied (bypass).
// The boundary between the two phases would read the clock once and use that tick as
// both the end of one and the start of the other, so Σt_exec, the only thing the
// counters take from phase times, is the same if the open phase simply runs on: a bypass
// chain of k tasks costs two clock reads instead of k + 1. The boundary is made a real
// one, with its read, only when something needs its tick: a trace, a task stamped for
// the queue-wait sample, or a change between application and runtime-internal work
// (their times are summed apart).
void continue_phase(worker* w, task* next) noexcept {
    const bool internal = (next->flags & task_flag_internal) != 0;
    if (w->timing && (w->tracing || next->queued_at != 0 || internal != w->phase_internal)) {
        begin_phase(w, next, false, end_phase(w, false));
        return;
    }
    w->stats.phases.add();
    w->phase_internal = internal;
}

// Runs a staged task on the current stack; it may suspend and come back on another worker.
void execute(task* t) noexcept {
    t->state.store(task_state::active, std::memory_order_relaxed);
    execute_taken(current_worker_hot(), t);
}

// Leaves the current stack for good and continues the suspended task `t`.
[[noreturn]] void switch_to_pending(worker* w, task* t) noexcept {
    context* abandoned = w->current_ctx;
    context* target = t->ctx;
    t->ctx = nullptr;
    t->flags = static_cast<std::uint8_t>(t->flags & ~task_flag_yielded);
    t->state.store(task_state::active, std::memory_order_relaxed);
    t->last_worker = w->index;
    w->stats.resumed_runs.add();
    begin_phase(w, t, true, phase_clock(w));
    target->suspended_task.store(nullptr, std::memory_order_relaxed);  // relaxed: the report reads only tasks that stay suspended
    w->set_current_ctx(target);
    w->current_task = t;
    before_switch(&abandoned->fiber, true, target->fiber);
    bctx::ontop_fcontext(target->fctx, abandoned, on_resume_landing);
    __builtin_unreachable();
}

void run_from_loop(worker* w, task* t) noexcept;
[[noreturn]] void switch_to_own_stack(worker* w, task* t, std::size_t bytes) noexcept;

void worker_loop() noexcept {
    for (;;) {
        worker* w = current_worker();
        scheduler* s = w->sched;
        const std::uint64_t stolen_before =
            w->tracing ? w->counters.stolen_to_staged.get() + w->counters.stolen_to_pending.get() : 0;
        task* t = s->next_task(w);
        if (t == nullptr && s->throttled(w)) {
            // Throttled: what it queued goes to the active workers (they steal it), and
            // it sleeps at once instead of spinning.
            s->wake_for_leftovers(w);
            t = s->park_until_work(w);
            if (t == nullptr) {
                if (s->stopping()) return;
                continue;
            }
        }
        if (t == nullptr) {
            if (w->idle_spins++ == 0) {
                w->idle_since = std::chrono::steady_clock::now();
                if (w->tracing && !w->idle_traced) {
                    w->idle_traced = true;
                    trace_add(w, trace_event::idle_begin, cycle_clock_now(), 0, nullptr, 0);
                }
            }
            if (w->idle_spins % spin_rounds_per_clock_check != 0 ||
                std::chrono::steady_clock::now() - w->idle_since < spin_before_park) {
                // With more workers than processing units, a spinning worker would keep
                // the one that was just woken off the CPU: give the CPU away instead.
                if (s->oversubscribed()) std::this_thread::yield();
                else cpu_relax();
                continue;
            }
            w->idle_spins = 0;
            t = s->park_until_work(w);
            if (t == nullptr) {
                if (s->stopping()) return;
                continue;
            }
        }
        w->idle_spins = 0;
        if (w->tracing) {
            const std::uint64_t now = cycle_clock_now();
            if (w->idle_traced) {
                w->idle_traced = false;
                trace_add(w, trace_event::idle_end, now, 0, nullptr, 0);
            }
            if (w->counters.stolen_to_staged.get() + w->counters.stolen_to_pending.get() != stolen_before)
                trace_add(w, trace_event::steal, now, t->id, t->name, w->last_victim);
        }
        if (t->ctx != nullptr) switch_to_pending(w, t);
        if (const std::size_t bytes = scheduler::own_stack_bytes(*t); bytes > w->current_ctx->stk.size)
            switch_to_own_stack(w, t, bytes);
        run_from_loop(w, t);
    }
}

// Runs the new task `t` from the loop, then the tasks it readies through the bypass slot.
void run_from_loop(worker* w, task* t) noexcept {
    w->loop_task = t;
    begin_phase(w, t, false, phase_clock(w));
    execute(t);
    // Scheduler bypass: run what the finished task readied as its last act.
    for (w = current_worker(); w->bypass != nullptr; w = current_worker()) {
        task* next = std::exchange(w->bypass, nullptr);
        continue_phase(w, next);
        w->loop_task = next;
        execute(next);
    }
    end_phase(w, false);
    w->loop_task = nullptr;
}

// Leaves the current stack for good and starts the new task `t` on a stack of its own
// (task_flag_own_stack); the worker then goes on with its loop on that stack.
[[noreturn]] void switch_to_own_stack(worker* w, task* t, std::size_t bytes) noexcept {
    context* target = nullptr;
    try {
        target = w->sched->own_stack_context(bytes);
    } catch (const std::exception& e) {
        std::fflush(stdout);
        std::fprintf(stderr, "weft: cannot map a %zu-byte stack for task %s: %s\n", bytes,
                     t->name != nullptr ? t->name : "(unnamed)", e.what());
        std::abort();
    }
    context* abandoned = w->current_ctx;
    w->own_stack_first = t;
    w->set_current_ctx(target);
    before_switch(&abandoned->fiber, true, target->fiber);
    bctx::ontop_fcontext(target->fctx, abandoned, on_resume_landing);
    __builtin_unreachable();
}

transfer_t on_exit_landing(transfer_t tr) noexcept {
    worker* w = current_worker();
    after_switch(w->thread_ctx.fiber);
    w->sched->recycle_context(w, static_cast<context*>(tr.data));
    return {nullptr, nullptr};
}

[[noreturn]] void leave_for_thread_stack() noexcept {
    worker* w = current_worker();
    context* here = w->current_ctx;
    w->set_current_ctx(nullptr);
    before_switch(&here->fiber, true, w->thread_ctx.fiber);
    bctx::ontop_fcontext(w->thread_ctx.fctx, here, on_exit_landing);
    __builtin_unreachable();
}

[[noreturn]] void context_entry(transfer_t) noexcept {
    worker_loop();
    leave_for_thread_stack();
}

[[noreturn]] void own_stack_entry(transfer_t) noexcept {
    worker* w = current_worker();
    run_from_loop(w, std::exchange(w->own_stack_first, nullptr));
    worker_loop();
    leave_for_thread_stack();
}

// ---------------------------------------------------------------------------------
// Faults in tasks: a SIGSEGV in the guard region of the running task's stack is a stack
// overflow and says so; any other SIGSEGV or SIGBUS inside a task names the task, then
// takes its usual course (the previous handler: a sanitizer's, or the default).

struct sigaction g_previous_segv {};
std::once_flag g_segv_once;

void write_str(const char* s) noexcept {
    const std::size_t n = std::strlen(s);
    [[maybe_unused]] auto r = ::write(STDERR_FILENO, s, n);
}

void write_u64(std::uint64_t v) noexcept {
    char buf[24];
    char* p = buf + sizeof buf;
    *--p = '\0';
    do {
        *--p = static_cast<char>('0' + v % 10);
        v /= 10;
    } while (v != 0);
    write_str(p);
}

void write_hex(std::uintptr_t v) noexcept {
    char buf[2 + 16 + 1];
    char* p = buf + sizeof buf;
    *--p = '\0';
    do {
        *--p = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v != 0);
    *--p = 'x';
    *--p = '0';
    write_str(p);
}

void write_task(const task* t) noexcept {
    if (t != nullptr && t->name != nullptr) {
        write_str("'");
        write_str(t->name);
        write_str("'");
    } else {
        write_str("#");
        write_u64(t != nullptr ? t->id : 0);
    }
}

// The stack pointer at the fault, or 0 where we do not know how to read it.
std::uintptr_t fault_stack_pointer(void* uctx) noexcept {
#if defined(__x86_64__)
    return static_cast<std::uintptr_t>(static_cast<const ucontext_t*>(uctx)->uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
    return static_cast<std::uintptr_t>(static_cast<const ucontext_t*>(uctx)->uc_mcontext.sp);
#else
    (void)uctx;
    return 0;
#endif
}

struct sigaction g_previous_bus {};

void fault_handler(int sig, siginfo_t* info, void* uctx) {
    worker* w = tl_worker;
    if (w != nullptr && w->current_ctx != nullptr) {
        const stack& stk = w->current_ctx->stk;
        const task* t = w->current_task;
        // An overflow: the fault is in the guard region (or just below it: a frame larger
        // than the region), or the stack pointer itself has left the stack downwards.
        const std::uintptr_t sp = fault_stack_pointer(uctx);
        const bool sp_below = sp != 0 && sp < reinterpret_cast<std::uintptr_t>(stk.bottom) &&
                              sp + stack_guard_size * 4 >= reinterpret_cast<std::uintptr_t>(stk.mapping);
        if (sig == SIGSEGV && (stk.guard_contains(info->si_addr, 64 * 1024) || sp_below)) {
            write_str("weft: stack overflow in task ");
            write_task(t);
            write_str(" (stack size ");
            write_u64(stk.size);
            write_str(t != nullptr && (t->flags & task_flag_own_stack) != 0
                          ? " bytes); raise its task_attributes::stack_size\n"
                          : " bytes); raise --weft:stack-size\n");
            std::abort();
        }
        if (t != nullptr) {
            // Not an overflow, but the user will want to know which task faulted.
            write_str(sig == SIGSEGV ? "weft: SIGSEGV (invalid memory access at " : "weft: SIGBUS (bus error at ");
            write_hex(reinterpret_cast<std::uintptr_t>(info->si_addr));
            write_str(") in task ");
            write_task(t);
            write_str("\n");
        }
    }
    // Hand the fault on to whoever handled it before us (a sanitizer, or the default).
    const struct sigaction& previous = sig == SIGSEGV ? g_previous_segv : g_previous_bus;
    if (previous.sa_flags & SA_SIGINFO) {
        if (previous.sa_sigaction != nullptr) {
            previous.sa_sigaction(sig, info, uctx);
            return;
        }
    } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        previous.sa_handler(sig);
        return;
    }
    ::signal(sig, SIG_DFL);  // the faulting instruction re-runs and the default action applies
}

void install_segv_handler() {
    std::call_once(g_segv_once, [] {
        struct sigaction sa {};
        sa.sa_sigaction = fault_handler;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        ::sigaction(SIGSEGV, &sa, &g_previous_segv);
        ::sigaction(SIGBUS, &sa, &g_previous_bus);
    });
}

}  // namespace

worker* current_worker() noexcept {
    // The empty asm keeps the compiler from treating this function as pure and from
    // reusing a TLS address computed before a context switch.
    asm volatile("" ::: "memory");
    return tl_worker;
}

worker_hot* current_worker_hot() noexcept {
    asm volatile("" ::: "memory");  // as in current_worker()
    return tl_worker;
}

void wake_for_spawn(worker_hot* w) noexcept {
    auto* self = static_cast<worker*>(w);
    self->sched->after_schedule(self, ext::placement{});
}

// ---------------------------------------------------------------------------------
// scheduler

scheduler::scheduler(scheduler_config cfg) : cfg_(std::move(cfg)) {
    static std::atomic<std::uint64_t> generations{0};
    generation_ = generations.fetch_add(1, std::memory_order_relaxed) + 1;  // relaxed: only unique
    policy_ = ext::make_scheduler_policy(cfg_.policy);
    if (!policy_) throw bad_option("weft: unknown scheduler policy '" + cfg_.policy + "'");
    if (cfg_.threads == 0) cfg_.threads = 1;
    if (cfg_.threads > policy_->max_workers())
        throw bad_option("weft: scheduler '" + cfg_.policy + "' supports at most " +
                         std::to_string(policy_->max_workers()) + " worker(s), not " +
                         std::to_string(cfg_.threads));
    cfg_.stack_size = round_stack_size(cfg_.stack_size);
    // Inline execution in get()/wait() needs this much stack left (else the child gets its own).
    inline_reserve_ = cfg_.stack_size / 4 + 4096;

    const topology& topo = cfg_.topo ? *cfg_.topo : topology::machine();
    std::vector<ext::worker_info> infos;
    // Cores per instance of the outermost cache that several of them share.
    unsigned cache_share = 1;
    for (const cache_info& c : topo.caches()) cache_share = std::max(cache_share, c.shared_by_cores);
    for (unsigned i = 0; i < cfg_.threads; ++i) {
        auto w = std::make_unique<worker>();
        w->sched = this;
        w->index = i;
        w->core = i % std::max(1u, topo.num_cores());
        w->numa_node = topo.cores().empty() ? 0 : topo.cores()[w->core].numa_node;
        w->rng = 0x9e3779b97f4a7c15ULL * (i + 1);
        w->worker_index = i;
        w->sleepers = &sleepers_;
        w->wake_fn = &scheduler::wake_from_policy;
        w->wake_arg = this;
        w->inline_reserve = inline_reserve_;
        w->timing = cfg_.timing || cfg_.tracing;
        w->tracing = cfg_.tracing;
        if (cfg_.tracing) w->trace.reserve(cfg_.trace_limit);
        ext::worker_info info{i, w->core, w->numa_node};
        if (!topo.cores().empty()) info.socket = topo.cores()[w->core].socket;
        info.cache = w->core / cache_share;
        infos.push_back(info);
        num_numa_domains_ = std::max(num_numa_domains_, w->numa_node + 1);
        workers_.push_back(std::move(w));
    }
    policy_->configure(cfg_.policy_options);
    policy_->attach(infos);
    active_limit_.store(static_cast<unsigned>(workers_.size()), std::memory_order_relaxed);  // relaxed: no worker runs yet
    for (auto& w : workers_) {
        w->spawn_queue = policy_->spawn_queue(w->index);
        if (w->spawn_queue != nullptr) continue;
        w->bounded_spawn = policy_->bounded_spawn(w->index);
        if (w->bounded_spawn != nullptr) continue;
        const ext::scheduler_policy::owner_spawn_path path = policy_->owner_spawn(w->index);
        if (path.deque == nullptr || path.gate == nullptr || path.open == nullptr) continue;
        w->owner_spawn = path.deque;
        w->owner_spawn_gate = path.gate;
        w->owner_spawn_open = path.open;
    }
    oversubscribed_ = cfg_.threads > std::max(1u, topo.num_pus());
}

scheduler::~scheduler() {
    if (started_) stop();
    std::lock_guard lock(contexts_mutex_);
    while (contexts_head_ != nullptr) {
        context* c = contexts_head_;
        contexts_head_ = c->registry_next;
        c->fiber.release();
        deallocate_stack(c->stk);
        delete c;
    }
}

scheduler* scheduler::active() noexcept { return g_active.load(std::memory_order_acquire); }

void scheduler::start() {
    scheduler* expected = nullptr;
    if (!g_active.compare_exchange_strong(expected, this))
        throw runtime_state_error("weft: a runtime is already running in this process; "
                                  "stop it before starting another");
    install_segv_handler();
    static std::once_flag atfork_once;
    std::call_once(atfork_once, [] {
        ::pthread_atfork(nullptr, nullptr, [] {
            // The child has one thread, the one that forked: the workers are gone. Close
            // the entry and forget the runtime (its memory is the parent's business), so
            // that spawning here throws instead of queueing work nobody will run.
            g_entry.store(entry_closed | entry_gone);
            g_active.store(nullptr);
            g_forked_child.store(true);
            tl_worker = nullptr;
        });
    });
    cycle_clock_ns_per_tick();  // starts the tick-to-ns calibration
    start_ticks_ = cycle_clock_now();
    started_ = true;
    // A thread the system refuses (ulimit -v, too many threads) is not an option error:
    // stop the threads that did start (they find nothing to run), then say which failed.
    try {
        timer_thread_ = std::thread([this] { timer_main(); });
    } catch (const std::system_error& e) {
        stop();
        throw weft::error(std::string("weft: cannot start the timer thread: ") + e.what());
    }
    for (std::size_t i = 0; i < workers_.size(); ++i) {
        worker* wp = workers_[i].get();
        try {
            wp->thread = std::thread([this, wp] { worker_main(wp); });
        } catch (const std::system_error& e) {
            stop();
            throw weft::error("weft: cannot start worker thread " + std::to_string(i + 1) + " of " +
                              std::to_string(workers_.size()) + ": " + e.what());
        }
    }
    // Every worker's thread id is known once start() returns (hardware counters open
    // per thread). acquire: pairs with the release store in worker_main.
    for (auto& w : workers_)
        while (w->os_thread_id.load(std::memory_order_acquire) == 0) std::this_thread::yield();
    g_entry.fetch_and(~(entry_closed | entry_gone));  // threads outside the runtime may now spawn
}

void scheduler::worker_main(worker* w) {
    tl_worker = w;
    if (cfg_.bind) {
        const std::string why = (cfg_.topo ? *cfg_.topo : topology::machine()).bind_this_thread_to_core(w->core);
        if (!why.empty() && w->index == 0)
            std::fprintf(stderr, "weft: warning: cannot bind workers to cores (%s); running unbound\n",
                         why.c_str());
    }
    // An alternate signal stack, so a stack overflow can still be reported.
    w->signal_stack = allocate_stack(64 * 1024);
    stack_t ss{};
    ss.ss_sp = w->signal_stack.bottom;
    ss.ss_size = w->signal_stack.size;
    stack_t old_ss{};
    ::sigaltstack(&ss, &old_ss);

    w->os_thread_id.store(static_cast<int>(::gettid()), std::memory_order_release);  // see start()
    w->thread_ctx.fiber.init_for_current_thread();
    // relaxed (both): read by the counters as statistics.
    w->stats.loop_start.store(cycle_clock_now(), std::memory_order_relaxed);
    context* first = fresh_context(w);
    w->set_current_ctx(first);
    before_switch(&w->thread_ctx.fiber, false, first->fiber);
    bctx::ontop_fcontext(first->fctx, nullptr, on_first_landing);
    // Back on the thread's own stack: the loop saw stopping() with nothing left to run.
    if (w->tracing && w->idle_traced) trace_add(w, trace_event::idle_end, cycle_clock_now(), 0, nullptr, 0);
    w->stats.loop_end.store(cycle_clock_now(), std::memory_order_relaxed);

    for (context* c : w->ctx_cache) release_context(c);
    w->ctx_cache.clear();
    release_worker_blocks(w);
    ::sigaltstack(&old_ss, nullptr);
    deallocate_stack(w->signal_stack);
    tl_worker = nullptr;
}

context* scheduler::fresh_context(worker* w) {
    context* c = nullptr;
    if (!w->ctx_cache.empty()) {
        c = w->ctx_cache.back();
        w->ctx_cache.pop_back();
        // relaxed: a statistic for the counters.
        w->stats.cached_contexts.store(w->ctx_cache.size(), std::memory_order_relaxed);
        // Under TSan a recycled stack gets a new fiber handle now and then: TSan's
        // per-fiber history grows with every switch, and one handle reused for ~10^5 task
        // lives crashes it; a new handle per life costs a system call each. Without TSan
        // the fiber identity only holds the stack bounds, which do not change.
        if (WEFT_HAVE_TSAN && ++c->lives % 1024 == 0) {
            c->fiber.release();
            c->fiber.init_for_stack(c->stk);
        }
    } else {
        c = new_context(cfg_.stack_size);
    }
    c->fiber.asan_fake_stack = nullptr;
    c->fiber.clear_stale_poison();
    c->fctx = bctx::make_fcontext(c->stk.top(), c->stk.size, context_entry);
    return c;
}

context* scheduler::own_stack_context(std::size_t bytes) {
    context* c = new_context(bytes);
    c->fctx = bctx::make_fcontext(c->stk.top(), c->stk.size, own_stack_entry);
    return c;
}

context* scheduler::new_context(std::size_t bytes) {
    auto c = std::make_unique<context>();
    c->stk = allocate_stack(bytes);
    c->fiber.init_for_stack(c->stk);
    std::lock_guard lock(contexts_mutex_);
    c->registry_next = contexts_head_;
    if (contexts_head_ != nullptr) contexts_head_->registry_prev = c.get();
    contexts_head_ = c.get();
    ++contexts_count_;
    contexts_bytes_ += c->stk.size;
    return c.release();
}

void scheduler::recycle_context(worker* w, context* c) noexcept {
    constexpr std::size_t keep = 64;
    // A task's own (larger) stack is unmapped at once: it was sized for that task.
    if (c->stk.size == cfg_.stack_size && w->ctx_cache.size() < keep) {
        try {
            w->ctx_cache.push_back(c);
            w->stats.cached_contexts.store(w->ctx_cache.size(), std::memory_order_relaxed);  // relaxed: as above
            return;
        } catch (...) {
        }
    }
    release_context(c);
}

void scheduler::release_context(context* c) noexcept {
    {
        std::lock_guard lock(contexts_mutex_);
        if (c->registry_prev != nullptr) c->registry_prev->registry_next = c->registry_next;
        else contexts_head_ = c->registry_next;
        if (c->registry_next != nullptr) c->registry_next->registry_prev = c->registry_prev;
        --contexts_count_;
        contexts_bytes_ -= c->stk.size;
    }
    c->fiber.release();
    deallocate_stack(c->stk);
    delete c;
}

std::size_t scheduler::contexts_allocated() const {
    std::lock_guard lock(contexts_mutex_);
    return contexts_count_;
}

std::size_t scheduler::context_stack_bytes() const {
    std::lock_guard lock(contexts_mutex_);
    return contexts_bytes_;
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
        t->id = (++self->spawn_seq << 12) | ((self->index + 1) & 0xfff);
        if ((self->spawn_seq & (wait_sample_period - 1)) == 0 && self->timing) t->queued_at = cycle_clock_now();
        // release: see execute(); the count is published before the task is.
        self->spawned.store(self->spawned.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    } else {
        t->id = (g_external_task_seq.fetch_add(1, std::memory_order_relaxed) + 1) << 12;  // relaxed: only unique; never 0 (0 = no task)
        if (cfg_.timing || cfg_.tracing) t->queued_at = cycle_clock_now();
        external_spawned_.fetch_add(1, std::memory_order_seq_cst);
    }
    t->state.store(task_state::staged, std::memory_order_relaxed);
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
    const char probe = 0;
    self->may_run_inline = self->current_ctx != nullptr && &probe >= self->inline_floor &&
                           (t->flags & task_flag_own_stack) == 0 && t->priority == task_priority::normal;
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

task* scheduler::next_task(worker* w) noexcept {
    // Pinned tasks first (nobody else may run them), then the policy's, then pinned
    // tasks that yielded (a task yielding in a loop must not starve the worker).
    if (w->pinned.empty() && !w->pinned_inbox.empty()) {
        for (task* t = w->pinned_inbox.take_all(); t != nullptr;) {
            task* next = t->next;
            ((t->flags & task_flag_yielded) != 0 ? w->pinned_yielded : w->pinned).push(t);
            t = next;
        }
    }
    if (task* t = w->pinned.pop()) return t;
    if (task* t = policy_->next_task(*w)) return t;
    return w->pinned_yielded.pop();
}

void scheduler::resume(worker* self, task* t) noexcept {
    t->state.store(task_state::pending, std::memory_order_relaxed);
    if (cfg_.timing || cfg_.tracing) t->queued_at = cycle_clock_now();
    if (self != nullptr) self->stats.resumes.add();
    else external_resumes_.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
    ext::placement p;
    try {
        p = (t->flags & task_flag_pinned) != 0 ? place_pinned(*t) : policy_->schedule(self, *t);
    } catch (...) {
        std::fprintf(stderr, "weft: the scheduler policy failed to requeue a resumed task\n");
        std::terminate();
    }
    after_schedule(self, p);
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
    else if (sleepers_.load(std::memory_order_relaxed) != 0) wake_one(0);
}

void scheduler::wake(worker* w) noexcept {
    // relaxed: a cheap filter (the caller's fence orders it), so that a push to a busy
    // worker writes nothing to its line; the CAS decides.
    if (w->park.load(std::memory_order_relaxed) != 1) return;
    std::uint32_t parked = 1;
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
            if (w->park.compare_exchange_strong(parked, 2, std::memory_order_acq_rel)) {
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
    if (t == nullptr && !stopping_.load(std::memory_order_acquire)) {
        notify_idle_watchers();
        // acquire: pairs with the acq_rel CAS of the waker.
        while (w->park.load(std::memory_order_acquire) == 1) w->park.wait(1, std::memory_order_acquire);
    }
    w->park.store(0, std::memory_order_relaxed);
    sleepers_.fetch_sub(1, std::memory_order_relaxed);
    return t;
}

void scheduler::notify_idle_watchers() noexcept {
    if (idle_watchers_.load(std::memory_order_acquire) == 0) return;
    {
        std::lock_guard lock(idle_mutex_);
        ++idle_epoch_;
    }
    idle_cv_.notify_all();
}

bool scheduler::quiescent() const noexcept {
    // Finished counts first, spawned counts second (all acquire): every finish we see
    // happens after its spawn and after the spawns the task made, so finished == spawned
    // means that, at the moment between the two passes, no task existed.
    std::uint64_t finished = 0;
    for (const auto& w : workers_) finished += w->finished.load(std::memory_order_acquire);
    std::uint64_t spawned = external_spawned_.load(std::memory_order_acquire);
    for (const auto& w : workers_) spawned += w->spawned.load(std::memory_order_acquire);
    return finished == spawned;
}

std::vector<std::uint64_t> scheduler::finished_per_worker() const {
    std::vector<std::uint64_t> v;
    for (const auto& w : workers_) v.push_back(w->finished.load(std::memory_order_acquire));
    return v;
}

namespace {
[[noreturn]] void throw_called_from_task(const char* what) {
    throw runtime_state_error(std::string("weft: ") + what +
                              " was called from inside a task: it waits for every task, its caller included, "
                              "so it would never return; call it from the thread that owns the weft::runtime");
}
}  // namespace

void scheduler::close_entry() {
    if (tl_worker != nullptr) throw_called_from_task("weft::runtime::stop()");
    close_entry_bits(entry_closed);
}

void scheduler::wait_for_quiescence() {
    if (tl_worker != nullptr) throw_called_from_task("weft::runtime::wait()");
    idle_watchers_.fetch_add(1, std::memory_order_acq_rel);
    while (!quiescent()) {
        std::unique_lock lock(idle_mutex_);
        const std::uint64_t epoch = idle_epoch_;
        idle_cv_.wait_for(lock, std::chrono::milliseconds(50), [&] { return idle_epoch_ != epoch; });
    }
    idle_watchers_.fetch_sub(1, std::memory_order_acq_rel);
}

std::uint64_t scheduler::phases_run() const noexcept {
    std::uint64_t n = external_spawned_.load(std::memory_order_acquire);
    for (const auto& w : workers_) n += w->stats.phases.get() + w->spawned.load(std::memory_order_acquire);
    return n;
}

void scheduler::check_deadlock(bool timers_pending, std::chrono::steady_clock::time_point now) {
    // Stuck: every worker parked, no timer that could wake a task, tasks left, and no
    // phase run (nor task spawned) since the last look. A thread outside weft may still
    // complete what they wait on, so the state must last for the deadlock timeout.
    const std::uint64_t phases = phases_run();
    const bool stuck = sleepers_.load(std::memory_order_acquire) == workers_.size() && !timers_pending &&
                       !quiescent() && phases == wd_phases_;
    wd_phases_ = phases;
    if (!stuck) {
        if (wd_reported_) {
            std::fprintf(stderr, "weft: the tasks reported above as deadlocked are running again\n");
            std::fflush(stderr);
        }
        wd_stuck_ = false;
        wd_reported_ = false;
        return;
    }
    if (!wd_stuck_) {
        wd_stuck_ = true;
        wd_since_ = now;
        return;
    }
    if (wd_reported_ || now - wd_since_ < cfg_.deadlock_timeout) return;
    wd_reported_ = true;
    const bool certain = report_deadlock();
    using action = scheduler_config::deadlock_action;
    if (cfg_.on_deadlock == action::exit || (certain && cfg_.on_deadlock == action::exit_if_certain)) {
        std::fprintf(stderr, "weft: exiting with code 3 (--weft:on-deadlock=%s)\n",
                     cfg_.on_deadlock == action::exit ? "exit" : "auto, and the deadlock is certain");
        std::fflush(stderr);
        std::_Exit(3);
    }
    std::fprintf(stderr,
                 "weft: still waiting: a thread outside weft may yet complete what they wait on "
                 "(--weft:on-deadlock=exit exits with code 3 instead; --weft:deadlock-timeout=0 silences this)\n");
    std::fflush(stderr);
}

namespace {
struct stuck_task {
    std::uint64_t id;
    const char* name;
    wait_reason why;
};

std::string describe_task(std::uint64_t id, const char* name) {
    char buf[96];
    if (name != nullptr) std::snprintf(buf, sizeof buf, "task '%.60s' (id %llu)", name, static_cast<unsigned long long>(id));
    else std::snprintf(buf, sizeof buf, "task #%llu", static_cast<unsigned long long>(id));
    return buf;
}

bool is_mutex_kind(wait_kind k) noexcept {
    return k == wait_kind::mutex || k == wait_kind::recursive_mutex || k == wait_kind::shared_mutex;
}

// A wait only a task can end: a mutex with a task owner (only its owner may unlock it),
// or a future a task will set.
bool waits_on_a_task(const wait_reason& w) noexcept {
    return w.holder != 0 && w.holder != holder_outside_thread && (is_mutex_kind(w.kind) || w.kind == wait_kind::future);
}
}  // namespace

bool scheduler::report_deadlock() {
    std::vector<stuck_task> stuck;
    {
        std::lock_guard lock(contexts_mutex_);
        for (context* c = contexts_head_; c != nullptr; c = c->registry_next) {
            // acquire: pairs with the release in suspend(); the fields are that task's.
            if (c->suspended_task.load(std::memory_order_acquire) != nullptr)
                stuck.push_back({c->suspended_id, c->suspended_name, c->waiting});
        }
    }
    std::sort(stuck.begin(), stuck.end(), [](const stuck_task& a, const stuck_task& b) { return a.id < b.id; });
    const auto find = [&](std::uint64_t id) -> const stuck_task* {
        auto it = std::lower_bound(stuck.begin(), stuck.end(), id,
                                   [](const stuck_task& a, std::uint64_t v) { return a.id < v; });
        return it != stuck.end() && it->id == id ? &*it : nullptr;
    };
    // Certain: following "waits on a task" from some task ends in a cycle, or at a mutex
    // whose owning task has finished (every live task is suspended here, so a holder
    // not in the list has finished). Any other wait could be ended by an outside thread.
    std::vector<std::uint64_t> certain_ids;
    for (const stuck_task& s : stuck) {
        const stuck_task* cur = &s;
        std::vector<std::uint64_t> path;
        for (;;) {
            if (!waits_on_a_task(cur->why)) break;
            path.push_back(cur->id);
            const stuck_task* next = find(cur->why.holder);
            if (next == nullptr) {
                if (is_mutex_kind(cur->why.kind)) certain_ids.push_back(s.id);
                break;
            }
            if (std::find(path.begin(), path.end(), next->id) != path.end()) {
                certain_ids.push_back(s.id);
                break;
            }
            cur = next;
        }
    }
    const bool certain = !certain_ids.empty();
    std::fflush(stdout);
    std::fprintf(stderr,
                 "weft: %s: every worker has been idle for %lld ms with no timer pending, and %zu task(s) wait on "
                 "something %s:\n",
                 certain ? "deadlock" : "possible deadlock", static_cast<long long>(cfg_.deadlock_timeout.count()),
                 stuck.size(), certain ? "that no task and no thread can complete" : "that no task can complete");
    std::size_t shown = 0;
    for (const stuck_task& s : stuck) {
        if (++shown > 20) {
            std::fprintf(stderr, "  ... and %zu more\n", stuck.size() - 20);
            break;
        }
        std::string line = "  " + describe_task(s.id, s.name) + " waits on ";
        const wait_kind k = s.why.kind;
        line += k == wait_kind::unknown ? std::string("something weft cannot name")
                                        : std::string(k == wait_kind::event ? "an " : "a ") + wait_kind_name(k);
        if (s.why.object != nullptr) {
            char addr[32];
            std::snprintf(addr, sizeof addr, " (%p)", s.why.object);
            line += addr;
        }
        if (s.why.holder == holder_outside_thread) {
            line += ", held by a thread outside weft";
        } else if (s.why.holder != 0) {
            const stuck_task* h = find(s.why.holder);
            const std::string who = h != nullptr ? describe_task(h->id, h->name) : describe_task(s.why.holder, nullptr);
            if (k == wait_kind::future) line += ", to be set by " + (h == &s ? std::string("itself") : who);
            else line += ", held by " + (h == &s ? std::string("itself") : who) + (h == nullptr ? ", which has finished" : "");
        }
        if (std::find(certain_ids.begin(), certain_ids.end(), s.id) != certain_ids.end()) line += " [certain]";
        std::fprintf(stderr, "%s\n", line.c_str());
    }
    std::fflush(stderr);
    return certain;
}

void scheduler::stop() {
    if (!started_) return;
    if (tl_worker != nullptr) throw_called_from_task("weft::runtime::stop()");
    // No new task from outside from here on, and none accepted is lost: wait for those
    // that got in and everything they spawn. Then nobody outside may touch the workers.
    close_entry();
    wait_for_quiescence();
    close_entry_bits(entry_gone);
    stopping_.store(true, std::memory_order_seq_cst);
    for (auto& w : workers_) {
        w->park.store(2, std::memory_order_release);
        w->park.notify_one();
    }
    for (auto& w : workers_)
        if (w->thread.joinable()) w->thread.join();
    {
        std::lock_guard lock(timer_mutex_);
        timer_stop_ = true;
    }
    timer_cv_.notify_all();
    if (timer_thread_.joinable()) timer_thread_.join();
    started_ = false;
    g_active.store(nullptr, std::memory_order_release);
}

void scheduler::add_timer(std::chrono::steady_clock::time_point when, void (*fn)(void*) noexcept, void* arg) {
    {
        std::lock_guard lock(timer_mutex_);
        timers_.push_back({when, fn, arg});
        std::push_heap(timers_.begin(), timers_.end(), [](const auto& a, const auto& b) { return a.when > b.when; });
    }
    timer_cv_.notify_one();
}

void scheduler::timer_main() {
    using clock = std::chrono::steady_clock;
    const auto later = [](const auto& a, const auto& b) { return a.when > b.when; };
    // The deadlock watchdog looks a few times per timeout (at most every 200 ms).
    const bool watch = cfg_.deadlock_timeout.count() > 0;
    const auto period = std::clamp<clock::duration>(cfg_.deadlock_timeout / 5, std::chrono::milliseconds(10),
                                                    std::chrono::milliseconds(200));
    auto next_check = clock::now() + period;
    std::unique_lock lock(timer_mutex_);
    while (!timer_stop_) {
        const auto now = clock::now();
        if (!timers_.empty() && timers_.front().when <= now) {
            std::pop_heap(timers_.begin(), timers_.end(), later);
            const timer_entry e = timers_.back();
            timers_.pop_back();
            lock.unlock();
            e.fn(e.arg);
            lock.lock();
            continue;
        }
        if (watch && now >= next_check) {
            const bool timers_pending = !timers_.empty();
            lock.unlock();
            check_deadlock(timers_pending, now);
            lock.lock();
            next_check = now + period;
            continue;
        }
        auto until = watch ? next_check : clock::time_point::max();
        if (!timers_.empty()) until = std::min(until, timers_.front().when);
        if (until == clock::time_point::max()) timer_cv_.wait(lock);
        else timer_cv_.wait_until(lock, until);
    }
}

// ---------------------------------------------------------------------------------
// The functions header-only code calls (sched/detail/core.hpp).

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
    if (w == nullptr || w->current_ctx == nullptr) return false;
    const char probe = 0;
    if (&probe < w->inline_floor) return false;
    if (!try_take_back_fast(w, t)) {
        if (!w->sched->policy().take_back(*w, *t)) return false;
        if (scheduler::own_stack_bytes(*t) > w->current_ctx->stk.size) {
            // It needs a bigger stack than this one: back to the queues, where the loop
            // starts it on a stack of its own.
            w->sched->requeue(w, t);
            return false;
        }
        if (t->ctx != nullptr) {
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

task* current_task() noexcept {
    worker* w = current_worker();
    return w != nullptr ? w->current_task : nullptr;
}

void suspend(suspend_callback cb, void* arg, const wait_reason& why) {
    worker* w = current_worker();
    if (w == nullptr || w->current_task == nullptr)
        throw runtime_state_error("weft: only a weft task can suspend");
    task* t = w->current_task;
    context* next = nullptr;
    try {
        next = w->sched->fresh_context(w);
    } catch (const std::exception& e) {
        // A waiter that cannot suspend cannot wait correctly (its task_group or future
        // would be left half-waited): stop with the reason instead.
        std::fflush(stdout);
        std::fprintf(stderr, "weft: task %s cannot suspend: %s\n", t->name != nullptr ? t->name : "(unnamed)", e.what());
        std::abort();
    }
    context* here = w->current_ctx;
    end_phase(w, true);
    t->ctx = here;
    t->state.store(task_state::suspended, std::memory_order_relaxed);
    here->suspended_id = t->id;
    here->suspended_name = t->name;
    here->waiting = why;
    here->suspended_task.store(t, std::memory_order_release);  // release: see context
    w->set_current_ctx(next);
    w->current_task = nullptr;
    suspend_record rec{t, here, cb, arg};
    // The C++ runtime keeps the exceptions being thrown and caught per OS thread. A task
    // that suspends inside a catch block or while unwinding (a task_group's destructor,
    // say) may resume on another thread: its exception state must travel with it, and
    // this worker must go on with a clean one.
    eh_globals* const before = current_eh_globals();
    const eh_globals saved = *before;
    *before = eh_globals{};
    before_switch(&here->fiber, false, next->fiber);
    bctx::ontop_fcontext(next->fctx, &rec, on_suspend_landing);
    // Resumed, possibly on another worker: switch_to_pending set that worker's state.
    *current_eh_globals() = saved;
}

void call_at(std::chrono::steady_clock::time_point when, void (*fn)(void*) noexcept, void* arg) {
    if (worker* w = current_worker()) {
        w->sched->add_timer(when, fn, arg);
        return;
    }
    const outside_entry entry(false);
    if (entry.sched == nullptr) throw_no_runtime("cannot arm a timer");
    entry.sched->add_timer(when, fn, arg);
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

const char* wait_kind_name(wait_kind k) noexcept {
    switch (k) {
        case wait_kind::unknown: return "unknown object";
        case wait_kind::future: return "future";
        case wait_kind::task_group: return "task_group (its children)";
        case wait_kind::task_queue: return "task_queue (its tasks)";
        case wait_kind::mutex: return "mutex";
        case wait_kind::recursive_mutex: return "recursive_mutex";
        case wait_kind::shared_mutex: return "shared_mutex";
        case wait_kind::condition_variable: return "condition_variable";
        case wait_kind::counting_semaphore: return "counting_semaphore";
        case wait_kind::latch: return "latch";
        case wait_kind::barrier: return "barrier";
        case wait_kind::event: return "event";
        case wait_kind::channel: return "channel";
        case wait_kind::once_flag: return "once_flag";
    }
    return "unknown object";
}

std::uint64_t current_holder_id() noexcept {
    const task* t = current_task();
    return t != nullptr ? t->id : holder_outside_thread;
}

void count_internal_task_finished() noexcept {
    // release: published before the loop's `finished` store (see read_all).
    if (worker* w = current_worker()) w->stats.internal_tasks.add_release(1);
}

namespace {
// "type: what" of the exception being handled, for messages.
std::string describe_current_exception() {
    const std::type_info* type = abi::__cxa_current_exception_type();
    int status = 0;
    char* demangled = type != nullptr ? abi::__cxa_demangle(type->name(), nullptr, nullptr, &status) : nullptr;
    std::string text = demangled != nullptr ? demangled : (type != nullptr ? type->name() : "unknown exception");
    std::free(demangled);
    try {
        throw;
    } catch (const std::exception& e) {
        text += std::string(": ") + e.what();
    } catch (...) {
    }
    return text;
}
}  // namespace

[[noreturn]] void terminate_on_unhandled_exception(const task* t) noexcept {
    char name[64];
    if (t != nullptr && t->name != nullptr) std::snprintf(name, sizeof name, "'%s'", t->name);
    else std::snprintf(name, sizeof name, "#%llu", static_cast<unsigned long long>(t ? t->id : 0));
    std::string what;
    try {
        what = describe_current_exception();
    } catch (...) {
        what = "(could not describe it)";
    }
    std::fflush(stdout);
    std::fprintf(stderr, "weft: unhandled exception in task %s: %s\n", name, what.c_str());
    std::abort();
}

void report_discarded_exception(const char* why) noexcept {
    try {
        const std::string what = describe_current_exception();
        std::fprintf(stderr, "weft: %s; discarded: %s\n", why, what.c_str());
    } catch (...) {
        std::fprintf(stderr, "weft: %s; discarded an exception\n", why);
    }
}

}  // namespace weft::detail
