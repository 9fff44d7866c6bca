// `hierarchical`: HotSLAW's scheduler (seed 002, Min, Iancu and Yelick). Per worker one
// bounded split queue (§3.1: private LIFO part for the owner, public FIFO part for
// thieves; ext::split_queue); a full queue makes a spawn that allows it run at once on
// the spawner's stack (work-first, §3, re-evaluated at every spawn); idle workers steal
// by Hierarchical Victim Selection (§3.2.1) and take Hierarchical Chunk Selection's
// chunk for the victim's level (§3.2.2), both from include/weft/ext/hierarchy.hpp, which
// the cluster simulator (tools/schedsim) runs too.
//
// Dependent tasks: the seed's sync_node (a reference count and a list of waiting tasks,
// released when the count reaches zero) is what weft's futures, dataflow and task_group
// already are: a continuation or a suspended waiter becomes runnable when its last input
// is set. This policy therefore queues only ready tasks; it needs no wait_task_queue.
//
// Besides what the seed describes, it keeps the loop's contract: high-priority tasks in
// a per-worker Chase-Lev deque (thieves look there first at each victim), low-priority
// ones in one shared queue run when nothing else is ready, yielded tasks last, an inbox
// for tasks from other threads, and an owner-only overflow list for tasks that find the
// queue full but cannot run at once (resumed tasks, spawns that do not allow work-first,
// a spawner short of stack): the bound holds, no task is lost, and the overflow refills
// the queue, where thieves can see it, as it drains.
#include "policies/hierarchical.hpp"
#include "policies/local_queues.hpp"
#include "policies/policies.hpp"

#include <weft/concurrency/backoff_spinlock.hpp>
#include <weft/concurrency/split_queue.hpp>
#include <weft/config/errors.hpp>
#include <weft/ext/hierarchy.hpp>

#include <algorithm>
#include <charconv>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace weft::detail {
namespace {

/// Tasks one steal can move at most (a chunk rule asking for more takes this many).
constexpr std::size_t max_chunk = 64;

struct alignas(cache_line_size) hq_worker {
    hq_worker(std::size_t bound, std::size_t public_bound) : q(bound, public_bound) {}

    ext::split_queue<task> q;
    ext::work_stealing_deque<task> high;
    ext::mpsc_inbox<task, &task::next> inbox;
    task_fifo yielded, overflow;
    owner_counter yielded_in, yielded_out, overflow_in, overflow_out;
    ext::victim_selector hvs;
    // Owner-written statistics (see hierarchical_stats).
    std::unique_ptr<owner_counter[]> steals, failed, moved;  // per level
    // Written by thieves: on a line of their own.
    alignas(cache_line_size) std::atomic<std::uint64_t> stolen_from_staged{0};
    std::atomic<std::uint64_t> stolen_from_pending{0};
};

unsigned parse_bound(std::string_view name, std::string_view v, unsigned fallback) {
    if (v.empty()) return fallback;
    unsigned n = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc{} || end != v.data() + v.size() || n == 0 || n > (1u << 20))
        throw bad_option("weft: --weft:" + std::string(name) + ": '" + std::string(v) +
                         "' is not valid; expected a task count from 1 to 1048576");
    return n;
}

class hierarchical_policy final : public ext::scheduler_policy {
public:
    std::string_view name() const noexcept override { return "hierarchical"; }

    void configure(const ext::policy_options& o) override {
        hierarchy_spec_ = std::string(o.get("hierarchy", "hwloc"));
        topology_spec_ = std::string(o.get("topology"));
        attempts_spec_ = std::string(o.get("steal-attempts", "auto"));
        chunks_spec_ = std::string(o.get("steal-chunk", "auto"));
        bound_ = parse_bound("queue-bound", o.get("queue-bound"), 40);
        public_bound_ = parse_bound("queue-public", o.get("queue-public"), 20);
        if (public_bound_ > bound_)
            throw bad_option("weft: --weft:queue-public=" + std::to_string(public_bound_) +
                             " is larger than --weft:queue-bound=" + std::to_string(bound_) +
                             "; the public part is a part of the queue");
    }

    void attach(const std::vector<ext::worker_info>& workers) override {
        n_ = static_cast<unsigned>(workers.size());
        hierarchy_ = build_hierarchy(workers);
        plan_ = ext::steal_plan::parse(hierarchy_, attempts_spec_, chunks_spec_);
        w_.clear();
        for (unsigned i = 0; i < n_; ++i) {
            auto w = std::make_unique<hq_worker>(bound_, public_bound_);
            w->hvs = ext::victim_selector(hierarchy_, plan_, i);
            w->steals = std::make_unique<owner_counter[]>(hierarchy_.num_levels());
            w->failed = std::make_unique<owner_counter[]>(hierarchy_.num_levels());
            w->moved = std::make_unique<owner_counter[]>(hierarchy_.num_levels());
            w_.push_back(std::move(w));
        }
    }

    ext::placement schedule(ext::worker_context* self, task& t) override {
        if (self == nullptr) {
            const unsigned target = t.is_resumed() && t.home_worker() < n_
                                        ? t.home_worker()
                                        // relaxed: only spreads work, orders nothing.
                                        : rr_.fetch_add(1, std::memory_order_relaxed) % n_;
            w_[target]->inbox.push(&t);
            return {target};
        }
        hq_worker& me = *w_[self->index];
        if (t.is_yield()) {
            me.yielded.push(&t);
            me.yielded_in.add();
        } else if (t.priority() == task_priority::high) {
            me.high.push(&t);
        } else if (t.priority() == task_priority::low) {
            low_.push(t);
        } else if (me.q.push(&t)) {
            // queued (a resumed task, or a new one that missed the spawn fast path)
        } else if (!t.is_resumed() && self->may_run_inline) {
            me.q.note_inlined();  // seed 002 Table 1's "tasks serialized"
            ext::placement p;
            p.run_inline = true;
            return p;
        } else {
            me.overflow.push(&t);
            me.overflow_in.add();
        }
        return {};
    }

    task* next_task(ext::worker_context& self) noexcept override {
        hq_worker& me = *w_[self.index];
        if (!me.inbox.empty()) drain_inbox(self, me);
        self.counters.pending_accesses.add();
        if (!me.high.empty())
            if (task* t = me.high.pop()) return t;
        if (!me.overflow.empty()) refill(me);
        if (task* t = me.q.pop()) {
            share_before_running(self, me);
            return t;
        }
        self.counters.pending_misses.add();
        if (task* t = steal(self, me)) {
            share_before_running(self, me);  // the rest of a chunk, or of an inbox, went private
            return t;
        }
        if (task* t = me.yielded.pop()) {
            me.yielded_out.add();
            return t;
        }
        return low_.pop();
    }

    bool take_back(ext::worker_context& self, task& t) noexcept override {
        // A task that started, suspended and was resumed here continues on its own
        // context. relaxed: whoever last wrote the state published it to this thread
        // before t entered our queues (our own resume, or the inbox's acquire).
        if (!t.is_staged()) return false;
        hq_worker& me = *w_[self.index];
        if (t.priority() == task_priority::high) return me.high.peek_bottom() == &t && me.high.pop() == &t;
        if (!me.q.take_back(&t)) return false;
        share_before_running(self, me);  // the owner runs `t` inline now
        return true;
    }

    /// Our worker starts a task: what stays private becomes partly public if thieves
    /// have nothing (split_queue::share), and a parked worker is woken for it.
    void share_before_running(ext::worker_context& self, hq_worker& me) noexcept {
        if (n_ > 1 && me.q.share()) self.wake(ext::worker_context::any_worker);
    }

    // New tasks go straight onto the split queue while it has room (no virtual call).
    ext::spawn_path spawn_path_of(unsigned worker) noexcept override {
        ext::spawn_path p = ext::spawn_path::bounded_queue(&w_[worker]->q);
        p.share = &share_hook;
        p.share_arg = this;
        return p;
    }

    /// spawn_path::share: our worker starts a task it took back or was handed by the
    /// scheduler bypass.
    static void share_hook(void* self_policy, ext::worker_context& self) noexcept {
        auto* p = static_cast<hierarchical_policy*>(self_policy);
        p->share_before_running(self, *p->w_[self.index]);
    }

    queue_state queue_state_of(unsigned worker) const noexcept override {
        if (worker >= n_) return {};
        const hq_worker& w = *w_[worker];
        queue_state s;
        const std::uint64_t yi = w.yielded_in.get(), yo = w.yielded_out.get();
        const std::uint64_t oi = w.overflow_in.get(), oo = w.overflow_out.get();
        s.length = w.q.size_approx() + w.high.size_approx() + (yi > yo ? yi - yo : 0) + (oi > oo ? oi - oo : 0);
        // relaxed: statistics.
        s.stolen_from_staged = w.stolen_from_staged.load(std::memory_order_relaxed);
        s.stolen_from_pending = w.stolen_from_pending.load(std::memory_order_relaxed);
        return s;
    }

    std::uint64_t shared_queue_length() const noexcept override {
        return low_.size();
    }

    hierarchical_stats stats() const {
        hierarchical_stats s;
        s.hierarchy = hierarchy_.describe();
        s.attempts = plan_.attempts;
        s.chunks = plan_.chunks;
        s.queue_bound = bound_;
        s.public_bound = public_bound_;
        s.steals.assign(hierarchy_.num_levels(), 0);
        s.failed.assign(hierarchy_.num_levels(), 0);
        s.moved.assign(hierarchy_.num_levels(), 0);
        for (const auto& w : w_) {
            for (unsigned l = 0; l < hierarchy_.num_levels(); ++l) {
                s.steals[l] += w->steals[l].get();
                s.failed[l] += w->failed[l].get();
                s.moved[l] += w->moved[l].get();
            }
            s.serialized += w->q.inlined();
            s.overflowed += w->overflow_in.get();
            s.max_queued = std::max<std::uint64_t>(s.max_queued, w->q.high_water());
        }
        return s;
    }

private:
    ext::hierarchy build_hierarchy(const std::vector<ext::worker_info>& workers) const {
        const std::string_view h = hierarchy_spec_;
        if (h == "flat") return ext::hierarchy::flat(n_);
        if (h.find(':') != std::string_view::npos) return checked_machine(h, "--weft:hierarchy");
        if (h != "hwloc") {
            std::vector<unsigned> sizes;
            std::string_view rest = h;
            for (;;) {
                const auto comma = rest.find(',');
                const std::string_view part = rest.substr(0, comma);
                unsigned v = 0;
                const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
                if (ec != std::errc{} || end != part.data() + part.size() || v == 0)
                    throw bad_option("weft: --weft:hierarchy: '" + hierarchy_spec_ +
                                     "' is not valid; expected hwloc, flat, group sizes innermost first (e.g. "
                                     "4,8) or a machine such as sockets:2,cores:4");
                sizes.push_back(v);
                if (comma == std::string_view::npos) break;
                rest.remove_prefix(comma + 1);
            }
            return ext::hierarchy::groups(n_, sizes, "--weft:hierarchy");
        }
        if (!topology_spec_.empty()) return checked_machine(topology_spec_, "--weft:topology");
        std::vector<ext::hierarchy::placement> ps;
        for (const auto& w : workers) ps.push_back({w.core, w.cache, w.numa_node, w.socket});
        return ext::hierarchy::from_placement(ps);
    }

    ext::hierarchy checked_machine(std::string_view spec, std::string_view where) const {
        ext::hierarchy h = ext::hierarchy::parse_machine(spec, where);
        if (h.workers() != n_)
            throw bad_option("weft: " + std::string(where) + "=" + std::string(spec) + " describes " +
                             std::to_string(h.workers()) + " workers, but the runtime has " + std::to_string(n_) +
                             " (leave --weft:threads out to get one worker per described core)");
        return h;
    }

    void drain_inbox(ext::worker_context& self, hq_worker& me) noexcept {
        for (task* t = me.inbox.take_all(); t != nullptr;) {
            task* next = t->next;
            t->next = nullptr;
            try {
                schedule(&self, *t);
            } catch (...) {
                std::terminate();  // the high-priority deque could not grow: out of memory
            }
            t = next;
        }
    }

    // Moves overflowed tasks, oldest first, into the queue while it has room, so thieves
    // can see them.
    static void refill(hq_worker& me) noexcept {
        while (!me.overflow.empty() && me.q.size() < me.q.capacity()) {
            task* t = me.overflow.pop();
            me.overflow_out.add();
            if (!me.q.push(t)) {  // a thief cannot fill it; defensive
                me.overflow.push(t);
                me.overflow_in.add();
                return;
            }
        }
    }

    // One HVS round (seed 002 §3.2.1) with HCS chunks (§3.2.2).
    task* steal(ext::worker_context& self, hq_worker& me) noexcept {
        const unsigned attempts = me.hvs.round_length();
        task* got[max_chunk];
        for (unsigned i = 0; i < attempts; ++i) {
            const auto [v, level] = me.hvs.next([&self] { return self.random(); });
            hq_worker& victim = *w_[v];
            if (!victim.high.empty()) {
                task* t = nullptr;
                if (victim.high.steal(t) == ext::steal_status::success) {
                    count_stolen(self, victim, *t, v);
                    me.steals[level].add();
                    me.moved[level].add();
                    me.hvs.reset();
                    return t;
                }
            }
            const ext::chunk_rule rule = plan_.chunks[level];
            const std::size_t k = victim.q.steal(got, max_chunk, [rule](std::size_t n) { return rule.chunk(n); });
            if (k == 0) {
                me.failed[level].add();
                continue;
            }
            for (std::size_t j = 0; j < k; ++j) count_stolen(self, victim, *got[j], v);
            // The oldest runs now; the rest go to our queue, the newest on top.
            for (std::size_t j = 1; j < k; ++j) {
                if (!me.q.push(got[j])) {
                    me.overflow.push(got[j]);
                    me.overflow_in.add();
                }
            }
            me.steals[level].add();
            me.moved[level].add(k);
            me.hvs.reset();
            return got[0];
        }
        // What waits in a busy worker's inbox (tasks from outside threads).
        for (unsigned k = 1; k < n_; ++k)
            if (task* t = take_inbox(w_[(self.index + k) % n_]->inbox, [&](task& rest) { schedule(&self, rest); }))
                return t;
        return nullptr;
    }

    static void count_stolen(ext::worker_context& self, hq_worker& victim, const task& t, unsigned v) noexcept {
        // relaxed: statistics; thieves share the line, the owner never writes it.
        if (t.is_resumed()) {
            victim.stolen_from_pending.fetch_add(1, std::memory_order_relaxed);
            self.counters.stolen_to_pending.add();
        } else {
            victim.stolen_from_staged.fetch_add(1, std::memory_order_relaxed);
            self.counters.stolen_to_staged.add();
        }
        self.last_victim = v;
    }

    std::string hierarchy_spec_ = "hwloc", topology_spec_, attempts_spec_ = "auto", chunks_spec_ = "auto";
    unsigned bound_ = 40, public_bound_ = 20;
    unsigned n_ = 0;
    ext::hierarchy hierarchy_;
    ext::steal_plan plan_;
    std::vector<std::unique_ptr<hq_worker>> w_;
    alignas(cache_line_size) std::atomic<unsigned> rr_{0};
    shared_low_queue low_;
};

}  // namespace

std::unique_ptr<ext::scheduler_policy> make_hierarchical_policy() { return std::make_unique<hierarchical_policy>(); }

hierarchical_stats hierarchical_statistics(const ext::scheduler_policy& p) {
    const auto* h = dynamic_cast<const hierarchical_policy*>(&p);
    if (h == nullptr) throw error("weft: hierarchical_statistics: the policy is '" + std::string(p.name()) + "', not hierarchical");
    return h->stats();
}

}  // namespace weft::detail
