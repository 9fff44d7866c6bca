// Hardware counters (/hardware{...}/KIND): one perf_event counter per kind and worker,
// opened on first use and closed when the runtime stops.
#include "perf_events.hpp"
#include "registry.hpp"

#include <weft/counters/detail/service.hpp>
#include <weft/sched/detail/introspect.hpp>

#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace weft::counters::detail {
namespace {

using weft::detail::scheduler;

struct hardware_store {
    std::mutex m;
    const scheduler* owner = nullptr;
    std::uint64_t generation = 0;
    // [kind][worker]
    std::vector<std::vector<weft::detail::perf_event_counter>> counters;
    std::vector<std::vector<bool>> tried;
};
hardware_store& hw() {
    static hardware_store s;
    return s;
}

void open_hardware(const scheduler& s, std::size_t kind) {
    auto& h = hw();
    std::lock_guard lock(h.m);
    const auto kinds = weft::detail::perf_event_kinds();
    const auto info = weft::detail::read_info(s);
    if (h.owner != &s || h.generation != info.generation) {
        h.counters.clear();
        h.tried.clear();
        h.owner = &s;
        h.generation = info.generation;
    }
    if (h.counters.size() != kinds.size()) {
        h.counters.resize(kinds.size());
        h.tried.resize(kinds.size());
    }
    auto& row = h.counters[kind];
    if (!row.empty()) return;
    for (unsigned w = 0; w < info.num_workers; ++w) {
        const int tid = weft::detail::worker_os_thread_id(s, w);
        if (tid != 0) row.emplace_back(tid, kinds[kind]);
        else row.emplace_back();
    }
}

// The reading of hardware counter `kind` on worker `w` (-1: all), or the reason there is none.
std::optional<double> read_hardware(std::size_t kind, int w, std::string& why) {
    auto& h = hw();
    std::lock_guard lock(h.m);
    if (kind >= h.counters.size() || h.counters[kind].empty()) {
        why = "not opened";
        return std::nullopt;
    }
    auto& row = h.counters[kind];
    double sum = 0;
    for (std::size_t i = 0; i < row.size(); ++i) {
        if (w >= 0 && static_cast<std::size_t>(w) != i) continue;
        const auto v = row[i].read();
        if (!v) {
            why = row[i].unavailable_reason();
            return std::nullopt;
        }
        sum += static_cast<double>(*v);
    }
    return sum;
}
}  // namespace

void open_entry(const scheduler& s, const entry& e) {
    if (e.kind == entry::hardware) open_hardware(s, e.index);
    for (const auto& o : e.operands) open_entry(s, o);
}

void forget_hardware(const scheduler* s) {
    auto& h = hw();
    std::lock_guard lock(h.m);
    if (h.owner == s) {
        h.counters.clear();
        h.tried.clear();
        h.owner = nullptr;
    }
}

void read_hardware_into(const std::vector<entry>& entries, reading& r) {
    for (const auto& e : entries) {
        if (e.kind == entry::hardware) {
            const auto key = std::make_pair(e.index, e.worker);
            if (r.hardware.count(key)) continue;
            std::string why;
            const auto v = read_hardware(e.index, e.worker, why);
            r.hardware[key] = v ? hardware_value{*v, {}} : hardware_value{0, why};
        }
        read_hardware_into(e.operands, r);
    }
}

}  // namespace weft::counters::detail
