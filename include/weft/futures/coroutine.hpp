// C++20 coroutines with weft futures: a function returning weft::future<T> may be a
// coroutine that co_awaits weft futures. It runs as a weft task; while it waits it is
// suspended as a coroutine frame only, holding no stack, and resumes as a new task.
#pragma once

#include <weft/futures/future.hpp>

#include <coroutine>
#include <exception>
#include <type_traits>
#include <utility>

namespace weft::detail {

/// Resumes a coroutine as a weft task: one descriptor inside the coroutine's promise,
/// spawned again at every resumption (a coroutine waits for one thing at a time, so it
/// is never queued twice). Nothing touches it after the coroutine is resumed: the
/// frame that holds it may be gone by then.
struct coroutine_task final : task {
    std::coroutine_handle<> handle;
    coroutine_task() noexcept { invoke = &run; }
    static void run(task* t) noexcept { static_cast<coroutine_task*>(t)->handle.resume(); }
    void schedule() noexcept {
        try {
            spawn(this);
        } catch (...) {
            handle.resume();  // no runtime (it stopped): continue here rather than never
        }
    }
};

template <class T>
struct coroutine_promise_base {
    shared_state<T>* state = standalone_state<T>::make(2);  // the future's + ours
    coroutine_task resumer;

    /// The body starts as a task, once the coroutine is suspended at its start: it may
    /// only be resumed from then on (get_return_object runs before that point).
    struct start_as_task {
        coroutine_task* resumer;
        bool await_ready() const noexcept { return false; }
        void await_suspend(std::coroutine_handle<>) const noexcept { resumer->schedule(); }
        void await_resume() const noexcept {}
    };
    start_as_task initial_suspend() noexcept { return {&resumer}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void unhandled_exception() noexcept { state->set_exception(std::current_exception()); }
    ~coroutine_promise_base() { state->release(); }

    // Coroutine frames come from the task-block pool (no system allocation for small ones).
    static void* operator new(std::size_t n) { return allocate_task_block(n); }
    static void operator delete(void* p, std::size_t n) noexcept { free_task_block(p, n); }
};

template <class T>
struct coroutine_promise : coroutine_promise_base<T> {
    future<T> get_return_object();
    template <class V>
    void return_value(V&& v) {
        this->state->set_value(std::forward<V>(v));
    }
};
template <>
struct coroutine_promise<void> : coroutine_promise_base<void> {
    future<void> get_return_object();
    void return_void() { this->state->set_value(); }
};

template <class T>
future<T> coroutine_promise<T>::get_return_object() {
    auto h = std::coroutine_handle<coroutine_promise>::from_promise(*this);
    this->resumer.handle = h;
    this->resumer.name = "coroutine";
    return future<T>(this->state);
}
inline future<void> coroutine_promise<void>::get_return_object() {
    auto h = std::coroutine_handle<coroutine_promise>::from_promise(*this);
    this->resumer.handle = h;
    this->resumer.name = "coroutine";
    return future<void>(this->state);
}

template <class P>
inline constexpr bool is_weft_coroutine_promise = false;
template <class T>
inline constexpr bool is_weft_coroutine_promise<coroutine_promise<T>> = true;

/// co_await on a future or shared_future: suspends the coroutine (not the task's stack)
/// until the future is ready; resumes a weft coroutine as a new task, any other
/// coroutine inline in whatever completes the future.
template <class Fut>
class future_awaiter final : public waiter {
public:
    explicit future_awaiter(Fut f) noexcept : f_(std::move(f)) { callback = &on_ready; }

    bool await_ready() const { return f_.is_ready(); }

    template <class P>
    bool await_suspend(std::coroutine_handle<P> h) {
        if constexpr (is_weft_coroutine_promise<P>) resumer_ = &h.promise().resumer;
        else handle_ = h;
        shared_state_base* s = state_of(f_);
        s->run_deferred();
        return s->add_waiter(*this);  // false: ready meanwhile, continue at once
    }

    decltype(auto) await_resume() { return f_.get(); }

private:
    static void on_ready(waiter* w) noexcept {
        auto* self = static_cast<future_awaiter*>(w);
        if (self->resumer_ != nullptr) self->resumer_->schedule();
        else self->handle_.resume();
    }

    Fut f_;
    coroutine_task* resumer_ = nullptr;
    std::coroutine_handle<> handle_;
};

}  // namespace weft::detail

namespace weft {

/// `co_await fut` in a coroutine: waits without holding a stack, then yields fut.get()
/// (the value, or rethrows the exception). Consumes a future; copies a shared_future.
template <class T>
detail::future_awaiter<future<T>> operator co_await(future<T>&& f) {
    if (!f.valid()) detail::throw_future_error(std::future_errc::no_state);
    return detail::future_awaiter<future<T>>(std::move(f));
}
template <class T>
detail::future_awaiter<shared_future<T>> operator co_await(const shared_future<T>& f) {
    if (!f.valid()) detail::throw_future_error(std::future_errc::no_state);
    return detail::future_awaiter<shared_future<T>>(f);
}

}  // namespace weft

/// Makes weft::future<T> usable as a coroutine's return type.
template <class T, class... Args>
struct std::coroutine_traits<weft::future<T>, Args...> {
    using promise_type = weft::detail::coroutine_promise<T>;
};
