// weft::execution::adaptive_chunk_size: the registry of learners (per key, count bucket
// and cores) and chunk_learner, the search over chunk sizes (see the header).
#include <weft/adapt/adaptive_chunk_size.hpp>
#include <weft/adapt/search.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>

namespace weft::adapt::detail {

namespace ex = weft::execution;

namespace {

bool same_plan(const ex::chunking& a, const ex::chunking& b) noexcept {
    return a.schedule == b.schedule && a.chunk == b.chunk;
}

std::size_t div_up(std::size_t a, std::size_t b) noexcept { return a / b + (a % b != 0 ? 1 : 0); }

}  // namespace

// ---- chunk_learner ------------------------------------------------------------------

chunk_learner::chunk_learner(std::size_t count, std::size_t cores) : chunk_learner(count, cores, options{}) {}

chunk_learner::chunk_learner(std::size_t count, std::size_t cores, options opt)
    : opt_(opt),
      bucket_(static_cast<std::size_t>(std::bit_width(std::max<std::size_t>(count, 1)))),
      cores_(std::max<std::size_t>(cores, 1)) {
    opt_.min_trial_calls = std::max<std::size_t>(opt_.min_trial_calls, 1);
    opt_.max_trial_calls = std::max(opt_.max_trial_calls, opt_.min_trial_calls);
    opt_.max_trials = std::max<std::size_t>(opt_.max_trials, 1);
    opt_.drift_windows = std::max<std::size_t>(opt_.drift_windows, 1);
    if (!(opt_.drift > 0) || !std::isfinite(opt_.drift)) opt_.drift = options{}.drift;
    const std::size_t largest = bucket_ >= 64 ? std::numeric_limits<std::size_t>::max() : (std::size_t{1} << bucket_) - 1;
    cap_ = std::max<std::size_t>(1, div_up(largest, cores_));
    for (std::size_t c = 1; c < cap_; c *= 2) {
        grid_.push_back(c);
        if (c > cap_ / 2) break;  // the next doubling would pass the cap (or overflow)
    }
    grid_.push_back(cap_);
    current_ = grid_.size();  // the whole loop, until start()
}

chunk_learner::~chunk_learner() = default;

std::size_t chunk_learner::chunk() const noexcept {
    if (current_ < grid_.size()) return grid_[current_];
    return bucket_ >= 64 ? std::numeric_limits<std::size_t>::max() : (std::size_t{1} << bucket_) - 1;
}

bool chunk_learner::whole_loop() const noexcept { return current_ >= grid_.size(); }

ex::chunking chunk_learner::propose(std::size_t count) const noexcept {
    count = std::max<std::size_t>(count, 1);
    if (phase_ == phase::fresh || cores_ <= 1 || current_ >= grid_.size())
        return {ex::chunk_schedule::static_blocks, count};
    return {ex::chunk_schedule::dynamic, std::clamp<std::size_t>(grid_[current_], 1, div_up(count, cores_))};
}

std::size_t chunk_learner::nearest(double chunk) const noexcept {
    if (!(chunk >= 1)) return 0;  // NaN too
    const double want = std::log2(chunk);
    std::size_t at = 0;
    for (std::size_t i = 1; i < grid_.size(); ++i)
        if (std::abs(std::log2(static_cast<double>(grid_[i])) - want) <
            std::abs(std::log2(static_cast<double>(grid_[at])) - want))
            at = i;
    return at;
}

void chunk_learner::start(const ex::chunking& first) {
    reset();
    if (cores_ <= 1) {  // one agent runs the loop in order whatever the chunk: nothing to learn
        phase_ = phase::watching;
        current_ = grid_.size();
        return;
    }
    // Until the first report: auto_chunk_size's choice (its static plan is the whole loop
    // on the caller; a chunk size maps to the nearest candidate, in log2).
    current_ = first.schedule == ex::chunk_schedule::static_blocks ? grid_.size()
                                                                   : nearest(static_cast<double>(first.chunk));
    phase_ = phase::seeding;
}

void chunk_learner::seed(const ex::chunking& plan, std::size_t count, double ns) {
    // auto_chunk_size's rule (chunks of about `target` of work; the whole loop if it is
    // shorter than that) with the first call's mean cost per element instead of its
    // probe's: the probe times only the loop's first iterations, which misleads it on a
    // skewed loop (cheap at the front, dear at the end: it ran such a loop serially).
    std::size_t at = current_;
    if (std::isfinite(ns) && ns > 0) {
        const std::size_t agents =
            plan.schedule == ex::chunk_schedule::static_blocks ? 1 : std::min(cores_, std::max<std::size_t>(count, 1));
        const double per = ns * static_cast<double>(agents) / static_cast<double>(count);  // work per element
        const double target = static_cast<double>(opt_.target.count());
        at = per * static_cast<double>(count) <= target ? grid_.size() : nearest(target / per);
    }
    begin_search(at);
}

void chunk_learner::begin_search(std::size_t start_at) {
    search_options o;
    o.max_trials = opt_.max_trials;
    o.start.assign(1, static_cast<double>(start_at));
    // The candidates' indices (0 .. grid size, the last the whole loop): the search walks
    // them evenly, i.e. the chunk sizes geometrically.
    std::vector<domain> domains;
    domains.push_back(domain::integers(0, static_cast<std::int64_t>(grid_.size())));
    search_ = std::make_unique<search>(strategy::u_shape, std::move(domains), std::move(o));
    phase_ = phase::searching;
    next_point();
}

void chunk_learner::next_point() {
    clear_window();
    if (const auto p = search_->next()) {
        current_ = std::min(static_cast<std::size_t>((*p)[0]), grid_.size());
        return;
    }
    if (const auto best = search_->best(); !best.empty()) current_ = std::min(static_cast<std::size_t>(best[0]), grid_.size());
    search_.reset();
    phase_ = phase::watching;
    has_baseline_ = false;
    drifted_ = 0;
}

void chunk_learner::clear_window() noexcept {
    per_element_.clear();
    window_ns_ = 0;
    window_elements_ = 0;
    window_bad_ = false;
}

bool chunk_learner::window_full() const noexcept {
    const std::size_t calls = per_element_.size();
    if (calls >= opt_.max_trial_calls) return true;
    if (calls < opt_.min_trial_calls) return false;
    return window_bad_ || window_ns_ >= static_cast<double>(opt_.min_trial_time.count());
}

double chunk_learner::window_objective() const {
    if (window_bad_ || per_element_.empty()) return std::numeric_limits<double>::infinity();
    if (per_element_.size() < 3) return window_ns_ / window_elements_;
    std::vector<double> v = per_element_;
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}

void chunk_learner::observe(const ex::chunking& plan, std::size_t count, double ns) {
    if (count == 0 || phase_ == phase::fresh || cores_ <= 1) return;
    if (phase_ == phase::seeding) {  // the first call (it ran as auto_chunk_size): not a trial
        seed(plan, count, ns);
        return;
    }
    if (!same_plan(plan, propose(count))) return;  // it ran with another candidate (a concurrent call)
    if (!std::isfinite(ns) || ns < 0) {
        window_bad_ = true;
        per_element_.push_back(std::numeric_limits<double>::infinity());
    } else {
        window_ns_ += ns;
        window_elements_ += static_cast<double>(count);
        per_element_.push_back(ns / static_cast<double>(count));
    }
    if (!window_full()) return;
    const double objective = window_objective();
    clear_window();
    if (phase_ == phase::searching) {
        search_->report(objective);
        ++trials_;
        next_point();
        return;
    }
    // Watching the best: a window that is not finite tells nothing.
    if (!std::isfinite(objective)) return;
    if (!has_baseline_) {
        baseline_ = objective;
        has_baseline_ = true;
        return;
    }
    const double f = 1 + opt_.drift;
    const bool moved = std::abs(objective - baseline_) * static_cast<double>(count) >=
                       static_cast<double>(opt_.min_drift.count());
    if (moved && (objective > baseline_ * f || objective * f < baseline_)) {
        if (++drifted_ >= opt_.drift_windows) {  // the workload changed: search again from the best
            ++restarts_;
            begin_search(current_);
        }
    } else {
        drifted_ = 0;
    }
}

void chunk_learner::reset() {
    phase_ = phase::fresh;
    search_.reset();
    current_ = grid_.size();
    clear_window();
    baseline_ = 0;
    has_baseline_ = false;
    drifted_ = 0;
    trials_ = 0;
    restarts_ = 0;
}

// ---- the registry -------------------------------------------------------------------

/// One learner and its lock.
struct learner_slot {
    learner_slot(std::size_t count, std::size_t cores) : learner(count, cores) {}
    std::mutex m;
    chunk_learner learner;
};

/// A key's learners, one per (count bucket, cores). Never freed: a parameter made before
/// a reset may still point here.
struct adaptive_site {
    explicit adaptive_site(std::string k) : key(std::move(k)) {}
    const std::string key;
    std::mutex m;
    std::vector<std::unique_ptr<learner_slot>> slots;  // slots are never removed (loops hold them)

    learner_slot& slot(std::size_t count, std::size_t cores) {
        const auto bucket = static_cast<std::size_t>(std::bit_width(std::max<std::size_t>(count, 1)));
        cores = std::max<std::size_t>(cores, 1);
        std::lock_guard lock(m);
        for (const auto& s : slots)
            if (s->learner.bucket() == bucket && s->learner.cores() == cores) return *s;
        slots.push_back(std::make_unique<learner_slot>(count, cores));
        return *slots.back();
    }
};

namespace {

struct registry {
    std::mutex m;
    std::map<std::string, std::unique_ptr<adaptive_site>, std::less<>> by_key;
    // Call sites seen already, by source_location (its file name is a string literal, so
    // its address names it; a second address for the same file only costs a key lookup).
    std::map<std::tuple<const char*, std::uint_least32_t, std::uint_least32_t>, adaptive_site*> by_location;

    adaptive_site* site_locked(std::string_view key) {
        auto it = by_key.find(key);
        if (it == by_key.end()) it = by_key.emplace(std::string(key), std::make_unique<adaptive_site>(std::string(key))).first;
        return it->second.get();
    }
};

// Never destroyed: a loop may still run (and report) while statics are destroyed.
registry& the_registry() {
    static registry* r = new registry;
    return *r;
}

}  // namespace

adaptive_site* site_for(std::string_view key) {
    registry& r = the_registry();
    std::lock_guard lock(r.m);
    return r.site_locked(key);
}

adaptive_site* site_for(const char* file, std::uint_least32_t line, std::uint_least32_t column) {
    registry& r = the_registry();
    const auto id = std::make_tuple(file, line, column);
    std::lock_guard lock(r.m);
    if (const auto it = r.by_location.find(id); it != r.by_location.end()) return it->second;
    const std::string key = std::string(file) + ':' + std::to_string(line) + ':' + std::to_string(column);
    adaptive_site* s = r.site_locked(key);
    r.by_location.emplace(id, s);
    return s;
}

}  // namespace weft::adapt::detail

namespace weft::adapt {

std::vector<adaptive_chunk_state> adaptive_chunk_states() {
    std::vector<adaptive_chunk_state> out;
    auto& r = detail::the_registry();
    std::lock_guard lock(r.m);  // order: registry, site, slot (as everywhere)
    for (const auto& [key, site] : r.by_key) {
        std::lock_guard site_lock(site->m);
        for (const auto& s : site->slots) {
            std::lock_guard slot_lock(s->m);
            const detail::chunk_learner& l = s->learner;
            if (!l.started()) continue;
            out.push_back({key, l.bucket(), l.cores(), l.chunk(), l.whole_loop(), l.converged(), l.trials(), l.restarts()});
        }
    }
    return out;
}

void reset_adaptive_chunk_sizes() {
    auto& r = detail::the_registry();
    std::lock_guard lock(r.m);
    for (const auto& [key, site] : r.by_key) {
        std::lock_guard site_lock(site->m);
        for (const auto& s : site->slots) {
            std::lock_guard slot_lock(s->m);
            s->learner.reset();
        }
    }
}

}  // namespace weft::adapt

namespace weft::execution {

adapt::detail::adaptive_site* adaptive_chunk_size::site_at(const char* file, std::uint_least32_t line,
                                                           std::uint_least32_t column) {
    return adapt::detail::site_for(file != nullptr ? file : "", line, column);
}

adaptive_chunk_size::adaptive_chunk_size(std::string_view key) : site_(adapt::detail::site_for(key)) {}

std::string_view adaptive_chunk_size::key() const noexcept { return site_->key; }

chunking adaptive_chunk_size::chunks(loop_shape& shape) const {
    if (shape.count == 0) return {chunk_schedule::dynamic, 1};
    adapt::detail::learner_slot& s = site_->slot(shape.count, shape.cores);
    {
        std::lock_guard lock(s.m);
        if (s.learner.started()) return s.learner.propose(shape.count);
    }
    // The first call of this learner runs as auto_chunk_size, which times iterations
    // (user code): no lock is held meanwhile.
    const chunking plan = auto_chunk_size{}.chunks(shape);
    std::lock_guard lock(s.m);
    if (!s.learner.started()) s.learner.start(plan);
    return plan;
}

void adaptive_chunk_size::loop_done(const loop_report& report) const {
    if (report.count == 0) return;
    adapt::detail::learner_slot& s = site_->slot(report.count, report.cores);
    std::lock_guard lock(s.m);
    s.learner.observe(report.plan, report.count, static_cast<double>(report.elapsed.count()));
}

}  // namespace weft::execution
