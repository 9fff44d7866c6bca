// What the runtime starts and stops in the counters layer: the active (printed) counters,
// the interval printer, the trace writer and the hardware counters; which locality this
// process is and the network statistics the distributed layer feeds. The one header the
// counters layer exports to the layers above it (its src/counters/ is private).
#pragma once

#include <weft/counters/counters.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace weft::detail {
class scheduler;
}

namespace weft::counters::detail {

/// This process's locality id and the number of localities (default 0 and 1). Called by the
/// runtime before start_service; names then carry locality#here. A name of another locality
/// (locality#k, here != k < count) is valid: query() reaches it through the remote source
/// (set_remote_source), query_here() leaves it out (each locality evaluates its own
/// instances). Requires here < count (checked: a failure aborts).
void set_locality(std::uint32_t here, std::uint32_t count) noexcept;
std::uint32_t locality_here() noexcept;
std::uint32_t locality_count() noexcept;

/// Cumulative network statistics of this locality, fed by the distributed layer.
struct network_stats {
    double parcels_sent = 0, parcels_received = 0, parcels_rejected = 0;
    double bytes_sent = 0, bytes_received = 0;        // bytes of parcels incl. zero-copy chunks
    double messages_sent = 0, messages_received = 0;  // transport (MPI) messages
    double agas_resolves = 0, agas_cache_hits = 0, agas_cache_misses = 0, agas_migrations = 0;  // /agas
};
/// The function that reads them (nullptr: all zero), called from any thread that evaluates
/// a /parcels, /data, /messages or /agas counter. Set before start_service, cleared after stop.
void set_network_source(network_stats (*read)() noexcept) noexcept;

/// This locality's part of a query: a counter_set of this locality's instances only (another
/// locality's names denote nothing here), and how many of them each pattern gave, in order
/// (a name an earlier pattern gave is not repeated). What the active counters, the trace and
/// the remote side of another locality's query use; nothing here waits for another locality.
/// @throws as query()
struct local_query {
    counter_set set;
    std::vector<std::size_t> per_pattern;  ///< instances each pattern added to `set`
    std::vector<std::size_t> matched;      ///< instances each pattern matched here, repeats included
};
local_query query_here(const std::vector<std::string>& patterns);

/// A counter_set's part on another locality: that locality's handle for the set it keeps.
struct remote_ref {
    std::uint32_t locality = 0;
    std::uint64_t handle = 0;
};
/// What a query asks of another locality: the patterns that may denote its instances.
struct remote_request {
    std::uint32_t locality = 0;
    std::vector<std::string> patterns;
};
/// Its answer: the handle of the set it made (0: it has no instance for these patterns and
/// keeps nothing) and the instance names, per pattern of the request, in evaluation order
/// (a name an earlier pattern of the request gave is not repeated).
struct remote_opened {
    remote_ref ref;
    std::vector<std::vector<std::string>> names;
    std::vector<std::size_t> matched;  ///< per pattern, as local_query::matched
};
/// How the counters reach other localities, without depending on the layer that carries the
/// messages (the distributed layer sets it while parcels flow; null otherwise). Each call
/// sends its requests to every locality concurrently and returns once all have answered,
/// suspending the calling task (or blocking a thread outside weft); results are in the
/// order of the requests. An error of a locality (weft::bad_counter_name for a name it
/// cannot resolve) is rethrown once every request is done, the first in request order;
/// open() then closes what the others opened.
struct remote_source {
    std::vector<remote_opened> (*open)(const std::vector<remote_request>& requests);
    std::vector<std::vector<counter_value>> (*evaluate)(const std::vector<remote_ref>& sets, bool reset);
    void (*reset)(const std::vector<remote_ref>& sets);
    /// Best effort, without waiting: the sets are forgotten on their localities.
    void (*close)(const std::vector<remote_ref>& sets) noexcept;
};
/// Sets (or, with nullptr, clears) the remote source; `source` must outlive its use.
void set_remote_source(const remote_source* source) noexcept;

struct service_config {
    std::vector<std::string> print;  ///< --weft:print-counter patterns
    unsigned interval_ms = 0;        ///< --weft:print-counter-interval; 0: at exit only
    format fmt = format::text;       ///< --weft:print-counter-format
    std::string destination;         ///< --weft:print-counter-destination; empty: stdout
    bool reset_each = false;         ///< --weft:reset-counters: each print starts a new interval
    std::string trace_file;          ///< --weft:trace; empty: no trace
    unsigned trace_sample_ms = 10;   ///< how often the trace samples its counter tracks
    /// false on localities other than 0 of a distributed run: counters are resolved and evaluated
    /// (for gather_at_exit) but nothing is written, no destination file opened, no interval printing.
    /// The trace is not affected (trace_file decides).
    bool write = true;
    /// If set, the "at exit" print passes this locality's values through it and prints what it
    /// returns (locality 0: every locality's values in locality order; others: their own values
    /// go to locality 0 and it returns nothing). Called on the thread that calls stop_service,
    /// without the service's lock, whenever counters are active (print, or add_active), even
    /// if none of them is this locality's: with the same print everywhere every locality calls
    /// it exactly once, so it may be a collective. An exception from it is reported on stderr
    /// and nothing is printed at exit. In CSV, a row whose columns differ from the header's
    /// gets a header of its own.
    std::function<std::vector<counter_value>(std::vector<counter_value>)> gather_at_exit;
};

/// After the scheduler started: resolves the active counters, opens the destination,
/// checks that the trace file can be written (created or appended to) and starts the
/// printer thread. Errors name the option and its variable.
/// @throws weft::bad_counter_name (a counter name), weft::bad_option (a destination or
///         trace file that cannot be written), weft::error (no printer thread)
void start_service(const service_config& cfg);
/// Before the scheduler stops: stops the printer, prints the active counters a last time
/// ("at exit") and closes the destination. Safe to call when nothing was started.
void stop_service() noexcept;
/// After the scheduler's workers have stopped: writes the trace file, if one was asked
/// for.
void write_trace(const weft::detail::scheduler& s) noexcept;
/// The first write error since start_service ("weft: could not write counters to FILE:
/// <reason>" or "weft: could not write the trace to FILE: <reason>"), already printed on
/// stderr when it happened, and forgets it; empty if none.
std::string take_write_error();
/// Closes the hardware counters of a runtime that stops (or failed to start).
void forget_hardware(const weft::detail::scheduler* s);

}  // namespace weft::counters::detail
