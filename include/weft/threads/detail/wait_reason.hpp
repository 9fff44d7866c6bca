// What a suspended task waits on, as the deadlock report names it: recorded on the
// task's stack when it suspends (context::waiting), set by whoever suspends it (a
// future, a task_group, an LCO).
#pragma once

#include <cstdint>

namespace weft::detail {

enum class wait_kind : std::uint8_t {
    unknown,
    future,
    task_group,
    task_queue,
    mutex,
    recursive_mutex,
    shared_mutex,
    condition_variable,
    counting_semaphore,
    latch,
    barrier,
    event,
    channel,
    once_flag,
};

/// wait_reason::holder for "a thread outside weft" (a mutex locked by a plain thread).
inline constexpr std::uint64_t holder_outside_thread = ~std::uint64_t{0};

struct wait_reason {
    wait_kind kind = wait_kind::unknown;
    const void* object = nullptr;
    /// The id (task::id) of the one task that holds the object (a mutex's owner) or
    /// will complete it (an async future's producer); holder_outside_thread for a plain
    /// thread; 0 when unknown or several could.
    std::uint64_t holder = 0;
};

/// The weft name of a wait kind ("future", "mutex", ...).
const char* wait_kind_name(wait_kind k) noexcept;

}  // namespace weft::detail
