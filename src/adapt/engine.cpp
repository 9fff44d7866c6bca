// The policy engine (see include/weft/adapt/policy.hpp; seed 000 ch.7, digest 000 §1.16):
// registering policies, the timer thread that runs periodic and threshold ones, events
// and regions, and starting and stopping with the runtime.
#include <weft/adapt/policy.hpp>
#include <weft/config/errors.hpp>

#include "history.hpp"
#include "log.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <map>
#include <thread>

namespace weft::adapt {

using detail::write_log;

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
    // The thread inside fn now, or none: stored (release) by that thread, read (acquire)
    // by any to ask "is it me?", which only the asking thread's own store can make true.
    std::atomic<std::thread::id> running_on{};
    // False once deregistered (release); run_entry checks it (acquire) under run_m before
    // each call, active() without. The flag is the whole message: the mutexes order the rest.
    std::atomic<bool> alive{true};
    std::atomic<std::uint64_t> runs{0};  // calls so far: a statistic (relaxed)
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
    if (p->running_on.load(std::memory_order_acquire) == std::this_thread::get_id())  // acquire: see running_on
        return std::make_exception_ptr(weft::error("weft::adapt::trigger: policy '" + p->name + "' fired '" +
                                                   std::string(trigger) +
                                                   "' from inside itself; a policy cannot run inside its own call"));
    std::unique_lock lock(p->run_m);
    if (!p->alive.load(std::memory_order_acquire)) return nullptr;  // acquire: pairs with the release that deregistered it
    const auto now = clock::now();
    if (!p->reset_on.empty() && trigger == p->reset_on && trigger != p->event) {
        if (p->set) p->set->reset();
        p->last_run = now;
        return nullptr;
    }
    std::exception_ptr error;
    p->running_on.store(std::this_thread::get_id(), std::memory_order_release);  // release: see running_on
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
                                                     p->runs.load(std::memory_order_relaxed));  // relaxed: a statistic
            p->fn(ctx);
            p->runs.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
        }
    } catch (...) {
        error = std::current_exception();
    }
    p->running_on.store(std::thread::id{}, std::memory_order_release);  // release: see running_on
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
                p->alive.store(false, std::memory_order_release);  // release: see alive
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

}  // namespace

namespace detail {

std::string history_path() {
    engine& e = eng();
    std::lock_guard lock(e.m);
    return e.history;
}

}  // namespace detail

// ---------------------------------------------------------------------------------
// Policies, events and regions.

double policy_context::value(std::size_t i) const noexcept {
    if (i >= values_.size() || !values_[i].available) return std::nan("");
    return values_[i].value;
}

void policy_context::log(std::string_view message) const { write_log(name_, message); }

void policy_handle::reset() noexcept {
    if (!entry_) return;
    const entry_ptr p = std::move(entry_);
    entry_.reset();
    p->alive.store(false, std::memory_order_release);  // release: see alive
    {
        engine& e = eng();
        std::lock_guard lock(e.m);
        remove_entry(e, p);
    }
    // Wait for a call in progress, unless the policy is deregistering itself.
    if (p->running_on.load(std::memory_order_acquire) != std::this_thread::get_id()) {  // acquire: see running_on
        std::lock_guard wait(p->run_m);
        p->set.reset();
    }
}

bool policy_handle::active() const noexcept {
    return entry_ && entry_->alive.load(std::memory_order_acquire);  // acquire: see alive
}

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
        p->alive.store(false, std::memory_order_release);  // release: see alive
        if (p->running_on.load(std::memory_order_acquire) == std::this_thread::get_id()) continue;  // acquire: see running_on
        std::lock_guard wait(p->run_m);
        p->set.reset();  // counter sets belong to the runtime that is stopping
    }
}

}  // namespace detail

}  // namespace weft::adapt
