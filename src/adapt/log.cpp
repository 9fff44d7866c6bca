// The adaptation log (--weft:adapt-log, weft::adapt::log and set_log): one line a
// message, timed from the process's start, written by policies, tunables and throttling.
#include <weft/adapt/policy.hpp>
#include <weft/config/errors.hpp>

#include "log.hpp"

#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>

namespace weft::adapt {
namespace {

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

}  // namespace

namespace detail {

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

}  // namespace detail

using detail::open_log;
using detail::write_log;

void log(std::string_view message) { write_log({}, message); }

void set_log(std::string_view path) { open_log(path); }

}  // namespace weft::adapt
