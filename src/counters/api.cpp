// The public counters API (include/weft/counters/counters.hpp): counter sets, queries,
// the list of counters and the scheduler totals of seed 000's equations.
#include "registry.hpp"

#include <weft/platform/cycle_clock.hpp>
#include <weft/sched/detail/introspect.hpp>

#include <algorithm>
#include <atomic>
#include <iomanip>
#include <ostream>
#include <utility>

namespace weft::counters {
namespace detail {

using weft::detail::scheduler;

scheduler& running() {
    scheduler* s = weft::detail::active_scheduler();
    if (s == nullptr)
        throw runtime_state_error("weft: counters need a running runtime (start one with weft::run() or a "
                                  "weft::runtime object)");
    return *s;
}

}  // namespace detail

// ---------------------------------------------------------------------------------
// Public API.

namespace detail {
namespace {

// Set by the distributed layer while parcels flow (set_remote_source); read by any thread
// that queries, evaluates, resets or destroys a counter_set.
std::atomic<const remote_source*> remote_hook{nullptr};

const remote_source* remote() noexcept {
    return remote_hook.load(std::memory_order_acquire);  // acquire: pairs with set_remote_source
}

}  // namespace

void set_remote_source(const remote_source* source) noexcept {
    remote_hook.store(source, std::memory_order_release);  // release: the source is built before it is seen
}

}  // namespace detail

// A set holds this locality's entries and, per other locality it spans, that locality's
// handle: there a set of its own instances is kept (made, evaluated, reset and closed
// through the remote source). `order` says where each name's value comes from.
struct counter_set::impl {
    const weft::detail::scheduler* owner = nullptr;
    std::uint64_t generation = 0;  ///< the owner's: a later runtime may reuse its address
    std::vector<detail::entry> entries;
    std::vector<std::string> names;
    detail::reading base;
    std::vector<detail::remote_ref> remotes;
    std::vector<std::size_t> remote_sizes;  ///< instances per remote set
    /// Per name: {part, index}, part 0 this locality's entries, part p > 0 remotes[p - 1].
    std::vector<std::pair<std::size_t, std::size_t>> order;

    impl() = default;
    impl(const impl&) = delete;
    impl& operator=(const impl&) = delete;
    // Forgets the remote sets (best effort, no wait) while the runtime that made them runs;
    // a runtime that stopped has freed them on every locality.
    ~impl() {
        if (remotes.empty()) return;
        const detail::remote_source* r = detail::remote();
        const weft::detail::scheduler* s = weft::detail::active_scheduler();
        if (r == nullptr || s != owner || weft::detail::read_info(*s).generation != generation) return;
        r->close(remotes);
    }
};

counter_set::counter_set() = default;
counter_set::~counter_set() = default;
counter_set::counter_set(counter_set&&) noexcept = default;
counter_set& counter_set::operator=(counter_set&&) noexcept = default;

std::size_t counter_set::size() const noexcept { return impl_ ? impl_->names.size() : 0; }

const std::vector<std::string>& counter_set::names() const noexcept {
    static const std::vector<std::string> none;
    return impl_ ? impl_->names : none;
}

namespace {
weft::detail::scheduler& owner_of(counter_set::impl& i) {
    auto& s = detail::running();
    if (&s != i.owner || weft::detail::read_info(s).generation != i.generation)
        throw runtime_state_error("weft: this counter_set was made for a runtime that has stopped; query again");
    return s;
}

const detail::remote_source& remote_or_throw(std::uint32_t locality) {
    const detail::remote_source* r = detail::remote();
    if (r == nullptr)
        throw runtime_state_error("weft: the counters of " + detail::locality_name(locality) +
                                  " cannot be reached: the distributed runtime is not running");
    return *r;
}

// The remote sets' values, checked against their sizes (a locality answers for its own set).
std::vector<std::vector<counter_value>> evaluate_remotes(const counter_set::impl& i, bool reset) {
    auto values = remote_or_throw(i.remotes.front().locality).evaluate(i.remotes, reset);
    if (values.size() != i.remotes.size())
        throw error("weft: the remote counters answered for " + std::to_string(values.size()) + " sets of " +
                    std::to_string(i.remotes.size()));
    for (std::size_t p = 0; p < values.size(); ++p)
        if (values[p].size() != i.remote_sizes[p])
            throw error("weft: " + detail::locality_name(i.remotes[p].locality) + " evaluated " +
                        std::to_string(values[p].size()) + " counters of " + std::to_string(i.remote_sizes[p]));
    return values;
}
}  // namespace

std::vector<counter_value> counter_set::evaluate(bool reset) {
    if (!impl_) return {};
    auto& s = owner_of(*impl_);
    detail::reading now = detail::read_all(s);
    detail::read_hardware_into(impl_->entries, now);
    const double ns = weft::detail::cycle_clock_ns_per_tick();
    const auto info = weft::detail::read_info(s);
    const bool timing = info.timing || info.tracing;
    std::vector<counter_value> mine;
    mine.reserve(impl_->entries.size());
    for (const auto& e : impl_->entries)
        mine.push_back(detail::compute(e, now, impl_->base, ns, info.num_workers, timing));
    if (impl_->remotes.empty()) {
        if (reset) impl_->base = std::move(now);
        return mine;
    }
    // The other localities' values travel while this task waits (suspended, not its worker).
    auto theirs = evaluate_remotes(*impl_, reset);
    if (reset) impl_->base = std::move(now);
    std::vector<counter_value> out;
    out.reserve(impl_->order.size());
    for (const auto& [part, index] : impl_->order)
        out.push_back(std::move(part == 0 ? mine[index] : theirs[part - 1][index]));
    return out;
}

void counter_set::reset() {
    if (!impl_) return;
    auto& s = owner_of(*impl_);
    detail::reading now = detail::read_all(s);
    detail::read_hardware_into(impl_->entries, now);
    if (!impl_->remotes.empty()) remote_or_throw(impl_->remotes.front().locality).reset(impl_->remotes);
    impl_->base = std::move(now);
}

counter_set query(std::string_view pattern) { return query(std::vector<std::string>{std::string(pattern)}); }

counter_set query(std::initializer_list<std::string_view> patterns) {
    return query(std::vector<std::string>(patterns.begin(), patterns.end()));
}

namespace detail {

local_query query_here(const std::vector<std::string>& patterns) {
    auto& s = running();
    local_query q;
    q.set.impl_ = std::make_unique<counter_set::impl>();
    counter_set::impl& i = *q.set.impl_;
    i.owner = &s;
    const auto info = weft::detail::read_info(s);
    i.generation = info.generation;
    for (const auto& p : patterns) {
        std::size_t n = 0;
        auto entries = resolve(p, info.num_workers);
        q.matched.push_back(entries.size());
        for (auto& e : entries) {
            if (std::find(i.names.begin(), i.names.end(), e.name) != i.names.end()) continue;
            open_entry(s, e);
            i.names.push_back(e.name);
            i.entries.push_back(std::move(e));
            ++n;
        }
        q.per_pattern.push_back(n);
    }
    for (std::size_t k = 0; k < i.entries.size(); ++k) i.order.emplace_back(0, k);
    q.set.reset();
    return q;
}

}  // namespace detail

// The names come per pattern: this locality's instances, then each other locality's in
// increasing locality order. Every locality resolves its own; they are asked together.
counter_set query(const std::vector<std::string>& patterns) {
    detail::local_query q = detail::query_here(patterns);
    // Which patterns go to which other locality (resolve() has checked them all).
    std::vector<detail::remote_request> requests;
    std::vector<std::vector<std::size_t>> sent;  // per request: the patterns' indices
    for (std::size_t p = 0; p < patterns.size(); ++p)
        for (const std::uint32_t k : detail::other_localities(patterns[p])) {
            auto it = std::find_if(requests.begin(), requests.end(),
                                   [k](const detail::remote_request& r) { return r.locality == k; });
            if (it == requests.end()) {
                it = requests.insert(std::upper_bound(requests.begin(), requests.end(), k,
                                                      [](std::uint32_t a, const detail::remote_request& r) {
                                                          return a < r.locality;
                                                      }),
                                     detail::remote_request{k, {}});
                sent.insert(sent.begin() + (it - requests.begin()), std::vector<std::size_t>{});
            }
            it->patterns.push_back(patterns[p]);
            sent[static_cast<std::size_t>(it - requests.begin())].push_back(p);
        }
    if (requests.empty()) return std::move(q.set);
    const detail::remote_source& source = remote_or_throw(requests.front().locality);
    std::vector<detail::remote_opened> opened = source.open(requests);
    counter_set::impl& i = *q.set.impl_;
    // From here on the set owns what was opened (its destructor closes it).
    std::vector<std::vector<std::vector<std::string>>> by_pattern(patterns.size());  // [pattern][part]
    std::vector<std::size_t> matched = q.matched;
    for (std::size_t r = 0; r < opened.size() && r < requests.size(); ++r) {
        for (std::size_t j = 0; j < opened[r].matched.size() && j < sent[r].size(); ++j)
            matched[sent[r][j]] += opened[r].matched[j];
        if (opened[r].ref.handle == 0) continue;  // nothing of that locality's
        std::size_t size = 0;
        for (const auto& names : opened[r].names) size += names.size();
        i.remotes.push_back(opened[r].ref);
        i.remote_sizes.push_back(size);
        for (std::size_t j = 0; j < opened[r].names.size() && j < sent[r].size(); ++j) {
            auto& parts = by_pattern[sent[r][j]];
            parts.resize(i.remotes.size());
            parts.back() = std::move(opened[r].names[j]);
        }
    }
    // Interleave: per pattern, this locality's names, then each remote part's.
    std::vector<std::string> names;
    std::vector<std::pair<std::size_t, std::size_t>> order;
    std::vector<std::size_t> next(i.remotes.size() + 1, 0);
    for (std::size_t p = 0; p < patterns.size(); ++p) {
        for (std::size_t n = 0; n < q.per_pattern[p]; ++n, ++next[0]) {
            names.push_back(i.names[next[0]]);
            order.emplace_back(0, next[0]);
        }
        for (std::size_t part = 0; part < by_pattern[p].size(); ++part)
            for (auto& name : by_pattern[p][part]) {
                names.push_back(std::move(name));
                order.emplace_back(part + 1, next[part + 1]++);
            }
        // A wildcard that matched nowhere (e.g. a worker number no locality has). Where a
        // locality denotes a name, it says so itself or resolve() did here.
        if (matched[p] == 0 && detail::has_wildcard(patterns[p]))
            throw bad_counter_name("weft: counter '" + patterns[p] + "': matches no counter on any locality");
    }
    i.names = std::move(names);
    i.order = std::move(order);
    return std::move(q.set);
}

std::vector<counter_info> list() {
    const auto* s = weft::detail::active_scheduler();
    return detail::all_counters(s != nullptr ? weft::detail::read_info(*s).num_workers : 1);
}

void print_list(std::ostream& os) {
    const auto all = list();
    std::size_t width = 0;
    for (const auto& i : all) width = std::max(width, i.name.size());
    os << "weft counters (" << all.size() << " instances; /arithmetics/OP@A,B derives new ones, OP one of add, "
       << "subtract, multiply, divide, per-core):\n";
    for (const auto& i : all)
        os << "  " << std::left << std::setw(static_cast<int>(width)) << i.name << "  [" << i.unit << "]  " << i.help
           << '\n';
}

bool timing_enabled() noexcept {
    const auto* s = weft::detail::active_scheduler();
    if (s == nullptr) return false;
    const auto info = weft::detail::read_info(*s);
    return info.timing || info.tracing;
}

scheduler_totals snapshot() {
    auto& s = detail::running();
    const detail::reading r = detail::read_all(s);
    const double ns = weft::detail::cycle_clock_ns_per_tick();
    scheduler_totals t;
    t.func_ns = r.total.func_ticks * ns;
    t.exec_ns = r.total.exec_ticks * ns;
    t.tasks = r.total.tasks;
    t.phases = r.total.phases;
    t.cores = weft::detail::read_info(s).num_workers;
    return t;
}

scheduler_totals operator-(const scheduler_totals& b, const scheduler_totals& a) noexcept {
    return {b.func_ns - a.func_ns, b.exec_ns - a.exec_ns, b.tasks - a.tasks, b.phases - a.phases, b.cores};
}

double idle_rate(const scheduler_totals& t) noexcept {
    return detail::ratio(std::max(0.0, t.func_ns - t.exec_ns), t.func_ns);
}
double task_duration(const scheduler_totals& t) noexcept { return detail::ratio(t.exec_ns, t.tasks); }
double task_overhead(const scheduler_totals& t) noexcept {
    return detail::ratio(std::max(0.0, t.func_ns - t.exec_ns), t.tasks);
}
double management_overhead_per_core(const scheduler_totals& t) noexcept {
    return detail::ratio(std::max(0.0, t.func_ns - t.exec_ns), t.cores);
}
double wait_time_per_task(const scheduler_totals& t, double td1_ns) noexcept { return task_duration(t) - td1_ns; }
double wait_time_per_core(const scheduler_totals& t, double td1_ns) noexcept {
    return detail::ratio(wait_time_per_task(t, td1_ns) * t.tasks, t.cores);
}
double tm_plus_wt(const scheduler_totals& t, double td1_ns) noexcept {
    return management_overhead_per_core(t) + wait_time_per_core(t, td1_ns);
}

}  // namespace weft::counters
