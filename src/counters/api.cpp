// The public counters API (include/weft/counters/counters.hpp): counter sets, queries,
// the list of counters and the scheduler totals of seed 000's equations.
#include "registry.hpp"

#include <weft/platform/cycle_clock.hpp>
#include <weft/sched/detail/introspect.hpp>

#include <algorithm>
#include <iomanip>
#include <ostream>

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

struct counter_set::impl {
    const weft::detail::scheduler* owner = nullptr;
    std::uint64_t generation = 0;  ///< the owner's: a later runtime may reuse its address
    std::vector<detail::entry> entries;
    std::vector<std::string> names;
    detail::reading base;
};

counter_set::counter_set() = default;
counter_set::~counter_set() = default;
counter_set::counter_set(counter_set&&) noexcept = default;
counter_set& counter_set::operator=(counter_set&&) noexcept = default;

std::size_t counter_set::size() const noexcept { return impl_ ? impl_->entries.size() : 0; }

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
}  // namespace

std::vector<counter_value> counter_set::evaluate(bool reset) {
    if (!impl_) return {};
    auto& s = owner_of(*impl_);
    detail::reading now = detail::read_all(s);
    detail::read_hardware_into(impl_->entries, now);
    const double ns = weft::detail::cycle_clock_ns_per_tick();
    const auto info = weft::detail::read_info(s);
    const bool timing = info.timing || info.tracing;
    std::vector<counter_value> out;
    out.reserve(impl_->entries.size());
    for (const auto& e : impl_->entries)
        out.push_back(detail::compute(e, now, impl_->base, ns, info.num_workers, timing));
    if (reset) impl_->base = std::move(now);
    return out;
}

void counter_set::reset() {
    if (!impl_) return;
    auto& s = owner_of(*impl_);
    detail::reading now = detail::read_all(s);
    detail::read_hardware_into(impl_->entries, now);
    impl_->base = std::move(now);
}

counter_set query(std::string_view pattern) { return query(std::vector<std::string>{std::string(pattern)}); }

counter_set query(std::initializer_list<std::string_view> patterns) {
    return query(std::vector<std::string>(patterns.begin(), patterns.end()));
}

counter_set query(const std::vector<std::string>& patterns) {
    auto& s = detail::running();
    counter_set set;
    set.impl_ = std::make_unique<counter_set::impl>();
    set.impl_->owner = &s;
    const auto info = weft::detail::read_info(s);
    set.impl_->generation = info.generation;
    for (const auto& p : patterns)
        for (auto& e : detail::resolve(p, info.num_workers)) {
            if (std::find(set.impl_->names.begin(), set.impl_->names.end(), e.name) != set.impl_->names.end()) continue;
            detail::open_entry(s, e);
            set.impl_->names.push_back(e.name);
            set.impl_->entries.push_back(std::move(e));
        }
    set.reset();
    return set;
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
