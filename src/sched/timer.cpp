// The runtime's timer thread: timers for sleep_for / sleep_until and call_at, the
// periodic deadlock check and the stack pool's trim.
#include "entry.hpp"
#include "scheduler.hpp"

#include <algorithm>
#include <chrono>
#include <mutex>

namespace weft::detail {

void scheduler::add_timer(std::chrono::steady_clock::time_point when, void (*fn)(void*) noexcept, void* arg) {
    {
        std::lock_guard lock(timer_mutex_);
        timers_.push_back({when, fn, arg});
        std::push_heap(timers_.begin(), timers_.end(), [](const auto& a, const auto& b) { return a.when > b.when; });
    }
    timer_cv_.notify_one();
}

void scheduler::timer_main() {
    using clock = std::chrono::steady_clock;
    const auto later = [](const auto& a, const auto& b) { return a.when > b.when; };
    // The deadlock watchdog looks a few times per timeout (at most every 200 ms).
    const bool watch = cfg_.deadlock_timeout.count() > 0;
    const auto period = std::clamp<clock::duration>(cfg_.deadlock_timeout / 5, std::chrono::milliseconds(10),
                                                    std::chrono::milliseconds(200));
    auto next_check = clock::now() + period;
    // The stack pool gives memory back once per trim period, off the workers' paths.
    const bool trim = cfg_.stack_trim.count() > 0;
    auto next_trim = clock::now() + cfg_.stack_trim;
    std::unique_lock lock(timer_mutex_);
    while (!timer_stop_) {
        const auto now = clock::now();
        if (!timers_.empty() && timers_.front().when <= now) {
            std::pop_heap(timers_.begin(), timers_.end(), later);
            const timer_entry e = timers_.back();
            timers_.pop_back();
            lock.unlock();
            e.fn(e.arg);
            lock.lock();
            continue;
        }
        if (watch && now >= next_check) {
            const bool timers_pending = !timers_.empty();
            lock.unlock();
            check_deadlock(timers_pending, now);
            lock.lock();
            next_check = now + period;
            continue;
        }
        if (trim && now >= next_trim) {
            lock.unlock();
            contexts_.trim();
            lock.lock();
            next_trim = now + cfg_.stack_trim;
            continue;
        }
        auto until = watch ? next_check : clock::time_point::max();
        if (trim) until = std::min(until, next_trim);
        if (!timers_.empty()) until = std::min(until, timers_.front().when);
        if (until == clock::time_point::max()) timer_cv_.wait(lock);
        else timer_cv_.wait_until(lock, until);
    }
}

void call_at(std::chrono::steady_clock::time_point when, void (*fn)(void*) noexcept, void* arg) {
    if (worker* w = current_worker()) {
        w->sched->add_timer(when, fn, arg);
        return;
    }
    const outside_entry entry(false);
    if (entry.sched == nullptr) throw_no_runtime("cannot arm a timer");
    entry.sched->add_timer(when, fn, arg);
}


}  // namespace weft::detail
