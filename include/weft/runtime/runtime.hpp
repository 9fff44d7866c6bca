// Starting and stopping weft: weft::run for a whole program, weft::runtime for explicit
// control.
#pragma once

#include <weft/config/errors.hpp>
#include <weft/futures/future.hpp>
#include <weft/runtime/options.hpp>
#include <weft/sched/detail/introspect.hpp>

#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

namespace weft {

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
    /// Defaults overridden by the WEFT_* environment; otherwise as runtime(argc, argv)
    /// with no arguments.
    runtime();
    /// Defaults, WEFT_* environment, then the --weft:* options of argv, which are removed
    /// (argv need not end in a nullptr: argv[argc] is written only where an option was).
    /// A variable whose option argv gives is ignored, not even parsed. An unknown or bad
    /// option or variable prints one line naming it and what it accepts and exits with
    /// code 2: a malformed value, a configuration validate() rejects, or one found bad
    /// only at start (a counter name that matches nothing, a counter destination, trace,
    /// adaptation log or history file that cannot be opened for writing, or for reading
    /// and appending). A runtime that cannot start for another reason (a worker thread
    /// the system refuses) prints the weft::error and exits with code 1. --weft:help
    /// prints the options and exits with code 0; --weft:list-counters prints the counters
    /// and exits with code 0.
    runtime(int& argc, char** argv);
    /// Exactly this configuration, validated (validate()), started as the constructors
    /// above do, but with exceptions where they exit.
    /// @throws weft::bad_option (weft::bad_counter_name) for a bad configuration value or
    ///         a file that cannot be written; weft::runtime_state_error if a runtime is
    ///         already running; weft::error ("weft: cannot start worker thread N of M:
    ///         ...") if a thread cannot be created, after stopping those that started.
    explicit runtime(const runtime_config& cfg);
    runtime(const runtime&) = delete;
    runtime& operator=(const runtime&) = delete;
    /// stop(); a write error it would throw was already printed on stderr and is dropped.
    ~runtime();

    /// Blocks the calling thread until every task spawned so far, and every task those
    /// spawn, has finished (on this locality: other localities may still be busy). (Whoever waits, a deadlock is reported: see the README's
    /// "Deadlocks" and runtime_config::on_deadlock.)
    /// @throws weft::runtime_state_error when called from a task (it would wait for itself).
    void wait();
    /// Stops accepting tasks from threads outside the runtime (from now on their
    /// weft::post/async throw weft::runtime_state_error; every task accepted before runs),
    /// waits for every accepted task and every task those spawn (under mpirun: on every
    /// locality, and for every parcel in flight; each locality must call stop(), and
    /// unless --weft:spmd the others' stop() waits for locality 0's), then
    /// stops and joins the workers, prints the counters a last time and writes the trace. Tasks may still
    /// spawn tasks, and outside threads may still complete what tasks wait on (set a
    /// promise, unlock a mutex) until the last task has finished. Idempotent.
    /// @throws weft::runtime_state_error when called from a task.
    ///
    /// Counters or a trace that could not be written (a full disk: the destination or the
    /// trace file fails a write, flush or close) are reported on stderr when it happens
    /// ("weft: could not write counters to FILE: <reason>", "weft: could not write the
    /// trace to FILE: <reason>"); once everything has stopped, stop() then throws a
    /// weft::error with that message, so that the program can end with a non-zero code.
    /// weft::run does so (returns 1); the destructor cannot, and only the message remains.
    /// @throws weft::error, as above.
    void stop();

    /// Whether weft::run runs its function here: on locality 0, or on every locality
    /// with --weft:spmd.
    bool runs_main() const noexcept;

    /// The configuration in force (threads resolved to the actual worker count).
    const runtime_config& config() const noexcept { return cfg_; }
    unsigned num_workers() const noexcept;
    std::string_view scheduler_name() const noexcept;
    /// How many tasks each worker has finished (for reports on load balance).
    std::vector<std::uint64_t> tasks_per_worker() const;

private:
    void start_program(int& argc, char** argv);
    void start();

    runtime_config cfg_;
    detail::scheduler_handle sched_;
};

/// Starts a runtime configured from WEFT_* and the --weft:* options of argv, runs
/// `fn(argc, argv)` as the first task (named "main", argv without the --weft: options, on
/// a stack of runtime_config::main_stack_size bytes: 8 MiB by default),
/// waits until it and every task it spawned have finished, stops the runtime and
/// returns fn's result (0 if fn returns void). An exception escaping fn is rethrown
/// here after the runtime stopped. If the counters or the trace could not be written
/// (see runtime::stop; the message is on stderr) and fn returned 0, returns 1. For option
/// errors (exit code 2), a runtime that cannot start (exit code 1), --weft:help and
/// deadlocks see weft::runtime.
///
/// Under `mpirun -np N` every process is a locality: fn runs on locality 0 only (the
/// others serve the actions sent to them and return 0), or on every locality with
/// --weft:spmd; run returns on every locality once fn has returned (everywhere it ran)
/// and no task runs and no parcel travels on any locality.
template <class F>
    requires std::is_invocable_v<F&, int, char**>
int run(int argc, char** argv, F&& fn) {
    runtime rt(argc, argv);
    if (!rt.runs_main()) {
        rt.stop();
        return 0;
    }
    task_attributes main_attributes{task_priority::normal, "main"};
    main_attributes.stack_size = rt.config().main_stack_size;
    future<int> root = async(main_attributes, [&fn, argc, argv]() -> int {
        if constexpr (std::is_void_v<std::invoke_result_t<F&, int, char**>>) {
            fn(argc, argv);
            return 0;
        } else {
            return static_cast<int>(fn(argc, argv));
        }
    });
    root.wait();
    bool write_failed = false;
    try {
        rt.stop();
    } catch (const error&) {
        write_failed = true;  // already on stderr
    }
    const int result = root.get();
    return result == 0 && write_failed ? 1 : result;
}

}  // namespace weft
