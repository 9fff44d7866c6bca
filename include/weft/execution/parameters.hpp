// Executor parameters (seed 003 §4.3, §5): how many iterations of a parallel loop run
// together as one chunk, how chunks are handed to agents, and how many processing units
// a loop uses. They are plain types; a user type that has the same member functions is
// a parameter too (see chunk_parameter and cores_parameter).
#pragma once

#include <weft/config/errors.hpp>

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <functional>
#include <string>
#include <type_traits>

namespace weft::execution {

/// How a loop's chunks go to its agents.
enum class chunk_schedule {
    static_blocks,  ///< agent k runs chunks k, k + agents, ... (OpenMP schedule(static, c))
    dynamic,        ///< each agent takes the next chunk of the same size as it finishes one
    guided,         ///< as dynamic, chunks shrink with the work left: left / (2 agents), at least `chunk`
};

/// A chunk parameter's decision for one loop.
struct chunking {
    chunk_schedule schedule = chunk_schedule::static_blocks;
    std::size_t chunk = 0;  ///< iterations per chunk (guided: the smallest chunk); >= 1
};

/// What a loop tells its chunk parameter.
struct loop_shape {
    std::size_t count = 0;  ///< iterations still to run (after any measured by `measure`)
    std::size_t cores = 1;  ///< processing units the loop uses
    /// Runs the next `k` (<= count) iterations on the calling thread and returns how long
    /// they took; they are done then, and `count` shrinks by k. For parameters that time
    /// the loop (auto_chunk_size); null when the loop cannot be timed so.
    std::function<std::chrono::nanoseconds(std::size_t)> measure;
};

/// A chunk parameter: decides the chunking of one loop. `chunks(shape)` may time
/// iterations through shape.measure.
template <class P>
concept chunk_parameter = requires(const P& p, loop_shape& s) {
    { p.chunks(s) } -> std::same_as<chunking>;
};

/// What a parallel loop tells a reporting chunk parameter once it has run: the loop's
/// size, the processing units it used, the chunking the parameter chose and the wall time
/// of the whole loop (on the steady clock, from just before chunks() to the join of the
/// last chunk: iterations the parameter timed through loop_shape::measure included). Sent
/// also when element functions threw (their exceptions are rethrown after the report).
struct loop_report {
    std::size_t count = 0;  ///< every iteration of the loop (measured ones included)
    std::size_t cores = 1;  ///< processing units the loop used
    chunking plan;          ///< what chunks() returned for this loop
    std::chrono::nanoseconds elapsed{0};  ///< wall time of the whole loop
};

/// A chunk parameter that learns from what its loops cost: after each parallel loop that
/// used it, the loop calls `p.loop_done(report)` on the same (const) parameter. The clock
/// is read for these parameters only (twice per loop); sequential policies, which do not
/// consult chunk parameters, report nothing. adaptive_chunk_size is one.
template <class P>
concept reporting_chunk_parameter = chunk_parameter<P> && requires(const P& p, const loop_report& r) {
    p.loop_done(r);
};

/// A cores parameter: how many processing units a loop of `count` iterations uses out of
/// the executor's `available`.
template <class P>
concept cores_parameter = requires(const P& p, std::size_t available, std::size_t count) {
    { p.processing_units_count(available, count) } -> std::convertible_to<std::size_t>;
};

/// Any executor parameter: a chunk parameter, a cores parameter, or both.
template <class P>
concept executor_parameter = chunk_parameter<P> || cores_parameter<P>;

namespace detail {
inline std::size_t div_up(std::size_t a, std::size_t b) noexcept { return a / b + (a % b != 0 ? 1 : 0); }
inline void require_positive(std::size_t v, const char* what) {
    if (v == 0) throw weft::error(std::string(what) + ": the chunk size must be at least 1");
}
}  // namespace detail

/// Chunks of a fixed size, dealt to the agents in turn (OpenMP schedule(static, c)).
/// Without a size, one contiguous chunk per core (OpenMP schedule(static)). As in
/// OpenMP, the split is fixed; unlike OpenMP's, the agents are tasks that any idle worker
/// may take, so a chunk need not run on the same worker from one call to the next.
class static_chunk_size {
public:
    constexpr static_chunk_size() noexcept = default;
    /// @throws weft::error if `chunk` is 0.
    explicit static_chunk_size(std::size_t chunk) : chunk_(chunk) {
        detail::require_positive(chunk, "weft::execution::static_chunk_size");
    }
    chunking chunks(const loop_shape& s) const noexcept {
        const std::size_t c = chunk_ != 0 ? chunk_ : std::max<std::size_t>(1, detail::div_up(s.count, s.cores));
        return {chunk_schedule::static_blocks, c};
    }

private:
    std::size_t chunk_ = 0;
};

/// Chunks of a fixed size (default 1), each taken by the next free agent (OpenMP
/// schedule(dynamic, c)).
class dynamic_chunk_size {
public:
    /// @throws weft::error if `chunk` is 0.
    explicit dynamic_chunk_size(std::size_t chunk = 1) : chunk_(chunk) {
        detail::require_positive(chunk, "weft::execution::dynamic_chunk_size");
    }
    chunking chunks(const loop_shape&) const noexcept { return {chunk_schedule::dynamic, chunk_}; }

private:
    std::size_t chunk_;
};

/// Chunks that shrink as the loop proceeds: each free agent takes half of an equal share
/// of what is left, never fewer than `min_chunk` iterations (OpenMP schedule(guided)).
class guided_chunk_size {
public:
    /// @throws weft::error if `min_chunk` is 0.
    explicit guided_chunk_size(std::size_t min_chunk = 1) : min_(min_chunk) {
        detail::require_positive(min_chunk, "weft::execution::guided_chunk_size");
    }
    chunking chunks(const loop_shape&) const noexcept { return {chunk_schedule::guided, min_}; }

private:
    std::size_t min_;
};

/// Times the loop's first iterations in runs of 1, 2, 4... iterations, until a run after
/// the first takes `probe_time` on its own (and never more than 1 % of the loop), then
/// sizes chunks from the longest run so that each runs for about `target` (seed 003 §5:
/// work per task well above the scheduling overhead), handed out dynamically. Only the
/// longest run counts, and never the first alone: the first runs are dominated by what
/// happens once (a page of output faulted in, code and caches cold, the clock reads),
/// which overstated the cost per iteration up to 1000-fold and made chunks of a few
/// dozen iterations out of a 10^8 loop. A loop whose remaining work the estimate finds
/// shorter than one target runs on on the caller, still timed in growing runs: if the
/// time spent passes the target (a loop whose later iterations cost more than its first:
/// the estimate was wrong), the rest is chunked from the latest run and runs in parallel;
/// otherwise the loop ends on the caller, where parallelism would have cost more than it
/// saved. The default parameter of par.
class auto_chunk_size {
public:
    static constexpr std::chrono::nanoseconds default_target{50'000};
    static constexpr std::chrono::nanoseconds default_probe_time{2'000};

    constexpr auto_chunk_size() noexcept = default;
    /// @throws weft::error if `target` is not positive.
    explicit auto_chunk_size(std::chrono::nanoseconds target, std::chrono::nanoseconds probe_time = default_probe_time)
        : target_(target), probe_(probe_time) {
        if (target.count() <= 0) throw weft::error("weft::execution::auto_chunk_size: the target time must be positive");
    }
    constexpr std::chrono::nanoseconds target() const noexcept { return target_; }

    chunking chunks(loop_shape& s) const {
        if (s.count == 0) return {chunk_schedule::dynamic, 1};
        if (!s.measure) return {chunk_schedule::static_blocks, std::max<std::size_t>(1, detail::div_up(s.count, s.cores))};
        const std::size_t budget = std::max<std::size_t>(1, s.count / 100);
        std::size_t timed = 0;
        std::size_t last_run = 0;  // the longest run so far and its time
        std::chrono::nanoseconds last_time{0};
        for (std::size_t k = 1; timed < budget && (last_time < probe_ || k <= 2); k *= 2) {
            const std::size_t now = std::min(k, budget - timed);
            const std::chrono::nanoseconds t = s.measure(now);
            timed += now;
            if (now >= last_run) {
                last_run = now;
                last_time = t;
            }
        }
        s.count -= timed;
        if (s.count == 0) return {chunk_schedule::dynamic, 1};
        // ns per iteration, at least 1/1024 ns so that an unmeasurably fast loop still
        // gets a finite chunk.
        double per = std::max(static_cast<double>(last_time.count()) / static_cast<double>(last_run), 1.0 / 1024);
        if (per * static_cast<double>(s.count) <= static_cast<double>(target_.count())) {
            // Short by the estimate, which saw only the loop's first iterations. Check it
            // while running on: runs of doubling length on the caller, each at most a
            // quarter of an equal share of what is left (at least 64 iterations), until
            // the loop ends (it was short: no task spawned) or the time spent passes the
            // target (its later iterations cost more, as in a loop skewed to the end:
            // the rest runs in parallel, sized from the latest run).
            std::chrono::nanoseconds spent{0};
            for (std::size_t k = 2 * last_run; s.count > 0 && spent < target_; k *= 2) {
                const std::size_t share = std::max<std::size_t>(64, s.count / (4 * s.cores));
                const std::size_t now = std::min({k, share, s.count});
                const std::chrono::nanoseconds t = s.measure(now);
                s.count -= now;
                spent += t;
                last_run = now;
                last_time = t;
                k = now;
            }
            if (s.count == 0) return {chunk_schedule::dynamic, 1};
            per = std::max(static_cast<double>(last_time.count()) / static_cast<double>(last_run), 1.0 / 1024);
        }
        const auto want = static_cast<std::size_t>(static_cast<double>(target_.count()) / per);
        // At least one chunk per core, so that every core has work.
        const std::size_t cap = std::max<std::size_t>(1, detail::div_up(s.count, s.cores));
        return {chunk_schedule::dynamic, std::clamp<std::size_t>(want, 1, cap)};
    }

private:
    std::chrono::nanoseconds target_ = default_target;
    std::chrono::nanoseconds probe_ = default_probe_time;
};

/// Uses at most `n` processing units (of those the executor has).
class num_cores {
public:
    /// @throws weft::error if `n` is 0.
    explicit num_cores(std::size_t n) : n_(n) {
        if (n == 0) throw weft::error("weft::execution::num_cores: a loop needs at least 1 core");
    }
    std::size_t processing_units_count(std::size_t available, std::size_t) const noexcept { return std::min(available, n_); }

private:
    std::size_t n_;
};

}  // namespace weft::execution
