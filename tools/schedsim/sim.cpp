// The simulator (see sim.hpp for the model).
#include "sim.hpp"

#include "uts_gen.hpp"

#include <weft/config/errors.hpp>
#include <weft/ext/hierarchy.hpp>

#include <algorithm>
#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace weft::schedsim {
namespace {

using ps_t = std::uint64_t;
namespace ut = weft::bench::uts;
using weft::ext::chunk_rule;
using weft::ext::hierarchy;
using weft::ext::level_kind;
using weft::ext::steal_plan;
using weft::ext::victim_selector;

[[noreturn]] void bad(std::string_view option, std::string_view value, std::string_view accepted) {
    throw bad_option_error{"weft-schedsim: " + std::string(option) + ": '" + std::string(value) +
                           "' is not valid; expected " + std::string(accepted)};
}

bool parse_unsigned(std::string_view s, unsigned& out) {
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc{} && p == s.data() + s.size();
}

ps_t to_ps(double us) { return static_cast<ps_t>(std::llround(us * 1e6)); }

struct splitmix {
    std::uint64_t s;
    std::uint64_t operator()() noexcept {
        std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
};

// ---------------------------------------------------------------- workloads
// Each: task_t, root(), children(t) (called once, when t starts), child(t, i), cost(t),
// depth(t), finished(t, next) (true and next set when t's completion releases a task).

struct workload_costs {
    double task_us, spawn_us;
    unsigned payload;
};

struct fib_workload {
    struct task_t {
        std::uint32_t n, depth;
    };
    unsigned n;
    ps_t cost_ps;
    task_t root() const { return {n, 0}; }
    unsigned children(const task_t& t) const { return t.n < 2 ? 0 : 2; }
    task_t child(const task_t& t, unsigned i) const { return {t.n - 1 - i, t.depth + 1}; }
    ps_t cost(const task_t&) const { return cost_ps; }
    unsigned depth(const task_t& t) const { return t.depth; }
    bool finished(const task_t&, task_t&) { return false; }
};

struct nqueens_workload {
    struct task_t {
        std::uint32_t cols, d1, d2, row;  ///< occupied columns and diagonals (shifted per row)
    };
    unsigned n;
    ps_t cost_ps;
    std::uint32_t full() const { return n >= 32 ? ~0u : (1u << n) - 1; }
    std::uint32_t free_cols(const task_t& t) const { return ~(t.cols | t.d1 | t.d2) & full(); }
    task_t root() const { return {0, 0, 0, 0}; }
    unsigned children(const task_t& t) const {
        return t.row >= n ? 0 : static_cast<unsigned>(std::popcount(free_cols(t)));
    }
    task_t child(const task_t& t, unsigned i) const {
        std::uint32_t f = free_cols(t);
        for (unsigned k = 0; k < i; ++k) f &= f - 1;
        const std::uint32_t bit = f & (~f + 1);
        return {t.cols | bit, ((t.d1 | bit) << 1) & full(), (t.d2 | bit) >> 1, t.row + 1};
    }
    ps_t cost(const task_t&) const { return cost_ps; }
    unsigned depth(const task_t& t) const { return t.row; }
    bool finished(const task_t&, task_t&) { return false; }
};

struct uts_workload {
    using task_t = ut::node;
    const ut::tree* tree;
    ps_t cost_ps;
    task_t root() const { return ut::make_root(*tree); }
    unsigned children(const task_t& t) const { return static_cast<unsigned>(ut::num_children(*tree, t)); }
    task_t child(const task_t& t, unsigned i) const { return ut::make_child(t, static_cast<int>(i)); }
    ps_t cost(const task_t&) const { return cost_ps; }
    unsigned depth(const task_t& t) const { return static_cast<unsigned>(t.height); }
    bool finished(const task_t&, task_t&) { return false; }
};

struct sparselu_workload {
    enum kind : std::uint8_t { producer, fwd, bdiv, bmod };
    struct task_t {
        std::uint32_t phase;  ///< 2 kk (fwd/bdiv) or 2 kk + 1 (bmod)
        std::uint32_t index;  ///< in phases[phase]; producer: unused
        kind k;
    };
    std::vector<std::vector<kind>> phases;  ///< the kernels each phase spawns
    std::vector<std::uint32_t> done;        ///< tasks of each phase finished
    ps_t lu0_ps = 0, fwd_ps = 0, bdiv_ps = 0, bmod_ps = 0;

    /// Builds the DAG of nb x nb blocks and scales the kernels' flops (2/3 : 1 : 1 : 2)
    /// to an average of avg_us over lu0, fwd, bdiv and bmod calls.
    sparselu_workload(unsigned nb, double avg_us) {
        std::vector<char> present(static_cast<std::size_t>(nb) * nb);
        const auto at = [&](unsigned i, unsigned j) -> char& { return present[static_cast<std::size_t>(i) * nb + j]; };
        for (unsigned i = 0; i < nb; ++i)
            for (unsigned j = 0; j < nb; ++j)
                at(i, j) = (i + 1 >= j && j + 1 >= i) || (i % 3 == 0 && j % 3 == 0);
        double units = 0;
        std::uint64_t calls = 0;
        for (unsigned kk = 0; kk < nb; ++kk) {
            std::vector<kind> p1, p2;
            for (unsigned j = kk + 1; j < nb; ++j)
                if (at(kk, j)) p1.push_back(fwd);
            for (unsigned i = kk + 1; i < nb; ++i)
                if (at(i, kk)) p1.push_back(bdiv);
            for (unsigned i = kk + 1; i < nb; ++i) {
                if (!at(i, kk)) continue;
                for (unsigned j = kk + 1; j < nb; ++j) {
                    if (!at(kk, j)) continue;
                    at(i, j) = 1;  // fill-in
                    p2.push_back(bmod);
                }
            }
            units += 2.0 / 3.0 + static_cast<double>(p1.size()) + 2.0 * static_cast<double>(p2.size());
            calls += 1 + p1.size() + p2.size();
            phases.push_back(std::move(p1));
            phases.push_back(std::move(p2));
        }
        done.assign(phases.size(), 0);
        const double unit_us = avg_us * static_cast<double>(calls) / units;
        lu0_ps = to_ps(unit_us * 2.0 / 3.0);
        fwd_ps = bdiv_ps = to_ps(unit_us);
        bmod_ps = to_ps(unit_us * 2.0);
    }
    task_t root() const { return {0, 0, producer}; }
    unsigned children(const task_t& t) const {
        return t.k == producer ? static_cast<unsigned>(phases[t.phase].size()) : 0;
    }
    task_t child(const task_t& t, unsigned i) const { return {t.phase, i, phases[t.phase][i]}; }
    ps_t cost(const task_t& t) const {
        switch (t.k) {
        case producer: return t.phase % 2 == 0 ? lu0_ps : 0;
        case fwd: return fwd_ps;
        case bdiv: return bdiv_ps;
        case bmod: return bmod_ps;
        }
        return 0;
    }
    unsigned depth(const task_t& t) const { return t.k == producer ? 0 : 1; }
    bool finished(const task_t& t, task_t& next) {
        if (++done[t.phase] != phases[t.phase].size() + 1) return false;
        if (t.phase + 1 >= phases.size()) return false;
        next = {t.phase + 1, 0, producer};
        return true;
    }
};

// ---------------------------------------------------------------- queues

/// A growable ring buffer (capacity a power of two); index 0 is the oldest.
template <class T>
class ring {
public:
    explicit ring(std::size_t capacity = 64) : buf_(std::bit_ceil(std::max<std::size_t>(capacity, 2))) {}
    std::size_t size() const noexcept { return size_; }
    void push_back(const T& t) {
        if (size_ == buf_.size()) grow();
        buf_[(head_ + size_) & (buf_.size() - 1)] = t;
        ++size_;
    }
    T pop_back() noexcept { return buf_[(head_ + --size_) & (buf_.size() - 1)]; }
    T pop_front() noexcept {
        T t = buf_[head_];
        head_ = (head_ + 1) & (buf_.size() - 1);
        --size_;
        return t;
    }

private:
    void grow() {
        std::vector<T> b(buf_.size() * 2);
        for (std::size_t i = 0; i < size_; ++i) b[i] = buf_[(head_ + i) & (buf_.size() - 1)];
        buf_ = std::move(b);
        head_ = 0;
    }
    std::vector<T> buf_;
    std::size_t head_ = 0, size_ = 0;
};

/// A min-heap of (time, worker), ties to the lower worker.
class event_heap {
public:
    struct entry {
        ps_t time;
        unsigned worker;
        bool operator<(const entry& o) const noexcept { return time != o.time ? time < o.time : worker < o.worker; }
    };
    bool empty() const noexcept { return h_.empty(); }
    const entry& top() const noexcept { return h_.front(); }
    void push(entry e) {
        h_.push_back(e);
        std::size_t i = h_.size() - 1;
        while (i > 0) {
            const std::size_t p = (i - 1) / 2;
            if (!(h_[i] < h_[p])) break;
            std::swap(h_[i], h_[p]);
            i = p;
        }
    }
    entry pop() {
        const entry e = h_.front();
        h_.front() = h_.back();
        h_.pop_back();
        sift_down(0);
        return e;
    }

private:
    void sift_down(std::size_t i) noexcept {
        const std::size_t n = h_.size();
        for (;;) {
            std::size_t m = i;
            const std::size_t l = 2 * i + 1, r = l + 1;
            if (l < n && h_[l] < h_[m]) m = l;
            if (r < n && h_[r] < h_[m]) m = r;
            if (m == i) return;
            std::swap(h_[i], h_[m]);
            i = m;
        }
    }
    std::vector<entry> h_;
};

// ---------------------------------------------------------------- the engine

struct common_setup {
    hierarchy machine;
    hierarchy select;
    steal_plan plan;
    std::vector<unsigned> latency_class;  ///< per machine level
    ps_t latency[3];
    double bytes_per_ps[3];
    ps_t spawn_ps;
    unsigned payload;
};

template <class W>
class engine {
public:
    using task_t = typename W::task_t;

    engine(const config& cfg, const common_setup& s, W& w) : cfg_(cfg), s_(s), w_(w), sample_rng_{cfg.seed ^ 0x5eed} {
        const unsigned n = s.machine.workers();
        workers_.resize(n);
        for (unsigned i = 0; i < n; ++i) {
            worker& k = workers_[i];
            k.q = ring<task_t>(cfg.mode == queue_mode::bounded ? cfg.queue_bound : 64);
            k.sel = victim_selector(s.select, s.plan, i);
            k.rng = splitmix{cfg.seed * 0x100000001B3ull + i};
            k.stack.reserve(64);
        }
        levels_.resize(s.machine.num_levels());
        for (unsigned l = 0; l < s.machine.num_levels(); ++l)
            levels_[l].name = std::string(weft::ext::to_string(s.machine.at(l).kind));
        if (cfg.trace_attempts) r_.first_attempts.resize(n);
    }

    result run() {
        const auto t0 = std::chrono::steady_clock::now();
        // Worker 0 starts with the root; everyone else starts stealing at time 0.
        live_ = 1;
        ++r_.roots;
        start_task(workers_[0], w_.root());
        for (unsigned i = 0; i < workers_.size(); ++i) heap_.push({workers_[i].clock, i});
        for (unsigned i = 1; i < workers_.size(); ++i) become_idle(workers_[i]);
        while (!done_ && !heap_.empty()) {
            const auto e = heap_.pop();
            ++r_.events;
            step(e.worker);
        }
        if (!done_) throw std::logic_error("weft-schedsim: no worker can run, but tasks remain");
        finish_stats();
        r_.sim_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return r_;
    }

private:
    struct frame {
        task_t t;
        unsigned next, n;
    };
    enum class phase : std::uint8_t { normal, inspect, receive, parked };
    struct worker {
        ring<task_t> q;
        std::size_t pub = 0;  ///< the first pub tasks of q are public
        std::vector<frame> stack;
        ps_t clock = 0;
        victim_selector sel;
        splitmix rng{0};
        ps_t lock_free_at = 0;
        phase ph = phase::normal;
        bool idle = false;
        bool hungry = false;  ///< a thief found the public part empty (on-demand release)
        ps_t idle_since = 0;
        ps_t idle_total = 0;
        unsigned victim = 0, sel_level = 0, mlevel = 0;  ///< the steal in progress
        std::vector<task_t> loot;
        unsigned attempts_traced = 0;
    };

    void become_idle(worker& k) {
        if (!k.idle) {
            k.idle = true;
            k.idle_since = k.clock;
        }
    }
    void become_busy(worker& k) {
        if (k.idle) {
            k.idle = false;
            k.idle_total += k.clock - k.idle_since;
        }
    }

    void check(const worker& k) {
        r_.max_queue = std::max<std::uint64_t>(r_.max_queue, k.q.size());
        r_.max_public = std::max<std::uint64_t>(r_.max_public, k.pub);
        if (!cfg_.checked) return;
        if (cfg_.mode == queue_mode::bounded && k.q.size() > cfg_.queue_bound)
            throw std::logic_error("weft-schedsim: a queue exceeds its bound");
        if (k.pub > cfg_.queue_public || k.pub > k.q.size())
            throw std::logic_error("weft-schedsim: a public part exceeds its bound");
    }

    /// The owner's release rule (after every owner push or pop).
    void release(worker& k) {
        const std::size_t priv = k.q.size() - k.pub;
        if (priv < 2) return;
        if (!cfg_.release_on_demand) {
            if (k.pub == 0) k.pub = std::min<std::size_t>(std::max<std::size_t>(1, priv / 2), cfg_.queue_public);
            return;
        }
        const bool full = cfg_.mode == queue_mode::bounded && priv >= cfg_.queue_bound - cfg_.queue_public;
        if (!full && !(k.pub == 0 && k.hungry)) return;
        k.hungry = false;
        if (k.pub >= cfg_.queue_public) return;
        k.pub += std::min<std::size_t>(priv / 2, cfg_.queue_public - k.pub);
    }

    void put(worker& k, const task_t& t) {
        k.q.push_back(t);
        release(k);
        check(k);
        if (++puts_ % 1000 == 0) {
            const auto& v = workers_[sample_rng_() % workers_.size()];
            ++r_.occ_samples;
            occ_sum_ += v.q.size();
            r_.occ_max = std::max<std::uint64_t>(r_.occ_max, v.q.size());
        }
    }

    task_t take_own(worker& k) {
        const bool from_public = k.q.size() == k.pub;
        task_t t = k.q.pop_back();
        if (from_public) --k.pub;
        release(k);
        check(k);
        return t;
    }

    void start_task(worker& k, const task_t& t) {
        ++r_.tasks;
        k.clock += w_.cost(t);
        k.stack.push_back({t, 0, w_.children(t)});
    }

    /// The top frame has spawned everything: it finishes.
    void finish_top(worker& k) {
        const task_t t = k.stack.back().t;
        k.stack.pop_back();
        task_t next;
        if (w_.finished(t, next)) {
            ++live_;
            ++r_.roots;
            start_task(k, next);
        }
        if (--live_ == 0) {
            done_ = true;
            r_.makespan_ps = k.clock;
        }
    }

    bool serialize(const worker& k, const task_t& child) const {
        switch (cfg_.mode) {
        case queue_mode::bounded: return k.q.size() >= cfg_.queue_bound;
        case queue_mode::unbounded: return false;
        case queue_mode::depth: return w_.depth(child) >= cfg_.depth_cutoff;
        }
        return false;
    }

    void step(unsigned self) {
        worker& k = workers_[self];
        for (;;) {
            if (!act(self, k)) return;  // parked or finished
            if (done_) return;
            if (!heap_.empty() && k.clock > heap_.top().time) {
                heap_.push({k.clock, self});
                return;
            }
        }
    }

    /// One action at k.clock; false when the worker leaves the schedule.
    bool act(unsigned self, worker& k) {
        switch (k.ph) {
        case phase::inspect: inspect(k); return true;
        case phase::receive: receive(k); return true;
        case phase::parked: return false;
        case phase::normal: break;
        }
        if (!k.stack.empty()) {
            frame& f = k.stack.back();
            if (f.next == f.n) {
                finish_top(k);
                return true;
            }
            const task_t child = w_.child(f.t, f.next++);
            ++live_;
            if (serialize(k, child)) {
                ++r_.serialized;
                start_task(k, child);  // f is not used after this
            } else {
                ++r_.queued;
                put(k, child);
                k.clock += s_.spawn_ps;
            }
            return true;
        }
        if (k.q.size() > 0) {
            start_task(k, take_own(k));
            return true;
        }
        become_idle(k);
        if (k.sel.round_length() == 0) {
            k.ph = phase::parked;  // alone in every domain it may steal from
            return false;
        }
        attempt(self, k);
        return true;
    }

    void attempt(unsigned self, worker& k) {
        const auto c = k.sel.next(k.rng);
        const unsigned ml = s_.machine.common_level(self, c.victim);
        const unsigned cls = s_.latency_class[ml];
        if (cfg_.trace_attempts && k.attempts_traced < cfg_.trace_attempts) {
            r_.first_attempts[self].push_back({c.victim, ml});
            ++k.attempts_traced;
        }
        worker& v = workers_[c.victim];
        if (v.pub == 0) {
            v.hungry = true;
            ++levels_[ml].failed;
            k.clock += s_.latency[cls];
            return;
        }
        const ps_t s = std::max(k.clock, v.lock_free_at);
        v.lock_free_at = s + s_.latency[cls];
        k.victim = c.victim;
        k.sel_level = c.level;
        k.mlevel = ml;
        k.ph = phase::inspect;
        k.clock = s;
    }

    void inspect(worker& k) {
        worker& v = workers_[k.victim];
        const unsigned cls = s_.latency_class[k.mlevel];
        const unsigned n = s_.plan.chunks[k.sel_level].chunk(v.pub);
        k.clock += s_.latency[cls];
        if (n == 0) {
            v.hungry = true;
            ++levels_[k.mlevel].failed;
            k.ph = phase::normal;
            return;
        }
        k.loot.clear();
        for (unsigned i = 0; i < n; ++i) k.loot.push_back(v.q.pop_front());
        v.pub -= n;
        check(v);
        ++levels_[k.mlevel].steals;
        levels_[k.mlevel].moved += n;
        k.clock += static_cast<ps_t>(std::llround(static_cast<double>(n) * s_.payload / s_.bytes_per_ps[cls]));
        k.ph = phase::receive;
    }

    void receive(worker& k) {
        k.ph = phase::normal;
        k.sel.reset();
        become_busy(k);
        for (std::size_t i = 1; i < k.loot.size(); ++i) put(k, k.loot[i]);
        start_task(k, k.loot.front());
    }

    void finish_stats() {
        const ps_t end = r_.makespan_ps;
        double idle = 0;
        for (worker& k : workers_) {
            if (k.idle) idle += static_cast<double>(end > k.idle_since ? end - k.idle_since : 0);
            idle += static_cast<double>(k.idle_total);
            if (!k.stack.empty() || k.q.size() != 0 || k.ph == phase::receive)
                throw std::logic_error("weft-schedsim: work left in a queue at the end");
        }
        r_.idle_fraction = end == 0 ? 0 : idle / (static_cast<double>(end) * static_cast<double>(workers_.size()));
        r_.occ_mean = r_.occ_samples ? static_cast<double>(occ_sum_) / static_cast<double>(r_.occ_samples) : 0;
        for (const auto& l : levels_) {
            r_.steals += l.steals;
            r_.failed += l.failed;
            r_.moved += l.moved;
        }
        r_.levels = levels_;
        if (r_.tasks != r_.queued + r_.serialized + r_.roots)
            throw std::logic_error("weft-schedsim: tasks executed != tasks created");
    }

    const config& cfg_;
    const common_setup& s_;
    W& w_;
    std::vector<worker> workers_;
    event_heap heap_;
    splitmix sample_rng_;
    std::vector<level_stats> levels_;
    result r_;
    std::uint64_t live_ = 0, puts_ = 0, occ_sum_ = 0;
    bool done_ = false;
};

unsigned latency_class_of(level_kind k) {
    switch (k) {
    case level_kind::node: return 1;
    case level_kind::cluster: return 2;
    default: return 0;
    }
}

/// Nesting rank of a level kind (for intra-X victim policies).
int rank_of(level_kind k) {
    switch (k) {
    case level_kind::core: return 0;
    case level_kind::cache: return 1;
    case level_kind::numa: return 2;
    case level_kind::socket: return 3;
    case level_kind::node: return 4;
    case level_kind::cluster: return 5;
    case level_kind::group: return 3;
    }
    return 5;
}

common_setup make_setup(const config& cfg, workload_costs costs) {
    common_setup s;
    try {
        s.machine = hierarchy::parse_machine(cfg.machine, "--machine");
    } catch (const weft::bad_option& e) {
        throw bad_option_error{std::string("weft-schedsim: ") + e.what()};
    }
    std::string attempts = cfg.attempts;
    if (cfg.victims == "random") {
        s.select = hierarchy::flat(s.machine.workers());
    } else if (cfg.victims == "hvs" || cfg.victims == "intra-node" || cfg.victims == "intra-socket") {
        s.select = s.machine;
        if (cfg.victims != "hvs") {
            if (attempts != "auto")
                bad("--attempts", attempts, "'auto' with --victims=" + cfg.victims + " (it sets the attempts)");
            const int widest = cfg.victims == "intra-node" ? rank_of(level_kind::node) : rank_of(level_kind::socket);
            attempts.clear();
            for (unsigned l = 0; l < s.select.num_levels(); ++l)
                attempts += std::string(l ? "," : "") + (rank_of(s.select.at(l).kind) > widest ? "0" : "auto");
        }
    } else {
        bad("--victims", cfg.victims, "hvs, random, intra-node or intra-socket");
    }
    // "hcs" is the seed's defaults; a single rule applies to every level.
    std::string chunks = cfg.chunks == "hcs" ? "auto" : cfg.chunks;
    if (chunks != "auto" && chunks.find(',') == std::string::npos) {
        const std::string one = chunks;
        for (unsigned l = 1; l < s.select.num_levels(); ++l) chunks += "," + one;
    }
    try {
        s.plan = steal_plan::parse(s.select, attempts, chunks);
    } catch (const weft::bad_option& e) {
        const std::string what = e.what();
        const bool on_attempts = what.find("steal-attempts") != std::string::npos;
        if (on_attempts && s.machine.workers() == 1) {
            // One worker: nothing to steal from anyway.
            s.plan = steal_plan::defaults(s.select);
        } else {
            throw bad_option_error{std::string("weft-schedsim: ") + (on_attempts ? "--attempts/--victims" : "--chunks") +
                                   " (as the runtime's option) " + what +
                                   (on_attempts ? "" : "; or 'hcs' (the seed's defaults)")};
        }
    }
    for (unsigned l = 0; l < s.machine.num_levels(); ++l) s.latency_class.push_back(latency_class_of(s.machine.at(l).kind));
    for (int c = 0; c < 3; ++c) {
        s.latency[c] = to_ps(cfg.latency_us[c]);
        s.bytes_per_ps[c] = cfg.bandwidth_gbs[c] / 1000.0;
    }
    s.spawn_ps = to_ps(cfg.spawn_us >= 0 ? cfg.spawn_us : costs.spawn_us);
    s.payload = costs.payload;
    return s;
}

template <class W>
result run_engine(const config& cfg, workload_costs costs, W& w) {
    const common_setup s = make_setup(cfg, costs);
    engine<W> e(cfg, s, w);
    result r = e.run();
    r.workers = s.machine.workers();
    r.hierarchy = s.select.describe();
    return r;
}

double task_us(const config& cfg, double dflt) { return cfg.task_us >= 0 ? cfg.task_us : dflt; }

}  // namespace

result simulate_once(const config& cfg) {
    if (cfg.queue_bound == 0) bad("--queue-bound", "0", "a count from 1");
    if (cfg.queue_public == 0) bad("--queue-public", "0", "a count from 1");
    if (cfg.mode == queue_mode::bounded && cfg.queue_public > cfg.queue_bound)
        bad("--queue-public", std::to_string(cfg.queue_public), "at most --queue-bound");
    const std::string_view spec = cfg.workload;
    const auto colon = spec.find(':');
    const std::string_view name = spec.substr(0, colon);
    const std::string_view arg = colon == std::string_view::npos ? std::string_view{} : spec.substr(colon + 1);
    constexpr std::string_view accepted = "fib:N (N <= 60), nqueens:N (1..20), uts:TREE (T1XS, T3XS, T1, T1L, T2L, "
                                          "T3, T3L) or sparselu:NB (1..2000)";
    unsigned n = 0;
    result r;
    if (name == "fib") {
        if (!parse_unsigned(arg, n) || n > 60) bad("--workload", spec, accepted);
        fib_workload w{n, to_ps(task_us(cfg, 1.163))};
        r = run_engine(cfg, {1.163, 0.172, 4}, w);
    } else if (name == "nqueens") {
        if (!parse_unsigned(arg, n) || n < 1 || n > 20) bad("--workload", spec, accepted);
        nqueens_workload w{n, to_ps(task_us(cfg, 23.27))};
        r = run_engine(cfg, {23.27, 0.174, 80}, w);
    } else if (name == "uts") {
        const ut::tree* t = ut::find_tree(arg);
        if (t == nullptr) bad("--workload", spec, accepted);
        const std::string_view tn = t->name;
        const bool t3 = t->type == ut::tree_type::binomial;
        const workload_costs c = tn == "T2L" ? workload_costs{0.114, 0.161, 32}
                                 : t3        ? workload_costs{0.075, 0.159, 32}
                                             : workload_costs{0.089, 0.162, 32};
        uts_workload w{t, to_ps(task_us(cfg, c.task_us))};
        r = run_engine(cfg, c, w);
    } else if (name == "sparselu") {
        if (!parse_unsigned(arg, n) || n < 1 || n > 2000) bad("--workload", spec, accepted);
        sparselu_workload w(n, task_us(cfg, 6.281));
        r = run_engine(cfg, {6.281, 0.166, 24}, w);
    } else {
        bad("--workload", spec, accepted);
    }
    if (cfg.t1_us > 0) {
        r.t1_us = cfg.t1_us;
        r.speedup = cfg.t1_us / r.makespan_us();
    }
    return r;
}

result simulate(const config& cfg) {
    if (cfg.t1_us > 0) return simulate_once(cfg);
    const unsigned workers = hierarchy::machine_workers(cfg.machine);
    config one = cfg;
    one.machine = "cores:1";
    one.victims = "random";
    one.chunks = "auto";
    one.attempts = "auto";
    one.trace_attempts = 0;
    result r;
    if (workers == 1) {
        r = simulate_once(cfg);  // validates cfg's options too
        r.t1_us = r.makespan_us();
    } else {
        r = simulate_once(cfg);
        r.t1_us = simulate_once(one).makespan_us();
    }
    r.speedup = r.t1_us / r.makespan_us();
    return r;
}

namespace {
std::string mode_string(const config& cfg) {
    switch (cfg.mode) {
    case queue_mode::bounded: return "bounded";
    case queue_mode::unbounded: return "unbounded";
    case queue_mode::depth: return "depth:" + std::to_string(cfg.depth_cutoff);
    }
    return "?";
}
std::string fmt(const char* f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}
}  // namespace

std::string result_line(const config& cfg, const result& r) {
    std::string s = "weft-schedsim machine=" + cfg.machine + " workers=" + std::to_string(r.workers) +
                    " workload=" + cfg.workload + " victims=" + cfg.victims + " chunks=" + cfg.chunks +
                    " attempts=" + cfg.attempts + " mode=" + mode_string(cfg) +
                    " queue_bound=" + std::to_string(cfg.queue_bound) + " queue_public=" + std::to_string(cfg.queue_public) +
                    " release=" + (cfg.release_on_demand ? "on-demand" : "eager") +
                    " seed=" + std::to_string(cfg.seed) + " latencies=" + fmt("%g", cfg.latency_us[0]) + "," +
                    fmt("%g", cfg.latency_us[1]) + "," + fmt("%g", cfg.latency_us[2]) +
                    " makespan_us=" + fmt("%.3f", r.makespan_us()) + " t1_us=" + fmt("%.3f", r.t1_us) +
                    " speedup=" + fmt("%.2f", r.speedup) + " tasks=" + std::to_string(r.tasks) +
                    " queued=" + std::to_string(r.queued) + " serialized=" + std::to_string(r.serialized) +
                    " steals=" + std::to_string(r.steals) + " failed=" + std::to_string(r.failed) +
                    " moved=" + std::to_string(r.moved);
    for (const auto& l : r.levels)
        s += " steals_" + l.name + "=" + std::to_string(l.steals) + " failed_" + l.name + "=" + std::to_string(l.failed) +
             " moved_" + l.name + "=" + std::to_string(l.moved);
    s += " occ_mean=" + fmt("%.2f", r.occ_mean) + " occ_max=" + std::to_string(r.occ_max) +
         " occ_samples=" + std::to_string(r.occ_samples) + " idle=" + fmt("%.4f", r.idle_fraction) +
         " events=" + std::to_string(r.events) + " sim_seconds=" + fmt("%.2f", r.sim_seconds);
    return s;
}

std::string result_table(const config& cfg, const result& r) {
    std::string s;
    s += "  machine      " + cfg.machine + " (" + std::to_string(r.workers) + " workers); victims " + cfg.victims +
         " on " + r.hierarchy + "; chunks " + cfg.chunks + "; attempts " + cfg.attempts + "\n";
    s += "  workload     " + cfg.workload + "; queues " + mode_string(cfg) + " (bound " + std::to_string(cfg.queue_bound) +
         ", public " + std::to_string(cfg.queue_public) + ")\n";
    s += "  makespan     " + fmt("%.1f", r.makespan_us()) + " us; T1 " + fmt("%.1f", r.t1_us) + " us; speedup " +
         fmt("%.2f", r.speedup) + "; idle " + fmt("%.1f", 100 * r.idle_fraction) + " %\n";
    s += "  tasks        " + std::to_string(r.tasks) + " (queued " + std::to_string(r.queued) + ", serialized " +
         std::to_string(r.serialized) + fmt(" = %.1f %%", r.tasks ? 100.0 * static_cast<double>(r.serialized) /
                                                                        static_cast<double>(r.tasks)
                                                                  : 0.0) +
         ")\n";
    s += "  level        steals     failed      moved\n";
    for (const auto& l : r.levels) {
        char b[128];
        std::snprintf(b, sizeof b, "  %-10s %8llu %10llu %10llu\n", l.name.c_str(),
                      static_cast<unsigned long long>(l.steals), static_cast<unsigned long long>(l.failed),
                      static_cast<unsigned long long>(l.moved));
        s += b;
    }
    s += "  queue occ.   mean " + fmt("%.2f", r.occ_mean) + ", max " + std::to_string(r.occ_max) + " (" +
         std::to_string(r.occ_samples) + " samples, one every 1000 puts)\n";
    s += "  simulation   " + std::to_string(r.events) + " events, " + fmt("%.2f", r.sim_seconds) + " s\n";
    return s;
}

}  // namespace weft::schedsim
