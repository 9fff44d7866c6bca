// weft::promise: the producer side of a future, set once with a value or an exception.
#pragma once

#include <weft/futures/detail/future_core.hpp>

#include <exception>
#include <future>
#include <utility>

namespace weft {

/// The producer side of a future: set a value or an exception once.
template <class T>
class promise {
public:
    promise() : state_(detail::standalone_state<T>::make(2)) {}
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
    /// A promise destroyed unsatisfied stores weft::future_error(broken_promise).
    ~promise() { abandon(); }

    /// The future of this promise. @throws weft::future_error (future_already_retrieved, no_state)
    future<T> get_future() {
        check();
        if (retrieved_) detail::throw_future_error(std::future_errc::future_already_retrieved);
        retrieved_ = true;
        return future<T>(state_);  // adopts the second reference made in the constructor
    }

    /// Stores the value and wakes the waiters. @throws weft::future_error
    /// (promise_already_satisfied, no_state)
    template <class... A>
    void set_value(A&&... a) {
        check_unsatisfied();
        satisfied_ = true;
        state_->set_value(std::forward<A>(a)...);
    }

    /// Stores an exception for get() to rethrow. @throws weft::future_error
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
            state_->set_exception(std::make_exception_ptr(weft::future_error(std::future_errc::broken_promise)));
        if (!retrieved_) state_->release();  // the future's reference, never handed out
        std::exchange(state_, nullptr)->release();
    }

    detail::shared_state<T>* state_ = nullptr;
    bool retrieved_ = false;
    bool satisfied_ = false;
};

}  // namespace weft
