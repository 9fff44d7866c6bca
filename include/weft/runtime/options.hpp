// The runtime's configuration and its --weft:* command-line / WEFT_* environment form.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace weft {

class topology;

/// How the runtime is set up. Built from defaults, then WEFT_* environment variables,
/// then --weft:* command-line options (the command line wins).
struct runtime_config {
    /// Worker OS threads; 0 = one per core.
    unsigned threads = 0;
    /// Scheduler policy: local-priority (default), static, single, or a registered one.
    std::string scheduler = "local-priority";
    /// The xqueue policies' ring domains (seed 001: one SPSC ring per pair of workers in
    /// a domain, work crosses domains only by stealing): "numa" (one domain per NUMA
    /// node, the default), "mesh" (one domain: the seed's full mesh), or a number N
    /// (consecutive groups of N workers).
    std::string xqueue_domains = "numa";
    /// The `hierarchical` policy's locality hierarchy (seed 002 §3.2.1): "hwloc" (the
    /// machine's shared caches, NUMA nodes and sockets, the default), "flat" (one level:
    /// random victim selection), group sizes innermost first ("4,8": groups of 4
    /// consecutive workers inside groups of 8 inside all), or a machine like
    /// synthetic_topology's.
    std::string hierarchy = "hwloc";
    /// A machine to pretend for the `hierarchical` policy, outermost first, e.g.
    /// "sockets:2,cores:4" or "nodes:2,sockets:2,cores:4" (keys nodes, sockets, numa,
    /// caches, cores): its hierarchy replaces hwloc's, and with threads = 0 the runtime
    /// starts one worker per described core, mapped onto the real cores (worker i on
    /// core i % cores). Other policies see the real machine. Empty: none.
    std::string synthetic_topology;
    /// HVS attempts per hierarchy level, innermost first: "auto" (the seed's: a
    /// domain's core count, 4·log2(N) at the top) or a list like "auto,2,8".
    std::string steal_attempts = "auto";
    /// HCS chunk per level, innermost first: "auto" (1 inside a socket, 2 across
    /// sockets, half across nodes) or a list of counts, "half" and "auto".
    std::string steal_chunk = "auto";
    /// The `hierarchical` policy's bounded queue: tasks per worker (seed: 40) and of
    /// them at most this many public, i.e. visible to thieves (seed: 20).
    unsigned queue_bound = 40;
    unsigned queue_public = 20;
    /// Bind worker i to core i (compact) or leave placement to the OS (none).
    bool bind = true;
    /// The machine layout workers are placed by (worker i on core i % cores, in that
    /// core's NUMA domain); null = topology::machine(). A synthetic one
    /// (topology::synthetic) runs a one-node machine as if it had several NUMA domains,
    /// for tests and experiments; workers then run unbound. Set in code only.
    std::shared_ptr<const weft::topology> topology;
    /// Usable bytes of each task stack; 0 = the default (128 KiB; 512 KiB under sanitizers).
    std::size_t stack_size = 0;
    /// The stack pool's trim period: task stacks of the runtime's size are pooled for
    /// reuse, and every this many ms the pool gives back the memory of those that stayed
    /// unused for a whole period (the mapping stays) and unmaps those beyond a peak of
    /// stacks in use that decays by an eighth per period. 0 = keep every stack until the
    /// runtime stops.
    unsigned stack_trim_ms = 1000;
    /// Usable stack bytes of the first task weft::run (and so <weft/main.hpp>) starts,
    /// "main": as large as an OS main thread's by default (8 MiB), since programs keep
    /// large arrays on main's stack. Mapped when main starts; the memory is touched only
    /// as far as main uses it. At least 16 KiB; a size below stack_size gives main the
    /// runtime's stack.
    std::size_t main_stack_size = std::size_t{8} << 20;
    /// Direct hand-off: a task that a dataflow, a continuation or a resumption readies
    /// goes straight to a worker that is spinning idle, through a one-task mailbox that
    /// worker watches, instead of waiting in its readier's queue to be stolen (one cache
    /// line crosses between the cores instead of the deque's three). Off: every readied
    /// task takes the policy's path.
    bool hand_off = true;
    /// Under mpirun: run weft::run's function on every locality (SPMD), not only on
    /// locality 0 (the others then only serve actions).
    bool spmd = false;
    /// Parcels to one locality gather into one MPI message until it holds this many
    /// bytes, or a worker goes idle or polls (0: one message per parcel).
    std::size_t parcel_coalesce = 16 * 1024;
    /// The longest single MPI message; longer messages and chunks go in pieces.
    std::size_t parcel_max_message = std::size_t{1} << 30;
    /// Contiguous runs of arguments or results (vectors, strings of trivially copyable
    /// elements) of at least this many bytes travel as messages of their own, received
    /// straight into their final storage.
    std::size_t zero_copy_threshold = 64 * 1024;
    /// In a run of several localities: large freed buffers stay in the process for reuse
    /// (glibc's mmap threshold raised to 32 MiB and its trim threshold to 256 MiB, unless
    /// GLIBC_TUNABLES sets them) instead of going back to the system, which would
    /// page-fault them in again on their next use: the fresh 1 MiB buffers of messages,
    /// collectives and migrations cost more in faults than in copies here
    /// (bench/RESULTS.md). Off: glibc's own policy.
    bool keep_large_buffers = true;
    /// Print the machine topology and the worker placement at start.
    bool print_topology = false;
    /// How long every worker must stay idle, with no timer pending and tasks suspended,
    /// before the runtime reports a (possible) deadlock on stderr; 0 = never report.
    unsigned deadlock_timeout_ms = 1000;
    /// What happens after a deadlock report: "auto" (the default) exits with code 3 only
    /// when the deadlock is certain (every stuck task waits on something only a task can
    /// complete), otherwise keeps waiting; "wait" always keeps waiting; "exit" always
    /// exits with code 3.
    std::string on_deadlock = "auto";
    /// --weft:help was given: print the options and do not start.
    bool help = false;

    // Counters and tracing (include/weft/counters/counters.hpp).
    /// Counters (names or patterns) printed at exit and every print_counter_interval_ms.
    std::vector<std::string> print_counters;
    /// Print the counters every this many ms as well as at exit; 0 = at exit only.
    unsigned print_counter_interval_ms = 0;
    /// "text" (HPX's name,sample,time[s],value[unit] lines), "csv" or "json".
    std::string print_counter_format = "text";
    /// File the counters are written to; empty = standard output.
    std::string print_counter_destination;
    /// Each periodic print starts a new interval (values per interval, not since start).
    bool reset_counters = false;
    /// Print every counter name, unit and meaning once the runtime has started.
    bool list_counters = false;
    /// Time task phases and queue waits (the time-based counters). Off: the loop reads
    /// no clock and those counters say "unavailable".
    bool counter_timing = true;
    /// Write a timeline of every worker to this file (Chrome Trace Event JSON, loads in
    /// Perfetto) when the runtime stops; empty = no trace. Turns timing on.
    std::string trace_file;
    /// The adaptation log (policy engine, tunables, throttling): "stderr", "stdout" or a
    /// file (appended); empty: none.
    std::string adapt_log;
    /// The tunables' search history file (read at start of a search, appended per
    /// trial); empty: none.
    std::string adapt_history;
};

/// Reads an environment variable; std::getenv by default, replaceable for tests.
using env_lookup = std::function<const char*(const char*)>;

/// Builds a configuration from WEFT_* variables and the --weft:* options in argv, and
/// removes those options from argv (argc is updated). argv need not end in a nullptr:
/// argv[argc] is set to nullptr only when options were removed (that slot held one).
/// Arguments after a lone "--" are left alone. The command line wins: a variable whose
/// option argv gives is not read at all.
/// @throws weft::bad_option naming the option or variable and what it accepts, for an
///         unknown --weft: option, a malformed value, a queue-public above the
///         queue-bound, or a topology of more workers than --weft:threads allows (without
///         a thread count).
runtime_config parse_runtime_options(int& argc, char** argv, const env_lookup& getenv = {});

/// Checks a configuration made in code: every field's range or name as the options
/// check them, and the combinations (queue_public <= queue_bound, a synthetic_topology's
/// workers under the thread bound when threads is 0). Files are checked at start.
/// @throws weft::bad_option naming the runtime_config field
void validate(const runtime_config& cfg);

/// Prints the --weft:* options, their WEFT_* variables and accepted values.
void print_runtime_help(std::ostream& os);

}  // namespace weft
