// A small wrapper over Linux perf_event_open(2): the hardware and software event counters
// that weft's counters layer offers, opened per thread, with a readable reason when the
// kernel refuses one (as it does for hardware events on most VMs).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace weft::detail {

/// One kind of perf_event counter weft offers.
struct perf_event_kind {
    /// The counter's last name part, e.g. "cycles" in /hardware{locality#0/total}/cycles.
    const char* name;
    const char* unit;    ///< "cycles", "instructions", "events", "ns", ...
    const char* help;    ///< one sentence
    std::uint32_t type;  ///< PERF_TYPE_HARDWARE, PERF_TYPE_SOFTWARE, PERF_TYPE_HW_CACHE
    std::uint64_t config;
};

/// The kinds offered: hardware cycles, instructions, cache-references, cache-misses,
/// branch-instructions, branch-misses, L1-dcache-load-misses (HW_CACHE); software task-clock (ns),
/// context-switches, cpu-migrations, page-faults.
std::span<const perf_event_kind> perf_event_kinds() noexcept;

/// The kind of that name, or nullptr.
const perf_event_kind* find_perf_event_kind(std::string_view name) noexcept;

/// One perf_event counter counting one thread of this process on any CPU; any thread may read it.
///
/// It counts user-space activity only (exclude_kernel), which unprivileged processes may do
/// at perf_event_paranoid 2, the usual default. context-switches and cpu-migrations are the
/// exception: the kernel records them in its own context, where exclude_kernel would hide
/// every one, so they include the kernel and need perf_event_paranoid 1 or CAP_PERFMON.
/// task-clock is the thread's whole run time whatever exclude_kernel says.
/// Calls to read() on one counter must not overlap.
class perf_event_counter {
public:
    perf_event_counter() = default;  ///< not open; unavailable_reason() is "not opened"

    /// Opens `kind` for Linux thread `tid`. On failure the counter stays closed and
    /// unavailable_reason() says why in words a user understands, including errno text
    /// and, for EACCES/EPERM, the value of /proc/sys/kernel/perf_event_paranoid; for
    /// ENOENT/EOPNOTSUPP on a hardware event, that the machine (often a VM) exposes no
    /// hardware PMU. Never throws for a kernel refusal.
    perf_event_counter(int tid, const perf_event_kind& kind);

    /// Takes the descriptor (or the refusal's reason); the source ends closed, "not opened".
    perf_event_counter(perf_event_counter&&) noexcept;
    /// Closes this counter's descriptor, then takes the source's as the constructor does.
    perf_event_counter& operator=(perf_event_counter&&) noexcept;
    perf_event_counter(const perf_event_counter&) = delete;
    perf_event_counter& operator=(const perf_event_counter&) = delete;
    ~perf_event_counter();  ///< closes the descriptor

    /// True when the kernel accepted the counter.
    bool is_open() const noexcept;

    /// Why the counter is closed, or why its last read() failed; empty while it works.
    const std::string& unavailable_reason() const noexcept;

    /// The count since it was opened, scaled by time_enabled/time_running when the kernel
    /// multiplexed it; std::nullopt when not open or when read() fails (then the reason is
    /// updated).
    std::optional<std::uint64_t> read();

private:
    int fd_ = -1;
    std::string reason_ = "not opened";
};

/// Linux thread id (gettid) of the calling thread.
int current_thread_id() noexcept;

}  // namespace weft::detail
