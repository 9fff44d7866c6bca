// The policy engine (issue #6; seed 000 ch.7, digest 000 §1.16-1.17): our APEX.
//
// A *policy* is a function the engine calls when its trigger fires:
//   - periodically, every `period` on the engine's own timer thread (a runtime-internal
//     thread, not a worker: a policy never takes a worker away from the program);
//   - on an event the program fires (trigger("end-iteration"), end_iteration(), or the
//     start and end of a named region), synchronously on the thread that fires it, as
//     APEX's synchronous events;
//   - when a counter crosses a threshold (checked every `period` on the timer thread).
// Each policy reads its own counters over the interval since it last ran (evaluate with
// reset, so policies do not disturb each other or --weft:print-counter) and acts: sets a
// tunable, changes the number of active workers (throttling, as APEX did for power),
// logs (--weft:adapt-log).
//
// A *tunable* is a named parameter over a domain (integers, an ordered set, a continuous
// range) with its own search strategy (search.hpp). tune() wires a tunable to an
// objective (any counter, a derived /arithmetics counter, or wall time between two
// events) and reports one trial per event, as seed 000 §7 tuned the stencil's partition
// size on "end of iteration". Search histories may persist in a file
// (--weft:adapt-history), keyed by program and tunable, so a re-run starts warm.
//
// Policies belong to the running runtime: they are dropped when it stops, and a handle
// that outlives it is inert. Registration needs a running runtime.
#pragma once

#include <weft/adapt/search.hpp>
#include <weft/counters/counters.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weft::adapt {

class policy_context;
using policy_fn = std::function<void(policy_context&)>;

/// What a policy reads and how it is named in the log.
struct policy_options {
    /// Its name in the log and in errors (default: "policy#N").
    std::string name;
    /// Counter names or patterns (see weft::counters::query) the policy reads: each call
    /// gets their values over the interval since its previous call (or registration).
    std::vector<std::string> counters;
    /// An event that starts a new interval (the counters reset, interval_s() restarts)
    /// without calling the policy: e.g. "start-iteration" for a policy on "end-iteration",
    /// so that what happens between iterations is not measured. Empty: none.
    std::string reset_on;
};

/// Which way a counter must cross a threshold to fire an on_threshold policy.
enum class crossing {
    upward,    ///< the value was below (or unknown) and is now at or above the threshold
    downward,  ///< the value was above (or unknown) and is now at or below the threshold
};

/// What a policy sees when it runs.
class policy_context {
public:
    /// The trigger: "period", "threshold", or the event's name.
    std::string_view trigger() const noexcept { return trigger_; }
    /// The policy's name.
    std::string_view name() const noexcept { return name_; }
    /// Seconds since the policy last ran (or was registered).
    double interval_s() const noexcept { return interval_s_; }
    /// The policy's counters over that interval, in the order of policy_options::counters
    /// (a pattern contributes each instance it matched).
    const std::vector<counters::counter_value>& values() const noexcept { return values_; }
    /// The i-th value, or NaN if it is unavailable or there is none.
    double value(std::size_t i = 0) const noexcept;
    /// Writes a line to the adaptation log (--weft:adapt-log), tagged with the policy.
    void log(std::string_view message) const;
    /// How many times this policy ran before (0 on its first call).
    std::uint64_t runs() const noexcept { return runs_; }

private:
    friend struct engine_access;
    std::string_view trigger_;
    std::string_view name_;
    double interval_s_ = 0;
    std::vector<counters::counter_value> values_;
    std::uint64_t runs_ = 0;
};

/// A registered policy. Destroying (or reset()ting) the handle deregisters it; once that
/// returns the policy neither runs nor is running (unless reset() is called by the policy
/// itself, which then finishes its current call). Movable, not copyable.
class policy_handle {
public:
    policy_handle() noexcept = default;
    policy_handle(policy_handle&&) noexcept = default;
    policy_handle& operator=(policy_handle&& o) noexcept {
        if (this != &o) {
            reset();
            entry_ = std::move(o.entry_);
        }
        return *this;
    }
    policy_handle(const policy_handle&) = delete;
    policy_handle& operator=(const policy_handle&) = delete;
    ~policy_handle() { reset(); }

    /// Deregisters the policy (does nothing if there is none).
    void reset() noexcept;
    /// True while the policy is registered (false after reset, after it was disabled for
    /// throwing, and after its runtime stopped).
    bool active() const noexcept;
    /// Times the policy ran.
    std::uint64_t runs() const noexcept;
    struct entry;

private:
    friend struct engine_access;
    explicit policy_handle(std::shared_ptr<entry> e) noexcept : entry_(std::move(e)) {}
    std::shared_ptr<entry> entry_;
};

/// Calls `fn` every `period` (>= 1 ms) on the engine's timer thread. A policy that throws
/// is logged and disabled. @throws weft::error for a bad period or counter name
/// (weft::bad_counter_name), weft::runtime_state_error without a runtime.
[[nodiscard]] policy_handle on_period(std::chrono::milliseconds period, policy_options options, policy_fn fn);

/// Calls `fn` each time `event` is triggered, on the triggering thread, after the
/// policies registered for it earlier (registration order). @throws as on_period; also
/// for an empty event name.
[[nodiscard]] policy_handle on_event(std::string event, policy_options options, policy_fn fn);

/// Checks `counter` (one instance; its value over the interval since the last check)
/// every `period` on the timer thread, and calls `fn` when it crosses `threshold` the
/// `way` given. Edge-triggered: it fires again only after crossing back. The counter is
/// prepended to options.counters, so value(0) is the value that crossed. @throws as
/// on_period; also if `counter` matches several instances or the threshold is not finite.
[[nodiscard]] policy_handle on_threshold(std::string counter, double threshold, crossing way,
                                         std::chrono::milliseconds period, policy_options options, policy_fn fn);

/// Fires `event`: runs its policies now, on this thread, in registration order. If some
/// throw, the others still run and the first exception is rethrown here (those policies
/// stay registered: the caller decides). Firing an event nobody listens to costs a lock
/// and a lookup. A policy runs under its own lock: fired from a task, it should not wait
/// for other tasks (a future's get()), and a policy that fires an event it listens to
/// from inside itself gets a weft::error. @throws weft::runtime_state_error without a
/// runtime.
void trigger(std::string_view event);

/// The event of seed 000 §7's stencil: one trial (one run, one iteration) ended.
inline constexpr std::string_view end_iteration_event = "end-iteration";
/// trigger(end_iteration_event).
inline void end_iteration() { trigger(end_iteration_event); }

/// A named region: fires "region-start:NAME" when made and "region-end:NAME" when
/// destroyed (exceptions of the end policies are logged, not thrown, from the destructor).
class region {
public:
    /// @throws weft::error for an empty name; whatever start policies throw.
    explicit region(std::string name);
    ~region();
    region(const region&) = delete;
    region& operator=(const region&) = delete;
    static std::string start_event(std::string_view name) { return "region-start:" + std::string(name); }
    static std::string end_event(std::string_view name) { return "region-end:" + std::string(name); }

private:
    std::string name_;
};

/// Throttling: lets only workers 0..n-1 take work; the others finish their current task
/// and sleep (tasks pinned to them still run there). Their queued tasks are stolen by the
/// active workers. n is clamped to [1, workers]. @throws weft::error if the scheduler
/// policy cannot throttle (static, single: they never move a task between workers);
/// weft::runtime_state_error without a runtime.
void set_active_workers(unsigned n);
/// The number of workers allowed to take work (all of them unless throttled).
unsigned active_workers();

/// Writes a line to the adaptation log, if --weft:adapt-log (or set_log) names one.
void log(std::string_view message);
/// Sends the adaptation log to `path` ("stderr", "stdout", or a file, appended); empty:
/// no log. Replaces --weft:adapt-log. @throws weft::error if the file cannot be opened.
void set_log(std::string_view path);

// ---------------------------------------------------------------------------------
// Tunables

/// How a tunable searches.
struct tunable_options {
    strategy kind = strategy::u_shape;
    search_options search;
    /// Persist measurements in --weft:adapt-history (if set), keyed by program and
    /// tunable name, and start from the ones found there.
    bool history = true;
    /// The program's key in the history file; default: the executable's file name.
    std::string program;
    /// Measurements per trial (>= 1): the point under trial stays value() for this many
    /// report()s, and the search is told their median (a non-finite one counts as worst).
    /// On a noisy machine (a run of the same size varying by 10-30 %), 3 keeps one slow
    /// or fast run from deciding the search; trials() still counts points.
    std::size_t samples = 1;
};

/// A named parameter that a search tunes. value() is what the program should use now: the
/// point under trial while searching, the best point once the search has ended. Thread
/// safe: value() may be read anywhere while a policy reports.
class tunable {
public:
    /// @throws weft::error for an empty name or what search's constructor rejects
    /// (a one-dimensional strategy is the only kind: one tunable, one search).
    tunable(std::string name, domain d, tunable_options options = {});
    ~tunable();
    tunable(const tunable&) = delete;
    tunable& operator=(const tunable&) = delete;

    const std::string& name() const noexcept { return name_; }
    /// The value to use now (always inside the domain).
    double value() const;
    /// value() rounded to the nearest integer.
    std::int64_t integer() const;
    /// One measurement at value(): `objective` (lower is better; NaN and infinities count
    /// as worst). The options' samples-th measurement at a point ends the trial: their
    /// median goes to the search, which moves value() to its next point, or to the best
    /// once it has converged or spent its budget; then reports are ignored. Logged.
    void report(double objective);
    /// Measurements taken at value() in the current trial (0 <= n < samples).
    std::size_t pending_samples() const;
    /// True while trials are still asked for.
    bool searching() const;
    bool converged() const;
    /// Trials measured in this run (history entries are not trials).
    std::size_t trials() const;
    /// Measurements taken from the history file at construction.
    std::size_t remembered() const;
    /// The best value measured (value() if none) and its objective (+inf if none).
    double best() const;
    double best_objective() const;
    /// Starts a new search (re-adapt), from `start` or from the current best.
    void restart(std::optional<double> start = std::nullopt);
    const domain& range() const noexcept { return domain_; }
    /// Keys the history by `objective` too (tune() calls it: a search that minimized
    /// idle-rate says nothing about wall time) and, if no trial ran yet, restarts the
    /// search from the history under that key.
    void use_history_key(std::string_view objective);

private:
    void start_search(std::optional<double> start);
    void advance();  // m_ held
    std::string name_;
    domain domain_;
    tunable_options opt_;
    mutable std::mutex m_;
    std::unique_ptr<search> search_;
    std::vector<double> current_;
    std::vector<double> pending_;  // this trial's measurements so far
    std::size_t remembered_ = 0;
    std::string history_key_;
    std::string domain_key_;
};

/// What tune() minimizes.
struct objective {
    enum class goal { minimize, maximize };
    /// A counter (one instance) over the trial's interval, e.g. /threads/time/overall.
    static objective counter(std::string name, goal g = goal::minimize) { return {std::move(name), g}; }
    /// Wall time of the trial in seconds.
    static objective wall_time() { return {{}, goal::minimize}; }
    std::string counter_name;  ///< empty: wall time
    goal direction = goal::minimize;
};

/// Wires `t` to `what`: each `on` event ends a trial and reports the objective over the
/// interval since the last `from` event (or, if `from` is empty, since the last `on`), as
/// long as `t` is searching. The tunable must outlive the returned handle.
/// @throws as on_event; weft::bad_counter_name for a bad objective counter.
[[nodiscard]] policy_handle tune(tunable& t, objective what, std::string on = std::string(end_iteration_event),
                                 std::string from = {});

}  // namespace weft::adapt

namespace weft::adapt::detail {
/// The runtime's part: configure at start, drop every policy and join the timer at stop.
struct engine_config {
    std::string log;      ///< --weft:adapt-log
    std::string history;  ///< --weft:adapt-history
};
void start_engine(const engine_config& cfg);
void stop_engine() noexcept;
}  // namespace weft::adapt::detail
