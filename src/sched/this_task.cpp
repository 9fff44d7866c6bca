// weft::this_task (see include/weft/sched/this_task.hpp).
#include "scheduler.hpp"

#include <weft/sched/detail/suspend.hpp>
#include <weft/sched/this_task.hpp>
#include <weft/config/errors.hpp>

#include <string>
#include <thread>

namespace weft::detail {

void sleep_forever() {
    if (current_task() == nullptr) {
        for (;;) std::this_thread::sleep_for(std::chrono::hours(24));
    }
    // Nobody resumes the task: its callback leaves it parked, and no timer names it.
    for (;;) suspend([](task*, void*) noexcept {}, nullptr, wait_reason{});
}

}  // namespace weft::detail

namespace weft::this_task {

void yield() {
    if (detail::current_task() == nullptr) {
        std::this_thread::yield();
        return;
    }
    detail::suspend(
        [](detail::task* me, void*) noexcept {
            me->flags = static_cast<std::uint8_t>(me->flags | detail::task_flag_yielded);
            detail::resume(me);
        },
        nullptr);
}

void sleep_until(std::chrono::steady_clock::time_point deadline) {
    using namespace std::chrono;
    // As far as detail::until() (lcos) counts as never: no timer is armed for it.
    if (deadline >= steady_clock::time_point::max() - hours(24 * 365 * 100)) detail::sleep_forever();
    if (detail::current_task() == nullptr) {
        std::this_thread::sleep_until(deadline);
        return;
    }
    if (std::chrono::steady_clock::now() >= deadline) return;
    detail::suspend(
        [](detail::task* me, void* arg) noexcept {
            const auto when = *static_cast<std::chrono::steady_clock::time_point*>(arg);
            try {
                detail::call_at(when, [](void* task) noexcept { detail::resume(static_cast<detail::task*>(task)); }, me);
            } catch (...) {
                detail::resume(me);  // no memory for the timer: wake at once rather than never
            }
        },
        &deadline);
}

task_id get_id() noexcept {
    const detail::task* t = detail::current_task();
    return t != nullptr ? task_id{t->id} : task_id{};
}

const char* get_name() noexcept {
    const detail::task* t = detail::current_task();
    return t != nullptr ? t->name : nullptr;
}

int worker_index() noexcept {
    const detail::worker* w = detail::current_worker();
    return w != nullptr ? static_cast<int>(w->index) : -1;
}

std::size_t stack_size() noexcept {
    const detail::worker* w = detail::current_worker();
    return w != nullptr && w->current_ctx != nullptr ? w->current_ctx->stk.size : 0;
}

}  // namespace weft::this_task

namespace weft {
unsigned num_workers() noexcept {
    const detail::scheduler* s = detail::scheduler::active();
    return s != nullptr ? s->num_workers() : 0;
}

unsigned num_numa_domains() noexcept {
    const detail::scheduler* s = detail::scheduler::active();
    return s != nullptr ? s->num_numa_domains() : 0;
}

unsigned worker_numa_domain(unsigned worker) {
    const detail::scheduler* s = detail::scheduler::active();
    if (s == nullptr) throw error("weft::worker_numa_domain: no runtime is running");
    if (worker >= s->num_workers())
        throw error("weft::worker_numa_domain: no worker " + std::to_string(worker) + " (the runtime has " +
                    std::to_string(s->num_workers()) + ")");
    return s->worker_at(worker).numa_node;
}
}  // namespace weft
