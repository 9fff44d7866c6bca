// Internals of the counter registry shared by its parts (definitions, names, matching,
// reading, hardware, api) and by the service that prints them and writes the trace.
#pragma once

#include <weft/counters/counters.hpp>
#include <weft/counters/detail/service.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weft::detail {
class scheduler;
}

namespace weft::counters::detail {

/// One reading of one worker (or, summed, of all): cumulative sums since the runtime
/// started, in cycle-clock ticks or counts, plus current values (instantaneous).
struct raw {
    double func_ticks = 0, exec_ticks = 0, tasks = 0, phases = 0, internal_tasks = 0, internal_ticks = 0;
    double pending_accesses = 0, pending_misses = 0;
    double wait_staged_ticks = 0, wait_staged_samples = 0, wait_pending_ticks = 0, wait_pending_samples = 0;
    double stolen_to_staged = 0, stolen_to_pending = 0, stolen_from_staged = 0, stolen_from_pending = 0;
    double handed_to = 0;
    // Instantaneous (never differenced); the task counts by state are total only.
    double queue_length = 0;
    double n_all = 0, n_active = 0, n_pending = 0, n_suspended = 0, n_staged = 0, n_terminated = 0;
    double stacks = 0, stack_bytes = 0, block_bytes = 0, uptime_ticks = 0, resident_bytes = 0, virtual_bytes = 0;
    // Cumulative, total only (the stack pool's).
    double stacks_mapped = 0, stacks_unmapped = 0, stacks_trimmed = 0;
    // Cumulative, total only (the network source's, see set_network_source).
    double parcels_sent = 0, parcels_received = 0, parcels_rejected = 0;
    double bytes_sent = 0, bytes_received = 0, messages_sent = 0, messages_received = 0;
    double agas_resolves = 0, agas_cache_hits = 0, agas_cache_misses = 0, agas_migrations = 0;

    /// Subtracts the cumulative fields (clamped at zero); leaves the instantaneous ones.
    raw& operator-=(const raw& b) noexcept;
    /// Adds the cumulative fields and queue_length.
    raw& operator+=(const raw& b) noexcept;
};

struct hardware_value {
    double value = 0;
    std::string why;  ///< non-empty: unavailable
};

/// Every worker read at one moment (not atomically: each value is recent).
struct reading {
    std::uint64_t ticks = 0;
    std::chrono::steady_clock::time_point when{};
    std::vector<raw> workers;
    raw total;
    std::map<std::pair<std::size_t, int>, hardware_value> hardware;  ///< (kind, worker or -1)
};

/// One resolved counter instance.
struct entry {
    enum kind_t { basic, hardware, arithmetic } kind = basic;
    std::size_t index = 0;  ///< definition, perf event kind, or arithmetic operation
    int worker = -1;        ///< -1: total
    std::string name;
    std::string unit;
    std::vector<entry> operands;  ///< arithmetic only
};

/// A counter of definitions.cpp. `d` is the change over the interval, `c` the current
/// reading (for instantaneous counters), `ns` nanoseconds per tick.
struct definition {
    std::string_view object;  // "threads", "runtime", "parcels", "data", "messages"
    std::string_view path;    // after the instance, e.g. "time/average"
    std::string_view unit;
    std::string_view help;
    bool per_worker;          // worker-thread#N instances as well as total
    bool timed;               // needs --weft:counter-timing
    bool instantaneous;       // ignores resets
    double (*fn)(const raw& d, const raw& c, double ns);
};
/// Every /threads, /runtime, /parcels, /data and /messages counter (definitions.cpp).
extern const std::span<const definition> definitions;
/// The operations OP of /arithmetics/OP@A,B.
extern const std::span<const std::string_view> arithmetic_ops;
/// "locality#N".
std::string locality_name(std::uint32_t locality);
/// "/OBJECT{locality#HERE/INSTANCE}/PATH" (HERE: locality_here()); worker -1: the total instance.
std::string instance_name(std::string_view object, int worker, std::string_view path);

/// Whether `s` matches the pattern `p` ('*': any run of characters, '?': one).
bool glob(std::string_view p, std::string_view s);
/// Whether `s` holds '*' or '?'.
bool has_wildcard(std::string_view s);
/// The (up to) three names of `all` closest to `name` by edit distance, comma-separated.
std::string closest(std::string_view name, const std::vector<counter_info>& all);

/// Every worker of `s` read now (see weft::detail::read_sample).
reading read_all(const weft::detail::scheduler& s);
/// Every counter instance of this locality, with `workers` workers.
std::vector<counter_info> all_counters(unsigned workers);
/// The instances of this locality a name or pattern denotes (none for a name of another
/// locality). @throws weft::bad_counter_name, also for one that matches no counter of any
/// locality
std::vector<entry> resolve(std::string_view pattern, unsigned workers);
/// The localities other than this one whose instances a name or pattern (already checked by
/// resolve()) may denote, in increasing order: its locality, every one its wildcard matches,
/// or a derived counter's operands' one. None for a name without an instance ("/threads/*":
/// this locality's) and in a run of one locality.
std::vector<std::uint32_t> other_localities(std::string_view pattern);
/// Opens the hardware counters an entry needs (once per runtime).
void open_entry(const weft::detail::scheduler& s, const entry& e);
void read_hardware_into(const std::vector<entry>& entries, reading& r);
counter_value compute(const entry& e, const reading& now, const reading& base, double ns_per_tick, unsigned workers,
                      bool timing);
/// The running scheduler. @throws weft::runtime_state_error
weft::detail::scheduler& running();
double ratio(double a, double b) noexcept;

}  // namespace weft::counters::detail
