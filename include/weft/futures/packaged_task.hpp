// weft::packaged_task: a callable whose result goes to a future.
#pragma once

#include <weft/futures/future.hpp>

#include <memory>
#include <type_traits>
#include <utility>

namespace weft {

template <class Signature>
class packaged_task;

/// Wraps a callable so that calling the packaged_task stores the result (or exception)
/// in the future from get_future(). Move-only. Errors are weft::future_error:
/// no_state (empty task), future_already_retrieved, promise_already_satisfied (called
/// twice); a task destroyed without being called breaks its promise.
template <class R, class... Args>
class packaged_task<R(Args...)> {
public:
    packaged_task() noexcept = default;
    template <class F>
        requires(!std::is_same_v<std::remove_cvref_t<F>, packaged_task>) && std::is_invocable_r_v<R, std::decay_t<F>&, Args...>
    explicit packaged_task(F&& f) : fn_(std::make_unique<holder<std::decay_t<F>>>(std::forward<F>(f))) {}
    packaged_task(packaged_task&&) noexcept = default;
    packaged_task& operator=(packaged_task&&) noexcept = default;

    bool valid() const noexcept { return fn_ != nullptr; }

    /// @throws weft::future_error (no_state, future_already_retrieved)
    future<R> get_future() {
        check();
        return promise_.get_future();
    }

    /// Calls the function and stores its result or exception.
    /// @throws weft::future_error (no_state, promise_already_satisfied)
    void operator()(Args... args) {
        check();
        if (called_) detail::throw_future_error(std::future_errc::promise_already_satisfied);
        called_ = true;
        std::exception_ptr error;
        try {
            if constexpr (std::is_void_v<R>) {
                fn_->call(std::forward<Args>(args)...);
                promise_.set_value();
            } else {
                promise_.set_value(fn_->call(std::forward<Args>(args)...));
            }
            return;
        } catch (...) {
            error = std::current_exception();
        }
        promise_.set_exception(std::move(error));  // after the catch block, as in fulfil()
    }

    /// A fresh shared state for the same function (the old one's future, if not yet
    /// satisfied, gets broken_promise). @throws weft::future_error (no_state)
    void reset() {
        check();
        promise_ = promise<R>();
        called_ = false;
    }

private:
    struct holder_base {
        virtual ~holder_base() = default;
        virtual R call(Args... args) = 0;
    };
    template <class F>
    struct holder final : holder_base {
        F f;
        explicit holder(F&& fn) : f(std::move(fn)) {}
        explicit holder(const F& fn) : f(fn) {}
        R call(Args... args) override { return static_cast<R>(std::invoke(f, std::forward<Args>(args)...)); }
    };

    void check() const {
        if (fn_ == nullptr) detail::throw_future_error(std::future_errc::no_state);
    }

    std::unique_ptr<holder_base> fn_;
    promise<R> promise_;
    bool called_ = false;
};

}  // namespace weft
