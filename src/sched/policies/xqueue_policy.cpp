// `xqueue`: the lock-less scheduler of seed 001 (Nookala; digest 001 §4-5; issue #7).
// Workers hand each other tasks through XQueue's SPSC rings (include/weft/concurrency/
// xqueue.hpp) and balance load with X-OpenMP's lock-less steal requests, in which the
// *victim* moves the task, so no queue ever has two consumers.
//
// Variants (--weft:scheduler=NAME; digest 001 §5.9):
//   xqueue-static         new tasks round-robin to the other workers' rings, no stealing
//                         (XQUEUE-STATIC); an idle worker only takes what waits behind
//                         another's running task (the offer and the rescue, below)
//   xqueue-wait           round-robin + wait-based stealing (Algorithms 2-3; XOMP-DYNAMIC-WAIT)
//   xqueue-wait-free      round-robin + wait-free stealing, one task per request
//                         (Algorithms 4-5; WAITFREE-STEALONE)
//   xqueue-wait-free-two  the same, two tasks per request (WAITFREE-STEALTWO)
//   xqueue                wait-free steal-one with new tasks kept on the spawning worker
//                         (local-first placement): weft's tasks block on their children,
//                         and a child on the parent's worker can run inline when the parent
//                         waits, which round-robin placement almost never allows.
// Round-robin skips the spawner, as Algorithm 1 does: with the scheduler bypass (the
// finishing task's first continuation runs next on its worker) that sends the second
// to another worker at once, the best a pair of workers can do; going over every
// worker, the spawner included (Algorithm 4's text), kept every other second
// continuation behind the first and cost 30 % on a width-2 stencil (issue #22). Tasks
// that this leaves behind a busy worker are reached by the offer and the rescue below.
//
// The offer (weft's addition, issue #22). In the seed a victim serves requests only on
// its own enqueue and dequeue paths, so an idle worker waits for a busy one to come back
// to the scheduler: two tasks made ready together on one worker ran one after the other
// if its thief asked a moment too late, and a pair of 1 ms dataflow tasks ran at 50 %.
// So every worker (of every variant, the static one too) that starts a task while it has more queued
// leaves one of them, the oldest, in its `offer` cell, where any idle worker takes it
// with one exchange, without the owner; the owner takes it back when it runs out of
// other work. A task on offer is never also in a queue, and the cell has one owner-side
// writer, so it needs no tag: a thief's exchange and the owner's take-back are the only
// two ways out, and one of them gets null.
//
// Per worker, owner-only (no atomics beyond statistics): a deque of new tasks (the owner
// takes the newest; requests are served from the oldest), FIFO lists of resumed,
// high-priority, yielded and low-priority tasks; and an MPSC inbox for threads outside
// the runtime (and for tasks served across XQueue domains, which share no ring). The rings
// connect the workers of one NUMA domain (the seed's suggestion, digest 001 §5.8); steal
// requests may cross domains.
//
// The steal protocol, written for the C++ memory model rather than x86-TSO (digest 001
// §4.6, §5.2-5.7). Each worker has on one cache line:
//   req    a 64-bit request word: bits 0-39 a round number, bits 40-63 a worker id, written
//          by stealers (plain stores, no read-modify-write: a lost race is a lost request,
//          which its stealer simply posts again later)
//   round  the worker's current round, written by the owner only
// A worker *accepts* requests while round_of(req) < round. A stealer s posts to victim v
// by storing req(v) = (round(v), s). The victim, on its own enqueue/dequeue path, sees
// round_of(req) == round: it hands over a task (or two), or nothing if it has none, and
// then closes the round (round + 1), which makes the request stale and v accepting again.
// An idle stealer also stores into its own word (round + 1, itself): a "self query" that
// tells others it has nothing to give (round_of > round); it withdraws it when it finds
// work again by moving its own round past it (round + 2), which writes nothing a stealer
// could be writing at the same time.
//   wait-based: the victim stores the task into the stealer's `stolen` cell, then (release)
//   the new round; the stealer spins (acquire) on the victim's round and its cell, leaving
//   only when the round moved *and* the cell is still empty (the printed `||` of
//   Algorithm 3: a round seen to move guarantees, through release/acquire, that a task
//   handed over in that round is seen in the cell), or when its adaptive wait runs out
//   (doubled on failure, shortened by an eighth on success, digest 001 §5.5). A task that
//   arrives after the stealer gave up stays in the cell, which the stealer checks first on
//   every call: nothing is lost.
//   wait-free (Algorithm 4, and Algorithm 5 designed here): the stealer posts and returns
//   at once; the victim pushes the served task into the ring it owns towards the stealer
//   (its own inbox if no ring connects them) and wakes it if it sleeps. A victim that is
//   spawning serves the request with the new task itself (Algorithm 4's enqueue path).
#include "policies/local_queues.hpp"
#include "policies/policies.hpp"

#include <weft/concurrency/mpsc_inbox.hpp>
#include <weft/concurrency/owner_deque.hpp>
#include <weft/concurrency/xqueue.hpp>
#include <weft/config/config.hpp>
#include <weft/config/errors.hpp>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace weft::detail {
namespace {

enum class variant { static_rr, wait, wait_free, wait_free_two, local_wait_free };

constexpr unsigned round_bits = 40;
constexpr std::uint64_t round_mask = (std::uint64_t{1} << round_bits) - 1;
constexpr std::uint64_t encode(std::uint64_t round, unsigned worker) {
    return (round & round_mask) | (std::uint64_t{worker} << round_bits);
}
constexpr std::uint64_t round_of(std::uint64_t req) { return req & round_mask; }
constexpr unsigned id_of(std::uint64_t req) { return static_cast<unsigned>(req >> round_bits); }

constexpr unsigned min_wait = 64, max_wait = 1u << 12;  // the wait-based stealer's spin bounds
constexpr unsigned max_offers_looked_at = 4;  // per steal attempt: victims whose offer an idle worker checks

struct alignas(cache_line_size) worker_queues {
    // Owner-only.
    ext::owner_deque<task> staged;  // new tasks (the spawn fast path pushes here too)
    task_fifo pending;   // resumed tasks
    task_fifo high, yielded, low;
    owner_counter fifo_in, fifo_out;  // tasks into / out of the four FIFO lists
    owner_counter served_staged, served_pending;  // tasks this worker handed to stealers
    std::uint64_t my_round = 1;   // == round, without the atomic load
    // The spawn fast path (ext::spawn_path::kind::owner; see spawns_stay) runs while req equals
    // this: refresh_gate() sets it to req's value when no request waits for us, and to
    // closed_gate (a value req never holds) while one does or our self query is up.
    std::uint64_t gate_open = 0;
    bool self_query = false;      // our own word says "nothing to give"
    unsigned wait = min_wait;     // wait-based: spin iterations per request
    unsigned last_victim = ~0u;   // the victim that served us last, ~0u: none
    unsigned asked = ~0u;         // wait-free: the victim of our outstanding request
    bool offered = false;         // we put a task on offer and have not seen it taken
    // From outside threads, and from victims in other XQueue domains.
    alignas(cache_line_size) ext::mpsc_inbox<task, &task::next> inbox;
    // The steal line: stealers write req; the owner writes round.
    alignas(cache_line_size) std::atomic<std::uint64_t> req{0};
    std::atomic<std::uint64_t> round{1};
    // Wait-based: the cell a victim hands our stolen task through.
    alignas(cache_line_size) std::atomic<task*> stolen{nullptr};
    // Steals completed for us, counted here by others: tasks victims handed us through
    // the inbox (no ring connects us), and tasks handed to us that an idle worker took on
    // (rescue()). Added to our stolen-to counters at our next next_task().
    std::atomic<std::uint64_t> handed_staged{0}, handed_pending{0};
    // The offer (see the head of this file): written by the owner, taken by anyone.
    alignas(cache_line_size) std::atomic<task*> offer{nullptr};
    // Held by whoever consumes our inbound rings: we, or an idle worker rescuing what
    // arrived there while we run a task (stealing variants; see rescue()).
    std::atomic<bool> ring_lock{false};
    // Tasks idle workers took from our offer, rings, inbox or cell (statistics).
    std::atomic<std::uint64_t> offer_taken_staged{0}, offer_taken_pending{0};
};

// A task a victim hands over through a ring is tagged in its lowest bit (tasks are
// aligned), so that the thief counts it as stolen (count/stolen-to-*).
inline task* tag_served(task* t) noexcept { return reinterpret_cast<task*>(reinterpret_cast<std::uintptr_t>(t) | 1u); }
inline task* untag(task* t, bool& served) noexcept {
    const auto bits = reinterpret_cast<std::uintptr_t>(t);
    served = (bits & 1u) != 0;
    return reinterpret_cast<task*>(bits & ~std::uintptr_t{1});
}

class xqueue_policy final : public ext::scheduler_policy {
public:
    xqueue_policy(variant v, std::string name) : variant_(v), name_(std::move(name)) {}

    std::string_view name() const noexcept override { return name_; }
    unsigned max_workers() const noexcept override { return 1u << 20; }  // xqueue's bound; ids fit 24 bits

    void configure(const ext::policy_options& options) override {
        const std::string_view d = options.get("xqueue-domains", "numa");
        group_ = 0;  // numa
        if (d == "mesh") group_ = ~0u;
        else if (d != "numa") {
            unsigned n = 0;
            const auto [end, ec] = std::from_chars(d.data(), d.data() + d.size(), n);
            if (ec != std::errc{} || end != d.data() + d.size() || n == 0 || n > (1u << 20))
                throw bad_option("weft: --weft:xqueue-domains: '" + std::string(d) +
                                 "' is not numa, mesh or a group size from 1 to 1048576");
            group_ = n;
        }
    }

    void attach(const std::vector<ext::worker_info>& workers) override {
        n_ = static_cast<unsigned>(workers.size());
        q_ = std::make_unique<worker_queues[]>(n_);
        // The rings' domains (--weft:xqueue-domains): a worker's NUMA node, one domain for
        // all (the seed's full mesh), or consecutive groups of group_ workers.
        ext::xqueue_topology topo = group_ == ~0u ? ext::xqueue_topology::full_mesh(n_)
                                    : group_ != 0 ? ext::xqueue_topology::groups(n_, group_)
                                                  : ext::xqueue_topology{};
        if (group_ == 0)
            for (const auto& w : workers) topo.domain_of.push_back(w.numa_node);
        // 256 slots (2 KiB) per ring: the seed found performance insensitive to queue
        // size beyond tiny ones (digest 001 §5.8); a full ring falls back to local.
        rings_ = std::make_unique<ext::xqueue<task*>>(std::move(topo), 256, ext::xqueue_placement::round_robin);
        attached_ = std::make_unique<bool[]>(n_);
    }

    ext::placement schedule(ext::worker_context* self, task& t) override {
        if (self == nullptr) return place_from_outside(t);
        worker_queues& q = q_[self->index];
        const ext::placement p = place(*self, q, t);
        refresh_gate(q, self->index);
        return p;
    }

    /// schedule() from worker `self`.
    ext::placement place(ext::worker_context& self, worker_queues& q, task& t) {
        const unsigned me = self.index;
        // A worker that spawns or resumes a task has work to give, however it got its own
        // (a pinned task, say, bypasses next_task()): stop telling stealers otherwise.
        if (q.self_query) withdraw_self_query(q);
        if (t.is_resumed() || t.priority() != task_priority::normal || t.is_yield()) {
            push_local(q, t);
            return {};
        }
        // A new task of normal priority.
        if (stealing() && variant_ != variant::wait) {
            // Algorithm 4's enqueue path: a pending request gets the new task itself.
            const std::uint64_t req = q.req.load(std::memory_order_relaxed);  // relaxed: see serve()
            if (round_of(req) == q.my_round && id_of(req) != me && id_of(req) < n_) {
                const unsigned thief = id_of(req);
                if (hand_over(self, thief, &t, false)) {
                    close_round(q);
                    q.served_staged.add();
                    return {thief, false};  // the loop fences and wakes the thief
                }
            }
        }
        if (variant_ != variant::local_wait_free && rings_->domain_size(me) > 1) {
            const unsigned to = rings_->push_round_robin(me, &t);
            // push() fenced after the push (XQueue's doorbell protocol), which is the
            // fence the loop's wake-up check needs too.
            if (to != ext::xqueue<task*>::none) return {to, true};
            // Every ring full, or not attached yet (a worker that has not started): its
            // inbox, rather than ours, which would run it after the task we may be in.
            const unsigned other = me + 1 == n_ ? 0 : me + 1;
            q_[other].inbox.push(&t);
            return {other};
        }
        push_local(q, t);  // local-first, or one worker
        return {};
    }

    task* next_task(ext::worker_context& self) noexcept override {
        const unsigned me = self.index;
        worker_queues& q = q_[me];
        if (!attached_[me]) {
            // First call, on the worker's own thread: its rings are allocated here, on its
            // NUMA node (first touch).
            try {
                rings_->attach(me);
            } catch (...) {
                std::terminate();  // out of memory at start
            }
            attached_[me] = true;
        }
        if (variant_ == variant::wait) {
            // A task served after we stopped waiting (digest 001 §5.4's hazard).
            // acquire: pairs with the victim's release store of the task.
            if (q.stolen.load(std::memory_order_relaxed) != nullptr)
                if (task* t = q.stolen.exchange(nullptr, std::memory_order_acquire)) return got_work(self, q, t, true);
        }
        count_handed(self, q);
        if (!q.inbox.empty()) drain_inbox(self, q);
        task* t = pop_own(self, q);
        bool served = false;
        if (t == nullptr) {
            task* v = nullptr;
            if (pop_rings(me, q, v)) t = untag(v, served);
            if (served) {
                q.last_victim = q.asked < n_ ? q.asked : q.last_victim;  // a wait-free request was served
                q.asked = ~0u;
            }
        }
        if (t == nullptr && q.offered) t = take_back_offer(q);
        if (t == nullptr && ((t = q.yielded.pop()) != nullptr || (t = q.low.pop()) != nullptr)) q.fifo_out.add();
        if (t != nullptr) {
            // Algorithm 2/4's dequeue path: a pending request gets some of what is left,
            // whichever list `t` came from (a worker busy with tasks that only yield
            // must still feed thieves).
            if (stealing()) serve(self, q);
            share_queued(self, q);
            return got_work(self, q, t, served);
        }
        // Idle: close a round a stealer opened on us (we have nothing), then steal.
        if (stealing()) {
            serve(self, q);
            return steal(self, q);
        }
        // xqueue-static never steals; it only takes what waits behind a running task.
        if (n_ > 1) return take_waiting(self, q);
        return nullptr;
    }

    ext::spawn_path spawn_path_of(unsigned worker) noexcept override {
        // Local-first placement keeps new tasks on the spawner, and so does round-robin
        // over a domain of one (one worker, or --weft:xqueue-domains=1): no other ring.
        if (worker >= n_) return {};
        ext::spawn_path p;
        if (spawns_stay(worker)) p = ext::spawn_path::owner_only(&q_[worker].staged, &q_[worker].req, &q_[worker].gate_open);
        if (n_ > 1) {
            p.share = &share_before_running;
            p.share_arg = this;
        }
        return p;
    }

    /// spawn_path::share: our worker starts a task it took back or was handed by the
    /// scheduler bypass, so it may be gone for long.
    static void share_before_running(void* self_policy, ext::worker_context& self) noexcept {
        auto* p = static_cast<xqueue_policy*>(self_policy);
        p->share_queued(self, p->q_[self.index]);
    }

    bool take_back(ext::worker_context& self, task& t) noexcept override {
        worker_queues& q = q_[self.index];
        if (q.staged.back() != &t) return false;
        // relaxed: the state was published to us before t entered our deque.
        if (!t.is_staged()) return false;
        q.staged.pop_back();
        share_queued(self, q);  // the owner runs `t` inline now
        return true;
    }

    queue_state queue_state_of(unsigned w) const noexcept override {
        if (w >= n_) return {};
        const worker_queues& q = q_[w];
        queue_state s;
        const std::uint64_t in = q.fifo_in.get(), out = q.fifo_out.get();
        s.length = q.staged.size_approx() + (in > out ? in - out : 0) + rings_->size_approx(w);
        // relaxed: a statistic.
        if (q.stolen.load(std::memory_order_relaxed) != nullptr) ++s.length;
        if (q.offer.load(std::memory_order_relaxed) != nullptr) ++s.length;  // relaxed: a statistic
        // relaxed: statistics.
        s.stolen_from_staged = q.served_staged.get() + q.offer_taken_staged.load(std::memory_order_relaxed);
        s.stolen_from_pending = q.served_pending.get() + q.offer_taken_pending.load(std::memory_order_relaxed);
        return s;
    }

private:
    bool stealing() const noexcept { return variant_ != variant::static_rr && n_ > 1; }

    void push_local(worker_queues& q, task& t) {
        t.next = nullptr;
        if (t.is_yield()) q.yielded.push(&t);
        else if (t.priority() == task_priority::high) q.high.push(&t);
        else if (t.priority() == task_priority::low) q.low.push(&t);
        else if (t.is_resumed()) q.pending.push(&t);
        else {
            q.staged.push_back(&t);
            return;
        }
        q.fifo_in.add();
    }

    ext::placement place_from_outside(task& t) {
        const unsigned target = t.is_resumed() && t.home_worker() < n_
                                    ? t.home_worker()
                                    // relaxed: only spreads work, orders nothing.
                                    : rr_.fetch_add(1, std::memory_order_relaxed) % n_;
        q_[target].inbox.push(&t);
        return {target};
    }

    static void count_handed(ext::worker_context& self, worker_queues& q) noexcept {
        // relaxed (both): statistics; the tasks themselves travel with acquire/release.
        if (q.handed_staged.load(std::memory_order_relaxed) != 0)
            self.counters.stolen_to_staged.add(q.handed_staged.exchange(0, std::memory_order_relaxed));
        if (q.handed_pending.load(std::memory_order_relaxed) != 0)
            self.counters.stolen_to_pending.add(q.handed_pending.exchange(0, std::memory_order_relaxed));
    }

    void drain_inbox(ext::worker_context& /*self*/, worker_queues& q) noexcept {
        for (task* t = q.inbox.take_all(); t != nullptr;) {
            task* next = t->next;
            t->next = nullptr;
            try {
                push_local(q, *t);
            } catch (...) {
                std::terminate();  // the deque could not grow: out of memory
            }
            t = next;
        }
    }

    /// Before our worker starts a task that may run for long, with more queued: keep
    /// one on offer (see the head of this file).
    void share_queued(ext::worker_context& self, worker_queues& q) noexcept {
        if (n_ > 1) keep_on_offer(self, q);
    }

    /// Before our worker runs a task: if nothing of ours is on offer, puts the oldest task
    /// we still hold there (new, else resumed, else high-priority, else from our rings)
    /// and wakes a parked worker for it (see the head of this file).
    void keep_on_offer(ext::worker_context& self, worker_queues& q) noexcept {
        if (q.offered) {
            // relaxed: only a thief changes it meanwhile, to null; reading it late only
            // delays our next offer to our next task.
            if (q.offer.load(std::memory_order_relaxed) != nullptr) return;
            q.offered = false;
        }
        task* t = q.staged.pop_front();
        if (t == nullptr && ((t = q.pending.pop()) != nullptr || (t = q.high.pop()) != nullptr)) q.fifo_out.add();
        if (t == nullptr) {
            task* v = nullptr;
            bool served = false;
            if (!pop_rings(self.index, q, v)) return;
            t = untag(v, served);
            if (served) (t->is_resumed() ? self.counters.stolen_to_pending : self.counters.stolen_to_staged).add();
        }
        // release: the taker's acquire exchange sees the task as we left it.
        q.offer.store(t, std::memory_order_release);
        q.offered = true;
        self.wake(ext::worker_context::any_worker);  // fences, then wakes a parked worker
    }

    /// Consumer `w` of its inbound rings: its own worker, or (stealing variants) an idle
    /// worker rescuing them. A try-lock keeps one consumer at a time, so each ring stays
    /// single-consumer; whoever finds it held leaves the rings to the holder.
    bool pop_rings(unsigned w, worker_queues& wq, task*& out) noexcept {
        if (n_ <= 1) return rings_->pop_inbound(w, out);
        if (!rings_->inbound_hint(w)) return false;
        // acquire: the previous consumer's ring state (scan position, cleared bits) and
        // the items it left are seen by the next one.
        if (wq.ring_lock.exchange(true, std::memory_order_acquire)) return false;
        const bool got = rings_->pop_inbound(w, out);
        wq.ring_lock.store(false, std::memory_order_release);  // release: see the acquire above
        return got;
    }

    /// An idle worker takes, from victim `v`, a task that reached it while it runs a task
    /// (its rings, its inbox, its wait-based cell: each would otherwise wait for it to
    /// come back), so that no worker idles while a task is ready (issue #22).
    task* rescue(ext::worker_context& self, worker_queues& q, unsigned v) noexcept {
        worker_queues& vq = q_[v];
        task* t = nullptr;
        bool served = false;
        if (task* r = nullptr; pop_rings(v, vq, r)) t = untag(r, served);
        // acquire: pairs with the victim's release store into the cell.
        if (t == nullptr && vq.stolen.load(std::memory_order_relaxed) != nullptr)
            served = (t = vq.stolen.exchange(nullptr, std::memory_order_acquire)) != nullptr;
        // The whole inbox: the first task runs now, the rest is ours to run or to give away.
        if (t == nullptr) t = take_inbox(vq.inbox, [this, &q](task& rest) { push_local(q, rest); });
        if (t == nullptr) return nullptr;
        // relaxed: a statistic.
        (t->is_resumed() ? vq.offer_taken_pending : vq.offer_taken_staged).fetch_add(1, std::memory_order_relaxed);
        // A task a victim handed to v: v's steal, counted for v (its victim counted it),
        // before ours from v.
        if (served)  // relaxed: a statistic
            (t->is_resumed() ? vq.handed_pending : vq.handed_staged).fetch_add(1, std::memory_order_relaxed);
        self.last_victim = v;
        return t;
    }

    /// An idle worker's look at a few other workers (from a random one): a task one of
    /// them left on offer, or one that reached it while it runs a task (rescue()).
    task* take_waiting(ext::worker_context& self, worker_queues& q) noexcept {
        const unsigned me = self.index;
        const unsigned first = pick_victim(self, q);
        for (unsigned k = 0; k < n_ - 1 && k < max_offers_looked_at; ++k) {
            unsigned v = (first + k) % n_;
            if (v == me) v = (v + 1) % n_;
            task* t = take_offer(self, v);
            if (t == nullptr && (t = rescue(self, q, v)) != nullptr) share_queued(self, q);  // an inbox's rest is ours now
            if (t != nullptr) {
                q.last_victim = v;
                return got_work(self, q, t, true);
            }
        }
        return nullptr;
    }

    /// Our offer back, when we have nothing else: null if a thief took it.
    static task* take_back_offer(worker_queues& q) noexcept {
        q.offered = false;
        // relaxed: only we store a task there, and a thief's exchange leaves null.
        return q.offer.exchange(nullptr, std::memory_order_relaxed);
    }

    /// An idle worker's look at victim `v`'s offer: its task, or null.
    task* take_offer(ext::worker_context& self, unsigned v) noexcept {
        worker_queues& vq = q_[v];
        // relaxed: a probe that keeps idle workers off the line of a victim with nothing on offer.
        if (vq.offer.load(std::memory_order_relaxed) == nullptr) return nullptr;
        // acquire: pairs with the owner's release store of the task.
        task* t = vq.offer.exchange(nullptr, std::memory_order_acquire);
        if (t == nullptr) return nullptr;
        // relaxed: a statistic.
        (t->is_resumed() ? vq.offer_taken_pending : vq.offer_taken_staged).fetch_add(1, std::memory_order_relaxed);
        self.last_victim = v;
        return t;
    }

    /// Own queues in seed 000 §2.3.1's order: high, resumed (FIFO), new (LIFO).
    task* pop_own(ext::worker_context& self, worker_queues& q) noexcept {
        self.counters.pending_accesses.add();
        task* t = q.high.pop();
        if (t == nullptr) t = q.pending.pop();
        if (t != nullptr) q.fifo_out.add();
        if (t == nullptr) t = q.staged.pop_back();
        if (t == nullptr) self.counters.pending_misses.add();
        return t;
    }

    /// The victim's side: if a request is open for our round, hand over one task (two for
    /// steal-two): the oldest new one, else the oldest resumed one, else the oldest that
    /// yielded; then close the round, served or not.
    void serve(ext::worker_context& self, worker_queues& q) noexcept {
        // relaxed: the request word carries no data; the task handed over is published
        // by the ring's or the cell's release store, and a stale read only delays a steal.
        const std::uint64_t req = q.req.load(std::memory_order_relaxed);
        const unsigned thief = id_of(req);
        // Not open for our round, or our own self query: nothing to serve.
        if (round_of(req) == q.my_round && thief != self.index && thief < n_) serve_request(self, q, thief);
        set_gate(q, self.index, req);  // served or stale now: the round moved on
    }

    /// Hands `thief` what serve() promises, then closes the round.
    void serve_request(ext::worker_context& self, worker_queues& q, unsigned thief) noexcept {
        const unsigned count = variant_ == variant::wait_free_two ? 2 : 1;
        for (unsigned k = 0; k < count; ++k) {
            bool resumed = false;
            task_fifo* from = nullptr;
            task* t = q.staged.pop_front();
            if (t == nullptr && (t = q.pending.pop()) != nullptr) from = &q.pending;
            if (t == nullptr && (t = q.yielded.pop()) != nullptr) from = &q.yielded;
            if (from != nullptr) {
                resumed = true;
                q.fifo_out.add();
            }
            if (t == nullptr) break;
            if (!hand_over(self, thief, t, true)) {
                // The thief's cell still holds a task another victim gave it: keep ours.
                if (resumed) {
                    from->push(t);
                    q.fifo_in.add();
                } else {
                    try {
                        q.staged.push_back(t);  // room: we just took it from there
                    } catch (...) {
                        std::terminate();
                    }
                }
                break;
            }
            (resumed ? q.served_pending : q.served_staged).add();
            if (variant_ == variant::wait) break;  // one cell
        }
        close_round(q);
    }

    /// Moves `t` to `thief`: through its cell (wait-based) or the ring we own towards it
    /// (wait-free; its inbox if no ring connects us or the ring is full), then, if
    /// `wake`, wakes it should it have parked meanwhile (the loop does it for schedule()).
    /// False only if the thief's cell is taken.
    bool hand_over(ext::worker_context& self, unsigned thief, task* t, bool wake) noexcept {
        if (variant_ == variant::wait) {
            // A thief that gave up on one victim may be served by it after asking another:
            // two victims may answer one thief, so the cell is filled by CAS, never by a
            // store that could overwrite a task (a read-modify-write, but only on the
            // serving path, which runs once per steal). release: the thief's acquire
            // exchange sees the task's contents; relaxed on failure: nothing is published.
            task* empty = nullptr;
            if (!q_[thief].stolen.compare_exchange_strong(empty, t, std::memory_order_release,
                                                          std::memory_order_relaxed))
                return false;
        } else if (!rings_->push(self.index, thief, tag_served(t))) {
            // relaxed: a statistic (see drain_inbox).
            (t->is_resumed() ? q_[thief].handed_pending : q_[thief].handed_staged)
                .fetch_add(1, std::memory_order_relaxed);
            q_[thief].inbox.push(t);
        }
        if (wake) self.wake(thief);  // fences, then wakes it if it parked
        return true;
    }

    void close_round(worker_queues& q) noexcept {
        ++q.my_round;
        // release: in the wait-based protocol, a stealer that sees the new round (acquire)
        // sees the task stored into its cell before it.
        q.round.store(q.my_round, std::memory_order_release);
    }

    static constexpr std::uint64_t closed_gate = ~std::uint64_t{0};  // id 2^24-1: never a worker's

    /// True if schedule() keeps every new normal task of `w` on its own deque (unless it
    /// serves a request with it): the owner spawn path may then stand in for it.
    bool spawns_stay(unsigned w) const noexcept {
        return variant_ == variant::local_wait_free || rings_->domain_size(w) == 1;
    }

    /// Opens the spawn fast path unless a request waits for us (the next spawn must
    /// then go through schedule(), which serves it) or our self query is up (schedule()
    /// withdraws it). A request posted after the load below changes req, which shuts the
    /// path again by itself.
    void refresh_gate(worker_queues& q, unsigned me) const noexcept {
        if (!spawns_stay(me)) return;
        // relaxed: as in serve(); a request this misses shuts the gate by changing req.
        set_gate(q, me, q.req.load(std::memory_order_relaxed));
    }
    /// refresh_gate() with req's value `r` already read.
    void set_gate(worker_queues& q, unsigned me, std::uint64_t r) const noexcept {
        if (!spawns_stay(me)) return;
        const bool waiting = round_of(r) == q.my_round && id_of(r) != me && id_of(r) < n_;
        q.gate_open = q.self_query || waiting ? closed_gate : r;
    }

    /// Moves our round past our self query (see the head of this file), so that stealers
    /// see us accepting again; writes nothing a stealer writes.
    static void withdraw_self_query(worker_queues& q) noexcept {
        q.self_query = false;
        q.my_round += 2;
        q.round.store(q.my_round, std::memory_order_release);  // release: as close_round
    }

    task* got_work(ext::worker_context& self, worker_queues& q, task* t, bool stolen) noexcept {
        if (q.self_query) {
            withdraw_self_query(q);
            refresh_gate(q, self.index);
        }
        if (stolen) {
            if (t->is_resumed()) self.counters.stolen_to_pending.add();
            else self.counters.stolen_to_staged.add();
        }
        return t;
    }

    unsigned pick_victim(ext::worker_context& self, worker_queues& q) noexcept {
        if (q.last_victim < n_ && q.last_victim != self.index) return q.last_victim;
        const auto r = static_cast<unsigned>(self.random() % (n_ - 1));
        return r >= self.index ? r + 1 : r;  // a random other worker
    }

    /// Posts a request to one victim (Algorithm 3 / our Algorithm 5). Wait-based: waits
    /// for the answer within the adaptive bound.
    task* steal(ext::worker_context& self, worker_queues& q) noexcept {
        const unsigned me = self.index;
        // What waits behind busy workers' tasks first: it needs no answer from them.
        if (task* t = take_waiting(self, q)) return t;
        if (!q.self_query) {
            // relaxed: a hint to other stealers; nothing is published through it.
            q.req.store(encode(q.my_round + 1, me), std::memory_order_relaxed);
            q.self_query = true;
            q.gate_open = closed_gate;  // a spawn must go through schedule(), which withdraws it
        }
        const unsigned v = pick_victim(self, q);
        worker_queues& vq = q_[v];
        // acquire: pairs with close_round's release (wait-based: the cell's task).
        const std::uint64_t r = vq.round.load(std::memory_order_acquire);
        // relaxed: a request word carries no data (see serve()).
        if (round_of(vq.req.load(std::memory_order_relaxed)) >= r) {
            q.last_victim = ~0u;  // busy with another stealer, or idle itself: try another next time
            return nullptr;
        }
        vq.req.store(encode(r, me), std::memory_order_relaxed);  // relaxed: as above
        if (variant_ != variant::wait) {
            if (q.asked != ~0u) q.last_victim = ~0u;  // the previous request went unanswered
            q.asked = v;
            return nullptr;  // the answer, if any, arrives in our ring from v
        }
        for (unsigned i = 0; i < q.wait; ++i) {
            // acquire: see close_round.
            const bool moved = round_of(vq.round.load(std::memory_order_acquire)) != round_of(r);
            if (q.stolen.load(std::memory_order_relaxed) != nullptr) {
                // acquire: pairs with the victim's release store of the task.
                if (task* t = q.stolen.exchange(nullptr, std::memory_order_acquire)) {
                    q.wait = std::max(min_wait, q.wait - q.wait / 8);
                    q.last_victim = v;
                    return got_work(self, q, t, true);
                }
            }
            if (moved) break;  // closed without serving us (the cell was empty after the move)
            // A slower stealer overwrote our request with an older round: post it again.
            if (round_of(vq.req.load(std::memory_order_relaxed)) < round_of(r))
                vq.req.store(encode(r, me), std::memory_order_relaxed);  // relaxed: as above
            cpu_relax();
        }
        q.wait = std::min(max_wait, q.wait * 2);
        q.last_victim = ~0u;
        return nullptr;
    }

    static void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }

    variant variant_;
    std::string name_;
    unsigned n_ = 0;
    unsigned group_ = 0;  // ring domains: 0 per NUMA node, ~0u one, else groups of this many
    std::unique_ptr<worker_queues[]> q_;
    std::unique_ptr<ext::xqueue<task*>> rings_;
    std::unique_ptr<bool[]> attached_;  // per worker, owner-only
    alignas(cache_line_size) std::atomic<unsigned> rr_{0};
};

}  // namespace

std::unique_ptr<ext::scheduler_policy> make_xqueue_policy(std::string_view name) {
    if (name == "xqueue") return std::make_unique<xqueue_policy>(variant::local_wait_free, "xqueue");
    if (name == "xqueue-static") return std::make_unique<xqueue_policy>(variant::static_rr, "xqueue-static");
    if (name == "xqueue-wait") return std::make_unique<xqueue_policy>(variant::wait, "xqueue-wait");
    if (name == "xqueue-wait-free") return std::make_unique<xqueue_policy>(variant::wait_free, "xqueue-wait-free");
    if (name == "xqueue-wait-free-two")
        return std::make_unique<xqueue_policy>(variant::wait_free_two, "xqueue-wait-free-two");
    return nullptr;
}

}  // namespace weft::detail
