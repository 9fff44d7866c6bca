// Starting and stopping weft: weft::run for a whole program, weft::runtime for explicit
// control.
#pragma once

#include <weft/futures/future.hpp>
#include <weft/runtime/options.hpp>

#include <cstdint>
#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

namespace weft {

namespace detail {
class scheduler;
}

/// A running weft runtime: its workers exist from construction to stop() (or the
/// destructor). Only one runtime can run in a process at a time.
///
/// @code
/// int main(int argc, char** argv) {
///     weft::runtime rt(argc, argv);          // handles and removes --weft:* options
///     auto f = weft::async([] { return 6 * 7; });
///     std::printf("%d\n", f.get());           // blocks this (non-worker) thread
/// }                                          // waits for all tasks, then stops
/// @endcode
class runtime {
public:
    /// Defaults overridden by the WEFT_* environment.
    runtime();
    /// Defaults, WEFT_* environment, then the --weft:* options of argv, which are removed.
    /// An unknown or malformed option prints a message naming it and exits with code 2;
    /// --weft:help prints the options and exits with code 0.
    runtime(int& argc, char** argv);
    /// Exactly this configuration. @throws weft::bad_option, weft::runtime_state_error
    explicit runtime(const runtime_config& cfg);
    runtime(const runtime&) = delete;
    runtime& operator=(const runtime&) = delete;
    /// stop()
    ~runtime();

    /// Blocks the calling thread until every task spawned so far, and every task those
    /// spawn, has finished. If tasks remain suspended on something that can never
    /// complete (nothing runnable, no timer pending), reports them by name on stderr
    /// and ends the process with exit code 3 instead of hanging.
    void wait();
    /// wait(), then stops and joins the workers. Idempotent.
    void stop();

    /// The configuration in force (threads resolved to the actual worker count).
    const runtime_config& config() const noexcept { return cfg_; }
    unsigned num_workers() const noexcept;
    std::string_view scheduler_name() const noexcept;
    /// How many tasks each worker has finished (for reports on load balance).
    std::vector<std::uint64_t> tasks_per_worker() const;

private:
    void start();

    runtime_config cfg_;
    std::unique_ptr<detail::scheduler> sched_;
};

/// Starts a runtime configured from WEFT_* and the --weft:* options of argv, runs
/// `fn(argc, argv)` as the first task (named "main", argv without the --weft: options),
/// waits until it and every task it spawned have finished, stops the runtime and
/// returns fn's result (0 if fn returns void). An exception escaping fn is rethrown
/// here after the runtime stopped. For option errors, --weft:help and deadlocks see
/// weft::runtime.
template <class F>
    requires std::is_invocable_v<F&, int, char**>
int run(int argc, char** argv, F&& fn) {
    runtime rt(argc, argv);
    future<int> root = async(task_attributes{task_priority::normal, "main"}, [&fn, argc, argv]() -> int {
        if constexpr (std::is_void_v<std::invoke_result_t<F&, int, char**>>) {
            fn(argc, argv);
            return 0;
        } else {
            return static_cast<int>(fn(argc, argv));
        }
    });
    root.wait();
    rt.stop();
    return root.get();
}

}  // namespace weft
