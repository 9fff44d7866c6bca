// The chunk size that tunes itself (issue #6): an executor parameter that learns, per
// call site or per user-supplied key, the chunk size that minimises the time per element
// of a parallel loop, across the calls of that loop. Seed 000 ch.5 measured that time
// against grain size is U-shaped; the learner walks that U with weft::adapt::search's
// u_shape strategy from the chunk auto_chunk_size picks, one trial (a few calls at one
// chunk size) at a time, keeps the best once the search ends, and searches again from
// there when the time per element drifts.
//
//     weft::for_each(weft::execution::par.with(weft::execution::adaptive_chunk_size()), ...);
//
// The learning costs a lock per loop call (never per element) and two clock reads.
#pragma once

#include <weft/execution/parameters.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <source_location>
#include <string>
#include <string_view>
#include <vector>
#include <version>

namespace weft::adapt {

class search;

namespace detail {

struct adaptive_site;

/// Where a call-site adaptive_chunk_size was made, where std::source_location is missing.
struct call_site {
    constexpr call_site(const char* f, std::uint_least32_t l, std::uint_least32_t c) noexcept
        : file(f), line(l), column(c) {}
    const char* file;
    std::uint_least32_t line;
    std::uint_least32_t column;
};

/// The learning logic of adaptive_chunk_size for one (key, count bucket, cores), apart
/// from clocks, loops and locks (not thread-safe: adaptive_chunk_size locks it), so that
/// it can be tested with synthetic times.
///
/// Candidates: chunk sizes 1, 2, 4, ... below the bucket's cap (ceil of the bucket's
/// largest count over `cores`), the cap, and "the whole loop as one chunk on the caller"
/// (what auto_chunk_size does with a loop shorter than its target). A plan for a loop of
/// `count` iterations clamps a chunk size to [1, ceil(count / cores)] (dynamic schedule);
/// the whole-loop candidate is {static_blocks, count}.
///
/// Life: start(first plan) (what auto_chunk_size chose for the first call) is used until
/// the first report, which is not a trial: from its mean cost per element, the learner
/// starts the u_shape search at the candidate auto_chunk_size's own rule gives (chunks of
/// about `target` of work, or the whole loop if it is shorter than that). auto_chunk_size
/// itself estimates that cost from the loop's first iterations only, which misleads it on
/// a skewed loop (cheap at the front: it runs the loop serially), and a search that only
/// walks downhill from a start on the flat end of the U may stay there. Each trial runs one candidate until its reports add up to
/// min_trial_time over at least min_trial_calls calls (or max_trial_calls calls); its
/// objective is the median time per element over those calls (robust to one preempted
/// call on a busy machine), or their total over total elements below 3 calls. When the
/// search ends (by its rule or after max_trials trials) the best candidate is kept and
/// watched in windows of the same size: the first window is the baseline; drift_windows
/// windows in a row off the baseline by more than the factor 1 + drift, and by at least
/// min_drift per call in absolute terms (the time of a loop of a few microseconds jitters
/// by more than 30 % on a busy machine, and re-learning there gains nothing), start a new
/// search from the best. Reports that do not match the plan of the current candidate (a
/// concurrent call that started before the candidate changed) are ignored.
/// With one core there is nothing to learn: one chunk, converged from the start.
class chunk_learner {
public:
    struct options {
        std::chrono::nanoseconds min_trial_time{1'000'000};  ///< a trial's calls add up to this...
        std::size_t min_trial_calls = 3;                      ///< ...over at least this many calls,
        std::size_t max_trial_calls = 64;                     ///< or this many calls whatever they took
        std::size_t max_trials = 12;                          ///< per search (search_options::max_trials)
        double drift = 0.3;                                   ///< re-adapt beyond a factor 1 + drift...
        std::size_t drift_windows = 2;                        ///< ...in this many windows in a row,
        std::chrono::nanoseconds min_drift{5'000};            ///< ...if a call's time moved by this much
        std::chrono::nanoseconds target = execution::auto_chunk_size::default_target;  ///< the start's work per chunk
    };

    /// A learner for loops of about `count` iterations (any count of its bucket: those
    /// with the same std::bit_width) on `cores` processing units.
    chunk_learner(std::size_t count, std::size_t cores, options opt);
    chunk_learner(std::size_t count, std::size_t cores);
    ~chunk_learner();
    chunk_learner(const chunk_learner&) = delete;
    chunk_learner& operator=(const chunk_learner&) = delete;

    /// True once start() was called (since construction or reset()).
    bool started() const noexcept { return phase_ != phase::fresh; }
    /// Starts the learner with the plan the first call used (auto_chunk_size's); the next
    /// report, that call's, seeds the search and is not a trial.
    void start(const execution::chunking& first);
    /// The plan for a loop of `count` (>= 1) iterations of this bucket. Before start(): one chunk.
    execution::chunking propose(std::size_t count) const noexcept;
    /// A loop of `count` iterations ran with `plan` and took `ns` nanoseconds (a value
    /// that is not finite or negative counts as the worst possible time).
    void observe(const execution::chunking& plan, std::size_t count, double ns);
    /// Forgets everything: as constructed.
    void reset();

    /// The candidate in use: the current trial's while searching, the best's once converged.
    /// The whole-loop candidate reads as the bucket's largest count.
    std::size_t chunk() const noexcept;
    /// True if the current candidate is the whole loop as one chunk.
    bool whole_loop() const noexcept;
    /// True while the learner keeps its best candidate (no search running).
    bool converged() const noexcept { return phase_ == phase::watching; }
    /// Trials measured since construction or reset(), over every search.
    std::size_t trials() const noexcept { return trials_; }
    /// Searches started again because the time per element drifted.
    std::size_t restarts() const noexcept { return restarts_; }
    /// The largest chunk size a plan of this bucket can have, but for the whole loop:
    /// ceil((2^bucket - 1) / cores).
    std::size_t cap() const noexcept { return cap_; }
    /// The bucket: std::bit_width of the counts it holds.
    std::size_t bucket() const noexcept { return bucket_; }
    std::size_t cores() const noexcept { return cores_; }

private:
    enum class phase { fresh, seeding, searching, watching };
    std::size_t nearest(double chunk) const noexcept;
    void seed(const execution::chunking& plan, std::size_t count, double ns);
    void begin_search(std::size_t start_value);
    void next_point();
    void clear_window() noexcept;
    double window_objective() const;
    bool window_full() const noexcept;

    options opt_;
    std::size_t bucket_;
    std::size_t cores_;
    std::size_t cap_;
    std::vector<std::size_t> grid_;     // the chunk candidates, ascending; index grid_.size() is the whole loop
    phase phase_ = phase::fresh;
    std::unique_ptr<search> search_;
    std::size_t current_ = 0;           // the candidate in use (an index, as above)
    // The window (a trial, or a watch window) being gathered.
    std::vector<double> per_element_;   // ns per element of each call
    double window_ns_ = 0;
    double window_elements_ = 0;
    bool window_bad_ = false;           // a call reported a time that is not finite or negative
    // Watching.
    double baseline_ = 0;
    bool has_baseline_ = false;
    std::size_t drifted_ = 0;
    std::size_t trials_ = 0;
    std::size_t restarts_ = 0;
};

}  // namespace detail

/// What one learner of adaptive_chunk_size knows (see adaptive_chunk_states()).
struct adaptive_chunk_state {
    std::string key;               ///< the call site ("file:line:column") or the user's key
    std::size_t count_bucket = 0;  ///< loops of count with this std::bit_width: [2^(b-1), 2^b)
    std::size_t cores = 0;         ///< processing units of those loops
    std::size_t chunk = 0;         ///< the chunk in use (>= 1); the bucket's largest count for the whole loop
    bool whole_loop = false;       ///< the loop runs as one chunk on the caller
    bool converged = false;        ///< true while the learner keeps its best chunk
    std::size_t trials = 0;        ///< trials measured, over every search
    std::size_t restarts = 0;      ///< searches started again because the time per element drifted
};

/// Every learner adaptive_chunk_size has used since the start or the last
/// reset_adaptive_chunk_sizes(), by key, bucket and cores.
std::vector<adaptive_chunk_state> adaptive_chunk_states();

/// Forgets everything every adaptive_chunk_size learned (for tests, and for a program
/// that entered a new phase): the next call of each starts over as auto_chunk_size.
void reset_adaptive_chunk_sizes();

}  // namespace weft::adapt

namespace weft::execution {

/// A chunk parameter that learns, per call site (or per key), the chunk size that
/// minimises the time per element of its loops, across calls: the first call of a loop
/// size (per power of two of the count, and per core count) runs as auto_chunk_size; the
/// next ones try chunk sizes on a doubling grid from 1 to one chunk per core (and the
/// whole loop as one chunk) with a u_shape search that starts where auto_chunk_size's
/// rule puts it given the first call's mean cost per element, a few calls per trial, at
/// most 12 trials; the best is kept, and searched for again from there when
/// the time per element moves by more than 30 % for two windows (the workload changed).
/// Chunks are handed out dynamically. See weft::adapt::detail::chunk_learner for the
/// rules, adaptive_chunk_states() to watch it learn.
///
/// Cheap to make per call (`par.with(adaptive_chunk_size())`): construction looks the
/// key's learners up once (one lock); it holds a pointer. Learners live until the
/// process ends. Thread-safe: loops of one key may run at once on any workers.
class adaptive_chunk_size {
public:
#if defined(__cpp_lib_source_location)
    /// Learns for the call site: the key is "file:line:column" of the constructor call.
    explicit adaptive_chunk_size(std::source_location where = std::source_location::current())
        : site_(site_at(where.file_name(), where.line(), where.column())) {}
#else
    /// Learns for the call site: the key is "file:line:column" of the constructor call.
    /// (clang 14 with libstdc++ 12 has no std::source_location: its builtins give the same.)
    explicit adaptive_chunk_size(adapt::detail::call_site where = adapt::detail::call_site(__builtin_FILE(), __builtin_LINE(),
                                                                                           __builtin_COLUMN()))
        : site_(site_at(where.file, where.line, where.column)) {}
#endif
    /// Learns for `key` (loops that share a key share what is learned).
    explicit adaptive_chunk_size(std::string_view key);

    /// The chunking for a loop of shape.count iterations on shape.cores units: the first
    /// call of a learner as auto_chunk_size (which times iterations through
    /// shape.measure), then the learner's current candidate.
    chunking chunks(loop_shape& shape) const;
    /// What the loop cost: a trial's measurement (see reporting_chunk_parameter).
    void loop_done(const loop_report& report) const;
    /// The call site ("file:line:column") or the user's key.
    std::string_view key() const noexcept;

private:
    static adapt::detail::adaptive_site* site_at(const char* file, std::uint_least32_t line, std::uint_least32_t column);
    adapt::detail::adaptive_site* site_;
};

}  // namespace weft::execution
