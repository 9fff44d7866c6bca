// Phases (seed 000 §2.3.1: a phase begins each time the loop activates a task, new or
// resumed). With timing on, the loop reads the cycle clock at each phase boundary:
// Σt_exec is the sum of phase times; Σt_func, the whole loop's time, is read off the
// clock by the counters, so idle spinning and parking cost no clock reads. The writer of
// the open-phase sequence lock is here; its reader is read_phase_sums below.
#pragma once

#include "scheduler.hpp"

#include <weft/sched/detail/introspect.hpp>
#include <weft/sched/detail/task_flags.hpp>

#include <cstdint>

namespace weft::detail {

inline void trace_add(worker* w, trace_event::kind_t kind, std::uint64_t now, std::uint64_t id, const char* name,
               std::uint32_t arg) noexcept {
    if (w->trace.size() < w->trace.capacity()) w->trace.push_back({now, id, name, arg, kind});
    else ++w->trace_dropped;
}

// Opens a phase for `t` at tick `now` (0 when timing is off). `resumed`: t was pending.
inline void begin_phase(worker* w, task* t, bool resumed, std::uint64_t now) noexcept {
    w->stats.phases.add();
    w->phase_internal = (t->flags & task_flag_internal) != 0;
    if (now == 0) return;
    w->phase_start = now;
    // release: a reader that sees this phase open also sees the sums of the phases
    // before it (a sequence lock, see end_phase; a plain mov on x86). The low bit says
    // whether the phase is a runtime-internal task's.
    w->stats.open_phase.store(now << 1 | (w->phase_internal ? 1u : 0u), std::memory_order_release);
    if (const std::uint64_t q = t->queued_at; q != 0) {
        t->queued_at = 0;
        const std::uint64_t waited = now > q ? now - q : 0;  // another core's clock may lag a little
        if (resumed) {
            w->stats.wait_pending_ticks.add(waited);
            w->stats.wait_pending_samples.add();
        } else {
            w->stats.wait_staged_ticks.add(waited);
            w->stats.wait_staged_samples.add();
        }
    }
    if (w->tracing) {
        w->phase_task_id = t->id;
        w->phase_task_name = t->name;
        trace_add(w, trace_event::phase_begin, now, t->id, t->name, resumed ? 1u : 0u);
    }
}

// Closes the open phase; returns the tick it read (0 when timing is off).
inline std::uint64_t end_phase(worker* w, bool suspended) noexcept {
    if (suspended) w->stats.suspends.add();
    if (!w->timing) return 0;
    const std::uint64_t now = cycle_clock_now();
    const std::uint64_t spent = now > w->phase_start ? now - w->phase_start : 0;
    // Close the open phase before its time joins the sums: a reader that sees the new
    // sum (release here, acquire in read_phase_ticks, src/sched/introspect.cpp) then sees open_phase changed and reads
    // again, a sequence lock. Both stores are plain movs on x86.
    w->stats.open_phase.store(0, std::memory_order_relaxed);  // relaxed: published by the release below
    (w->phase_internal ? w->stats.internal_ticks : w->stats.exec_ticks).add_release(spent);
    if (w->tracing) trace_add(w, trace_event::phase_end, now, w->phase_task_id, w->phase_task_name, suspended ? 1u : 0u);
    return now;
}

inline std::uint64_t phase_clock(const worker* w) noexcept { return w->timing ? cycle_clock_now() : 0; }

// The loop goes straight from a finished task to `next`, the task it readied (bypass).
// The boundary between the two phases would read the clock once and use that tick as
// both the end of one and the start of the other, so Σt_exec, the only thing the
// counters take from phase times, is the same if the open phase simply runs on: a bypass
// chain of k tasks costs two clock reads instead of k + 1. The boundary is made a real
// one, with its read, only when something needs its tick: a trace, a task stamped for
// the queue-wait sample, or a change between application and runtime-internal work
// (their times are summed apart).
inline void continue_phase(worker* w, task* next) noexcept {
    const bool internal = (next->flags & task_flag_internal) != 0;
    if (w->timing && (w->tracing || next->queued_at != 0 || internal != w->phase_internal)) {
        begin_phase(w, next, false, end_phase(w, false));
        return;
    }
    w->stats.phases.add();
    w->phase_internal = internal;
}

// The sums of `st`'s phases plus the part of the phase running at tick `now`. The reader
// of the sequence lock whose writer is begin_phase/end_phase above (used by read_sample):
// open_phase is (start << 1) | internal, 0 between phases; end_phase clears it before its
// time joins a sum (release), begin_phase publishes it (release) after the sums.
inline void read_phase_ticks(const loop_stats& st, std::uint64_t now, worker_sample& x) noexcept {
    std::uint64_t open = 0, exec = 0, internal = 0;
    for (int attempt = 0; attempt < 16; ++attempt) {
        open = st.open_phase.load(std::memory_order_acquire);  // acquire: pairs with the release in begin_phase
        exec = st.exec_ticks.get_acquire();  // acquire: pairs with add_release in end_phase
        internal = st.internal_ticks.get_acquire();  // acquire: as exec
        // relaxed: ordered after the acquire loads above.
        if (st.open_phase.load(std::memory_order_relaxed) == open) break;
    }
    const std::uint64_t open_start = open >> 1;
    const std::uint64_t running = open != 0 && now > open_start ? now - open_start : 0;
    x.exec_ticks = exec + ((open & 1) == 0 ? running : 0);
    x.internal_ticks = internal + ((open & 1) != 0 ? running : 0);
}

}  // namespace weft::detail
