// Parsing of --weft:* options and WEFT_* environment variables.
#include <weft/config/errors.hpp>
#include <weft/ext/hierarchy.hpp>
#include <weft/ext/scheduler_policy.hpp>
#include <weft/platform/topology.hpp>
#include <weft/runtime/options.hpp>
#include <weft/sched/detail/introspect.hpp>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <string_view>
#include <initializer_list>
#include <vector>

namespace weft {
namespace {

constexpr std::string_view prefix = "--weft:";
constexpr std::size_t max_stack_size = std::size_t{1} << 30;

unsigned max_threads() {
    return std::max(16u, 16u * topology::machine().num_pus());
}

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
}

[[noreturn]] void fail(std::string_view where, std::string_view value, const std::string& accepted) {
    throw bad_option("weft: bad value '" + std::string(value) + "' for " + std::string(where) +
                     ": expected " + accepted);
}

bool parse_uint(std::string_view s, unsigned long long& out) {
    if (s.empty()) return false;
    const auto* end = s.data() + s.size();
    auto [p, ec] = std::from_chars(s.data(), end, out);
    return ec == std::errc{} && p == end;
}

unsigned parse_threads(std::string_view where, std::string_view v) {
    const unsigned bound = max_threads();
    const std::string accepted = "a whole number from 1 to " + std::to_string(bound) +
                                 " (16 per processing unit here), or 'all' (one per core)";
    if (v == "all") return 0;
    unsigned long long n = 0;
    if (!parse_uint(v, n) || n < 1 || n > bound) fail(where, v, accepted);
    return static_cast<unsigned>(n);
}

std::string parse_scheduler(std::string_view where, std::string_view v) {
    const auto names = ext::scheduler_policy_names();
    if (std::find(names.begin(), names.end(), v) == names.end()) fail(where, v, "one of: " + join(names));
    return std::string(v);
}

std::string parse_xqueue_domains(std::string_view where, std::string_view v) {
    unsigned long long n = 0;
    if (v != "numa" && v != "mesh" && (!parse_uint(v, n) || n < 1 || n > (1u << 20)))
        fail(where, v, "'numa' (one domain per NUMA node), 'mesh' (one domain) or a group size from 1 to 1048576");
    return std::string(v);
}

constexpr std::string_view machine_accepted =
    "a machine, outermost first, with counts per enclosing level from nodes, sockets, numa, caches and cores "
    "(cores required, at most 1048576 workers), e.g. sockets:2,cores:4";

std::string parse_topology_spec(std::string_view where, std::string_view v) {
    if (!v.empty() && ext::hierarchy::machine_workers(v) == 0) fail(where, v, std::string(machine_accepted));
    return std::string(v);
}

/// A comma-separated list whose items are whole numbers (from `min`) or one of `words`.
bool list_of(std::string_view v, unsigned long long min, std::initializer_list<std::string_view> words) {
    if (v.empty()) return false;
    for (;;) {
        const auto comma = v.find(',');
        const std::string_view item = v.substr(0, comma);
        unsigned long long n = 0;
        const bool word = std::find(words.begin(), words.end(), item) != words.end();
        if (!word && (!parse_uint(item, n) || n < min || n > 1'000'000)) return false;
        if (comma == std::string_view::npos) return true;
        v.remove_prefix(comma + 1);
    }
}

std::string parse_hierarchy(std::string_view where, std::string_view v) {
    if (v == "hwloc" || v == "flat") return std::string(v);
    if (v.find(':') != std::string_view::npos) {
        if (ext::hierarchy::machine_workers(v) == 0) fail(where, v, std::string("hwloc, flat, group sizes or ") + std::string(machine_accepted));
        return std::string(v);
    }
    if (!list_of(v, 1, {})) fail(where, v, std::string("hwloc (the default), flat, group sizes innermost first (e.g. 4,8) or ") +
                                        std::string(machine_accepted));
    return std::string(v);
}

std::string parse_steal_attempts(std::string_view where, std::string_view v) {
    if (!list_of(v, 0, {"auto"})) fail(where, v, "auto, or counts per hierarchy level innermost first (0 to 1000000 or auto each), e.g. auto,2,8");
    return std::string(v);
}

std::string parse_steal_chunk(std::string_view where, std::string_view v) {
    if (!list_of(v, 1, {"auto", "half"})) fail(where, v, "auto, or chunks per hierarchy level innermost first (a count from 1, half or auto each), e.g. 1,2,half");
    return std::string(v);
}

unsigned parse_queue_size(std::string_view where, std::string_view v) {
    unsigned long long n = 0;
    if (!parse_uint(v, n) || n < 1 || n > (1u << 20)) fail(where, v, "a task count from 1 to 1048576");
    return static_cast<unsigned>(n);
}

bool parse_bind(std::string_view where, std::string_view v) {
    if (v == "compact") return true;
    if (v == "none") return false;
    fail(where, v, "'compact' (worker i on core i) or 'none'");
}

/// A byte count from `lo` to `hi`, optionally with a K, KiB, M, MiB, G or GiB suffix.
std::size_t parse_bytes(std::string_view where, std::string_view v, std::size_t lo, std::size_t hi,
                        const std::string& accepted) {
    std::size_t mult = 1;
    std::string_view digits = v;
    for (auto [suffix, m] : {std::pair<std::string_view, std::size_t>{"KiB", 1024}, {"MiB", 1024 * 1024},
                             {"GiB", std::size_t{1} << 30}, {"K", 1024}, {"k", 1024}, {"M", 1024 * 1024},
                             {"G", std::size_t{1} << 30}}) {
        if (digits.size() > suffix.size() && digits.ends_with(suffix)) {
            digits.remove_suffix(suffix.size());
            mult = m;
            break;
        }
    }
    unsigned long long n = 0;
    if (!parse_uint(digits, n) || n > hi / mult) fail(where, v, accepted);
    const std::size_t bytes = static_cast<std::size_t>(n) * mult;
    if (bytes < lo) fail(where, v, accepted);
    return bytes;
}

std::size_t parse_stack_size(std::string_view where, std::string_view v) {
    return parse_bytes(where, v, 16 * 1024, max_stack_size,
                       "a byte count from 16384 to 1073741824, optionally with a K, KiB, M or MiB suffix (e.g. 262144 "
                       "or 256K)");
}

unsigned parse_stack_trim(std::string_view where, std::string_view v) {
    unsigned long long n = 0;
    if (!parse_uint(v, n) || n > 3'600'000)
        fail(where, v, "milliseconds from 0 (keep every stack until the runtime stops) to 3600000");
    return static_cast<unsigned>(n);
}

unsigned parse_timeout(std::string_view where, std::string_view v) {
    unsigned long long n = 0;
    if (!parse_uint(v, n) || n > 3'600'000)
        fail(where, v, "milliseconds from 0 (never report) to 3600000");
    return static_cast<unsigned>(n);
}

std::string parse_on_deadlock(std::string_view where, std::string_view v) {
    if (v != "auto" && v != "wait" && v != "exit")
        fail(where, v, "auto, wait or exit (after a deadlock report: exit with code 3 only when it is certain, "
                       "keep waiting, or exit with code 3)");
    return std::string(v);
}

/// Without a thread count, a pretended machine starts one worker per described core: as
/// many as --weft:threads allows at most.
void check_topology_workers(std::string_view where, std::string_view spec) {
    const unsigned long long workers = ext::hierarchy::machine_workers(spec);
    if (workers > max_threads())
        fail(where, spec,
             "a machine of at most " + std::to_string(max_threads()) +
                 " workers (16 per processing unit here; one per described core), or a thread count as well");
}

bool parse_flag(std::string_view where, std::string_view v) {
    if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
    if (v == "0" || v == "false" || v == "no" || v == "off" || v.empty()) return false;
    fail(where, v, "1 or 0 (true/false, yes/no, on/off)");
}

struct option_spec {
    std::string_view name;  // after --weft:
    const char* env;        // WEFT_* variable, or nullptr
    bool takes_value;
    const char* help;
};

constexpr option_spec options[] = {
    {"threads", "WEFT_THREADS", true, "N|all      worker OS threads (default: one per core)"},
    {"scheduler", "WEFT_SCHEDULER", true, "NAME     scheduler policy (default: local-priority)"},
    {"bind", "WEFT_BIND", true, "compact|none  bind worker i to core i, or not (default: compact)"},
    {"xqueue-domains", "WEFT_XQUEUE_DOMAINS", true, "numa|mesh|N  the xqueue policies' ring domains: per NUMA node (default), one, or groups of N workers"},
    {"hierarchy", "WEFT_HIERARCHY", true, "hwloc|flat|SIZES|MACHINE  the hierarchical policy's levels (default hwloc)"},
    {"topology", "WEFT_TOPOLOGY", true, "MACHINE  pretend this machine for the hierarchical policy, e.g. sockets:2,cores:4"},
    {"steal-attempts", "WEFT_STEAL_ATTEMPTS", true, "auto|A,...  HVS victims tried per level, innermost first"},
    {"steal-chunk", "WEFT_STEAL_CHUNK", true, "auto|C,...  HCS tasks per steal per level: counts, half or auto"},
    {"queue-bound", "WEFT_QUEUE_BOUND", true, "N  the hierarchical policy's tasks per worker queue (default 40)"},
    {"queue-public", "WEFT_QUEUE_PUBLIC", true, "N  of which at most N visible to thieves (default 20)"},
    {"stack-size", "WEFT_STACK_SIZE", true, "BYTES   usable bytes per task stack, K/M suffixes allowed"},
    {"main-stack-size", "WEFT_MAIN_STACK_SIZE", true, "BYTES  usable bytes of the stack of weft::run's first task, main (default 8M, as an OS main thread's)"},
    {"stack-trim", "WEFT_STACK_TRIM", true, "MS  every MS ms the stack pool gives back the memory of stacks unused that long and unmaps those beyond the decaying peak (default 1000; 0 = keep until stop)"},
    {"hand-off", "WEFT_HAND_OFF", true, "on|off  hand tasks that dataflow, continuations and resumptions ready straight to a worker spinning idle (default on)"},
    {"spmd", "WEFT_SPMD", false, "                run the program's main function on every locality, not only on locality 0"},
    {"parcel-coalesce", "WEFT_PARCEL_COALESCE", true, "BYTES  parcels to one locality gather into one MPI message up to BYTES before it leaves (default 16K; 0 = a message per parcel)"},
    {"parcel-max-message", "WEFT_PARCEL_MAX_MESSAGE", true, "BYTES  longer MPI messages go in pieces of BYTES (default 1G; 4096 to 2147483647)"},
    {"zero-copy-threshold", "WEFT_ZERO_COPY_THRESHOLD", true, "BYTES  contiguous arguments this long travel as messages of their own, received in place (default 64K)"},
    {"keep-large-buffers", "WEFT_KEEP_LARGE_BUFFERS", true, "on|off  with several localities, freed buffers up to 32M stay in the process for reuse, sparing their page faults (default on)"},
    {"print-topology", "WEFT_PRINT_TOPOLOGY", false, "      print the machine topology and worker placement"},
    {"deadlock-timeout", "WEFT_DEADLOCK_TIMEOUT", true, "MS  report a (possible) deadlock after MS ms of idle workers with tasks suspended (default 1000; 0 = never)"},
    {"on-deadlock", "WEFT_ON_DEADLOCK", true, "auto|wait|exit  after a deadlock report: exit with code 3 when it is certain (default), keep waiting, or exit"},
    {"print-counter", "WEFT_PRINT_COUNTER", true, "NAME  print this counter at exit (repeatable; wildcards * and ?)"},
    {"print-counter-interval", "WEFT_PRINT_COUNTER_INTERVAL", true, "MS  also print the counters every MS ms (0: at exit only)"},
    {"print-counter-format", "WEFT_PRINT_COUNTER_FORMAT", true, "text|csv|json  how counters are printed (default text)"},
    {"print-counter-destination", "WEFT_PRINT_COUNTER_DESTINATION", true, "FILE  write the counters to FILE, not stdout"},
    {"reset-counters", "WEFT_RESET_COUNTERS", false, "      each periodic print starts a new interval"},
    {"list-counters", nullptr, false, "       list every counter with its unit and meaning, then exit"},
    {"counter-timing", "WEFT_COUNTER_TIMING", true, "on|off  time task phases and queue waits (default on)"},
    {"trace", "WEFT_TRACE", true, "FILE.json      write a timeline of every worker (Chrome trace format, Perfetto)"},
    {"adapt-log", "WEFT_ADAPT_LOG", true, "FILE|stderr|stdout  log what the policy engine and tunables do"},
    {"adapt-history", "WEFT_ADAPT_HISTORY", true, "FILE  keep tunables' search history in FILE; re-runs start warm"},
    {"help", nullptr, false, "                this text; the program does not run"},
};

void apply(runtime_config& cfg, std::string_view name, std::string_view where, std::string_view value) {
    if (name == "threads") cfg.threads = parse_threads(where, value);
    else if (name == "scheduler") cfg.scheduler = parse_scheduler(where, value);
    else if (name == "bind") cfg.bind = parse_bind(where, value);
    else if (name == "xqueue-domains") cfg.xqueue_domains = parse_xqueue_domains(where, value);
    else if (name == "hierarchy") cfg.hierarchy = parse_hierarchy(where, value);
    else if (name == "topology") cfg.synthetic_topology = parse_topology_spec(where, value);
    else if (name == "steal-attempts") cfg.steal_attempts = parse_steal_attempts(where, value);
    else if (name == "steal-chunk") cfg.steal_chunk = parse_steal_chunk(where, value);
    else if (name == "queue-bound") cfg.queue_bound = parse_queue_size(where, value);
    else if (name == "queue-public") cfg.queue_public = parse_queue_size(where, value);
    else if (name == "stack-size") cfg.stack_size = parse_stack_size(where, value);
    else if (name == "main-stack-size") cfg.main_stack_size = parse_stack_size(where, value);
    else if (name == "stack-trim") cfg.stack_trim_ms = parse_stack_trim(where, value);
    else if (name == "hand-off") cfg.hand_off = parse_flag(where, value);
    else if (name == "print-topology") cfg.print_topology = parse_flag(where, value);
    else if (name == "spmd") cfg.spmd = parse_flag(where, value);
    else if (name == "parcel-coalesce")
        cfg.parcel_coalesce = parse_bytes(where, value, 0, std::size_t{1} << 30,
                                          "a byte count from 0 to 1G, optionally with a K, M or G suffix (e.g. 16K)");
    else if (name == "parcel-max-message")
        cfg.parcel_max_message = parse_bytes(where, value, 4096, 2147483647,
                                             "a byte count from 4096 to 2147483647, optionally with a K, M or G suffix");
    else if (name == "zero-copy-threshold")
        cfg.zero_copy_threshold = parse_bytes(where, value, 1, std::size_t{1} << 40,
                                              "a byte count from 1 up, optionally with a K, M or G suffix (e.g. 64K)");
    else if (name == "keep-large-buffers") cfg.keep_large_buffers = parse_flag(where, value);
    else if (name == "deadlock-timeout") cfg.deadlock_timeout_ms = parse_timeout(where, value);
    else if (name == "on-deadlock") cfg.on_deadlock = parse_on_deadlock(where, value);
    else if (name == "print-counter") {
        if (value.empty()) fail(where, value, "a counter name such as /threads{locality#0/total}/idle-rate (see --weft:list-counters)");
        cfg.print_counters.emplace_back(value);
    } else if (name == "print-counter-interval") {
        unsigned long long n = 0;
        if (!parse_uint(value, n) || n > 3'600'000) fail(where, value, "milliseconds from 0 (at exit only) to 3600000");
        cfg.print_counter_interval_ms = static_cast<unsigned>(n);
    } else if (name == "print-counter-format") {
        if (value != "text" && value != "csv" && value != "json") fail(where, value, "text, csv or json");
        cfg.print_counter_format = std::string(value);
    } else if (name == "print-counter-destination") {
        if (value.empty()) fail(where, value, "a file name");
        cfg.print_counter_destination = std::string(value);
    } else if (name == "reset-counters") cfg.reset_counters = parse_flag(where, value);
    else if (name == "list-counters") cfg.list_counters = true;
    else if (name == "counter-timing") cfg.counter_timing = parse_flag(where, value);
    else if (name == "trace") {
        if (value.empty()) fail(where, value, "a file name, e.g. trace.json");
        cfg.trace_file = std::string(value);
    } else if (name == "adapt-log") {
        if (value.empty()) fail(where, value, "stderr, stdout or a file name");
        cfg.adapt_log = std::string(value);
    } else if (name == "adapt-history") {
        if (value.empty()) fail(where, value, "a file name");
        cfg.adapt_history = std::string(value);
    } else if (name == "help") cfg.help = true;
}

std::string known_options() {
    std::string s;
    for (const auto& o : options) s += (s.empty() ? "--weft:" : ", --weft:") + std::string(o.name);
    return s;
}

/// The names (after --weft:) of the options argv gives, before a lone "--".
std::vector<std::string_view> command_line_names(int argc, char** argv) {
    std::vector<std::string_view> names;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--") break;
        if (arg.starts_with(prefix)) names.push_back(arg.substr(prefix.size(), arg.find('=') - prefix.size()));
    }
    return names;
}

}  // namespace

runtime_config parse_runtime_options(int& argc, char** argv, const env_lookup& getenv_fn) {
    runtime_config cfg;
    const env_lookup lookup = getenv_fn ? getenv_fn : env_lookup([](const char* n) { return std::getenv(n); });
    // Where each value came from, for errors that involve two options.
    std::vector<std::pair<std::string_view, std::string>> given;
    const auto where_given = [&given](std::string_view name) -> std::string {
        for (auto it = given.rbegin(); it != given.rend(); ++it)
            if (it->first == name) return it->second;
        return {};
    };
    // The command line wins: a variable whose option argv gives is not even parsed (a
    // repeatable option's command-line values replace the variable's).
    const std::vector<std::string_view> on_command_line = command_line_names(argc, argv);
    for (const auto& o : options) {
        if (o.env == nullptr) continue;
        if (std::find(on_command_line.begin(), on_command_line.end(), o.name) != on_command_line.end()) continue;
        if (const char* v = lookup(o.env)) {
            apply(cfg, o.name, o.env, v);
            given.emplace_back(o.name, o.env);
        }
    }
    int out = argc > 0 ? 1 : 0;
    bool passthrough = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (passthrough || !arg.starts_with(prefix)) {
            if (arg == "--") passthrough = true;
            argv[out++] = argv[i];
            continue;
        }
        const std::string_view body = arg.substr(prefix.size());
        const auto eq = body.find('=');
        const std::string_view name = body.substr(0, eq);
        const option_spec* spec = nullptr;
        for (const auto& o : options)
            if (o.name == name) spec = &o;
        if (spec == nullptr)
            throw bad_option("weft: unknown option '" + std::string(arg) + "'; known options: " + known_options() +
                             " (see --weft:help)");
        if (spec->takes_value && eq == std::string_view::npos)
            throw bad_option("weft: option --weft:" + std::string(name) + " needs a value: --weft:" +
                             std::string(name) + "=" + std::string(spec->help).substr(0, std::string(spec->help).find(' ')));
        if (!spec->takes_value && eq != std::string_view::npos)
            throw bad_option("weft: option --weft:" + std::string(name) + " takes no value (got '" +
                             std::string(arg) + "')");
        apply(cfg, name, "--weft:" + std::string(name),
              eq == std::string_view::npos ? std::string_view{"1"} : body.substr(eq + 1));
        given.emplace_back(spec->name, "--weft:" + std::string(name));
    }
    // Only a slot that held a removed option is known to be argv's: a hand-made argv
    // (or the default constructor's empty one) may end at argv[argc - 1].
    if (out < argc) argv[out] = nullptr;
    argc = out;

    if (cfg.queue_public > cfg.queue_bound) {
        const std::string bound = std::to_string(cfg.queue_bound);
        const std::string bound_from = where_given("queue-bound");
        if (const std::string from = where_given("queue-public"); !from.empty())
            fail(from, std::to_string(cfg.queue_public),
                 "at most the queue bound (" + bound + (bound_from.empty() ? ", the default" : ", from " + bound_from) +
                     "): the public part is a part of the queue");
        fail(bound_from, bound, "at least the queue's public part (" + std::to_string(cfg.queue_public) + ", the default)");
    }
    if (cfg.threads == 0 && !cfg.synthetic_topology.empty())
        check_topology_workers(where_given("topology"), cfg.synthetic_topology);
    return cfg;
}

void validate(const runtime_config& cfg) {
    if (cfg.threads > max_threads())
        fail("runtime_config::threads", std::to_string(cfg.threads),
             "at most " + std::to_string(max_threads()) + " (16 per processing unit here), or 0 for one per core");
    parse_scheduler("runtime_config::scheduler", cfg.scheduler);
    parse_xqueue_domains("runtime_config::xqueue_domains", cfg.xqueue_domains);
    parse_hierarchy("runtime_config::hierarchy", cfg.hierarchy);
    parse_topology_spec("runtime_config::synthetic_topology", cfg.synthetic_topology);
    if (cfg.threads == 0 && !cfg.synthetic_topology.empty())
        check_topology_workers("runtime_config::synthetic_topology", cfg.synthetic_topology);
    parse_steal_attempts("runtime_config::steal_attempts", cfg.steal_attempts);
    parse_steal_chunk("runtime_config::steal_chunk", cfg.steal_chunk);
    parse_queue_size("runtime_config::queue_bound", std::to_string(cfg.queue_bound));
    parse_queue_size("runtime_config::queue_public", std::to_string(cfg.queue_public));
    if (cfg.queue_public > cfg.queue_bound)
        fail("runtime_config::queue_public", std::to_string(cfg.queue_public),
             "at most queue_bound (" + std::to_string(cfg.queue_bound) + "): the public part is a part of the queue");
    if (cfg.print_counter_format != "text" && cfg.print_counter_format != "csv" && cfg.print_counter_format != "json")
        fail("runtime_config::print_counter_format", cfg.print_counter_format, "text, csv or json");
    if (cfg.print_counter_interval_ms > 3'600'000)
        fail("runtime_config::print_counter_interval_ms", std::to_string(cfg.print_counter_interval_ms),
             "milliseconds from 0 (at exit only) to 3600000");
    if (cfg.stack_size != 0 && (cfg.stack_size < 16 * 1024 || cfg.stack_size > max_stack_size))
        fail("runtime_config::stack_size", std::to_string(cfg.stack_size), "0 (default) or 16384 to 1073741824");
    if (cfg.main_stack_size < 16 * 1024 || cfg.main_stack_size > max_stack_size)
        fail("runtime_config::main_stack_size", std::to_string(cfg.main_stack_size), "16384 to 1073741824");
    parse_stack_trim("runtime_config::stack_trim_ms", std::to_string(cfg.stack_trim_ms));
    parse_timeout("runtime_config::deadlock_timeout_ms", std::to_string(cfg.deadlock_timeout_ms));
    parse_on_deadlock("runtime_config::on_deadlock", cfg.on_deadlock);
    if (cfg.parcel_coalesce > (std::size_t{1} << 30))
        fail("runtime_config::parcel_coalesce", std::to_string(cfg.parcel_coalesce), "0 to 1073741824");
    if (cfg.parcel_max_message < 4096 || cfg.parcel_max_message > 2147483647)
        fail("runtime_config::parcel_max_message", std::to_string(cfg.parcel_max_message), "4096 to 2147483647");
    if (cfg.zero_copy_threshold == 0)
        fail("runtime_config::zero_copy_threshold", "0", "at least 1 byte");
}

void print_runtime_help(std::ostream& os) {
    os << "weft runtime options (command line wins over the environment):\n";
    for (const auto& o : options) {
        os << "  --weft:" << o.name << (o.takes_value ? "=" : "") << o.help;
        if (o.env != nullptr) os << "  [" << o.env << "]";
        os << '\n';
    }
    os << "scheduler policies: " << join(ext::scheduler_policy_names()) << '\n'
       << "default stack size: " << detail::default_stack_size << " bytes\n";
}

}  // namespace weft
