// Performance counters (seed 000 ch.5-6; digest 000 §1.12-1.14, §2): named, always
// compiled in, cheap enough to leave on, readable while the program runs.
//
// Names follow HPX: /OBJECT{locality#L/INSTANCE}/COUNTER, where INSTANCE is `total` or
// `worker-thread#N`, e.g.
//   /threads{locality#0/total}/idle-rate
//   /threads{locality#0/worker-thread#1}/count/cumulative
//   /runtime{locality#0/total}/uptime
//   /hardware{locality#0/total}/cycles
// `/threads/idle-rate` (no instance) means the `total` instance. `*` and `?` match any
// run of characters / one character (`/threads{locality#0/worker-thread#*}/idle-rate`).
// Derived counters: `/arithmetics/divide@A,B` (also add, subtract, multiply) and
// `/arithmetics/per-core@A` (A divided by the number of workers), where A and B are
// counter names without wildcards.
//
// In a distributed run any locality's counters can be queried from any locality:
// `/threads{locality#1/total}/idle-rate`, and `locality#*` (or `locality#?`, ...) spans every
// locality, this one included. Each locality resolves and evaluates its own instances (a set
// is kept there for the query); evaluate() and reset() ask them all concurrently and the
// calling task suspends until they answer. Names come per pattern: this locality's instances
// first, then the others' in locality order. A derived counter is evaluated where its
// operands are (they must all be of one locality).
//
// Values cover an interval: from the moment a counter_set is made (or last reset) to the
// moment it is evaluated. Resetting takes a snapshot that later evaluations subtract; no
// worker is stopped. Each counter_set has its own snapshot, so independent readers do
// not disturb each other. Instantaneous counters (queue lengths, task counts by state,
// memory, uptime) ignore resets.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <weft/config/errors.hpp>

namespace weft {

/// A counter name that is malformed or names no counter of this run. The message says
/// which, and suggests the closest valid names.
class bad_counter_name : public bad_option {
public:
    using bad_option::bad_option;
};

}  // namespace weft

namespace weft::counters {

/// What list() tells about one counter instance.
struct counter_info {
    std::string name;  ///< full instance name
    std::string unit;  ///< "ns", "%", "tasks", "bytes", "s", "cycles", ...
    std::string help;  ///< one sentence: what it counts, per seed 000 where it comes from there
};

/// One evaluated counter instance.
struct counter_value {
    std::string name;
    std::string unit;
    double value = 0;        ///< meaningful only if `available`
    bool available = true;   ///< false: see `reason`
    std::string reason;      ///< why the value is unavailable (timing off, no PMU, ...)
    double interval_s = 0;   ///< seconds covered: since the set was made or last reset
};

class counter_set;
namespace detail {
struct local_query;
local_query query_here(const std::vector<std::string>& patterns);
}  // namespace detail

/// Counter instances chosen by query(), with their own reset snapshot. Instances of other
/// localities are kept there (one set per locality, made by query()) and evaluated there:
/// evaluate() and reset() then wait for their answers (the calling task suspends, its
/// worker runs other tasks; a thread outside weft blocks). Not for concurrent use.
class counter_set {
public:
    counter_set();
    ~counter_set();
    counter_set(counter_set&&) noexcept;
    counter_set& operator=(counter_set&&) noexcept;
    counter_set(const counter_set&) = delete;
    counter_set& operator=(const counter_set&) = delete;

    std::size_t size() const noexcept;
    bool empty() const noexcept { return size() == 0; }
    /// The instance names, in the order evaluate() returns them: per pattern of the query,
    /// this locality's instances, then each other locality's in locality order.
    const std::vector<std::string>& names() const noexcept;
    /// The values over the interval since the set was made or last reset; with `reset`,
    /// the next interval starts now. Other localities' values are read there, all at once,
    /// while the calling task suspends (a thread outside weft blocks).
    /// @throws weft::runtime_state_error without a runtime, or for a set made by a runtime
    ///         that has stopped (also when it stops while the answers travel); what another
    ///         locality threw (weft::error for a set it no longer keeps).
    std::vector<counter_value> evaluate(bool reset = false);
    /// Starts a new interval now (on every locality the set spans, waiting for them).
    /// @throws as evaluate()
    void reset();

    struct impl;

private:
    friend counter_set query(const std::vector<std::string>& patterns);
    friend detail::local_query detail::query_here(const std::vector<std::string>& patterns);
    std::unique_ptr<impl> impl_;
};

/// The instances matching `pattern` (wildcards allowed) in the running runtime, on any
/// locality (the localities it names make their part of the set; the calling task suspends
/// meanwhile). @code
/// auto set = weft::counters::query("/threads{locality#*/total}/count/cumulative");
/// for (const auto& v : set.evaluate()) std::printf("%s %g\n", v.name.c_str(), v.value);
/// @endcode
/// @throws weft::bad_counter_name for a malformed name or one that matches nothing on any
///         locality (naming the closest valid names; another locality's message when it is
///         the one that refuses the name); weft::runtime_state_error without a runtime.
counter_set query(std::string_view pattern);
/// The instances matching any of the patterns, each once, in the order given.
counter_set query(const std::vector<std::string>& patterns);
/// query({"/threads/idle-rate", "/threads/count/cumulative"})
counter_set query(std::initializer_list<std::string_view> patterns);

/// Every counter instance of the running runtime (or, without one, of a one-worker run).
std::vector<counter_info> list();

/// Writes list() as a table (name, unit, help) to `os`.
void print_list(std::ostream& os);

/// Output formats of the printed counters (--weft:print-counter-format).
enum class format { text, csv, json };

/// The active counters: those named by --weft:print-counter (or added here). They are
/// printed at exit, and every --weft:print-counter-interval ms if that is set.
/// Prints the active counters now (to --weft:print-counter-destination, else stdout),
/// labelled with `description` if not empty; with `reset`, starts a new interval.
/// Does nothing if no counter is active. @throws weft::runtime_state_error without a runtime.
void evaluate_active(bool reset = false, std::string_view description = {});
/// Starts a new interval for the active counters.
void reset_active();
/// Adds counters to the active set (same rules as query(), but only this locality's
/// instances are active here: in a distributed run each locality prints, or gathers at
/// exit, its own).
void add_active(std::string_view pattern);

/// Whether task timing is on (--weft:counter-timing; on by default). Without it every
/// time-based /threads counter is unavailable and the loop reads no clock.
bool timing_enabled() noexcept;

// ---------------------------------------------------------------------------------
// The seed's derived metrics (digest 000 §2), over the totals of an interval.

/// Σ over workers of the scheduling loop's raw sums, since the runtime started.
struct scheduler_totals {
    double func_ns = 0;    ///< Σt_func: time the workers spent in their scheduling loops (all of it)
    double exec_ns = 0;    ///< Σt_exec: time inside task bodies
    double tasks = 0;      ///< n_t: application tasks finished
    double phases = 0;     ///< task activations (starts and resumptions by the loop)
    double cores = 0;      ///< n_c: workers
};
/// The totals now. @throws weft::runtime_state_error without a runtime.
scheduler_totals snapshot();
/// The interval between two snapshots (b taken after a).
scheduler_totals operator-(const scheduler_totals& b, const scheduler_totals& a) noexcept;

/// Eq.1: I_r = (Σt_func − Σt_exec) / Σt_func (a fraction, 0..1).
double idle_rate(const scheduler_totals& t) noexcept;
/// Eq.2: t_d = Σt_exec / n_t (ns).
double task_duration(const scheduler_totals& t) noexcept;
/// Eq.3: t_o = (Σt_func − Σt_exec) / n_t (ns).
double task_overhead(const scheduler_totals& t) noexcept;
/// Eq.4: T_o = (Σt_func − Σt_exec) / n_c (ns per core).
double management_overhead_per_core(const scheduler_totals& t) noexcept;
/// Eq.5: t_w = t_d − t_d1 (ns), where t_d1 is the task duration of the same work on one core.
double wait_time_per_task(const scheduler_totals& t, double td1_ns) noexcept;
/// Eq.6: T_w = (t_d − t_d1) · n_t / n_c (ns per core).
double wait_time_per_core(const scheduler_totals& t, double td1_ns) noexcept;
/// TM+WT = T_o + T_w (ns per core), the metric that tracks execution time best (Table 2).
double tm_plus_wt(const scheduler_totals& t, double td1_ns) noexcept;

}  // namespace weft::counters
