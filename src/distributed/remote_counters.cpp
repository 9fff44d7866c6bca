// Remote performance-counter queries (issue #24; seed 000's counters are objects with global
// names that any locality can query). A counter_set that spans other localities asks each of
// them, with one parcel, to make a set of its own instances: that locality resolves the
// patterns itself (its worker count, its hardware counters) and keeps the set under a handle
// until the asker's set is destroyed (a posted close) or the runtime stops (freed here).
// Evaluations and resets go to every locality concurrently; the asking task suspends on the
// futures (a thread outside weft blocks on them). An answer that cannot come (the runtime
// stopped, a locality died and the run ends) fails the future: evaluate() throws.
#include "remote_counters.hpp"

#include <weft/config/errors.hpp>
#include <weft/counters/detail/service.hpp>
#include <weft/distributed/action.hpp>
#include <weft/distributed/async.hpp>
#include <weft/distributed/counters.hpp>
#include <weft/distributed/detail/parcelport.hpp>
#include <weft/futures/future.hpp>

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace weft::distributed::detail {
namespace {

namespace wcd = counters::detail;

/// A set this locality keeps for another's query. Its own lock: the asker's set is not for
/// concurrent use, but two askers' sets are independent, and a close may race an evaluation.
struct kept_set {
    std::mutex mutex;
    counters::counter_set set;
};

struct kept_table {
    std::mutex mutex;  // guards sets
    std::unordered_map<std::uint64_t, std::shared_ptr<kept_set>> sets;
    // Never reset: a handle of an earlier runtime names nothing in a later one.
    std::atomic<std::uint64_t> next{1};
};

kept_table& kept() {
    static kept_table t;
    return t;
}

std::shared_ptr<kept_set> find_kept(std::uint64_t handle) {
    const std::lock_guard lock(kept().mutex);
    const auto it = kept().sets.find(handle);
    if (it == kept().sets.end())
        throw weft::error("weft: locality#" + std::to_string(here()) + " keeps no counter set #" +
                          std::to_string(handle) + " (closed, or made for a runtime that has stopped)");
    return it->second;
}

}  // namespace

/// The handle (0: nothing of this locality's), the names per pattern and how many
/// instances each pattern matched here.
using opened_set = std::tuple<std::uint64_t, std::vector<std::vector<std::string>>, std::vector<std::uint64_t>>;

/// Makes this locality's part of another's query and keeps it (if not empty) until closed.
/// @throws weft::bad_counter_name for a pattern this locality refuses (it travels as itself)
opened_set weft_counters_open(std::vector<std::string> patterns) {
    wcd::local_query q = wcd::query_here(patterns);
    std::vector<std::vector<std::string>> names;
    std::vector<std::uint64_t> matched(q.matched.begin(), q.matched.end());
    std::size_t at = 0;
    for (const std::size_t n : q.per_pattern) {
        names.emplace_back(q.set.names().begin() + static_cast<std::ptrdiff_t>(at),
                           q.set.names().begin() + static_cast<std::ptrdiff_t>(at + n));
        at += n;
    }
    if (q.set.empty()) return {0, std::move(names), std::move(matched)};
    auto k = std::make_shared<kept_set>();
    k->set = std::move(q.set);
    const std::uint64_t handle = kept().next.fetch_add(1, std::memory_order_relaxed);  // relaxed: only uniqueness matters
    {
        const std::lock_guard lock(kept().mutex);
        kept().sets.emplace(handle, std::move(k));
    }
    return {handle, std::move(names), std::move(matched)};
}
WEFT_PLAIN_ACTION(weft_counters_open, weft_counters_open_action);

/// A kept set's values (counter_set::evaluate). @throws weft::error for an unknown handle
std::vector<counters::counter_value> weft_counters_evaluate(std::uint64_t handle, bool reset) {
    const std::shared_ptr<kept_set> k = find_kept(handle);
    const std::lock_guard lock(k->mutex);
    return k->set.evaluate(reset);
}
WEFT_PLAIN_ACTION(weft_counters_evaluate, weft_counters_evaluate_action);

/// Starts a kept set's new interval. @throws weft::error for an unknown handle
void weft_counters_reset(std::uint64_t handle) {
    const std::shared_ptr<kept_set> k = find_kept(handle);
    const std::lock_guard lock(k->mutex);
    k->set.reset();
}
WEFT_PLAIN_ACTION(weft_counters_reset, weft_counters_reset_action);

/// Posted: an unknown handle (the runtime of a set made earlier) is nothing to close.
void weft_counters_close(std::uint64_t handle) {
    std::shared_ptr<kept_set> k;
    {
        const std::lock_guard lock(kept().mutex);
        const auto it = kept().sets.find(handle);
        if (it == kept().sets.end()) return;
        k = std::move(it->second);
        kept().sets.erase(it);
    }
    const std::lock_guard lock(k->mutex);  // an evaluation in flight ends first
    k->set = counters::counter_set{};
}
WEFT_PLAIN_ACTION(weft_counters_close, weft_counters_close_action);

namespace {

/// Waits for every future (none is left behind), then returns the values in order or
/// rethrows the first exception in order.
template <class T>
std::vector<T> get_all(std::vector<future<T>>& futures, std::exception_ptr error) {
    std::vector<T> out;
    out.reserve(futures.size());
    for (auto& f : futures) {
        try {
            out.push_back(f.get());
        } catch (...) {
            if (!error) error = std::current_exception();
            out.emplace_back();
        }
    }
    if (error) std::rethrow_exception(error);
    return out;
}

/// The same for calls without a value.
void wait_all(std::vector<future<void>>& futures, std::exception_ptr error) {
    for (auto& f : futures) {
        try {
            f.get();
        } catch (...) {
            if (!error) error = std::current_exception();
        }
    }
    if (error) std::rethrow_exception(error);
}

void close_sets(const std::vector<wcd::remote_ref>& sets) noexcept {
    for (const auto& s : sets) {
        if (s.handle == 0) continue;
        try {
            weft::post(weft_counters_close_action{}, id_type::locality(s.locality), s.handle);
        } catch (...) {
            // The runtime stops: it frees every kept set itself.
        }
    }
}

std::vector<wcd::remote_opened> open_sets(const std::vector<wcd::remote_request>& requests) {
    std::vector<future<opened_set>> futures;
    std::exception_ptr error;
    for (const auto& r : requests) {
        try {
            futures.push_back(weft::async(weft_counters_open_action{}, id_type::locality(r.locality), r.patterns));
        } catch (...) {
            error = std::current_exception();
            break;
        }
    }
    std::vector<wcd::remote_opened> out;
    std::exception_ptr first;
    for (std::size_t i = 0; i < futures.size(); ++i) {
        try {
            auto [handle, names, matched] = futures[i].get();
            if (names.size() != requests[i].patterns.size() || matched.size() != names.size())
                throw weft::error("weft: locality#" + std::to_string(requests[i].locality) + " answered for " +
                                  std::to_string(names.size()) + " counter patterns of " +
                                  std::to_string(requests[i].patterns.size()));
            out.push_back({{requests[i].locality, handle}, std::move(names),
                           std::vector<std::size_t>(matched.begin(), matched.end())});
        } catch (...) {
            if (!first) first = std::current_exception();
        }
    }
    if (!first) first = error;
    if (first) {
        std::vector<wcd::remote_ref> opened;
        for (const auto& o : out) opened.push_back(o.ref);
        close_sets(opened);
        std::rethrow_exception(first);
    }
    return out;
}

std::vector<std::vector<counters::counter_value>> evaluate_sets(const std::vector<wcd::remote_ref>& sets,
                                                                bool reset) {
    std::vector<future<std::vector<counters::counter_value>>> futures;
    std::exception_ptr error;
    for (const auto& s : sets) {
        try {
            futures.push_back(weft::async(weft_counters_evaluate_action{}, id_type::locality(s.locality), s.handle, reset));
        } catch (...) {
            error = std::current_exception();
            break;
        }
    }
    return get_all(futures, error);
}

void reset_sets(const std::vector<wcd::remote_ref>& sets) {
    std::vector<future<void>> futures;
    std::exception_ptr error;
    for (const auto& s : sets) {
        try {
            futures.push_back(weft::async(weft_counters_reset_action{}, id_type::locality(s.locality), s.handle));
        } catch (...) {
            error = std::current_exception();
            break;
        }
    }
    wait_all(futures, error);
}

constexpr wcd::remote_source source{&open_sets, &evaluate_sets, &reset_sets, &close_sets};

}  // namespace

void remote_counters_start() {
    if (localities() > 1) wcd::set_remote_source(&source);
}

void remote_counters_stop() noexcept {
    wcd::set_remote_source(nullptr);
    std::unordered_map<std::uint64_t, std::shared_ptr<kept_set>> sets;
    {
        const std::lock_guard lock(kept().mutex);
        sets.swap(kept().sets);
    }
    // Freed outside the table's lock (a set's destructor may take others).
}

}  // namespace weft::distributed::detail
