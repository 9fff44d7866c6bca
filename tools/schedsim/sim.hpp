// weft-schedsim: a discrete-event simulator of HotSLAW-style hierarchical work stealing
// (seed 002) on a cluster this machine does not have. It drives the very same victim
// selection (weft::ext::victim_selector, HVS) and chunk selection (steal_plan /
// chunk_rule, HCS) as the runtime's `hierarchical` policy (include/weft/ext/hierarchy.hpp).
//
// THE MODEL (every assumption; bench/RESULTS.md repeats them beside the results):
//  Machine
//   - nodes x sockets x cores from a spec parsed by hierarchy::parse_machine; one worker
//     per core. Victim selection runs on a selection hierarchy: the machine's for hvs /
//     intra-node / intra-socket (intra-X: steal_plan attempts 0 at every level wider than
//     X), hierarchy::flat for random. Latency and bandwidth always follow the *machine*
//     distance: hierarchy::common_level(thief, victim) on the machine's hierarchy, whose
//     kind picks the latency class: core/cache/numa/socket -> intra-socket, node ->
//     inter-socket, cluster -> inter-node (defaults 2, 3.8, 36 us: seed L182).
//  Steals
//   - A thief (empty stack, empty queue) takes the next victim from its victim_selector
//     (reset after every successful steal; a worker alone in every domain never steals).
//   - It reads the victim's public size at once. Empty: a failed attempt costing the
//     latency (one round trip), no lock taken. Non-empty: it queues for the victim's lock
//     (one steal at a time, FIFO by request time); at lock time s it looks again, takes
//     chunk_rule::chunk(public size) oldest public tasks (possibly 0: a failed attempt),
//     holds the lock for the latency L and is back at s + L + chunk * payload / bandwidth
//     (the transfer is not under the lock). It runs the oldest stolen task and puts the
//     rest in its private part, oldest first. The victim's own lock use is free.
//   - No backoff: a thief keeps trying until work or termination (the seed's taskq_steal
//     loop); termination detection itself is free and instant.
//  Queues (seed §3.1, digest §1.5; the runtime policy's rule)
//   - Per worker a queue of at most `bound` (40) tasks, oldest first: a public part of at
//     most `public` (20) at the old end, a private part at the new end. Spawns go to the
//     private part; the owner pops its newest private task, and when the private part is
//     empty reclaims the newest public one. After every owner push or pop, if the public
//     part is empty and the private part holds >= 2 tasks, the owner releases its oldest
//     max(1, private/2) private tasks (at most `public`) to the public part (the brief's
//     rule, "eager"). --release=on-demand: weft::ext::split_queue's rule instead: release
//     the older half of the private part (room permitting) when the private part holds
//     bound - public tasks, or when a thief found the public part empty (a flag the
//     owner reads at its next push or pop) and it still is.
//   - bounded: a spawn into a full queue runs the child at once (work-first,
//     "serialized"), re-evaluated at every spawn. unbounded: no bound, always help-first
//     (the public part keeps its bound). depth:D: unbounded, and a child at tree depth
//     >= D is serialized (the application's tree-depth cutoff, seed Fig. 2/Fig. 7).
//  Tasks
//   - A task's execution cost is charged when it starts; then it spawns its children one
//     by one, each queued spawn costing the creation overhead (Table 1, ~0.16-0.17 us); a
//     serialized child costs only its execution (and its own spawns), with no creation
//     or call overhead (so the seed's Fig. 7 "extra function call" is not modelled).
//   - Joins are free (spawn-only trees): a HotSLAW parent waiting for its children helps
//     (runs / steals) while it waits, so a node's cost is charged once. A serialized
//     child returns as soon as its spawns are done.
//   - Per-task costs: the seed's Table 1 averages, the same for every task of a workload
//     (Fib 1.163 us, NQueens 23.27 us, T1L 0.089, T2L 0.114, T3L 0.075; T1/T1XS as T1L,
//     T3/T3XS as T3L), SparseLU's four kernels in the ratio of their flops lu0:fwd:bdiv:bmod
//     = 2/3:1:1:2 (bs^3 units), scaled so that the kernels average 6.281 us.
//   - Payload per task (for the transfer): Fib 4 B, NQueens 80 B, UTS 32 B, SparseLU 24 B.
//  Workloads (generated on the fly, deterministic)
//   - fib:N one task per call, leaves n < 2 (2 fib(N+1) - 1 tasks); nqueens:N one task per
//     legal partial placement, the root the empty board; uts:NAME the UTS trees of
//     bench/common/uts_gen.hpp (SHA-1 from nettle, exact node counts);
//   - sparselu:NB the BOTS SparseLU DAG on NB x NB blocks, sparsity as
//     bench/sparselu/sparselu.hpp (block (i,j) present iff |i-j| <= 1 or i%3 == 0 and
//     j%3 == 0), fill-in as BOTS (bmod allocates a missing block). Step kk: a producer
//     task runs lu0 (its cost) and spawns the step's fwd and bdiv tasks; when the last of
//     them (and the producer) has finished, the worker that finished it runs a zero-cost
//     producer that spawns the step's bmod tasks; when they are all finished, the worker
//     finishing the last one runs step kk+1's producer. So each barrier is exact and each
//     phase is released by one worker. Tasks counted include these 2 NB producers.
//  Measures
//   - makespan: the time the last task finishes. T1: the makespan of the same model and
//     workload on one worker (random victims, no steals), computed unless given by --t1.
//   - queue occupancy: every 1000 queue puts (all workers), one worker's queue size
//     (public + private), the worker drawn by a separate generator.
//   - idle: time workers spent with no task (stealing or waiting) over workers x makespan.
//  Simulation
//   - Time in integer picoseconds. Workers advance in time order: the worker with the
//     earliest clock runs actions (start a task, spawn a child, steal attempt) until its
//     clock passes the next worker's in a binary heap; a thief's look at a victim happens
//     at its own clock, when every other worker's clock is at least as late, so victims'
//     queues are exact. Ties go to the lower worker index. Deterministic for a seed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace weft::schedsim {

/// A bad option: the message names it and says what it accepts (exit 2 in the CLI).
struct bad_option_error {
    std::string message;
};

enum class queue_mode { bounded, unbounded, depth };

struct config {
    std::string machine = "sockets:2,cores:4";
    std::string workload = "fib:20";
    std::string victims = "hvs";   ///< hvs | random | intra-node | intra-socket
    std::string chunks = "auto";   ///< steal_plan::parse's chunk list, or "hcs" (= auto)
    std::string attempts = "auto"; ///< steal_plan::parse's attempts list
    unsigned queue_bound = 40;
    unsigned queue_public = 20;
    queue_mode mode = queue_mode::bounded;
    unsigned depth_cutoff = 0;  ///< depth mode: children at depth >= this are serialized
    std::uint64_t seed = 1;
    double latency_us[3] = {2.0, 3.8, 36.0};   ///< intra-socket, inter-socket, inter-node
    double bandwidth_gbs[3] = {5.0, 3.0, 1.0}; ///< GB/s = bytes per ns, same classes
    double task_us = -1;   ///< average task time; < 0: the workload's default
    double spawn_us = -1;  ///< creation overhead per queued spawn; < 0: the workload's
    double t1_us = -1;     ///< the one-worker makespan; < 0: simulate it
    /// false (eager, the default and the tables' rule): release whenever the public part
    /// is empty; true (on demand, weft::ext::split_queue's rule as of 2026-11-26): when
    /// the private part is full (bound - public tasks) or a thief found the public part
    /// empty since the last release.
    bool release_on_demand = false;
    bool checked = false;  ///< check queue bounds after every operation (throws)
    unsigned trace_attempts = 0;  ///< record each worker's first N steal attempts
};

struct level_stats {
    std::string name;  ///< the machine level's kind: socket, node, cluster, ...
    std::uint64_t steals = 0, failed = 0, moved = 0;
};

struct attempt_record {
    unsigned victim;
    unsigned machine_level;
};

struct result {
    unsigned workers = 0;
    std::string hierarchy;  ///< the selection hierarchy, hierarchy::describe()
    std::uint64_t makespan_ps = 0;
    double t1_us = 0, speedup = 0;
    std::uint64_t tasks = 0;       ///< tasks executed (every tree node / DAG task)
    std::uint64_t queued = 0;      ///< spawns put in a queue
    std::uint64_t serialized = 0;  ///< spawns run at once (bound or depth cutoff)
    std::uint64_t roots = 0;       ///< tasks not spawned: the root, SparseLU's producers
    std::uint64_t steals = 0, failed = 0, moved = 0;
    std::vector<level_stats> levels;  ///< per machine level, innermost first
    std::uint64_t occ_samples = 0, occ_max = 0;
    double occ_mean = 0;
    std::uint64_t max_queue = 0, max_public = 0;  ///< largest sizes seen (any worker)
    double idle_fraction = 0;
    std::uint64_t events = 0;  ///< heap pops
    double sim_seconds = 0;    ///< wall time of the simulation
    std::vector<std::vector<attempt_record>> first_attempts;  ///< per worker (trace_attempts)
    double makespan_us() const { return static_cast<double>(makespan_ps) / 1e6; }
};

/// Runs the simulation (and the one-worker run for T1 unless cfg.t1_us >= 0).
/// @throws bad_option_error for a bad option; std::logic_error when a check fails.
result simulate(const config& cfg);
/// Only the simulation of cfg, no T1 (t1_us and speedup left 0 unless cfg.t1_us given).
result simulate_once(const config& cfg);

/// One line `weft-schedsim key=value ...` for scripts.
std::string result_line(const config& cfg, const result& r);
/// A readable table of the same run.
std::string result_table(const config& cfg, const result& r);

}  // namespace weft::schedsim
