// The counter definitions: name, unit, help and formula of each /threads, /runtime and
// network (/parcels, /data, /messages) counter (seed 000 §5.2 and §6.3; digest 000 §2), and
// how an instance's name is spelt (on which locality).
#include "registry.hpp"

#include <weft/config/config.hpp>
#include <weft/counters/detail/service.hpp>

#include <atomic>
#include <string>

namespace weft::counters::detail {

double ratio(double a, double b) noexcept { return b > 0 ? a / b : 0.0; }

namespace {

// (here << 32) | count, in one word so that a reader never sees one without the other.
std::atomic<std::uint64_t> locality_word{1};

// Σt_func (func_ticks) covers the whole scheduling loop, idle time included, as HPX's
// tfunc does (digest 000 §1.14); Σt_exec (exec_ticks) covers application task phases.
double overhead_ticks(const raw& d) { return d.func_ticks > d.exec_ticks ? d.func_ticks - d.exec_ticks : 0.0; }

const definition definition_table[] = {
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
    {"threads", "count/handed-to", "tasks",
     "readied tasks (dataflow, continuations, resumptions) another worker handed straight to this one while it "
     "spun idle (--weft:hand-off)",
     true, false, false, [](const raw& d, const raw&, double) { return d.handed_to; }},
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
     "stacks of terminated tasks kept for reuse, in the workers' caches and the runtime-wide pool (HPX's "
     "terminated list; weft frees task descriptors at once)",
     false,
     false, true, [](const raw&, const raw& c, double) { return c.n_terminated; }},
    {"threads", "count/stacks", "stacks", "task stacks mapped now (running, suspended or cached)", false, false, true,
     [](const raw&, const raw& c, double) { return c.stacks; }},
    {"threads", "memory/stacks", "bytes", "bytes of task stacks mapped now, guard pages included", false, false, true,
     [](const raw&, const raw& c, double) { return c.stack_bytes; }},
    {"threads", "count/stacks-mapped", "stacks",
     "task stacks mapped (mmap): pooled stacks are reused, so about the peak of stacks in use, not one per "
     "suspension",
     false, false, false, [](const raw& d, const raw&, double) { return d.stacks_mapped; }},
    {"threads", "count/stacks-unmapped", "stacks",
     "task stacks unmapped: a task's own bigger stack once left, pooled stacks beyond the decaying peak "
     "(--weft:stack-trim), the rest at stop",
     false, false, false, [](const raw& d, const raw&, double) { return d.stacks_unmapped; }},
    {"threads", "count/stacks-trimmed", "stacks",
     "pooled stacks unused for a trim period whose memory went back to the system (madvise; they stay mapped)",
     false, false, false, [](const raw& d, const raw&, double) { return d.stacks_trimmed; }},
    {"threads", "memory/task-blocks", "bytes", "bytes the task-block pool has taken from the system", false, false,
     true, [](const raw&, const raw& c, double) { return c.block_bytes; }},
    {"parcels", "count/sent", "parcels", "parcels this locality sent (several may travel in one message)", false,
     false, false, [](const raw& d, const raw&, double) { return d.parcels_sent; }},
    {"parcels", "count/received", "parcels", "parcels this locality received and decoded", false, false, false,
     [](const raw& d, const raw&, double) { return d.parcels_received; }},
    {"parcels", "count/rejected", "parcels", "malformed parcels this locality received and rejected (never run)",
     false, false, false, [](const raw& d, const raw&, double) { return d.parcels_rejected; }},
    {"data", "count/sent", "bytes", "bytes of the parcels this locality sent, zero-copy chunks included", false,
     false, false, [](const raw& d, const raw&, double) { return d.bytes_sent; }},
    {"data", "count/received", "bytes", "bytes of the parcels this locality received, zero-copy chunks included",
     false, false, false, [](const raw& d, const raw&, double) { return d.bytes_received; }},
    {"messages", "count/sent", "messages",
     "transport (MPI) messages this locality sent; parcels/messages shows how many parcels one carries", false,
     false, false, [](const raw& d, const raw&, double) { return d.messages_sent; }},
    {"messages", "count/received", "messages", "transport (MPI) messages this locality received", false, false,
     false, [](const raw& d, const raw&, double) { return d.messages_received; }},
    {"agas", "count/resolve", "resolves",
     "global ids this locality resolved (each call to a component, get_locality): most need no message", false,
     false, false, [](const raw& d, const raw&, double) { return d.agas_resolves; }},
    {"agas", "count/cache-hits", "resolves",
     "migratable objects of other homes found in this locality's cache of where they live", false, false, false,
     [](const raw& d, const raw&, double) { return d.agas_cache_hits; }},
    {"agas", "count/cache-misses", "resolves",
     "migratable objects of other homes not in the cache (the call goes to the home, which forwards it)", false,
     false, false, [](const raw& d, const raw&, double) { return d.agas_cache_misses; }},
    {"agas", "count/migrations", "migrations", "migrations of objects whose home is this locality", false, false,
     false, [](const raw& d, const raw&, double) { return d.agas_migrations; }},
    {"runtime", "uptime", "s", "seconds since the runtime started", false, false, true,
     [](const raw&, const raw& c, double ns) { return c.uptime_ticks * ns * 1e-9; }},
    {"runtime", "memory/resident", "bytes", "resident memory of the process (/proc/self/statm)", false, false, true,
     [](const raw&, const raw& c, double) { return c.resident_bytes; }},
    {"runtime", "memory/virtual", "bytes", "virtual memory of the process (/proc/self/statm)", false, false, true,
     [](const raw&, const raw& c, double) { return c.virtual_bytes; }},
};
constexpr std::string_view arithmetic_table[] = {"add", "subtract", "multiply", "divide", "per-core"};

}  // namespace

constinit const std::span<const definition> definitions{definition_table};
constinit const std::span<const std::string_view> arithmetic_ops{arithmetic_table};

void set_locality(std::uint32_t here, std::uint32_t count) noexcept {
    WEFT_ASSERT(here < count);
    locality_word.store(std::uint64_t{here} << 32 | count);
}
std::uint32_t locality_here() noexcept { return static_cast<std::uint32_t>(locality_word.load() >> 32); }
std::uint32_t locality_count() noexcept { return static_cast<std::uint32_t>(locality_word.load()); }

std::string locality_name(std::uint32_t locality) { return "locality#" + std::to_string(locality); }

std::string instance_name(std::string_view object, int worker, std::string_view path) {
    std::string s = "/";
    s += object;
    s += '{';
    s += locality_name(locality_here());
    s += '/';
    s += worker < 0 ? std::string("total") : "worker-thread#" + std::to_string(worker);
    s += "}/";
    s += path;
    return s;
}

}  // namespace weft::counters::detail
