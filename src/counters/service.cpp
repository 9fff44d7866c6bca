// The active counters, their printing (text, CSV, JSON; at exit and at intervals) and the
// trace writer (Chrome Trace Event format, which Perfetto and chrome://tracing load).
#include <weft/counters/detail/service.hpp>

#include "registry.hpp"

#include <weft/platform/cycle_clock.hpp>
#include <weft/sched/detail/introspect.hpp>

#include <chrono>
#include <condition_variable>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <system_error>
#include <thread>
#include <utility>

namespace weft::counters {
namespace detail {
namespace {

using weft::detail::scheduler;

std::string json_string(std::string_view s) {
    std::string o = "\"";
    for (const char ch : s) {
        switch (ch) {
        case '"': o += "\\\""; break;
        case '\\': o += "\\\\"; break;
        case '\n': o += "\\n"; break;
        case '\t': o += "\\t"; break;
        default:
            if (static_cast<unsigned char>(ch) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(ch)));
                o += buf;
            } else {
                o += ch;
            }
        }
    }
    return o + "\"";
}

std::string csv_field(std::string_view s) {
    if (s.find_first_of(",\"\n") == std::string_view::npos) return std::string(s);
    std::string o = "\"";
    for (const char ch : s) o += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return o + "\"";
}

// Ten significant digits: more than any counter's precision; whole numbers print whole.
std::string number(double v) {
    char buf[40];
    if (v > -1e15 && v < 1e15 && v == static_cast<double>(static_cast<long long>(v)))
        std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    else
        std::snprintf(buf, sizeof buf, "%.10g", v);
    return buf;
}

struct counter_track_sample {
    std::uint64_t ticks;
    std::vector<double> values;  // per track, NaN when unavailable
};

struct service {
    std::mutex m;  // guards everything below (evaluate_active may come from any thread)
    bool running = false;
    service_config cfg;
    counter_set active;
    bool have_active = false;
    std::ofstream file;
    std::ostream* out = &std::cout;
    std::uint64_t samples = 0;
    bool csv_header_done = false;
    std::vector<std::string> csv_columns;  // the names of the last CSV header
    std::uint64_t start_ticks = 0;
    // The first write error (see take_write_error); once the destination failed, the
    // counters are no longer printed to it.
    std::string write_error;
    bool destination_failed = false;

    // Trace counter tracks.
    counter_set tracks;
    std::vector<counter_track_sample> track_samples;

    std::thread thread;
    std::condition_variable cv;
    bool stop = false;

    void print_locked(bool reset, std::string_view description);
    void write_locked(const std::vector<counter_value>& values, std::string_view description);
    void check_destination_locked(int err);
    void write_failed_locked(const std::string& message);
    void sample_tracks_locked();
    void thread_main();
};

service& svc() {
    static service s;
    return s;
}

void service::write_failed_locked(const std::string& message) {
    std::fprintf(stderr, "%s\n", message.c_str());
    if (write_error.empty()) write_error = message;
}

// After a write, flush or close of the destination file; `err` is errno from then.
void service::check_destination_locked(int err) {
    if (out != &file || destination_failed || !file.fail()) return;
    destination_failed = true;
    write_failed_locked("weft: could not write counters to " + cfg.destination + ": " +
                        (err != 0 ? std::strerror(err) : "write error"));
}

void service::print_locked(bool reset, std::string_view description) {
    if (!have_active || active.empty() || destination_failed || !cfg.write) return;
    write_locked(active.evaluate(reset), description);
}

void service::write_locked(const std::vector<counter_value>& values, std::string_view description) {
    if (values.empty() || destination_failed || !cfg.write) return;
    ++samples;
    const auto* s = weft::detail::active_scheduler();
    const double uptime =
        s != nullptr ? static_cast<double>(weft::detail::cycle_clock_now() - weft::detail::read_info(*s).start_ticks) *
                           weft::detail::cycle_clock_ns_per_tick() * 1e-9
                     : 0.0;
    std::ostream& os = *out;
    errno = 0;  // from here on, set only by a failed write (a bad stream writes no more)
    switch (cfg.fmt) {
    case format::text:
        for (const auto& v : values) {
            // HPX's shape: name,sample,time[s],value[unit]
            os << v.name << ',' << samples << ',' << number(uptime) << "[s],";
            if (v.available) os << number(v.value) << '[' << v.unit << ']';
            else os << "unavailable: " << v.reason;
            if (!description.empty()) os << ',' << description;
            os << '\n';
        }
        break;
    case format::csv: {
        // Gathered at exit, the columns are every locality's: they get a header of their own.
        std::vector<std::string> columns;
        for (const auto& v : values) columns.push_back(v.name + " [" + v.unit + "]");
        if (!csv_header_done || columns != csv_columns) {
            os << "sample,time_s,description";
            for (const auto& c : columns) os << ',' << csv_field(c);
            os << '\n';
            csv_header_done = true;
            csv_columns = std::move(columns);
        }
        os << samples << ',' << number(uptime) << ',' << csv_field(description);
        for (const auto& v : values) os << ',' << (v.available ? number(v.value) : std::string());
        os << '\n';
        break;
    }
    case format::json: {
        os << (samples == 1 ? "" : ",\n") << "  {\"sample\": " << samples << ", \"time_s\": " << number(uptime)
           << ", \"description\": " << json_string(description) << ", \"values\": {";
        bool first = true;
        for (const auto& v : values) {
            os << (first ? "" : ", ") << json_string(v.name) << ": ";
            if (v.available) os << "{\"value\": " << number(v.value) << ", \"unit\": " << json_string(v.unit) << '}';
            else os << "{\"value\": null, \"unit\": " << json_string(v.unit) << ", \"unavailable\": "
                    << json_string(v.reason) << '}';
            first = false;
        }
        os << "}}";
        break;
    }
    }
    os.flush();
    check_destination_locked(errno);
}

void service::sample_tracks_locked() {
    if (tracks.empty()) return;
    const auto values = tracks.evaluate(true);
    counter_track_sample smp{weft::detail::cycle_clock_now(), {}};
    for (const auto& v : values) smp.values.push_back(v.available ? v.value : std::numeric_limits<double>::quiet_NaN());
    track_samples.push_back(std::move(smp));
}

void service::thread_main() {
    using clock = std::chrono::steady_clock;
    const auto print_every = std::chrono::milliseconds(cfg.interval_ms);
    const auto track_every = std::chrono::milliseconds(cfg.trace_sample_ms);
    auto next_print = clock::now() + print_every;
    auto next_track = clock::now() + track_every;
    std::unique_lock lock(m);
    while (!stop) {
        auto due = clock::time_point::max();
        if (cfg.interval_ms != 0 && have_active && cfg.write) due = std::min(due, next_print);
        if (!tracks.empty()) due = std::min(due, next_track);
        if (due == clock::time_point::max()) cv.wait(lock, [&] { return stop; });
        else cv.wait_until(lock, due, [&] { return stop; });
        if (stop) break;
        const auto now = clock::now();
        try {
            if (cfg.interval_ms != 0 && have_active && cfg.write && now >= next_print) {
                print_locked(cfg.reset_each, {});
                while (next_print <= now) next_print += print_every;
            }
            if (!tracks.empty() && now >= next_track) {
                sample_tracks_locked();
                while (next_track <= now) next_track += track_every;
            }
        } catch (const std::exception& e) {
            std::fprintf(stderr, "weft: counter printing stopped: %s\n", e.what());
            return;
        }
    }
}

// The counter tracks a trace carries: what each worker of this locality is doing and how
// much is queued.
std::vector<std::string> track_names() {
    const std::string threads = "/threads{" + locality_name(locality_here());
    return {threads + "/worker-thread#*}/idle-rate",
            threads + "/worker-thread#*}/queue/length",
            threads + "/total}/count/instantaneous/active",
            threads + "/total}/count/instantaneous/pending",
            threads + "/total}/count/instantaneous/staged",
            threads + "/total}/count/instantaneous/suspended"};
}

void start_locked(service& s, const service_config& cfg);

}  // namespace

void start_service(const service_config& cfg) {
    auto& s = svc();
    std::lock_guard lock(s.m);
    try {
        start_locked(s, cfg);
    } catch (...) {
        // Leave nothing half open for the next runtime.
        if (s.file.is_open()) s.file.close();
        s.out = &std::cout;
        s.active = counter_set{};
        s.tracks = counter_set{};
        s.have_active = false;
        s.cfg = service_config{};
        s.running = false;
        throw;
    }
}

namespace {
void start_locked(service& s, const service_config& cfg) {
    s.cfg = cfg;
    s.samples = 0;
    s.csv_header_done = false;
    s.csv_columns.clear();
    s.stop = false;
    s.track_samples.clear();
    s.have_active = false;
    s.active = counter_set{};
    s.tracks = counter_set{};
    s.out = &std::cout;
    s.write_error.clear();
    s.destination_failed = false;
    if (!cfg.print.empty()) {
        try {
            // This locality's own: locality 0 prints the others' through gather_at_exit, once
            // the network has stopped (a remote evaluation could not travel then).
            s.active = query_here(cfg.print).set;
        } catch (const bad_counter_name& e) {
            std::string_view why = e.what();
            if (why.starts_with("weft: ")) why.remove_prefix(6);
            throw bad_counter_name("weft: bad --weft:print-counter (WEFT_PRINT_COUNTER): " + std::string(why));
        }
        s.have_active = true;
        for (const auto& v : s.active.evaluate(false))
            // A ratio over an empty interval is unavailable only for now: say nothing.
            if (!v.available && !v.reason.starts_with("division by zero"))
                std::fprintf(stderr, "weft: counter %s is unavailable: %s\n", v.name.c_str(), v.reason.c_str());
    }
    if (!cfg.destination.empty() && cfg.write) {
        errno = 0;
        s.file.open(cfg.destination, std::ios::out | std::ios::trunc);
        if (const int err = errno; !s.file)
            throw bad_option("weft: bad value '" + cfg.destination +
                             "' for --weft:print-counter-destination (WEFT_PRINT_COUNTER_DESTINATION): cannot write it: " +
                             std::strerror(err));
        s.out = &s.file;
    }
    if (cfg.fmt == format::json && s.have_active && cfg.write) *s.out << "{\"samples\": [\n";
    if (!cfg.trace_file.empty()) {
        // Fail now, not at exit, if the trace cannot be written (append: an earlier trace
        // stays until this one replaces it).
        if (std::FILE* probe = std::fopen(cfg.trace_file.c_str(), "a"); probe != nullptr) {
            std::fclose(probe);
        } else {
            const int err = errno;
            throw bad_option("weft: bad value '" + cfg.trace_file + "' for --weft:trace (WEFT_TRACE): cannot write it: " +
                             std::strerror(err));
        }
        s.tracks = query_here(track_names()).set;
    }
    s.running = true;
    if ((cfg.interval_ms != 0 && s.have_active && cfg.write) || !s.tracks.empty()) {
        try {
            s.thread = std::thread([&s] { s.thread_main(); });
        } catch (const std::system_error& e) {
            throw error(std::string("weft: cannot start the counter printer thread: ") + e.what());
        }
    }
}
}  // namespace

void stop_service() noexcept {
    auto& s = svc();
    {
        std::lock_guard lock(s.m);
        if (!s.running) return;
        s.stop = true;
    }
    s.cv.notify_all();
    if (s.thread.joinable()) s.thread.join();
    std::unique_lock lock(s.m);
    errno = 0;
    try {
        if (s.cfg.gather_at_exit && s.have_active) {
            std::vector<counter_value> values;
            try {
                values = s.active.evaluate(false);
            } catch (const std::exception& e) {
                std::fprintf(stderr, "weft: could not evaluate the counters at exit: %s\n", e.what());
            }
            // Without the lock: the gather may wait for other localities (or call back in).
            const auto gather = s.cfg.gather_at_exit;
            lock.unlock();
            bool gathered = false;
            try {
                values = gather(std::move(values));
                gathered = true;
            } catch (const std::exception& e) {
                std::fprintf(stderr, "weft: could not gather the counters at exit: %s\n", e.what());
            } catch (...) {
                std::fprintf(stderr, "weft: could not gather the counters at exit: an unknown exception\n");
            }
            lock.lock();
            errno = 0;
            if (gathered) s.write_locked(values, "at exit");
        } else {
            s.print_locked(false, "at exit");
        }
        if (s.cfg.fmt == format::json && s.have_active && s.cfg.write) *s.out << "\n]}\n";
        s.sample_tracks_locked();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "weft: could not print the counters at exit: %s\n", e.what());
    }
    s.out->flush();
    s.check_destination_locked(errno);
    if (s.file.is_open()) {
        errno = 0;
        s.file.close();  // sets failbit if the last bytes cannot be written
        s.check_destination_locked(errno);
    }
    s.file.clear();
    s.out = &std::cout;
    s.active = counter_set{};
    s.have_active = false;
    s.cfg.gather_at_exit = nullptr;  // and whatever it holds on to
    s.running = false;
}

void write_trace(const scheduler& sch) noexcept {
    auto& s = svc();
    std::lock_guard lock(s.m);
    if (s.cfg.trace_file.empty()) return;
    const auto failed = [&s](int err) {
        s.write_failed_locked("weft: could not write the trace to " + s.cfg.trace_file + ": " +
                              (err != 0 ? std::strerror(err) : "write error"));
    };
    try {
        errno = 0;
        std::ofstream os(s.cfg.trace_file, std::ios::out | std::ios::trunc);
        if (!os) failed(errno);
        errno = 0;  // from here on, set only by a failed write (a bad stream writes no more)
        const double ns = weft::detail::cycle_clock_ns_per_tick();
        const auto info = weft::detail::read_info(sch);
        const std::uint64_t t0 = info.start_ticks;
        const auto us = [&](std::uint64_t ticks) { return number(static_cast<double>(ticks > t0 ? ticks - t0 : 0) * ns * 1e-3); };
        std::uint64_t dropped = 0;
        for (unsigned i = 0; i < info.num_workers; ++i) dropped += weft::detail::worker_trace_dropped(sch, i);
        os << "{\"displayTimeUnit\": \"ns\", \"otherData\": {\"runtime\": \"weft\", \"workers\": " << info.num_workers
           << ", \"scheduler\": " << json_string(info.policy_name) << ", \"dropped_events\": " << dropped
           << "},\n\"traceEvents\": [\n";
        os << R"({"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "weft )"
           << locality_name(locality_here()) << "\"}}";
        for (unsigned i = 0; i < info.num_workers; ++i)
            os << ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": " << i
               << ", \"args\": {\"name\": \"worker-thread#" << i << "\"}}";
        for (unsigned i = 0; i < info.num_workers; ++i) {
            // Balance begins and ends even if the buffer filled up in the middle of a pair.
            std::vector<const weft::detail::trace_event*> open;
            std::uint64_t last = t0;
            const auto head = [&](const char* ph, std::uint64_t ticks) {
                os << ",\n{\"ph\": \"" << ph << "\", \"pid\": 0, \"tid\": " << i << ", \"ts\": " << us(ticks);
            };
            for (const auto& e : weft::detail::worker_trace(sch, i)) {
                last = e.ticks;
                using k = weft::detail::trace_event;
                switch (e.kind) {
                case k::phase_begin:
                    head("B", e.ticks);
                    os << ", \"cat\": \"task\", \"name\": " << json_string(e.name != nullptr ? e.name : "task")
                       << ", \"args\": {\"id\": " << e.task_id << ", \"resumed\": " << (e.arg != 0 ? "true" : "false")
                       << "}}";
                    open.push_back(&e);
                    break;
                case k::idle_begin:
                    head("B", e.ticks);
                    os << ", \"cat\": \"idle\", \"name\": \"idle\"}";
                    open.push_back(&e);
                    break;
                case k::phase_end:
                case k::idle_end:
                    if (open.empty()) break;
                    head("E", e.ticks);
                    if (e.kind == k::phase_end) os << ", \"args\": {\"end\": \"" << (e.arg != 0 ? "suspended" : "finished") << "\"}";
                    os << '}';
                    open.pop_back();
                    break;
                case k::steal:
                    head("i", e.ticks);
                    os << ", \"s\": \"t\", \"cat\": \"steal\", \"name\": \"steal\", \"args\": {\"task\": " << e.task_id
                       << ", \"victim\": \"worker-thread#" << e.arg << "\"}}";
                    break;
                }
            }
            while (!open.empty()) {
                head("E", last);
                os << '}';
                open.pop_back();
            }
        }
        // Counter tracks: one "C" event per sample and counter, all on the process.
        const auto& names = s.tracks.names();
        for (const auto& smp : s.track_samples) {
            for (std::size_t c = 0; c < names.size() && c < smp.values.size(); ++c) {
                if (smp.values[c] != smp.values[c]) continue;  // NaN: unavailable
                os << ",\n{\"ph\": \"C\", \"pid\": 0, \"ts\": " << us(smp.ticks) << ", \"name\": " << json_string(names[c])
                   << ", \"args\": {\"value\": " << number(smp.values[c]) << "}}";
            }
        }
        os << "\n]}\n";
        if (os.is_open()) {
            os.close();  // flushes; sets failbit if a write, the flush or the close failed
            if (!os) failed(errno);
        }
        if (dropped != 0)
            std::fprintf(stderr, "weft: the trace kept the first %zu events per worker and dropped %llu more\n",
                         info.trace_limit, static_cast<unsigned long long>(dropped));
    } catch (const std::exception& e) {
        s.write_failed_locked("weft: could not write the trace to " + s.cfg.trace_file + ": " + e.what());
    }
    s.tracks = counter_set{};
    s.track_samples.clear();
    s.cfg.trace_file.clear();
}

std::string take_write_error() {
    auto& s = svc();
    std::lock_guard lock(s.m);
    return std::exchange(s.write_error, std::string());
}

}  // namespace detail

void evaluate_active(bool reset, std::string_view description) {
    auto& s = detail::svc();
    std::lock_guard lock(s.m);
    detail::running();
    s.print_locked(reset, description);
}

void reset_active() {
    auto& s = detail::svc();
    std::lock_guard lock(s.m);
    if (s.have_active) s.active.reset();
}

void add_active(std::string_view pattern) {
    auto& s = detail::svc();
    std::lock_guard lock(s.m);
    std::vector<std::string> all(s.active.names());
    all.emplace_back(pattern);
    if (s.have_active && s.csv_header_done)
        throw runtime_state_error("weft: cannot add counters once CSV output has started (its header is written)");
    counter_set next = detail::query_here(all).set;
    s.active = std::move(next);
    if (!s.have_active && s.cfg.fmt == format::json && s.cfg.write) *s.out << "{\"samples\": [\n";
    s.have_active = true;
}

}  // namespace weft::counters
