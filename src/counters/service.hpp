// What the runtime starts and stops in the counters layer: the active (printed) counters,
// the interval printer and the trace writer.
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

/// After the scheduler started: resolves the active counters, opens the destination and
/// starts the printer thread. @throws weft::bad_counter_name, weft::bad_option (a
/// destination that cannot be written)
void start_service(const service_config& cfg);
/// Before the scheduler stops: stops the printer, prints the active counters a last time
/// ("at exit") and closes the destination. Safe to call when nothing was started.
void stop_service() noexcept;
/// After the scheduler's workers have stopped: writes the trace file, if one was asked
/// for. Prints a message on stderr if it cannot.
void write_trace(const weft::detail::scheduler& s) noexcept;

}  // namespace weft::counters::detail
