// weft::this_task: what a running task can do to itself (yield, sleep, identify itself).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>

namespace weft {

/// Identifies a task, like std::thread::id: a default-constructed id names no task,
/// and an id may be reused after its task has terminated.
class task_id {
public:
    task_id() noexcept = default;
    explicit task_id(std::uint64_t v) noexcept : value_(v) {}
    std::uint64_t value() const noexcept { return value_; }
    friend bool operator==(task_id, task_id) noexcept = default;
    friend auto operator<=>(task_id, task_id) noexcept = default;
    friend std::ostream& operator<<(std::ostream& os, task_id id) { return os << "task#" << id.value_; }

private:
    std::uint64_t value_ = 0;
};

namespace detail {
/// Suspends the calling task for good (or blocks the calling thread for good): what a
/// sleep past any deadline a clock can represent means. The deadlock report lists the
/// task as waiting on something it cannot name.
[[noreturn]] void sleep_forever();
}  // namespace detail

namespace this_task {

/// Lets other ready tasks run first; the calling task stays runnable (seed 000's
/// active → pending). On a thread that is not a weft worker, std::this_thread::yield().
void yield();

/// Suspends the calling task until `deadline`; the worker runs other tasks meanwhile.
/// On a thread that is not a weft worker, blocks that thread. A deadline in the past
/// returns at once; one within a century of time_point::max() never comes: the task
/// sleeps for good (detail::sleep_forever()).
void sleep_until(std::chrono::steady_clock::time_point deadline);

/// Suspends the calling task for at least `d` (see sleep_until). A `d` that is not
/// positive (or NaN) returns at once; one of a century or more (hours::max(), an
/// infinite floating-point duration) never ends, rather than overflowing the deadline.
template <class Rep, class Period>
void sleep_for(std::chrono::duration<Rep, Period> d) {
    using namespace std::chrono;
    if (!(d > d.zero())) return;
    if (!(duration<double>(d) < duration<double>(hours(24 * 365 * 100)))) detail::sleep_forever();
    sleep_until(steady_clock::now() + ceil<steady_clock::duration>(d));
}

/// The id of the calling task; task_id{} on a thread that is not running a task.
task_id get_id() noexcept;

/// The name given to the calling task, or nullptr.
const char* get_name() noexcept;

/// The index of the worker running the caller (0..threads-1), or -1 outside workers.
/// A task may move between workers whenever it suspends.
int worker_index() noexcept;

/// The usable bytes of the stack the caller runs on: the runtime's --weft:stack-size, or
/// more for a task given a larger task_attributes::stack_size (and for whatever its
/// worker runs on that stack after it); 0 on a thread that is not a weft worker.
std::size_t stack_size() noexcept;

}  // namespace this_task

/// The number of worker threads of the running runtime, or 0 when none is running.
unsigned num_workers() noexcept;

/// The number of NUMA domains the running runtime's workers sit in (the machine's, or
/// those of the topology given in runtime_config::topology), or 0 when none is running.
unsigned num_numa_domains() noexcept;

/// The NUMA domain (0..num_numa_domains()-1) of worker `worker`.
/// @throws weft::error if no runtime is running or there is no such worker.
unsigned worker_numa_domain(unsigned worker);

}  // namespace weft

template <>
struct std::hash<weft::task_id> {
    std::size_t operator()(weft::task_id id) const noexcept { return std::hash<std::uint64_t>{}(id.value()); }
};
