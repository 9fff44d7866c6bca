// Exceptions nobody can receive (src/sched/exceptions.cpp): reported, never lost silently.
#pragma once

#include <weft/threads/task.hpp>

namespace weft::detail {

/// Reports an exception escaping a task that nobody can receive, then terminates.
/// Call from inside a catch block.
[[noreturn]] void terminate_on_unhandled_exception(const task* t) noexcept;

/// Prints an exception that has to be dropped (a task_group child's, while the group is
/// destroyed during stack unwinding) so that it is never lost silently. Call from
/// inside a catch block.
void report_discarded_exception(const char* why) noexcept;

}  // namespace weft::detail
