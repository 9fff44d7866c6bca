// Which one policy a launch set stands for at one call (weft::async, then, dataflow).
#pragma once

#include <weft/config/errors.hpp>
#include <weft/futures/launch.hpp>
#include <weft/sched/detail/worker_hot.hpp>

#include <cstddef>

namespace weft::detail {

/// launch::optional's choice: when the calling worker already has at least this many
/// tasks queued for thieves, a call that may run in place (deferred or sync) does, and a
/// new task is made only below it: the queue-length cut-off of Duran, Corbalán and
/// Ayguadé ("An adaptive cut-off for task parallelism", SC 2008), with the queue of the
/// worker that spawns.
inline constexpr std::size_t optional_queue_cutoff = 8;

/// Tasks queued on `w`'s spawn path (a relaxed estimate; 0 without one).
inline std::size_t spawn_queue_length(const worker_hot* w) noexcept {
    using kind = ext::spawn_path::kind;
    switch (w->spawn.how) {
        case kind::stealing: return w->spawn.deque->size_approx();
        case kind::owner: return w->spawn.owned->size_approx();
        case kind::bounded: return w->spawn.bounded->size_approx();
        case kind::none: break;
    }
    return 0;
}

/// The one policy of `l` that weft::async uses for this call (a launch with one bit).
/// One policy set: that one. Several: a new task (fork if set and the caller is a task,
/// else async) unless the set also allows running in place (deferred first, then sync)
/// and the calling worker has optional_queue_cutoff tasks queued already; deferred | sync
/// alone: deferred. @throws weft::error for an empty set.
inline launch::bits choose_launch(launch l) {
    const unsigned bits = l.to_bits();
    if (bits == 0)
        throw error("weft: the launch policy set is empty (give launch::async, deferred, sync, fork or a set of them)");
    const bool in_place = (bits & (launch::deferred_bit | launch::sync_bit)) != 0;
    const launch::bits in_place_bit = (bits & launch::deferred_bit) != 0 ? launch::deferred_bit : launch::sync_bit;
    if ((bits & (launch::async_bit | launch::fork_bit)) == 0) return in_place_bit;
    const worker_hot* w = current_worker_hot();
    if (in_place && w != nullptr && spawn_queue_length(w) >= optional_queue_cutoff) return in_place_bit;
    const bool in_task = w != nullptr && w->current_task != nullptr;
    return (bits & launch::fork_bit) != 0 && in_task ? launch::fork_bit : launch::async_bit;
}

/// Calls `run` with the policy type that `l` stands for at this call, for then() and
/// dataflow(): async (with l's attributes) for async and fork (a continuation has no
/// caller whose continuation could be stolen), deferred, or sync; a set is chosen
/// between as choose_launch does.
template <class Run>
decltype(auto) with_launch(launch l, Run&& run) {
    switch (l.single() ? static_cast<launch::bits>(l.to_bits()) : choose_launch(l)) {
        case launch::deferred_bit: return run(launch::deferred);
        case launch::sync_bit: return run(launch::sync);
        default: return run(launch::async(l.attributes()));
    }
}

}  // namespace weft::detail
