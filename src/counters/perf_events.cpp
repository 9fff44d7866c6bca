// Linux perf_event counters for weft's counters layer (see perf_events.hpp).
#include "perf_events.hpp"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <system_error>
#include <utility>

namespace weft::detail {

namespace {

constexpr std::uint64_t hw_cache_config(perf_hw_cache_id cache, perf_hw_cache_op_id op,
                                        perf_hw_cache_op_result_id result) noexcept {
    // The layout perf_event_open(2) documents for PERF_TYPE_HW_CACHE.
    return static_cast<std::uint64_t>(cache) | (static_cast<std::uint64_t>(op) << 8U) |
           (static_cast<std::uint64_t>(result) << 16U);
}

constexpr std::array<perf_event_kind, 11> kinds{{
    {"cycles", "cycles", "CPU cycles the thread spent in user space.", PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", "instructions", "Instructions the thread retired in user space.",
     PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cache-references", "events",
     "Last-level cache accesses by the thread, as the CPU defines them.", PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_CACHE_REFERENCES},
    {"cache-misses", "events", "Last-level cache misses by the thread, as the CPU defines them.",
     PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"branch-instructions", "events", "Branch instructions the thread retired in user space.",
     PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", "events", "Branches the CPU mispredicted for the thread.", PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_BRANCH_MISSES},
    {"L1-dcache-load-misses", "events", "Loads by the thread that missed the level-1 data cache.",
     PERF_TYPE_HW_CACHE,
     hw_cache_config(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ,
                     PERF_COUNT_HW_CACHE_RESULT_MISS)},
    {"task-clock", "ns", "Time the thread spent running on a CPU, in user space or in the kernel.",
     PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"context-switches", "events", "Times the thread was switched out of a CPU.",
     PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", "events", "Times the thread moved to another CPU.", PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_CPU_MIGRATIONS},
    {"page-faults", "events", "Page faults the thread took in user space.", PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_PAGE_FAULTS},
}};

const char* errno_name(int err) noexcept {
    switch (err) {
        case EACCES: return "EACCES";
        case EPERM: return "EPERM";
        case ENOENT: return "ENOENT";
        case EOPNOTSUPP: return "EOPNOTSUPP";
        case ENODEV: return "ENODEV";
        case ESRCH: return "ESRCH";
        case EINVAL: return "EINVAL";
        case ENOSYS: return "ENOSYS";
        case EMFILE: return "EMFILE";
        case ENFILE: return "ENFILE";
        case EBUSY: return "EBUSY";
        case E2BIG: return "E2BIG";
        default: return nullptr;
    }
}

std::string errno_text(int err) {
    // generic_category().message, unlike strerror, is safe to call from several threads.
    std::string text = std::generic_category().message(err);
    if (const char* name = errno_name(err)) {
        text += " (";
        text += name;
        text += ')';
    } else {
        text += " (errno " + std::to_string(err) + ')';
    }
    return text;
}

std::string paranoid_level() {
    std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
    std::string level;
    if (!(in >> level)) return "unreadable";
    return level;
}

bool is_hardware(const perf_event_kind& kind) noexcept {
    return kind.type == PERF_TYPE_HARDWARE || kind.type == PERF_TYPE_HW_CACHE;
}

// The kernel records these from its own context (the scheduler), so exclude_kernel filters
// out every one of them: they would open fine and read 0 forever. Better refused than wrong.
bool counts_only_in_kernel(const perf_event_kind& kind) noexcept {
    return kind.type == PERF_TYPE_SOFTWARE && (kind.config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
                                               kind.config == PERF_COUNT_SW_CPU_MIGRATIONS);
}

std::string open_failure(int err, int tid, const perf_event_kind& kind) {
    std::string why = "perf_event_open for '" + std::string(kind.name) + "' on thread " +
                      std::to_string(tid) + " failed: " + errno_text(err);
    switch (err) {
        case EACCES:
        case EPERM:
            why += "; /proc/sys/kernel/perf_event_paranoid is " + paranoid_level();
            if (counts_only_in_kernel(kind)) {
                why += ", and this event happens inside the kernel, so counting it needs 1 or "
                       "lower (or CAP_PERFMON)";
            } else {
                why += ", and counting a process's own threads in user space needs 2 or lower "
                       "(or CAP_PERFMON)";
            }
            why += "; a container's seccomp profile can also forbid perf_event_open";
            break;
        case ENOENT:
        case EOPNOTSUPP:
        case ENODEV:
            if (is_hardware(kind)) {
                why += "; this machine exposes no hardware performance-monitoring unit (PMU) for "
                       "this event, as is usual in virtual machines; software counters such as "
                       "task-clock still work";
            } else {
                why += "; this kernel does not offer that software event";
            }
            break;
        case ESRCH: why += "; no thread with that id exists (it may have exited)"; break;
        case ENOSYS:
            why += "; the kernel was built without perf events, or a seccomp filter hides the call";
            break;
        case EMFILE:
        case ENFILE:
            why += "; out of file descriptors (each counter on each thread holds one)";
            break;
        case EINVAL: why += "; the kernel rejected the event's attributes"; break;
        default: break;
    }
    return why;
}

}  // namespace

std::span<const perf_event_kind> perf_event_kinds() noexcept { return kinds; }

const perf_event_kind* find_perf_event_kind(std::string_view name) noexcept {
    for (const perf_event_kind& kind : kinds) {
        if (name == kind.name) return &kind;
    }
    return nullptr;
}

perf_event_counter::perf_event_counter(int tid, const perf_event_kind& kind) {
    if (tid < 0) {
        // The kernel reads pid -1 as "every process on one CPU" and, with cpu -1, answers a
        // puzzling EINVAL.
        reason_ = "perf_event_open was not called for '" + std::string(kind.name) + "': " +
                  std::to_string(tid) + " is not a Linux thread id";
        return;
    }
    perf_event_attr attr{};  // every field left unset must be zero, or the kernel refuses
    attr.size = sizeof(attr);
    attr.type = kind.type;
    attr.config = kind.config;
    // Asks for the enabled and running times too, so read() can undo multiplexing.
    attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    attr.disabled = 0;
    attr.inherit = 0;
    // User space only, which perf_event_paranoid 2 (the usual default) allows unprivileged
    // processes; except for events that happen only in the kernel (see counts_only_in_kernel).
    attr.exclude_kernel = counts_only_in_kernel(kind) ? 0U : 1U;
    attr.exclude_hv = 1;
    const long fd = ::syscall(SYS_perf_event_open, &attr, static_cast<pid_t>(tid), -1, -1,
                              PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        reason_ = open_failure(errno, tid, kind);
        return;
    }
    fd_ = static_cast<int>(fd);
    reason_.clear();
}

perf_event_counter::perf_event_counter(perf_event_counter&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), reason_(std::exchange(other.reason_, "not opened")) {}

perf_event_counter& perf_event_counter::operator=(perf_event_counter&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = std::exchange(other.fd_, -1);
        reason_ = std::exchange(other.reason_, "not opened");
    }
    return *this;
}

perf_event_counter::~perf_event_counter() {
    // Linux frees the descriptor even when close() fails, so there is nothing to retry.
    if (fd_ >= 0) ::close(fd_);
}

bool perf_event_counter::is_open() const noexcept { return fd_ >= 0; }

const std::string& perf_event_counter::unavailable_reason() const noexcept { return reason_; }

std::optional<std::uint64_t> perf_event_counter::read() {
    if (fd_ < 0) return std::nullopt;
    // The layout read_format asks for: value, time_enabled, time_running.
    std::array<std::uint64_t, 3> data{};
    ssize_t got = 0;
    do {
        got = ::read(fd_, data.data(), sizeof(data));
    } while (got < 0 && errno == EINTR);
    if (got < 0) {
        reason_ = "reading the perf_event counter failed: " + errno_text(errno);
        return std::nullopt;
    }
    if (static_cast<std::size_t>(got) != sizeof(data)) {
        // A short (zero-byte) read is how the kernel reports an event in error state.
        reason_ = "reading the perf_event counter returned " + std::to_string(got) +
                  " bytes instead of " + std::to_string(sizeof(data)) +
                  "; the kernel put the event in an error state";
        return std::nullopt;
    }
    const auto [value, enabled, running] = data;
    // Equal times (including 0/0 for a thread that has not run since opening) mean the
    // counter was never multiplexed off the PMU, so the raw value is exact.
    if (running == enabled) {
        reason_.clear();
        return value;
    }
    if (running == 0) {
        reason_ = "the kernel has not yet given this counter a hardware slot (time_running is 0): "
                  "more counters are open than the PMU has";
        return std::nullopt;
    }
    reason_.clear();
    // An estimate: assumes the event rate while counted also held while multiplexed out.
    return static_cast<std::uint64_t>(static_cast<long double>(value) *
                                      static_cast<long double>(enabled) /
                                      static_cast<long double>(running));
}

int current_thread_id() noexcept { return static_cast<int>(::gettid()); }

}  // namespace weft::detail
