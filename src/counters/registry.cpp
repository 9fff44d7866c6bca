// The counter registry: names, definitions (seed 000 §5.2 and §6.3; digest 000 §2), name
// matching, and evaluation over intervals (see include/weft/counters/counters.hpp).
#include "counters/registry.hpp"

#include "counters/perf_events.hpp"

#include <weft/platform/cycle_clock.hpp>
#include <weft/platform/stack.hpp>
#include <weft/sched/detail/core.hpp>
#include <weft/sched/detail/introspect.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <limits>
#include <mutex>
#include <ostream>
#include <sstream>

namespace weft::counters {
namespace detail {

double ratio(double a, double b) noexcept { return b > 0 ? a / b : 0.0; }

namespace {

using weft::detail::scheduler;

constexpr std::string_view timing_off_reason = "task timing is off (--weft:counter-timing=off)";

// ---------------------------------------------------------------------------------
// Definitions. `d` is the change over the interval, `c` the current reading (for
// instantaneous counters), `ns` nanoseconds per tick.

struct definition {
    std::string_view object;  // "threads", "runtime"
    std::string_view path;    // after the instance, e.g. "time/average"
    std::string_view unit;
    std::string_view help;
    bool per_worker;          // worker-thread#N instances as well as total
    bool timed;               // needs --weft:counter-timing
    bool instantaneous;       // ignores resets
    double (*fn)(const raw& d, const raw& c, double ns);
};

// Σt_func (func_ticks) covers the whole scheduling loop, idle time included, as HPX's
// tfunc does (digest 000 §1.14); Σt_exec (exec_ticks) covers application task phases.
double overhead_ticks(const raw& d) { return d.func_ticks > d.exec_ticks ? d.func_ticks - d.exec_ticks : 0.0; }

const definition definitions[] = {
    {"threads", "idle-rate", "%",
     "Eq.1 of seed 000: (Σt_func - Σt_exec) / Σt_func, the share of the scheduling loop's time not spent in tasks",
     true, true, false, [](const raw& d, const raw&, double) { return 100.0 * ratio(overhead_ticks(d), d.func_ticks); }},
    {"threads", "time/average", "ns", "Eq.2: t_d = Σt_exec / n_t, the average time a task spends running", true, true,
     false, [](const raw& d, const raw&, double ns) { return ratio(d.exec_ticks * ns, d.tasks); }},
    {"threads", "time/average-overhead", "ns",
     "Eq.3: t_o = (Σt_func - Σt_exec) / n_t, the scheduling-loop time per task that is not task time", true, true,
     false, [](const raw& d, const raw&, double ns) { return ratio(overhead_ticks(d) * ns, d.tasks); }},
    {"threads", "time/cumulative", "ns", "Σt_exec: time spent inside application tasks", true, true, false,
     [](const raw& d, const raw&, double ns) { return d.exec_ticks * ns; }},
    {"threads", "time/cumulative-overhead", "ns",
     "Σt_func - Σt_exec: scheduling-loop time outside application tasks (management and idling)", true, true, false,
     [](const raw& d, const raw&, double ns) { return overhead_ticks(d) * ns; }},
    {"threads", "time/overall", "ns", "Σt_func: time spent in the scheduling loop, tasks included", true, true, false,
     [](const raw& d, const raw&, double ns) { return d.func_ticks * ns; }},
    {"threads", "count/cumulative", "tasks", "n_t: application tasks finished (runtime-internal ones excluded)", true,
     false, false, [](const raw& d, const raw&, double) { return d.tasks; }},
    {"threads", "count/cumulative-phases", "phases",
     "task phases: each time the loop started or resumed a task (a task run inline by a waiting one is part of "
     "its phase)",
     true, false, false, [](const raw& d, const raw&, double) { return d.phases; }},
    {"threads", "time/average-phase", "ns", "Σt_exec / phases: the average phase duration", true, true, false,
     [](const raw& d, const raw&, double ns) { return ratio(d.exec_ticks * ns, d.phases); }},
    {"threads", "time/average-phase-overhead", "ns", "(Σt_func - Σt_exec) / phases: the overhead per phase", true,
     true, false, [](const raw& d, const raw&, double ns) { return ratio(overhead_ticks(d) * ns, d.phases); }},
    {"threads", "count/cumulative-internal", "tasks",
     "runtime-internal helper tasks finished (kept out of n_t and Σt_exec, as seed 000 §5.3 wished)", true, false,
     false, [](const raw& d, const raw&, double) { return d.internal_tasks; }},
    {"threads", "time/cumulative-internal", "ns", "time spent in runtime-internal helper tasks", true, true, false,
     [](const raw& d, const raw&, double ns) { return d.internal_ticks * ns; }},
    {"threads", "count/pending-accesses", "accesses",
     "times the worker looked for work in its own queues (HPX: its pending queue)", true, false, false,
     [](const raw& d, const raw&, double) { return d.pending_accesses; }},
    {"threads", "count/pending-misses", "misses", "times that look found its own queues empty", true, false, false,
     [](const raw& d, const raw&, double) { return d.pending_misses; }},
    {"threads", "wait-time/pending", "ns",
     "average time a resumed task waited in a queue before the loop ran it again", true, true, false,
     [](const raw& d, const raw&, double ns) { return ratio(d.wait_pending_ticks * ns, d.wait_pending_samples); }},
    {"threads", "wait-time/staged", "ns",
     "average time a new task waited in a queue before the loop started it (one spawn in 64 sampled; tasks "
     "taken back and run inline by their waiting parent are not counted)",
     true, true, false,
     [](const raw& d, const raw&, double ns) { return ratio(d.wait_staged_ticks * ns, d.wait_staged_samples); }},
    {"threads", "count/stolen-from-pending", "tasks", "resumed tasks other workers stole from this one's queues",
     true, false, false, [](const raw& d, const raw&, double) { return d.stolen_from_pending; }},
    {"threads", "count/stolen-from-staged", "tasks", "new tasks other workers stole from this one's queues", true,
     false, false, [](const raw& d, const raw&, double) { return d.stolen_from_staged; }},
    {"threads", "count/stolen-to-pending", "tasks", "resumed tasks this worker stole from others", true, false, false,
     [](const raw& d, const raw&, double) { return d.stolen_to_pending; }},
    {"threads", "count/stolen-to-staged", "tasks", "new tasks this worker stole from others", true, false, false,
     [](const raw& d, const raw&, double) { return d.stolen_to_staged; }},
    {"threads", "queue/length", "tasks", "tasks queued now (the worker's queues; total adds shared queues)", true,
     false, true, [](const raw&, const raw& c, double) { return c.queue_length; }},
    {"threads", "count/instantaneous/all", "tasks", "tasks that exist now: spawned and not finished", false, false,
     true, [](const raw&, const raw& c, double) { return c.n_all; }},
    {"threads", "count/instantaneous/active", "tasks",
     "tasks running now (a task waiting for a child it runs inline counts as running)", false, false, true,
     [](const raw&, const raw& c, double) { return c.n_active; }},
    {"threads", "count/instantaneous/pending", "tasks", "resumed tasks queued to run again", false, false, true,
     [](const raw&, const raw& c, double) { return c.n_pending; }},
    {"threads", "count/instantaneous/suspended", "tasks", "tasks suspended on a future or an LCO", false, false, true,
     [](const raw&, const raw& c, double) { return c.n_suspended; }},
    {"threads", "count/instantaneous/staged", "tasks", "new tasks not started yet", false, false, true,
     [](const raw&, const raw& c, double) { return c.n_staged; }},
    {"threads", "count/instantaneous/terminated", "tasks",
     "stacks of terminated tasks kept for reuse (HPX's terminated list; weft frees task descriptors at once)", false,
     false, true, [](const raw&, const raw& c, double) { return c.n_terminated; }},
    {"threads", "count/stacks", "stacks", "task stacks mapped now (running, suspended or cached)", false, false, true,
     [](const raw&, const raw& c, double) { return c.stacks; }},
    {"threads", "memory/stacks", "bytes", "bytes of task stacks mapped now, guard pages included", false, false, true,
     [](const raw&, const raw& c, double) { return c.stack_bytes; }},
    {"threads", "memory/task-blocks", "bytes", "bytes the task-block pool has taken from the system", false, false,
     true, [](const raw&, const raw& c, double) { return c.block_bytes; }},
    {"runtime", "uptime", "s", "seconds since the runtime started", false, false, true,
     [](const raw&, const raw& c, double ns) { return c.uptime_ticks * ns * 1e-9; }},
    {"runtime", "memory/resident", "bytes", "resident memory of the process (/proc/self/statm)", false, false, true,
     [](const raw&, const raw& c, double) { return c.resident_bytes; }},
    {"runtime", "memory/virtual", "bytes", "virtual memory of the process (/proc/self/statm)", false, false, true,
     [](const raw&, const raw& c, double) { return c.virtual_bytes; }},
};

constexpr std::string_view arithmetic_ops[] = {"add", "subtract", "multiply", "divide", "per-core"};

std::string instance_name(std::string_view object, int worker, std::string_view path) {
    std::string s = "/";
    s += object;
    s += "{locality#0/";
    s += worker < 0 ? std::string("total") : "worker-thread#" + std::to_string(worker);
    s += "}/";
    s += path;
    return s;
}

// ---------------------------------------------------------------------------------
// Hardware counters: one perf_event counter per kind and worker, opened on first use.

struct hardware_store {
    std::mutex m;
    const scheduler* owner = nullptr;
    std::uint64_t generation = 0;
    // [kind][worker]
    std::vector<std::vector<weft::detail::perf_event_counter>> counters;
    std::vector<std::vector<bool>> tried;
};
hardware_store& hw() {
    static hardware_store s;
    return s;
}

void open_hardware(const scheduler& s, std::size_t kind) {
    auto& h = hw();
    std::lock_guard lock(h.m);
    const auto kinds = weft::detail::perf_event_kinds();
    const auto info = weft::detail::read_info(s);
    if (h.owner != &s || h.generation != info.generation) {
        h.counters.clear();
        h.tried.clear();
        h.owner = &s;
        h.generation = info.generation;
    }
    if (h.counters.size() != kinds.size()) {
        h.counters.resize(kinds.size());
        h.tried.resize(kinds.size());
    }
    auto& row = h.counters[kind];
    if (!row.empty()) return;
    for (unsigned w = 0; w < info.num_workers; ++w) {
        const int tid = weft::detail::worker_os_thread_id(s, w);
        if (tid != 0) row.emplace_back(tid, kinds[kind]);
        else row.emplace_back();
    }
}

// The reading of hardware counter `kind` on worker `w` (-1: all), or the reason there is none.
std::optional<double> read_hardware(std::size_t kind, int w, std::string& why) {
    auto& h = hw();
    std::lock_guard lock(h.m);
    if (kind >= h.counters.size() || h.counters[kind].empty()) {
        why = "not opened";
        return std::nullopt;
    }
    auto& row = h.counters[kind];
    double sum = 0;
    for (std::size_t i = 0; i < row.size(); ++i) {
        if (w >= 0 && static_cast<std::size_t>(w) != i) continue;
        const auto v = row[i].read();
        if (!v) {
            why = row[i].unavailable_reason();
            return std::nullopt;
        }
        sum += static_cast<double>(*v);
    }
    return sum;
}

std::pair<std::uint64_t, std::uint64_t> statm_bytes() {
    std::ifstream f("/proc/self/statm");
    std::uint64_t size = 0, resident = 0;
    f >> size >> resident;
    const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    return {resident * page, size * page};
}

// ---------------------------------------------------------------------------------
// Glob matching and name suggestions.

bool glob(std::string_view p, std::string_view s) {
    std::size_t pi = 0, si = 0, star = std::string_view::npos, mark = 0;
    while (si < s.size()) {
        if (pi < p.size() && (p[pi] == '?' || p[pi] == s[si])) {
            ++pi;
            ++si;
        } else if (pi < p.size() && p[pi] == '*') {
            star = pi++;
            mark = si;
        } else if (star != std::string_view::npos) {
            pi = star + 1;
            si = ++mark;
        } else {
            return false;
        }
    }
    while (pi < p.size() && p[pi] == '*') ++pi;
    return pi == p.size();
}

bool has_wildcard(std::string_view s) { return s.find_first_of("*?") != std::string_view::npos; }

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0u : 1u)});
            diag = up;
        }
    }
    return row[b.size()];
}

std::string closest(std::string_view name, const std::vector<counter_info>& all) {
    std::vector<std::pair<std::size_t, const std::string*>> scored;
    for (const auto& i : all) scored.emplace_back(edit_distance(name, i.name), &i.name);
    std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string s;
    for (std::size_t i = 0; i < scored.size() && i < 3; ++i) s += (i ? ", " : "") + *scored[i].second;
    return s;
}

[[noreturn]] void bad_name(std::string_view name, const std::string& why) {
    throw bad_counter_name("weft: counter '" + std::string(name) + "': " + why);
}

// Checks the shape /OBJECT{locality#L/INSTANCE}/COUNTER (or /OBJECT/COUNTER) and returns
// the name with the instance filled in (total when absent).
std::string normalize(std::string_view name, unsigned workers) {
    const std::string expected =
        "expected /OBJECT{locality#0/INSTANCE}/COUNTER with INSTANCE 'total' or 'worker-thread#N', e.g. "
        "/threads{locality#0/total}/idle-rate (see --weft:list-counters)";
    if (name.empty() || name[0] != '/') bad_name(name, "a counter name starts with '/'; " + expected);
    const std::size_t brace = name.find('{');
    const std::size_t slash = name.find('/', 1);
    if (brace == std::string_view::npos || (slash != std::string_view::npos && slash < brace)) {
        if (slash == std::string_view::npos || slash + 1 >= name.size()) bad_name(name, expected);
        if (name.find('}') != std::string_view::npos) bad_name(name, "unbalanced braces; " + expected);
        return std::string(name.substr(0, slash)) + "{locality#0/total}" + std::string(name.substr(slash));
    }
    const std::size_t close = name.find('}', brace);
    if (close == std::string_view::npos) bad_name(name, "'{' without '}'; " + expected);
    if (brace == 1) bad_name(name, "no object before '{'; " + expected);
    if (close + 1 >= name.size() || name[close + 1] != '/' || close + 2 >= name.size())
        bad_name(name, "no counter after '}'; " + expected);
    const std::string_view inside = name.substr(brace + 1, close - brace - 1);
    const std::size_t sep = inside.find('/');
    if (sep == std::string_view::npos) bad_name(name, "the instance needs locality#L/INSTANCE; " + expected);
    const std::string_view loc = inside.substr(0, sep);
    const std::string_view inst = inside.substr(sep + 1);
    if (!loc.starts_with("locality#")) bad_name(name, "'" + std::string(loc) + "' is not locality#L; " + expected);
    if (!has_wildcard(loc) && loc != "locality#0")
        bad_name(name, "this run has one locality, locality#0 ('" + std::string(loc) +
                           "' will exist in distributed runs)");
    if (!has_wildcard(inst)) {
        if (inst.starts_with("worker-thread#")) {
            const std::string_view num = inst.substr(14);
            unsigned long v = 0;
            bool ok = !num.empty() && num.size() < 8 && (num.size() == 1 || num[0] != '0');
            for (char ch : num) ok = ok && ch >= '0' && ch <= '9';
            if (ok) v = std::stoul(std::string(num));
            if (!ok)
                bad_name(name, "'" + std::string(inst) +
                                   "' is not worker-thread#N with a number N (no leading zeros); " + expected);
            if (v >= workers)
                bad_name(name, "this run has " + std::to_string(workers) + " worker(s): worker-thread#0 to worker-thread#" +
                                   std::to_string(workers - 1));
        } else if (inst != "total") {
            bad_name(name, "unknown instance '" + std::string(inst) + "'; " + expected);
        }
    }
    return std::string(name);
}

}  // namespace

// ---------------------------------------------------------------------------------
// Readings.

raw& raw::operator-=(const raw& b) noexcept {
    auto sub = [](double& x, double y) { x = x > y ? x - y : 0.0; };
    sub(func_ticks, b.func_ticks);
    sub(exec_ticks, b.exec_ticks);
    sub(tasks, b.tasks);
    sub(phases, b.phases);
    sub(internal_tasks, b.internal_tasks);
    sub(internal_ticks, b.internal_ticks);
    sub(pending_accesses, b.pending_accesses);
    sub(pending_misses, b.pending_misses);
    sub(wait_staged_ticks, b.wait_staged_ticks);
    sub(wait_staged_samples, b.wait_staged_samples);
    sub(wait_pending_ticks, b.wait_pending_ticks);
    sub(wait_pending_samples, b.wait_pending_samples);
    sub(stolen_to_staged, b.stolen_to_staged);
    sub(stolen_to_pending, b.stolen_to_pending);
    sub(stolen_from_staged, b.stolen_from_staged);
    sub(stolen_from_pending, b.stolen_from_pending);
    return *this;
}

raw& raw::operator+=(const raw& b) noexcept {
    func_ticks += b.func_ticks;
    exec_ticks += b.exec_ticks;
    tasks += b.tasks;
    phases += b.phases;
    internal_tasks += b.internal_tasks;
    internal_ticks += b.internal_ticks;
    pending_accesses += b.pending_accesses;
    pending_misses += b.pending_misses;
    wait_staged_ticks += b.wait_staged_ticks;
    wait_staged_samples += b.wait_staged_samples;
    wait_pending_ticks += b.wait_pending_ticks;
    wait_pending_samples += b.wait_pending_samples;
    stolen_to_staged += b.stolen_to_staged;
    stolen_to_pending += b.stolen_to_pending;
    stolen_from_staged += b.stolen_from_staged;
    stolen_from_pending += b.stolen_from_pending;
    queue_length += b.queue_length;
    return *this;
}

reading read_all(const scheduler& s) {
    reading r;
    r.ticks = weft::detail::cycle_clock_now();
    r.when = std::chrono::steady_clock::now();
    // Read in sched, outflows before inflows (see read_sample), then summed here.
    const weft::detail::scheduler_sample smp = weft::detail::read_sample(s, r.ticks);
    const std::size_t n = smp.workers.size();
    r.workers.resize(n);
    double finished = 0, suspends = 0, resumed_runs = 0, started = 0, cached = 0;
    double resumes = static_cast<double>(smp.external_resumes);
    double spawned = static_cast<double>(smp.external_spawned);
    for (std::size_t i = 0; i < n; ++i) {
        const weft::detail::worker_sample& w = smp.workers[i];
        raw& x = r.workers[i];
        const auto fin = static_cast<double>(w.finished);
        finished += fin;
        suspends += static_cast<double>(w.suspends);
        x.internal_tasks = static_cast<double>(w.internal_tasks);
        x.tasks = fin > x.internal_tasks ? fin - x.internal_tasks : 0.0;
        x.exec_ticks = static_cast<double>(w.exec_ticks);
        x.internal_ticks = static_cast<double>(w.internal_ticks);
        x.phases = static_cast<double>(w.phases);
        const std::uint64_t upto = w.loop_end != 0 ? w.loop_end : r.ticks;
        x.func_ticks = w.loop_start != 0 && upto > w.loop_start ? static_cast<double>(upto - w.loop_start) : 0.0;
        x.pending_accesses = static_cast<double>(w.pending_accesses);
        x.pending_misses = static_cast<double>(w.pending_misses);
        x.wait_staged_ticks = static_cast<double>(w.wait_staged_ticks);
        x.wait_staged_samples = static_cast<double>(w.wait_staged_samples);
        x.wait_pending_ticks = static_cast<double>(w.wait_pending_ticks);
        x.wait_pending_samples = static_cast<double>(w.wait_pending_samples);
        x.stolen_to_staged = static_cast<double>(w.stolen_to_staged);
        x.stolen_to_pending = static_cast<double>(w.stolen_to_pending);
        x.stolen_from_staged = static_cast<double>(w.stolen_from_staged);
        x.stolen_from_pending = static_cast<double>(w.stolen_from_pending);
        x.queue_length = static_cast<double>(w.queue_length);
        cached += static_cast<double>(w.cached_contexts);
        resumed_runs += static_cast<double>(w.resumed_runs);
        started += static_cast<double>(w.started);
        resumes += static_cast<double>(w.resumes);
        spawned += static_cast<double>(w.spawned);
    }

    raw& t = r.total;
    for (const raw& x : r.workers) t += x;
    t.queue_length += static_cast<double>(smp.shared_queue_length);
    const auto nonneg = [](double v) { return v > 0 ? v : 0.0; };
    t.n_all = nonneg(spawned - finished);
    t.n_staged = nonneg(spawned - started);
    t.n_suspended = nonneg(resumes > suspends ? 0.0 : suspends - resumes);
    t.n_pending = nonneg(resumes - resumed_runs);
    t.n_active = nonneg(started + resumed_runs - finished - suspends);
    t.n_terminated = cached;
    const auto stacks = static_cast<double>(smp.contexts_allocated);
    t.stacks = stacks;
    t.stack_bytes = static_cast<double>(smp.context_stack_bytes) + stacks * static_cast<double>(weft::detail::page_size());
    t.block_bytes = static_cast<double>(weft::detail::task_block_pool_bytes());
    const std::uint64_t start_ticks = weft::detail::read_info(s).start_ticks;
    t.uptime_ticks = r.ticks > start_ticks ? static_cast<double>(r.ticks - start_ticks) : 0.0;
    const auto [resident, virt] = statm_bytes();
    t.resident_bytes = static_cast<double>(resident);
    t.virtual_bytes = static_cast<double>(virt);
    return r;
}

// ---------------------------------------------------------------------------------
// Names.

std::vector<counter_info> all_counters(unsigned workers) {
    std::vector<counter_info> v;
    for (const auto& d : definitions) {
        v.push_back({instance_name(d.object, -1, d.path), std::string(d.unit), std::string(d.help)});
        if (d.per_worker)
            for (unsigned w = 0; w < workers; ++w)
                v.push_back({instance_name(d.object, static_cast<int>(w), d.path), std::string(d.unit),
                             std::string(d.help)});
    }
    for (const auto& k : weft::detail::perf_event_kinds()) {
        v.push_back({instance_name("hardware", -1, k.name), k.unit, k.help});
        for (unsigned w = 0; w < workers; ++w)
            v.push_back({instance_name("hardware", static_cast<int>(w), k.name), k.unit, k.help});
    }
    return v;
}

namespace {

// Parses "/hardware{...}/KIND" or "/OBJECT{...}/PATH" (normalized, exact) into an entry.
bool resolve_exact(const std::string& name, unsigned workers, entry& e) {
    const std::size_t brace = name.find('{');
    const std::size_t close = name.find('}');
    const std::string_view object = std::string_view(name).substr(1, brace - 1);
    const std::string_view inst = std::string_view(name).substr(brace + 1, close - brace - 1).substr(11);
    const std::string_view path = std::string_view(name).substr(close + 2);
    int worker = -1;
    if (inst != "total") worker = std::stoi(std::string(inst.substr(14)));
    if (worker >= static_cast<int>(workers)) return false;
    e.name = name;
    e.worker = worker;
    if (object == "hardware") {
        const auto kinds = weft::detail::perf_event_kinds();
        for (std::size_t k = 0; k < kinds.size(); ++k)
            if (path == kinds[k].name) {
                e.kind = entry::hardware;
                e.index = k;
                e.unit = kinds[k].unit;
                return true;
            }
        return false;
    }
    for (std::size_t k = 0; k < std::size(definitions); ++k) {
        const auto& d = definitions[k];
        if (d.object == object && d.path == path && (d.per_worker || worker < 0)) {
            e.kind = entry::basic;
            e.index = k;
            e.unit = d.unit;
            return true;
        }
    }
    return false;
}

std::vector<std::string> split_args(std::string_view s) {
    std::vector<std::string> out;
    int depth = 0;
    std::string cur;
    for (char ch : s) {
        if (ch == '{') ++depth;
        if (ch == '}') --depth;
        if (ch == ',' && depth == 0) {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += ch;
        }
    }
    out.push_back(cur);
    return out;
}

entry resolve_one(std::string_view name, unsigned workers, const std::vector<counter_info>& all);

entry resolve_arithmetic(std::string_view name, unsigned workers, const std::vector<counter_info>& all) {
    const std::string_view rest = name.substr(std::string_view("/arithmetics/").size());
    const std::size_t at = rest.find('@');
    std::string ops;
    for (auto o : arithmetic_ops) ops += (ops.empty() ? "" : ", ") + std::string(o);
    if (at == std::string_view::npos)
        bad_name(name, "a derived counter is /arithmetics/OP@A,B (OP one of " + ops + "; per-core takes one name)");
    const std::string_view op = rest.substr(0, at);
    std::size_t opi = std::size(arithmetic_ops);
    for (std::size_t i = 0; i < std::size(arithmetic_ops); ++i)
        if (arithmetic_ops[i] == op) opi = i;
    if (opi == std::size(arithmetic_ops)) bad_name(name, "unknown operation '" + std::string(op) + "'; one of " + ops);
    const auto args = split_args(rest.substr(at + 1));
    const std::size_t want = op == "per-core" ? 1 : 2;
    if (args.size() != want)
        bad_name(name, std::string(op) + " takes " + std::to_string(want) + " counter name(s), got " +
                           std::to_string(args.size()));
    entry e;
    e.kind = entry::arithmetic;
    e.index = opi;
    e.name = std::string(name);
    for (const auto& a : args) {
        if (has_wildcard(a)) bad_name(name, "the operands of a derived counter cannot have wildcards");
        e.operands.push_back(resolve_one(a, workers, all));
    }
    e.unit = op == "per-core" ? e.operands[0].unit + "/core"
             : op == "divide" ? e.operands[0].unit + "/" + e.operands[1].unit
             : op == "multiply" ? e.operands[0].unit + "*" + e.operands[1].unit
                                : e.operands[0].unit;
    return e;
}

entry resolve_one(std::string_view name, unsigned workers, const std::vector<counter_info>& all) {
    if (name.starts_with("/arithmetics/")) return resolve_arithmetic(name, workers, all);
    const std::string n = normalize(name, workers);
    entry e;
    if (!resolve_exact(n, workers, e))
        bad_name(name, "no such counter; the closest are: " + closest(n, all) + " (see --weft:list-counters)");
    return e;
}

}  // namespace

std::vector<entry> resolve(std::string_view pattern, unsigned workers) {
    const auto all = all_counters(workers);
    if (pattern.starts_with("/arithmetics/")) return {resolve_arithmetic(pattern, workers, all)};
    if (!has_wildcard(pattern)) return {resolve_one(pattern, workers, all)};
    // A pattern without an instance means the total one ("/threads/*"), unless its
    // wildcards span the instance too ("/*" matches every counter).
    const bool raw_glob = pattern.find('{') == std::string_view::npos;
    const std::string n = raw_glob && pattern.size() >= 2 && pattern[1] == '*' ? std::string(pattern)
                                                                                : normalize(pattern, workers);
    std::vector<entry> out;
    for (const auto& i : all) {
        if (!glob(n, i.name)) continue;
        entry e;
        if (resolve_exact(i.name, workers, e)) out.push_back(std::move(e));
    }
    if (out.empty())
        bad_name(pattern, "matches no counter; the closest names are: " + closest(n, all) +
                              " (see --weft:list-counters)");
    return out;
}

void open_entry(const scheduler& s, const entry& e) {
    if (e.kind == entry::hardware) open_hardware(s, e.index);
    for (const auto& o : e.operands) open_entry(s, o);
}

void forget_hardware(const scheduler* s) {
    auto& h = hw();
    std::lock_guard lock(h.m);
    if (h.owner == s) {
        h.counters.clear();
        h.tried.clear();
        h.owner = nullptr;
    }
}

void read_hardware_into(const std::vector<entry>& entries, reading& r) {
    for (const auto& e : entries) {
        if (e.kind == entry::hardware) {
            const auto key = std::make_pair(e.index, e.worker);
            if (r.hardware.count(key)) continue;
            std::string why;
            const auto v = read_hardware(e.index, e.worker, why);
            r.hardware[key] = v ? hardware_value{*v, {}} : hardware_value{0, why};
        }
        read_hardware_into(e.operands, r);
    }
}

counter_value compute(const entry& e, const reading& now, const reading& base, double ns, unsigned workers,
                      bool timing) {
    counter_value v;
    v.name = e.name;
    v.unit = e.unit;
    v.interval_s = std::chrono::duration<double>(now.when - base.when).count();
    switch (e.kind) {
    case entry::basic: {
        const auto& d = definitions[e.index];
        if (d.timed && !timing) {
            v.available = false;
            v.reason = std::string(timing_off_reason);
            return v;
        }
        const raw& c = e.worker < 0 ? now.total : now.workers[static_cast<std::size_t>(e.worker)];
        raw delta = c;
        if (!d.instantaneous) delta -= e.worker < 0 ? base.total : base.workers[static_cast<std::size_t>(e.worker)];
        v.value = d.fn(delta, c, ns);
        return v;
    }
    case entry::hardware: {
        const auto key = std::make_pair(e.index, e.worker);
        const auto a = now.hardware.find(key);
        const auto b = base.hardware.find(key);
        if (a == now.hardware.end() || !a->second.why.empty()) {
            v.available = false;
            v.reason = a == now.hardware.end() ? "not read" : a->second.why;
            return v;
        }
        const double b0 = b != base.hardware.end() && b->second.why.empty() ? b->second.value : 0.0;
        v.value = a->second.value > b0 ? a->second.value - b0 : 0.0;
        return v;
    }
    case entry::arithmetic: {
        std::vector<counter_value> ops;
        for (const auto& o : e.operands) ops.push_back(compute(o, now, base, ns, workers, timing));
        for (const auto& o : ops)
            if (!o.available) {
                v.available = false;
                v.reason = o.name + ": " + o.reason;
                return v;
            }
        const std::string_view op = arithmetic_ops[e.index];
        if (op == "add") v.value = ops[0].value + ops[1].value;
        else if (op == "subtract") v.value = ops[0].value - ops[1].value;
        else if (op == "multiply") v.value = ops[0].value * ops[1].value;
        else if (op == "divide") {
            if (ops[1].value == 0) {
                v.available = false;
                v.reason = "division by zero: " + ops[1].name + " is 0";
            } else {
                v.value = ops[0].value / ops[1].value;
            }
        } else v.value = ops[0].value / std::max(1u, workers);
        return v;
    }
    }
    return v;
}

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
