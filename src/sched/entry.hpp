// Who may touch the running scheduler: the calling worker (tl_worker), and threads
// outside the runtime through the entry gate, so that stop() never frees a scheduler
// such a thread still uses and a spawn from outside either runs or throws.
#pragma once

#include "scheduler.hpp"

#include <atomic>
#include <cstdint>

namespace weft::detail {

/// The calling thread's worker, or null. initial-exec: weft is linked into the
/// executable, so the TLS offset is fixed and a signal handler can read it without
/// calling into the dynamic linker.
extern thread_local worker* tl_worker __attribute__((tls_model("initial-exec")));

/// The running scheduler, or null.
extern std::atomic<scheduler*> g_active;

// The entry for threads outside the runtime (the main thread, I/O threads, the timer
// and counter threads): spawn, resume and timers from there pass through it. The low
// bits count the threads inside. entry_closed: new tasks from outside are refused
// (stop() has begun); entry_gone: everything is (no runtime, or its workers are
// stopping). All seq_cst: a thread that entered before stop() set a bit is waited for;
// one that enters after it sees the bit.
inline constexpr std::uint64_t entry_closed = std::uint64_t{1} << 63;
inline constexpr std::uint64_t entry_gone = std::uint64_t{1} << 62;
inline constexpr std::uint64_t entry_count = entry_gone - 1;
extern std::atomic<std::uint64_t> g_entry;

/// Sets `bits` on the entry, then waits until no thread is inside it.
void close_entry_bits(std::uint64_t bits) noexcept;
/// Opens the entry (a runtime has started).
void open_entry() noexcept;
/// Once per process: a fork() child forgets the runtime (its workers do not exist there).
void forget_runtime_in_forked_children();

/// A pass through the entry: `sched` is the running scheduler, or null when the entry is
/// closed (then nothing may be touched; the caller throws or reports).
class outside_entry {
public:
    /// `spawning`: the caller brings a new task (refused once stop() has begun); else
    /// it acts on tasks that exist (a resume, a timer), allowed until the workers stop.
    explicit outside_entry(bool spawning) noexcept {
        if ((g_entry.fetch_add(1) & (spawning ? entry_closed | entry_gone : entry_gone)) != 0) {
            g_entry.fetch_sub(1);
            return;
        }
        sched = g_active.load(std::memory_order_acquire);  // non-null while the entry is open
    }
    ~outside_entry() {
        if (sched != nullptr) g_entry.fetch_sub(1);
    }
    outside_entry(const outside_entry&) = delete;
    outside_entry& operator=(const outside_entry&) = delete;

    scheduler* sched = nullptr;
};

/// Throws weft::runtime_state_error saying why `what` found no runtime to act on.
[[noreturn]] void throw_no_runtime(const char* what);
/// Throws weft::runtime_state_error: `what` waits for every task, so no task may call it.
[[noreturn]] void throw_called_from_task(const char* what);

}  // namespace weft::detail
