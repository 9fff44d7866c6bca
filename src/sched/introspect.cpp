// What the scheduler exports to the layers above it (include/weft/sched/detail/introspect.hpp):
// the owning handle, the samples the counters read, the trace, throttling.
#include <weft/sched/detail/introspect.hpp>

#include "phases.hpp"
#include "scheduler.hpp"

#include <utility>

namespace weft::detail {

// ---------------------------------------------------------------------------------
// Lifecycle.

scheduler_handle::scheduler_handle(scheduler_config cfg) : s_(new scheduler(std::move(cfg))) {}

scheduler_handle::scheduler_handle(scheduler_handle&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}

scheduler_handle& scheduler_handle::operator=(scheduler_handle&& o) noexcept {
    if (this != &o) {
        reset();
        s_ = std::exchange(o.s_, nullptr);
    }
    return *this;
}

scheduler_handle::~scheduler_handle() { reset(); }

void scheduler_handle::reset() noexcept { delete std::exchange(s_, nullptr); }

void scheduler_handle::start() { s_->start(); }
void scheduler_handle::wait_for_quiescence() { s_->wait_for_quiescence(); }
void scheduler_handle::close_entry() { s_->close_entry(); }
void scheduler_handle::stop() { s_->stop(); }
unsigned scheduler_handle::num_workers() const noexcept { return s_->num_workers(); }
std::size_t scheduler_handle::stack_size() const noexcept { return s_->stack_size(); }
std::vector<std::uint64_t> scheduler_handle::finished_per_worker() const { return s_->finished_per_worker(); }

scheduler* active_scheduler() noexcept { return scheduler::active(); }

// ---------------------------------------------------------------------------------
// Reading the counts.

scheduler_info read_info(const scheduler& s) noexcept {
    scheduler_info i;
    i.num_workers = s.num_workers();
    i.generation = s.generation();
    i.start_ticks = s.start_ticks();
    i.policy_name = s.policy_name();
    i.timing = s.config().timing;
    i.tracing = s.config().tracing;
    i.trace_limit = s.config().trace_limit;
    return i;
}

scheduler_sample read_sample(const scheduler& s, std::uint64_t now) {
    scheduler_sample r;
    const unsigned n = s.num_workers();
    r.workers.resize(n);
    const ext::scheduler_policy& policy = s.policy();
    // Outflows before inflows (finished before started before spawned...), so that a
    // task moving between states while we read is never counted as missing.
    for (unsigned i = 0; i < n; ++i) {
        const auto& w = s.worker_at(i);
        worker_sample& x = r.workers[i];
        const auto& st = w.stats;
        // acquire: an internal task counts itself before its finish is published, so
        // the internal count read after this covers every finish seen here.
        x.finished = w.finished.load(std::memory_order_acquire);
        // relaxed (the rest, unless said): statistics, see owner_counter.
        x.suspends = st.suspends.get();
        x.internal_tasks = st.internal_tasks.get_acquire();  // acquire: see finished above
        read_phase_ticks(st, now, x);
        x.phases = st.phases.get();
        x.loop_start = st.loop_start.load(std::memory_order_relaxed);  // relaxed: a statistic
        x.loop_end = st.loop_end.load(std::memory_order_relaxed);      // relaxed: a statistic
        x.pending_accesses = w.counters.pending_accesses.get();
        x.pending_misses = w.counters.pending_misses.get();
        x.wait_staged_ticks = st.wait_staged_ticks.get();
        x.wait_staged_samples = st.wait_staged_samples.get();
        x.wait_pending_ticks = st.wait_pending_ticks.get();
        x.wait_pending_samples = st.wait_pending_samples.get();
        x.stolen_to_staged = w.counters.stolen_to_staged.get();
        x.stolen_to_pending = w.counters.stolen_to_pending.get();
        const auto q = policy.queue_state_of(i);
        x.stolen_from_staged = q.stolen_from_staged;
        x.stolen_from_pending = q.stolen_from_pending;
        x.queue_length = q.length;
        x.cached_contexts = w.ctx_cache.size();  // approximate: a statistic
    }
    for (unsigned i = 0; i < n; ++i) r.workers[i].resumed_runs = s.worker_at(i).stats.resumed_runs.get();
    for (unsigned i = 0; i < n; ++i) r.workers[i].handoffs_received = s.worker_at(i).stats.handoffs_received.get();
    for (unsigned i = 0; i < n; ++i)
        r.workers[i].started = s.worker_at(i).started.load(std::memory_order_relaxed);  // relaxed: a statistic
    r.external_resumes = s.external_resumes();
    for (unsigned i = 0; i < n; ++i) r.workers[i].resumes = s.worker_at(i).stats.resumes.get();
    r.external_spawned = s.external_spawned();
    for (unsigned i = 0; i < n; ++i)
        r.workers[i].spawned = s.worker_at(i).spawned.load(std::memory_order_relaxed);  // relaxed: a statistic
    r.shared_queue_length = policy.shared_queue_length();
    r.contexts_allocated = s.contexts_allocated();
    r.context_stack_bytes = s.context_stack_bytes();
    const context_pool& pool = s.contexts();
    r.contexts_pooled = pool.pooled();
    r.stacks_mapped = pool.mapped_total();
    r.stacks_unmapped = pool.unmapped_total();
    r.stacks_trimmed = pool.trimmed_total();
    return r;
}

int worker_os_thread_id(const scheduler& s, unsigned w) noexcept {
    return s.worker_at(w).os_thread_id.load(std::memory_order_acquire);  // acquire: pairs with the release in worker_main
}

std::span<const trace_event> worker_trace(const scheduler& s, unsigned w) noexcept { return s.worker_at(w).trace; }

std::uint64_t worker_trace_dropped(const scheduler& s, unsigned w) noexcept { return s.worker_at(w).trace_dropped; }

// ---------------------------------------------------------------------------------
// Throttling.

void set_active_workers(scheduler& s, unsigned n) { s.set_active_workers(n); }

unsigned active_workers(const scheduler& s) noexcept { return s.active_workers(); }

}  // namespace weft::detail
