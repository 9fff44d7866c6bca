// The scheduler of one running runtime: its workers and policy, start and stop.
#include "entry.hpp"
#include "scheduler.hpp"

#include <weft/config/errors.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

namespace weft::detail {
namespace {

// What the fault handler asks (threads/detail/context.hpp): async-signal-safe, it only
// reads this thread's worker.
void probe_running_task(const stack** stk, const task** t) noexcept {
    const worker* w = tl_worker;
    if (w == nullptr || w->current_ctx == nullptr) return;
    *stk = &w->current_ctx->stk;
    *t = w->current_task;
}

}  // namespace

scheduler::scheduler(scheduler_config cfg) : cfg_(std::move(cfg)), contexts_(round_stack_size(cfg_.stack_size)) {
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
        w->spawn = policy_->spawn_path_of(w->index);
        using kind = ext::spawn_path::kind;
        const ext::spawn_path& p = w->spawn;
        // A path without its queue (or an owner path without its gate) is no path; its
        // share hook stays (kind::none with a hook is how xqueue's round-robin variants
        // make what the bypass or a late hand-off leaves them reachable).
        if (p.queue == nullptr || (p.how == kind::owner && (p.gate == nullptr || p.open == nullptr))) {
            ext::spawn_path only_share;
            only_share.share = p.share;
            only_share.share_arg = p.share_arg;
            w->spawn = only_share;
        }
    }
    oversubscribed_ = cfg_.threads > std::max(1u, topo.num_pus());
}

scheduler::~scheduler() {
    if (started_) stop();
}

// acquire: pairs with start()'s exchange, so the scheduler it names is fully built.
scheduler* scheduler::active() noexcept { return g_active.load(std::memory_order_acquire); }

void scheduler::start() {
    scheduler* expected = nullptr;
    if (!g_active.compare_exchange_strong(expected, this))
        throw runtime_state_error("weft: a runtime is already running in this process; "
                                  "stop it before starting another");
    install_fault_handler(&probe_running_task);
    forget_runtime_in_forked_children();
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
        while (w->os_thread_id.load(std::memory_order_acquire) == 0) std::this_thread::yield();  // acquire: as said
    open_entry();  // threads outside the runtime may now spawn
}


std::size_t scheduler::contexts_allocated() const { return contexts_.count(); }

std::size_t scheduler::context_stack_bytes() const { return contexts_.stack_bytes(); }


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
        w->park.store(2, std::memory_order_release);  // release: publishes stopping_ (already seq_cst) to the woken
        park_notify(w->park);
    }
    for (auto& w : workers_)
        if (w->thread.joinable()) w->thread.join();
    {
        std::lock_guard lock(timer_mutex_);
        timer_stop_ = true;
    }
    timer_cv_.notify_all();
    if (timer_thread_.joinable()) timer_thread_.join();
    // The workers drained their caches into the pool: every stack not in use goes now.
    contexts_.release_pooled();
    started_ = false;
    g_active.store(nullptr, std::memory_order_release);  // release: every use of this scheduler happens before
}

}  // namespace weft::detail
