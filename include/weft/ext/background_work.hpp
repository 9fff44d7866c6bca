// Work the scheduling loop runs besides tasks: a layer above the scheduler (the
// distributed layer's network poll, say) registers a function that idle workers call
// each time they find no task, and busy workers every few tasks. While such work has
// something outstanding (a receive posted, a message in flight), one worker keeps
// polling instead of parking, so the work makes progress with no task to carry it.
#pragma once

#include <cstdint>

namespace weft::ext {

/// Background work: does a bounded amount of work on worker `worker` and returns true if
/// it did something (found a message, spawned a task), false if there was nothing to do.
/// Called concurrently by several workers: it must be thread-safe (a try-lock around a
/// poll that only one thread may make is the usual shape), must not block, and must not
/// suspend (it runs on the loop, or in a task that waits on a future: see
/// set_waiting_tasks_poll). Exceptions are not allowed (noexcept).
using background_fn = bool (*)(void* arg, unsigned worker) noexcept;

/// Identifies registered background work.
using background_work_id = std::uint32_t;

/// Registers `fn(arg, worker)` with the running runtime: idle workers call it whenever they
/// look for a task and find none, busy workers after every `every_tasks` tasks they take
/// from the loop (1 = before each). A parked worker looks for nothing: while nothing is
/// outstanding (background_work_started) and no task runs, nobody may call it. At most 8
/// may be registered at once.
/// @throws weft::runtime_state_error when no runtime is running; weft::error when eight
/// are registered already or `fn` is null or `every_tasks` is 0.
background_work_id add_background_work(background_fn fn, void* arg, std::uint32_t every_tasks = 64);

/// Unregisters `id` and returns once no worker runs it any more. May be called from a
/// task or any thread; a no-op when the runtime has stopped or `id` is not registered.
/// Outstanding counts it added (background_work_started) are dropped with it.
void remove_background_work(background_work_id id) noexcept;

/// Work `id` has one more thing outstanding: until the matching background_work_finished,
/// one worker at a time keeps calling the background work instead of parking (it spins,
/// then yields between calls). Cheap (one atomic add); any thread.
void background_work_started(background_work_id id) noexcept;
/// One outstanding thing of `id` completed.
void background_work_finished(background_work_id id) noexcept;

/// Whether a task that waits on a future that is not ready polls outstanding background
/// work itself while its worker has nothing else to run, before it suspends (about
/// 50 us at most; see weft::detail::poll_while_waiting). On by default; never when the
/// runtime has more workers than processing units. A layer that knows the node is
/// oversubscribed in another way (several processes on one node's cores: the
/// distributed layer) turns it off, so that a waiting task gives its core away.
/// @throws weft::runtime_state_error when no runtime is running.
void set_waiting_tasks_poll(bool on);
/// Inside a background function: true if a task waiting on a future is the caller
/// (set_waiting_tasks_poll). It runs with no current task, as on the loop: nothing it
/// calls may suspend.
bool background_caller_waiting() noexcept;
/// Inside a background function: true if the calling worker found no task this round
/// (an idle poll, which may take its time or nap), false in a busy worker's periodic
/// call (which should return quickly) or outside a worker.
bool background_caller_idle() noexcept;

}  // namespace weft::ext
