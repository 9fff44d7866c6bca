// Tunables (weft::adapt::tunable and tune): a parameter searched over its domain by
// the reported objective, warm-started from and recorded to the history file.
#include <weft/adapt/policy.hpp>
#include <weft/config/errors.hpp>

#include "history.hpp"
#include "log.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace weft::adapt {

using detail::domain_key;
using detail::history_line;
using detail::history_path;
using detail::program_name;
using detail::read_history;
using detail::write_log;

namespace {

std::string fmt(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

}  // namespace

// ---------------------------------------------------------------------------------
// Tunables

tunable::tunable(std::string name, domain d, tunable_options options)
    : name_(std::move(name)), domain_(std::move(d)), opt_(std::move(options)) {
    if (name_.empty()) throw weft::error("weft::adapt::tunable: the name is empty");
    if (name_.find_first_of("\t\n") != std::string::npos)
        throw weft::error("weft::adapt::tunable: the name '" + name_ + "' holds a tab or a newline");
    if (opt_.samples == 0) throw weft::error("weft::adapt::tunable '" + name_ + "': samples must be at least 1");
    if (opt_.program.empty()) opt_.program = program_name();
    history_key_ = name_;
    domain_key_ = domain_key(domain_);
    std::lock_guard lock(m_);
    start_search(opt_.search.start.empty() ? std::nullopt : std::optional<double>(opt_.search.start[0]));
}

tunable::~tunable() = default;

void tunable::start_search(std::optional<double> start) {
    search_options so = opt_.search;
    std::vector<history_line> known;
    const std::string path = opt_.history ? history_path() : std::string();
    if (!path.empty()) {
        for (auto& h : read_history(path))
            if (h.program == opt_.program && h.key == history_key_ && h.domain == domain_key_) known.push_back(std::move(h));
    }
    if (!start && !known.empty()) {
        // Warm start: from the best value a previous run measured.
        const auto best = std::min_element(known.begin(), known.end(), [](const history_line& a, const history_line& b) {
            return a.objective < b.objective;
        });
        start = best->value;
    }
    so.start.clear();
    if (start) so.start.push_back(*start);
    std::vector<domain> ds;
    ds.push_back(domain_);
    search_ = std::make_unique<search>(opt_.kind, std::move(ds), std::move(so));
    pending_.clear();
    for (const auto& h : known) search_->remember(std::vector<double>(1, h.value), h.objective);
    remembered_ = known.size();
    if (!known.empty())
        write_log("tunable " + name_, "warm start from " + std::to_string(known.size()) + " remembered measurements");
    advance();
}

void tunable::advance() {
    if (auto p = search_->next()) {
        current_ = std::move(*p);
        return;
    }
    std::vector<double> b = search_->best();
    if (!b.empty()) current_ = std::move(b);
    else if (current_.empty()) current_.push_back(domain_.value_at(domain_.snap(std::nan(""))));
    write_log("tunable " + name_, std::string(search_->converged() ? "converged" : "stopped (trial budget spent)") +
                                      " after " + std::to_string(search_->trials()) + " trials at " + fmt(current_[0]) +
                                      " (objective " + fmt(search_->best_value()) + ")");
}

double tunable::value() const {
    std::lock_guard lock(m_);
    return current_[0];
}

std::int64_t tunable::integer() const { return std::llround(value()); }

void tunable::report(double objective) {
    std::lock_guard lock(m_);
    if (search_->done()) return;
    const double at = current_[0];
    if (opt_.samples > 1) {
        pending_.push_back(std::isnan(objective) ? std::numeric_limits<double>::infinity() : objective);
        write_log("tunable " + name_, "sample " + std::to_string(pending_.size()) + "/" + std::to_string(opt_.samples) +
                                          " at " + fmt(at) + ": " + fmt(objective));
        if (pending_.size() < opt_.samples) return;
        // The median: the middle one, or the mean of the two middle ones (an infinity
        // there makes it infinite: worst, as one broken measurement should count).
        std::sort(pending_.begin(), pending_.end());
        const std::size_t n = pending_.size();
        objective = n % 2 ? pending_[n / 2] : (pending_[n / 2 - 1] + pending_[n / 2]) / 2;
        if (std::isnan(objective)) objective = std::numeric_limits<double>::infinity();  // -inf + inf
        pending_.clear();
    }
    search_->report(objective);
    write_log("tunable " + name_, "trial " + std::to_string(search_->trials()) + " at " + fmt(at) + ": objective " +
                                      fmt(objective) + (opt_.samples > 1 ? " (median)" : ""));
    if (opt_.history) {
        const std::string path = history_path();
        if (!path.empty()) {
            if (std::FILE* f = std::fopen(path.c_str(), "a")) {
                std::fprintf(f, "%s\t%s\t%s\t%.17g\t%s\n", opt_.program.c_str(), history_key_.c_str(), domain_key_.c_str(),
                             at, std::isfinite(objective) ? fmt(objective).c_str() : "inf");
                std::fclose(f);
            } else {
                write_log("tunable " + name_, "cannot append to the history file " + path);
            }
        }
    }
    advance();
}

bool tunable::searching() const {
    std::lock_guard lock(m_);
    return !search_->done();
}

bool tunable::converged() const {
    std::lock_guard lock(m_);
    return search_->converged();
}

std::size_t tunable::trials() const {
    std::lock_guard lock(m_);
    return search_->trials();
}

std::size_t tunable::pending_samples() const {
    std::lock_guard lock(m_);
    return pending_.size();
}

std::size_t tunable::remembered() const {
    std::lock_guard lock(m_);
    return remembered_;
}

double tunable::best() const {
    std::lock_guard lock(m_);
    const std::vector<double> b = search_->best();
    return b.empty() ? current_[0] : b[0];
}

double tunable::best_objective() const {
    std::lock_guard lock(m_);
    return search_->best_value();
}

void tunable::restart(std::optional<double> start) {
    std::lock_guard lock(m_);
    if (!start) {
        const std::vector<double> b = search_->best();
        start = b.empty() ? current_[0] : b[0];
    }
    write_log("tunable " + name_, "restarting the search from " + fmt(*start));
    start_search(start);
}

void tunable::use_history_key(std::string_view objective) {
    std::lock_guard lock(m_);
    std::string key = name_;
    if (!objective.empty()) {
        // Two appends, not "|" + std::string(objective): g++ 12 at -O3 reports a bogus
        // -Wrestrict overlap for a literal + std::string&& once this code has a file of its own.
        key += '|';
        key += objective;
    }
    if (key == history_key_) return;
    history_key_ = std::move(key);
    if (search_->trials() == 0 && !search_->done())
        start_search(opt_.search.start.empty() ? std::nullopt : std::optional<double>(opt_.search.start[0]));
}

policy_handle tune(tunable& t, objective what, std::string on, std::string from) {
    policy_options po;
    po.name = "tune " + t.name();
    std::string key = "wall-time";
    if (!what.counter_name.empty()) {
        const counters::counter_set probe = counters::query(what.counter_name);
        if (probe.size() != 1)
            throw bad_counter_name("weft::adapt::tune: the objective '" + what.counter_name + "' matches " +
                                   std::to_string(probe.size()) + " counter instances; name exactly one");
        po.counters.push_back(what.counter_name);
        key = probe.names()[0];
    }
    if (what.direction == objective::goal::maximize) key += " (max)";
    po.reset_on = std::move(from);
    t.use_history_key(key);
    const bool wall = what.counter_name.empty();
    const bool maximize = what.direction == objective::goal::maximize;
    return on_event(std::move(on), std::move(po), [&t, wall, maximize](policy_context& c) {
        if (!t.searching()) return;
        const double v = wall ? c.interval_s() : c.value(0);
        t.report(maximize ? -v : v);
    });
}

}  // namespace weft::adapt
