// What the runtime starts and stops in the counters layer: the active (printed) counters,
// the interval printer, the trace writer and the hardware counters. The one header the
// counters layer exports to the runtime (its src/counters/ is private).
#pragma once

#include <weft/counters/counters.hpp>

#include <string>
#include <vector>

namespace weft::detail {
class scheduler;
}

namespace weft::counters::detail {

struct service_config {
    std::vector<std::string> print;  ///< --weft:print-counter patterns
    unsigned interval_ms = 0;        ///< --weft:print-counter-interval; 0: at exit only
    format fmt = format::text;       ///< --weft:print-counter-format
    std::string destination;         ///< --weft:print-counter-destination; empty: stdout
    bool reset_each = false;         ///< --weft:reset-counters: each print starts a new interval
    std::string trace_file;          ///< --weft:trace; empty: no trace
    unsigned trace_sample_ms = 10;   ///< how often the trace samples its counter tracks
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
