// Readings: every worker's counts at one moment (from sched's read_sample), and a
// counter's value over the interval between two readings.
#include "registry.hpp"

#include <weft/platform/cycle_clock.hpp>
#include <weft/platform/stack.hpp>
#include <weft/threads/detail/block_pool.hpp>
#include <weft/sched/detail/introspect.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <string>
#include <utility>

namespace weft::counters::detail {
namespace {

using weft::detail::scheduler;

constexpr std::string_view timing_off_reason = "task timing is off (--weft:counter-timing=off)";

std::atomic<network_stats (*)() noexcept> network_source{nullptr};

std::pair<std::uint64_t, std::uint64_t> statm_bytes() {
    std::ifstream f("/proc/self/statm");
    std::uint64_t size = 0, resident = 0;
    f >> size >> resident;
    const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    return {resident * page, size * page};
}

}  // namespace

void set_network_source(network_stats (*read)() noexcept) noexcept { network_source.store(read); }

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
    sub(handed_to, b.handed_to);
    sub(stacks_mapped, b.stacks_mapped);
    sub(stacks_unmapped, b.stacks_unmapped);
    sub(stacks_trimmed, b.stacks_trimmed);
    sub(parcels_sent, b.parcels_sent);
    sub(parcels_received, b.parcels_received);
    sub(parcels_rejected, b.parcels_rejected);
    sub(bytes_sent, b.bytes_sent);
    sub(bytes_received, b.bytes_received);
    sub(messages_sent, b.messages_sent);
    sub(messages_received, b.messages_received);
    sub(agas_resolves, b.agas_resolves);
    sub(agas_cache_hits, b.agas_cache_hits);
    sub(agas_cache_misses, b.agas_cache_misses);
    sub(agas_migrations, b.agas_migrations);
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
    handed_to += b.handed_to;
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
        x.handed_to = static_cast<double>(w.handoffs_received);
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
    t.n_terminated = cached + static_cast<double>(smp.contexts_pooled);
    t.stacks_mapped = static_cast<double>(smp.stacks_mapped);
    t.stacks_unmapped = static_cast<double>(smp.stacks_unmapped);
    t.stacks_trimmed = static_cast<double>(smp.stacks_trimmed);
    const auto stacks = static_cast<double>(smp.contexts_allocated);
    t.stacks = stacks;
    t.stack_bytes = static_cast<double>(smp.context_stack_bytes) + stacks * static_cast<double>(weft::detail::page_size());
    t.block_bytes = static_cast<double>(weft::detail::task_block_pool_bytes());
    const std::uint64_t start_ticks = weft::detail::read_info(s).start_ticks;
    t.uptime_ticks = r.ticks > start_ticks ? static_cast<double>(r.ticks - start_ticks) : 0.0;
    const auto [resident, virt] = statm_bytes();
    t.resident_bytes = static_cast<double>(resident);
    t.virtual_bytes = static_cast<double>(virt);
    if (auto* const read = network_source.load(); read != nullptr) {
        const network_stats net = read();
        t.parcels_sent = net.parcels_sent;
        t.parcels_received = net.parcels_received;
        t.parcels_rejected = net.parcels_rejected;
        t.bytes_sent = net.bytes_sent;
        t.bytes_received = net.bytes_received;
        t.messages_sent = net.messages_sent;
        t.messages_received = net.messages_received;
        t.agas_resolves = net.agas_resolves;
        t.agas_cache_hits = net.agas_cache_hits;
        t.agas_cache_misses = net.agas_cache_misses;
        t.agas_migrations = net.agas_migrations;
    }
    return r;
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

}  // namespace weft::counters::detail
