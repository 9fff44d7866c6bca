// The scheduler's bits of task::flags (threads/task.hpp has the lifecycle's).
#pragma once

#include <weft/threads/task.hpp>

#include <cstdint>

namespace weft::detail {

/// Being run inline by a waiting owner (get(), task_group::wait()).
inline constexpr std::uint8_t task_flag_inline = 1u << 1;
/// Spawned by the runtime for itself: counted apart from application tasks (seed 000
/// ch.5 saw helper tasks distort the task-duration counters; digest §6).
inline constexpr std::uint8_t task_flag_internal = 1u << 2;
/// Runs only on worker `last_worker` (task_attributes::worker): the loop keeps it out of
/// the policy's queues, in that worker's own inbox, so no policy can let it be stolen.
inline constexpr std::uint8_t task_flag_pinned = 1u << 3;
/// The spawner allows the task to run at once, on the spawner's own stack, when the
/// policy's queue has no room for it (work-first, seed 002 §3: HotSLAW's bounded
/// queues). Set by spawns that are safe to run there (task_group::run, task_queue::put):
/// a spawner holding a lock the child takes would deadlock, so post and async never set it.
inline constexpr std::uint8_t task_flag_work_first = 1u << 5;
/// Tasks that the header-only fast paths (spawn path, bypass, take-back) leave to the
/// scheduler.
inline constexpr std::uint8_t task_flags_slow_path = task_flag_pinned | task_flag_own_stack;

static_assert(((task_flag_inline | task_flag_internal | task_flag_pinned | task_flag_work_first) &
                  (task_flag_yielded | task_flag_own_stack | task_flag_upper_layer) ) == 0);

}  // namespace weft::detail
