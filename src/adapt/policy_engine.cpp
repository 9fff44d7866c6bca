// The policy engine: registration, the timer thread, events, the log, tunables and their
// history file (see include/weft/adapt/policy.hpp; seed 000 ch.7, digest 000 §1.16-1.17).
#include <weft/adapt/policy.hpp>
#include <weft/config/errors.hpp>
#include <weft/sched/detail/introspect.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace weft::adapt {

struct policy_handle::entry {
    enum class kind_t { periodic, event, threshold };
    kind_t kind = kind_t::event;
    std::string name;
    std::string event;     // kind event: the event it listens to
    std::string reset_on;  // an event that only starts a new interval
    std::chrono::milliseconds period{0};
    std::chrono::steady_clock::time_point due{};
    double threshold = 0;
    crossing way = crossing::upward;
    bool armed = true;  // threshold: fires on the next crossing (guarded by run_m)
    std::uint64_t order = 0;
    policy_fn fn;

    std::mutex run_m;  // one call at a time; guards set, last_run
    std::optional<counters::counter_set> set;
    std::chrono::steady_clock::time_point last_run{};
    std::atomic<std::thread::id> running_on{};
    std::atomic<bool> alive{true};
    std::atomic<std::uint64_t> runs{0};
};

struct engine_access {
    static policy_context make(std::string_view trigger, std::string_view name, double interval_s,
                               std::vector<counters::counter_value> values, std::uint64_t runs) {
        policy_context c;
        c.trigger_ = trigger;
        c.name_ = name;
        c.interval_s_ = interval_s;
        c.values_ = std::move(values);
        c.runs_ = runs;
        return c;
    }
    static policy_handle handle(std::shared_ptr<policy_handle::entry> e) { return policy_handle(std::move(e)); }
};

namespace {

using entry = policy_handle::entry;
using entry_ptr = std::shared_ptr<entry>;
using clock = std::chrono::steady_clock;

struct log_sink {
    std::mutex m;
    std::FILE* f = nullptr;
    bool owned = false;
    clock::time_point origin = clock::now();
    void close() {
        if (f != nullptr && owned) std::fclose(f);
        f = nullptr;
        owned = false;
    }
    ~log_sink() { close(); }
};

log_sink& sink() {
    static log_sink s;
    return s;
}

struct engine {
    std::mutex m;  // guards everything below
    std::condition_variable cv;
    bool running = false;  // between start_engine and stop_engine
    bool stop = false;
    std::uint64_t next_order = 0;
    std::vector<entry_ptr> timed;  // periodic and threshold policies
    std::map<std::string, std::vector<entry_ptr>, std::less<>> by_event;  // policies and reset_on listeners
    std::thread timer;
    std::string history;  // --weft:adapt-history
    void timer_main();
};

engine& eng() {
    static engine e;
    return e;
}

void require_running(const engine& e, const char* what) {
    if (!e.running)
        throw runtime_state_error(std::string("weft::adapt::") + what +
                                  ": the policy engine needs a running runtime (start one with weft::run() or a "
                                  "weft::runtime)");
}

void write_log(std::string_view who, std::string_view message) {
    log_sink& s = sink();
    std::lock_guard lock(s.m);
    if (s.f == nullptr) return;
    const double t = std::chrono::duration<double>(clock::now() - s.origin).count();
    std::fprintf(s.f, "weft-adapt [%10.6f s] %.*s%s%.*s\n", t, static_cast<int>(who.size()), who.data(),
                 who.empty() ? "" : ": ", static_cast<int>(message.size()), message.data());
    std::fflush(s.f);
}

void open_log(std::string_view path) {
    log_sink& s = sink();
    std::lock_guard lock(s.m);
    std::FILE* f = nullptr;
    bool owned = false;
    if (path == "stderr") f = stderr;
    else if (path == "stdout") f = stdout;
    else if (!path.empty()) {
        f = std::fopen(std::string(path).c_str(), "a");
        if (f == nullptr) throw weft::error("weft::adapt::set_log: cannot open '" + std::string(path) + "' for appending");
        owned = true;
    }
    s.close();
    s.f = f;
    s.owned = owned;
}

void remove_entry(engine& e, const entry_ptr& p) {
    // e.m held
    std::erase(e.timed, p);
    for (auto it = e.by_event.begin(); it != e.by_event.end();) {
        std::erase(it->second, p);
        it = it->second.empty() ? e.by_event.erase(it) : std::next(it);
    }
}

// Runs (or, for a reset_on event, only re-arms) one policy. Returns the policy's exception.
std::exception_ptr run_entry(const entry_ptr& p, std::string_view trigger) {
    // A policy that fires an event it listens to, from inside itself, would wait for
    // itself forever.
    if (p->running_on.load(std::memory_order_acquire) == std::this_thread::get_id())
        return std::make_exception_ptr(weft::error("weft::adapt::trigger: policy '" + p->name + "' fired '" +
                                                   std::string(trigger) +
                                                   "' from inside itself; a policy cannot run inside its own call"));
    std::unique_lock lock(p->run_m);
    if (!p->alive.load(std::memory_order_acquire)) return nullptr;
    const auto now = clock::now();
    if (!p->reset_on.empty() && trigger == p->reset_on && trigger != p->event) {
        if (p->set) p->set->reset();
        p->last_run = now;
        return nullptr;
    }
    std::exception_ptr error;
    p->running_on.store(std::this_thread::get_id(), std::memory_order_release);
    try {
        std::vector<counters::counter_value> values;
        if (p->set) values = p->set->evaluate(true);
        bool fire = true;
        if (p->kind == entry::kind_t::threshold) {
            const double v = !values.empty() && values[0].available ? values[0].value : std::nan("");
            fire = false;
            if (!std::isnan(v)) {
                const bool beyond = p->way == crossing::upward ? v >= p->threshold : v <= p->threshold;
                if (beyond && p->armed) {
                    fire = true;
                    p->armed = false;
                } else if (!beyond) {
                    p->armed = true;
                }
            }
        }
        const double interval = std::chrono::duration<double>(now - p->last_run).count();
        p->last_run = now;
        if (fire) {
            policy_context ctx = engine_access::make(trigger, p->name, interval, std::move(values),
                                                     p->runs.load(std::memory_order_relaxed));
            p->fn(ctx);
            p->runs.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
        }
    } catch (...) {
        error = std::current_exception();
    }
    p->running_on.store(std::thread::id{}, std::memory_order_release);
    return error;
}

std::string describe(std::exception_ptr e) {
    try {
        std::rethrow_exception(e);
    } catch (const std::exception& x) {
        return x.what();
    } catch (...) {
        return "an exception that is not a std::exception";
    }
}

void engine::timer_main() {
    std::unique_lock lock(m);
    while (!stop) {
        auto due = clock::time_point::max();
        for (const auto& p : timed) due = std::min(due, p->due);
        if (due == clock::time_point::max()) cv.wait(lock, [&] { return stop || !timed.empty(); });
        else cv.wait_until(lock, due, [&] { return stop; });
        if (stop) break;
        const auto now = clock::now();
        std::vector<entry_ptr> ready;
        for (const auto& p : timed)
            if (p->due <= now) ready.push_back(p);
        if (ready.empty()) continue;
        // In the order they were due; equal times in registration order.
        std::sort(ready.begin(), ready.end(), [](const entry_ptr& a, const entry_ptr& b) {
            return a->due != b->due ? a->due < b->due : a->order < b->order;
        });
        for (const auto& p : ready) {
            p->due += p->period;
            if (p->due <= now) p->due = now + p->period;  // fell behind: no burst of catch-up calls
        }
        lock.unlock();
        for (const auto& p : ready) {
            const std::exception_ptr error =
                run_entry(p, p->kind == entry::kind_t::threshold ? std::string_view("threshold") : "period");
            if (error) {
                write_log(p->name, "threw, disabled: " + describe(error));
                p->alive.store(false, std::memory_order_release);
                std::lock_guard relock(m);
                remove_entry(*this, p);
            }
        }
        lock.lock();
    }
}

policy_handle add(entry_ptr p, policy_options& options, const char* what) {
    engine& e = eng();
    {
        std::lock_guard lock(e.m);
        require_running(e, what);
    }
    if (!p->fn) throw weft::error(std::string("weft::adapt::") + what + ": the policy function is empty");
    if (!options.counters.empty()) p->set = counters::query(options.counters);
    p->reset_on = std::move(options.reset_on);
    p->last_run = clock::now();
    std::lock_guard lock(e.m);
    require_running(e, what);  // the runtime may have stopped while the counters were queried
    p->order = e.next_order++;
    p->name = options.name.empty() ? "policy#" + std::to_string(p->order) : std::move(options.name);
    if (p->kind == entry::kind_t::event) e.by_event[p->event].push_back(p);
    if (!p->reset_on.empty() && p->reset_on != p->event) e.by_event[p->reset_on].push_back(p);
    if (p->kind != entry::kind_t::event) {
        p->due = clock::now() + p->period;
        e.timed.push_back(p);
        if (!e.timer.joinable()) e.timer = std::thread([&e] { e.timer_main(); });
        e.cv.notify_all();
    }
    return engine_access::handle(std::move(p));
}

void check_period(std::chrono::milliseconds period, const char* what) {
    if (period.count() < 1)
        throw weft::error(std::string("weft::adapt::") + what + ": the period must be at least 1 ms, not " +
                          std::to_string(period.count()) + " ms");
}

std::string program_name() {
    char buf[4096];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return "program";
    const std::string path(buf, static_cast<std::size_t>(n));
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string history_path() {
    engine& e = eng();
    std::lock_guard lock(e.m);
    return e.history;
}

// History lines: program \t tunable-key \t domain-key \t value \t objective
struct history_line {
    std::string program, key, domain;
    double value = 0, objective = 0;
};

std::vector<history_line> read_history(const std::string& path) {
    std::vector<history_line> out;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        history_line h;
        std::string v, o;
        if (!std::getline(fields, h.program, '\t') || !std::getline(fields, h.key, '\t') ||
            !std::getline(fields, h.domain, '\t') || !std::getline(fields, v, '\t') || !std::getline(fields, o))
            continue;  // a torn or foreign line: skipped, never fatal
        try {
            std::size_t used = 0;
            h.value = std::stod(v, &used);
            if (used != v.size()) continue;
            h.objective = o == "inf" ? std::numeric_limits<double>::infinity() : std::stod(o);
        } catch (...) {
            continue;
        }
        if (!std::isfinite(h.value)) continue;
        out.push_back(std::move(h));
    }
    return out;
}

std::string domain_key(const domain& d) {
    std::ostringstream s;
    s.precision(17);
    switch (d.type()) {
        case domain::kind::integers: s << "integers"; break;
        case domain::kind::ordered: s << "ordered"; break;
        case domain::kind::continuous: s << "continuous"; break;
    }
    s << '[' << d.size() << ':' << d.value_at(d.coord_lo()) << ".." << d.value_at(d.coord_hi()) << ']';
    return s.str();
}

std::string fmt(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

}  // namespace

// ---------------------------------------------------------------------------------

double policy_context::value(std::size_t i) const noexcept {
    if (i >= values_.size() || !values_[i].available) return std::nan("");
    return values_[i].value;
}

void policy_context::log(std::string_view message) const { write_log(name_, message); }

void policy_handle::reset() noexcept {
    if (!entry_) return;
    const entry_ptr p = std::move(entry_);
    entry_.reset();
    p->alive.store(false, std::memory_order_release);
    {
        engine& e = eng();
        std::lock_guard lock(e.m);
        remove_entry(e, p);
    }
    // Wait for a call in progress, unless the policy is deregistering itself.
    if (p->running_on.load(std::memory_order_acquire) != std::this_thread::get_id()) {
        std::lock_guard wait(p->run_m);
        p->set.reset();
    }
}

bool policy_handle::active() const noexcept { return entry_ && entry_->alive.load(std::memory_order_acquire); }

std::uint64_t policy_handle::runs() const noexcept {
    return entry_ ? entry_->runs.load(std::memory_order_relaxed) : 0;  // relaxed: a statistic
}

policy_handle on_period(std::chrono::milliseconds period, policy_options options, policy_fn fn) {
    check_period(period, "on_period");
    auto p = std::make_shared<entry>();
    p->kind = entry::kind_t::periodic;
    p->period = period;
    p->fn = std::move(fn);
    return add(std::move(p), options, "on_period");
}

policy_handle on_event(std::string event, policy_options options, policy_fn fn) {
    if (event.empty()) throw weft::error("weft::adapt::on_event: the event name is empty");
    auto p = std::make_shared<entry>();
    p->kind = entry::kind_t::event;
    p->event = std::move(event);
    p->fn = std::move(fn);
    return add(std::move(p), options, "on_event");
}

policy_handle on_threshold(std::string counter, double threshold, crossing way, std::chrono::milliseconds period,
                           policy_options options, policy_fn fn) {
    check_period(period, "on_threshold");
    if (!std::isfinite(threshold)) throw weft::error("weft::adapt::on_threshold: the threshold must be finite");
    {
        const counters::counter_set probe = counters::query(counter);
        if (probe.size() != 1)
            throw bad_counter_name("weft::adapt::on_threshold: '" + counter + "' matches " +
                                   std::to_string(probe.size()) + " counter instances; name exactly one");
    }
    options.counters.insert(options.counters.begin(), std::move(counter));
    auto p = std::make_shared<entry>();
    p->kind = entry::kind_t::threshold;
    p->period = period;
    p->threshold = threshold;
    p->way = way;
    p->fn = std::move(fn);
    return add(std::move(p), options, "on_threshold");
}

void trigger(std::string_view event) {
    engine& e = eng();
    std::vector<entry_ptr> listeners;
    {
        std::lock_guard lock(e.m);
        require_running(e, "trigger");
        const auto it = e.by_event.find(event);
        if (it == e.by_event.end()) return;
        listeners = it->second;
    }
    std::exception_ptr first;
    for (const auto& p : listeners) {
        std::exception_ptr error = run_entry(p, event);
        if (error && !first) first = std::move(error);
    }
    if (first) std::rethrow_exception(first);
}

region::region(std::string name) : name_(std::move(name)) {
    if (name_.empty()) throw weft::error("weft::adapt::region: the name is empty");
    trigger(start_event(name_));
}

region::~region() {
    try {
        trigger(end_event(name_));
    } catch (...) {
        write_log("region " + name_, "an end policy threw: " + describe(std::current_exception()));
    }
}

void set_active_workers(unsigned n) {
    weft::detail::scheduler* s = weft::detail::active_scheduler();
    if (s == nullptr)
        throw runtime_state_error("weft::adapt::set_active_workers: needs a running runtime");
    const unsigned before = weft::detail::active_workers(*s);
    weft::detail::set_active_workers(*s, n);
    const unsigned after = weft::detail::active_workers(*s);
    if (after != before) write_log("throttle", "active workers " + std::to_string(before) + " -> " + std::to_string(after));
}

unsigned active_workers() {
    const weft::detail::scheduler* s = weft::detail::active_scheduler();
    if (s == nullptr) throw runtime_state_error("weft::adapt::active_workers: needs a running runtime");
    return weft::detail::active_workers(*s);
}

void log(std::string_view message) { write_log({}, message); }

void set_log(std::string_view path) { open_log(path); }

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
    if (!objective.empty()) key += "|" + std::string(objective);
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

// ---------------------------------------------------------------------------------

namespace detail {

void start_engine(const engine_config& cfg) {
    // Fail at start, naming the option, rather than at the first trial or log line.
    if (!cfg.history.empty()) {
        std::FILE* f = std::fopen(cfg.history.c_str(), "a+");  // read at a search's start, appended per trial
        if (f == nullptr) {
            const int err = errno;
            throw bad_option("weft: bad value '" + cfg.history +
                             "' for --weft:adapt-history (WEFT_ADAPT_HISTORY): cannot read and append to it: " +
                             std::strerror(err));
        }
        std::fclose(f);
    }
    if (!cfg.log.empty() && cfg.log != "stderr" && cfg.log != "stdout") {
        std::FILE* f = std::fopen(cfg.log.c_str(), "a");
        if (f == nullptr) {
            const int err = errno;
            throw bad_option("weft: bad value '" + cfg.log + "' for --weft:adapt-log (WEFT_ADAPT_LOG): cannot write it: " +
                             std::strerror(err) + "; expected stderr, stdout or a writable file");
        }
        std::fclose(f);
    }
    if (!cfg.log.empty()) open_log(cfg.log);
    engine& e = eng();
    std::lock_guard lock(e.m);
    e.running = true;
    e.stop = false;
    e.history = cfg.history;
}

void stop_engine() noexcept {
    engine& e = eng();
    std::vector<entry_ptr> all;
    std::thread timer;
    {
        std::lock_guard lock(e.m);
        e.running = false;
        e.stop = true;
        all = std::move(e.timed);
        e.timed.clear();
        for (auto& [name, v] : e.by_event) all.insert(all.end(), v.begin(), v.end());
        e.by_event.clear();
        timer = std::move(e.timer);
    }
    e.cv.notify_all();
    if (timer.joinable()) timer.join();
    for (const auto& p : all) {
        p->alive.store(false, std::memory_order_release);
        if (p->running_on.load(std::memory_order_acquire) == std::this_thread::get_id()) continue;
        std::lock_guard wait(p->run_m);
        p->set.reset();  // counter sets belong to the runtime that is stopping
    }
}

}  // namespace detail

}  // namespace weft::adapt
