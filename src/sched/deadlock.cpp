// The deadlock watchdog (run by the timer thread) and its report: every suspended task,
// what it waits on, and whether the deadlock is certain (a cycle of tasks, or a mutex
// whose owner has finished).
#include "scheduler.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace weft::detail {

void scheduler::check_deadlock(bool timers_pending, std::chrono::steady_clock::time_point now) {
    // Stuck: every worker parked, no timer that could wake a task, tasks left, and no
    // phase run (nor task spawned) since the last look. A thread outside weft may still
    // complete what they wait on, so the state must last for the deadlock timeout.
    const std::uint64_t phases = phases_run();
    // acquire: a statistic read with the counts below; the state must hold for the timeout anyway.
    const bool stuck = sleepers_.load(std::memory_order_acquire) == workers_.size() && !timers_pending &&
                       !quiescent() && phases == wd_phases_;
    wd_phases_ = phases;
    if (!stuck) {
        if (wd_reported_) {
            std::fprintf(stderr, "weft: the tasks reported above as deadlocked are running again\n");
            std::fflush(stderr);
        }
        wd_stuck_ = false;
        wd_reported_ = false;
        return;
    }
    if (!wd_stuck_) {
        wd_stuck_ = true;
        wd_since_ = now;
        return;
    }
    if (wd_reported_ || now - wd_since_ < cfg_.deadlock_timeout) return;
    wd_reported_ = true;
    const bool certain = report_deadlock();
    using action = scheduler_config::deadlock_action;
    if (cfg_.on_deadlock == action::exit || (certain && cfg_.on_deadlock == action::exit_if_certain)) {
        std::fprintf(stderr, "weft: exiting with code 3 (--weft:on-deadlock=%s)\n",
                     cfg_.on_deadlock == action::exit ? "exit" : "auto, and the deadlock is certain");
        std::fflush(stderr);
        std::_Exit(3);
    }
    std::fprintf(stderr,
                 "weft: still waiting: a thread outside weft may yet complete what they wait on "
                 "(--weft:on-deadlock=exit exits with code 3 instead; --weft:deadlock-timeout=0 silences this)\n");
    std::fflush(stderr);
}

namespace {
struct stuck_task {
    std::uint64_t id;
    const char* name;
    wait_reason why;
};

std::string describe_task(std::uint64_t id, const char* name) {
    char buf[96];
    if (name != nullptr) std::snprintf(buf, sizeof buf, "task '%.60s' (id %llu)", name, static_cast<unsigned long long>(id));
    else std::snprintf(buf, sizeof buf, "task #%llu", static_cast<unsigned long long>(id));
    return buf;
}

bool is_mutex_kind(wait_kind k) noexcept {
    return k == wait_kind::mutex || k == wait_kind::recursive_mutex || k == wait_kind::shared_mutex;
}

// A wait only a task can end: a mutex with a task owner (only its owner may unlock it),
// or a future a task will set.
bool waits_on_a_task(const wait_reason& w) noexcept {
    return w.holder != 0 && w.holder != holder_outside_thread && (is_mutex_kind(w.kind) || w.kind == wait_kind::future);
}
}  // namespace

bool scheduler::report_deadlock() {
    std::vector<stuck_task> stuck;
    contexts_.for_each([&stuck](const context& c) {
        // acquire: pairs with the release in suspend(); the fields are that task's.
        if (c.suspended_task.load(std::memory_order_acquire) != nullptr)
            stuck.push_back({c.suspended_id, c.suspended_name, c.waiting});
    });
    std::sort(stuck.begin(), stuck.end(), [](const stuck_task& a, const stuck_task& b) { return a.id < b.id; });
    const auto find = [&](std::uint64_t id) -> const stuck_task* {
        auto it = std::lower_bound(stuck.begin(), stuck.end(), id,
                                   [](const stuck_task& a, std::uint64_t v) { return a.id < v; });
        return it != stuck.end() && it->id == id ? &*it : nullptr;
    };
    // Certain: following "waits on a task" from some task ends in a cycle, or at a mutex
    // whose owning task has finished (every live task is suspended here, so a holder
    // not in the list has finished). Any other wait could be ended by an outside thread.
    std::vector<std::uint64_t> certain_ids;
    for (const stuck_task& s : stuck) {
        const stuck_task* cur = &s;
        std::vector<std::uint64_t> path;
        for (;;) {
            if (!waits_on_a_task(cur->why)) break;
            path.push_back(cur->id);
            const stuck_task* next = find(cur->why.holder);
            if (next == nullptr) {
                if (is_mutex_kind(cur->why.kind)) certain_ids.push_back(s.id);
                break;
            }
            if (std::find(path.begin(), path.end(), next->id) != path.end()) {
                certain_ids.push_back(s.id);
                break;
            }
            cur = next;
        }
    }
    const bool certain = !certain_ids.empty();
    std::fflush(stdout);
    std::fprintf(stderr,
                 "weft: %s: every worker has been idle for %lld ms with no timer pending, and %zu task(s) wait on "
                 "something %s:\n",
                 certain ? "deadlock" : "possible deadlock", static_cast<long long>(cfg_.deadlock_timeout.count()),
                 stuck.size(), certain ? "that no task and no thread can complete" : "that no task can complete");
    std::size_t shown = 0;
    for (const stuck_task& s : stuck) {
        if (++shown > 20) {
            std::fprintf(stderr, "  ... and %zu more\n", stuck.size() - 20);
            break;
        }
        std::string line = "  " + describe_task(s.id, s.name) + " waits on ";
        const wait_kind k = s.why.kind;
        line += k == wait_kind::unknown ? std::string("something weft cannot name")
                                        : std::string(k == wait_kind::event ? "an " : "a ") + wait_kind_name(k);
        if (s.why.object != nullptr) {
            char addr[32];
            std::snprintf(addr, sizeof addr, " (%p)", s.why.object);
            line += addr;
        }
        if (s.why.holder == holder_outside_thread) {
            line += ", held by a thread outside weft";
        } else if (s.why.holder != 0) {
            const stuck_task* h = find(s.why.holder);
            const std::string who = h != nullptr ? describe_task(h->id, h->name) : describe_task(s.why.holder, nullptr);
            if (k == wait_kind::future) line += ", to be set by " + (h == &s ? std::string("itself") : who);
            else line += ", held by " + (h == &s ? std::string("itself") : who) + (h == nullptr ? ", which has finished" : "");
        }
        if (std::find(certain_ids.begin(), certain_ids.end(), s.id) != certain_ids.end()) line += " [certain]";
        std::fprintf(stderr, "%s\n", line.c_str());
    }
    std::fflush(stderr);
    return certain;
}

}  // namespace weft::detail
