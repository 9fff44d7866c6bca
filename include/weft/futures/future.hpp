// weft::future, weft::promise and weft::async: results of tasks that waiters can
// suspend on. The full futures API (then, when_all, dataflow...) grows from here.
#pragma once

#include <weft/futures/detail/shared_state.hpp>
#include <weft/sched/detail/task_block.hpp>

#include <type_traits>
#include <utility>

namespace weft {

template <class T>
class promise;

/// The result of an asynchronous computation: move-only, read once with get().
///
/// get() and wait() on a result that is not ready suspend the calling task (its worker
/// runs other tasks meanwhile) or, on a thread that is not a weft worker, block the
/// thread. If the producing task is still queued on the calling worker, it is run
/// inline instead (no suspension, no context switch).
template <class T>
class future {
public:
    future() noexcept = default;
    future(future&& o) noexcept : state_(std::exchange(o.state_, nullptr)) {}
    future& operator=(future&& o) noexcept {
        if (this != &o) {
            reset();
            state_ = std::exchange(o.state_, nullptr);
        }
        return *this;
    }
    future(const future&) = delete;
    future& operator=(const future&) = delete;
    ~future() { reset(); }

    /// True if this future refers to a shared state (not default-constructed, moved
    /// from, or already consumed by get()).
    bool valid() const noexcept { return state_ != nullptr; }

    /// True if the result (value or exception) is available. @throws std::future_error
    /// (no_state) if !valid().
    bool is_ready() const {
        check();
        return state_->is_ready();
    }

    /// Waits until the result is available. @throws std::future_error (no_state).
    void wait() const {
        check();
        state_->wait();
    }

    /// Waits, then returns the value (moved out) or rethrows the exception the task
    /// threw. Leaves the future invalid. @throws std::future_error (no_state) if !valid().
    T get() {
        check();
        state_->wait();
        detail::shared_state<T>* s = state_;
        state_ = nullptr;
        struct releaser {
            detail::shared_state<T>* s;
            ~releaser() { s->release(); }
        } guard{s};
        if constexpr (std::is_void_v<T>) {
            s->value();
        } else if constexpr (std::is_reference_v<T>) {
            return s->value();
        } else {
            return std::move(s->value());
        }
    }

    /// Internal: adopts one reference to `s`.
    explicit future(detail::shared_state<T>* s) noexcept : state_(s) {}

private:
    void check() const {
        if (state_ == nullptr) detail::throw_future_error(std::future_errc::no_state);
    }
    void reset() noexcept {
        if (state_ != nullptr) std::exchange(state_, nullptr)->release();
    }

    detail::shared_state<T>* state_ = nullptr;
};

/// The producer side of a future: set a value or an exception once.
template <class T>
class promise {
public:
    promise() : state_(new detail::standalone_state<T>) {}
    promise(promise&& o) noexcept
        : state_(std::exchange(o.state_, nullptr)), retrieved_(o.retrieved_), satisfied_(o.satisfied_) {}
    promise& operator=(promise&& o) noexcept {
        if (this != &o) {
            abandon();
            state_ = std::exchange(o.state_, nullptr);
            retrieved_ = o.retrieved_;
            satisfied_ = o.satisfied_;
        }
        return *this;
    }
    promise(const promise&) = delete;
    promise& operator=(const promise&) = delete;
    /// A promise destroyed unsatisfied stores std::future_error(broken_promise).
    ~promise() { abandon(); }

    /// The future of this promise. @throws std::future_error (future_already_retrieved,
    /// no_state).
    future<T> get_future() {
        check();
        if (retrieved_) detail::throw_future_error(std::future_errc::future_already_retrieved);
        retrieved_ = true;
        return future<T>(state_);  // adopts the second reference made in the constructor
    }

    /// Stores the value and wakes the waiters. @throws std::future_error
    /// (promise_already_satisfied, no_state).
    template <class... A>
    void set_value(A&&... a) {
        check_unsatisfied();
        satisfied_ = true;
        state_->set_value(std::forward<A>(a)...);
    }

    /// Stores an exception for get() to rethrow. @throws std::future_error.
    void set_exception(std::exception_ptr e) {
        check_unsatisfied();
        satisfied_ = true;
        state_->set_exception(std::move(e));
    }

private:
    void check() const {
        if (state_ == nullptr) detail::throw_future_error(std::future_errc::no_state);
    }
    void check_unsatisfied() const {
        check();
        if (satisfied_) detail::throw_future_error(std::future_errc::promise_already_satisfied);
    }
    void abandon() noexcept {
        if (state_ == nullptr) return;
        if (!satisfied_)
            state_->set_exception(std::make_exception_ptr(std::future_error(std::future_errc::broken_promise)));
        if (!retrieved_) state_->release();  // the future's reference, never handed out
        std::exchange(state_, nullptr)->release();
    }

    detail::shared_state<T>* state_ = nullptr;
    bool retrieved_ = false;
    bool satisfied_ = false;
};

namespace detail {

/// One block: the task, the closure and the future's shared state.
template <class R, class F, class... Args>
class async_block final : public task, public shared_state<R> {
public:
    template <class F2, class... A2>
    explicit async_block(F2&& f, A2&&... a)
        : shared_state<R>(&destroy, 2), call_(std::forward<F2>(f), std::forward<A2>(a)...) {
        invoke = &run;
        this->producer_ = this;
    }

private:
    static void run(task* self) noexcept {
        auto* b = static_cast<async_block*>(self);
        try {
            if constexpr (std::is_void_v<R>) {
                b->call_();
                b->set_value();
            } else {
                b->set_value(b->call_());
            }
        } catch (...) {
            b->set_exception(std::current_exception());
        }
        b->release();
    }
    static void destroy(shared_state_base* s) noexcept { destroy_block(static_cast<async_block*>(s)); }

    bound_call<F, Args...> call_;
};

template <class F, class... Args>
using async_result_t = std::invoke_result_t<std::decay_t<F>, std::decay_t<Args>...>;

}  // namespace detail

/// Runs `f(args...)` as a new task and returns a future for its result (or exception).
/// Arguments are decay-copied (use std::ref for references). One allocation from the
/// worker's block pool holds the task, the closure and the result.
/// @throws weft::runtime_state_error when no weft runtime is running.
template <class F, class... Args>
    requires std::is_invocable_v<std::decay_t<F>, std::decay_t<Args>...>
future<detail::async_result_t<F, Args...>> async(F&& f, Args&&... args) {
    return async(task_attributes{}, std::forward<F>(f), std::forward<Args>(args)...);
}

/// As async(f, args...), with a priority and a name for the task.
template <class F, class... Args>
    requires std::is_invocable_v<std::decay_t<F>, std::decay_t<Args>...>
future<detail::async_result_t<F, Args...>> async(const task_attributes& attributes, F&& f, Args&&... args) {
    using R = detail::async_result_t<F, Args...>;
    using block = detail::async_block<R, F, Args...>;
    detail::worker_hot* w = detail::current_worker_hot();
    block* b = detail::make_block_on<block>(w, std::forward<F>(f), std::forward<Args>(args)...);
    detail::apply_attributes(*b, attributes);
    detail::spawn_block(w, b);
    return future<R>(static_cast<detail::shared_state<R>*>(b));
}

}  // namespace weft
