// weft::future and weft::shared_future, and their continuations (then): results of tasks
// that waiters suspend on. Users include <weft/futures/future.hpp>, which adds promise,
// the ready futures and async.
#pragma once

#include <weft/futures/detail/launch_choice.hpp>
#include <weft/futures/detail/shared_state.hpp>
#include <weft/futures/detail/timed_wait.hpp>
#include <weft/futures/future_error.hpp>
#include <weft/futures/launch.hpp>
#include <weft/sched/detail/task_block.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>

namespace weft {

template <class T>
class future;
template <class T>
class shared_future;
template <class T>
class promise;

namespace detail {

template <class T>
struct is_future_impl : std::false_type {};
template <class T>
struct is_future_impl<future<T>> : std::true_type {};
template <class T>
struct is_future_impl<shared_future<T>> : std::true_type {};
/// True for future<T> and shared_future<T> (any cv/ref).
template <class T>
inline constexpr bool is_future_v = is_future_impl<std::remove_cvref_t<T>>::value;

/// The value type a continuation's result future has: U for a function returning
/// future<U> or shared_future<U> (implicit unwrapping), else the function's result.
template <class T>
struct unwrapped_value {
    using type = T;
};
template <class T>
struct unwrapped_value<future<T>> {
    using type = T;
};
template <class T>
struct unwrapped_value<shared_future<T>> {
    using type = T;
};

[[noreturn]] inline void throw_future_error(std::future_errc code) { throw weft::future_error(code); }

template <class T>
shared_state<T>* state_of(const future<T>& f) noexcept;
template <class T>
shared_state<T>* state_of(const shared_future<T>& f) noexcept;

/// Nesting depth of inline runs on a plain thread (see run_inline_if_room).
inline thread_local unsigned plain_thread_inline_depth = 0;

/// Runs `f()` here and returns true when a continuation may run inline: on a worker,
/// while a quarter of the stack is still free; on a plain thread, below a fixed nesting
/// depth. Else returns false. Only a plain thread counts the depth in a thread-local: a
/// task may suspend inside f and resume on another worker, whose count it must not touch.
template <class F>
bool run_inline_if_room(F& f) {
    if (worker_hot* w = current_worker_hot()) {
        if (w->current_ctx == nullptr || !stack_room_left(w)) return false;
        f();
        return true;
    }
    if (plain_thread_inline_depth >= 64) return false;
    ++plain_thread_inline_depth;
    struct leave {
        ~leave() { --plain_thread_inline_depth; }
    } guard;
    f();
    return true;
}

/// Runs `f()`, a completion that a waiter callback makes (it may ready further states,
/// whose callbacks run inside it): here while run_inline_if_room() allows, else as a new
/// task, so that a cascade through a chain of any length is bounded in stack (issue
/// #20). Without a runtime to take the task, here all the same.
template <class F>
void complete_bounded(const char* name, F f) noexcept {
    if (run_inline_if_room(f)) return;
    try {
        post_internal(name, f);
        return;
    } catch (...) {  // no runtime (or no memory): here, rather than never
    }
    f();
}

template <class Src, class G, class Policy>
class continuation;

template <class R>
void forward_into(shared_state<R>* target, future<R> inner) noexcept;
template <class R>
void forward_into(shared_state<R>* target, shared_future<R> inner) noexcept;

template <class Src, class P, class G>
auto attach(Src&& src, P&& policy, G&& g);

}  // namespace detail

namespace detail {

/// What future and shared_future share: one reference to the shared state, and the
/// observers that only read it.
template <class T>
class future_base {
public:
    /// True if this future refers to a shared state (not default-constructed, moved
    /// from, shared, or already consumed by get()).
    bool valid() const noexcept { return state_ != nullptr; }

    /// True if the result (value or exception) is available. @throws weft::future_error (no_state)
    bool is_ready() const {
        check();
        return state_->is_ready();
    }

    /// True if the result is an exception (only once ready). @throws weft::future_error (no_state)
    bool has_exception() const {
        check();
        return state_->is_ready() && state_->has_exception();
    }

    /// Waits until the result is available. @throws weft::future_error (no_state)
    void wait() const {
        check();
        state_->wait();
    }

    /// Waits until the result is available or `rel` has passed: the calling task
    /// suspends with a deadline (its worker runs other tasks), a plain thread blocks.
    /// A duration too long to represent as a deadline (hours::max()) waits forever.
    /// @return future_status::ready, timeout, or deferred (a deferred function nobody
    /// started: it is not started, as with std::future). @throws weft::future_error (no_state)
    ///
    /// @code
    /// weft::future<int> f = weft::async([] { return slow_answer(); });
    /// if (f.wait_for(std::chrono::milliseconds(10)) == weft::future_status::timeout) report_progress();
    /// @endcode
    template <class Rep, class Period>
    future_status wait_for(const std::chrono::duration<Rep, Period>& rel) const {
        check();
        return wait_state_for(*state_, rel);
    }

    /// As wait_for, until the time point `abs` of any clock (a clock other than
    /// steady_clock is checked again when the wait times out). @throws weft::future_error (no_state)
    template <class Clock, class Duration>
    future_status wait_until(const std::chrono::time_point<Clock, Duration>& abs) const {
        check();
        return wait_state_until(*state_, abs);
    }

protected:
    future_base() noexcept = default;
    explicit future_base(shared_state<T>* s) noexcept : state_(s) {}

    void check() const {
        if (state_ == nullptr) throw_future_error(std::future_errc::no_state);
    }
    void reset() noexcept {
        if (state_ != nullptr) std::exchange(state_, nullptr)->release();
    }

    shared_state<T>* state_ = nullptr;
};

}  // namespace detail

/// The result of an asynchronous computation: move-only, read once with get().
///
/// get() and wait() on a result that is not ready suspend the calling task (its worker
/// runs other tasks meanwhile) or, on a thread that is not a weft worker, block the
/// thread. If the producing task is still queued on the calling worker, it is run
/// inline instead (no suspension, no context switch).
///
/// @code
/// weft::future<int> f = weft::async([] { return 6 * 7; });
/// weft::future<std::string> g = f.then([](weft::future<int> r) { return std::to_string(r.get()); });
/// assert(g.get() == "42");
/// @endcode
template <class T>
class future : public detail::future_base<T> {
    using base = detail::future_base<T>;

public:
    using value_type = T;

    future() noexcept = default;
    future(future&& o) noexcept : base(std::exchange(o.state_, nullptr)) {}
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

    /// Implicit unwrapping: the future of the inner future's result.
    future(future<future<T>>&& outer);  // NOLINT(google-explicit-constructor): as HPX and the Concurrency TS


    /// Waits, then returns the value (moved out) or rethrows the exception the task
    /// threw. Leaves the future invalid. @throws weft::future_error (no_state)
    T get() {
        check();
        state_->wait();
        detail::shared_state<T>* s = state_;
        state_ = nullptr;
        struct releaser {
            detail::shared_state<T>* s;
            ~releaser() { s->release(); }
        } guard{s};
        // This future is the state's only consumer: it takes the exception, if any.
        if (s->has_exception()) std::rethrow_exception(s->take_exception());
        if constexpr (std::is_void_v<T>) {
            s->value();
        } else if constexpr (std::is_reference_v<T>) {
            return s->value();
        } else {
            return std::move(s->value());
        }
    }

    /// A copyable future of the same result; this future becomes invalid.
    /// @throws weft::future_error (no_state)
    shared_future<T> share() {
        check();
        return shared_future<T>(std::exchange(state_, nullptr), adopt_tag{});
    }

    /// Attaches `g`, run as a new task (launch::async) once this future is ready; `g`
    /// receives the ready future. Returns the future of g's result (unwrapped if g returns
    /// a future). This future becomes invalid. @throws weft::future_error (no_state)
    template <class G>
        requires std::is_invocable_v<std::decay_t<G>&, future<T>>
    auto then(G&& g) {
        return then(launch::async, std::forward<G>(g));
    }

    /// As then(g), run as the launch policy says (launch::async, launch::sync,
    /// launch::deferred).
    template <launch_policy P, class G>
        requires std::is_invocable_v<std::decay_t<G>&, future<T>>
    auto then(P&& policy, G&& g) {
        check();
        return detail::attach(std::move(*this), std::forward<P>(policy), std::forward<G>(g));
    }

    /// As then(g), run as the launch set `l` says at this call (detail::with_launch: fork
    /// runs as async; a set chooses as weft::async does). @throws weft::error for an
    /// empty set; weft::future_error (no_state)
    template <class G>
        requires std::is_invocable_v<std::decay_t<G>&, future<T>>
    auto then(launch l, G&& g) {
        return detail::with_launch(l, [this, &g](auto policy) { return this->then(policy, std::forward<G>(g)); });
    }

    /// As then(g), run by `executor` (its async_execute) once this future is ready: the
    /// readiness only hands g to the executor, which decides where and when g runs.
    template <executor_like E, class G>
        requires std::is_invocable_v<std::decay_t<G>&, future<T>>
    auto then(E&& executor, G&& g) {
        check();
        return detail::attach(std::move(*this), launch::sync,
                              [e = std::forward<E>(executor), fn = std::forward<G>(g)](future<T> ready) mutable {
                                  return e.async_execute(std::move(fn), std::move(ready));
                              });
    }

    /// Internal: adopts one reference to `s`.
    explicit future(detail::shared_state<T>* s) noexcept : base(s) {}

private:
    using base::check;
    using base::reset;
    using base::state_;
    struct adopt_tag {};
    friend detail::shared_state<T>* detail::state_of<T>(const future<T>&) noexcept;
};

/// A copyable future: every copy can wait for and read the same result. get() returns
/// a reference to the stored value (const T&; T& for shared_future<T&>; void).
template <class T>
class shared_future : public detail::future_base<T> {
    using base = detail::future_base<T>;

public:
    using value_type = T;

    shared_future() noexcept = default;
    shared_future(const shared_future& o) noexcept : base(o.state_) {
        if (state_ != nullptr) state_->add_ref();
    }
    shared_future(shared_future&& o) noexcept : base(std::exchange(o.state_, nullptr)) {}
    shared_future(future<T>&& f) noexcept : shared_future(f.valid() ? f.share() : shared_future{}) {}  // NOLINT
    shared_future& operator=(const shared_future& o) noexcept {
        detail::shared_state<T>* s = o.state_;  // read first: `o` may be *this, which reset() clears
        if (s != nullptr) s->add_ref();
        reset();
        state_ = s;
        return *this;
    }
    shared_future& operator=(shared_future&& o) noexcept {
        if (this != &o) {
            reset();
            state_ = std::exchange(o.state_, nullptr);
        }
        return *this;
    }
    ~shared_future() { reset(); }


    /// Waits, then returns the value or rethrows the exception; the future stays valid.
    /// @throws weft::future_error (no_state)
    decltype(auto) get() const {
        check();
        state_->wait();
        if constexpr (std::is_void_v<T>) {
            state_->value();
        } else if constexpr (std::is_reference_v<T>) {
            return state_->value();
        } else {
            return static_cast<const T&>(state_->value());
        }
    }

    /// As future::then; `g` receives a copy of this shared_future, which stays valid.
    template <class G>
        requires std::is_invocable_v<std::decay_t<G>&, shared_future<T>>
    auto then(G&& g) const {
        return then(launch::async, std::forward<G>(g));
    }
    template <launch_policy P, class G>
        requires std::is_invocable_v<std::decay_t<G>&, shared_future<T>>
    auto then(P&& policy, G&& g) const {
        check();
        return detail::attach(shared_future(*this), std::forward<P>(policy), std::forward<G>(g));
    }
    /// As future::then(l, g).
    template <class G>
        requires std::is_invocable_v<std::decay_t<G>&, shared_future<T>>
    auto then(launch l, G&& g) const {
        return detail::with_launch(l, [this, &g](auto policy) { return this->then(policy, std::forward<G>(g)); });
    }
    /// As future::then(executor, g).
    template <executor_like E, class G>
        requires std::is_invocable_v<std::decay_t<G>&, shared_future<T>>
    auto then(E&& executor, G&& g) const {
        check();
        return detail::attach(shared_future(*this), launch::sync,
                              [e = std::forward<E>(executor), fn = std::forward<G>(g)](shared_future<T> ready) mutable {
                                  return e.async_execute(std::move(fn), std::move(ready));
                              });
    }

private:
    using base::check;
    using base::reset;
    using base::state_;
    friend class future<T>;
    friend detail::shared_state<T>* detail::state_of<T>(const shared_future<T>&) noexcept;
    template <class Tag>
    shared_future(detail::shared_state<T>* s, Tag) noexcept : base(s) {}
};

namespace detail {

template <class T>
shared_state<T>* state_of(const future<T>& f) noexcept {
    return f.state_;
}
template <class T>
shared_state<T>* state_of(const shared_future<T>& f) noexcept {
    return f.state_;
}

/// Stores the inner future's result into `target` once it is ready (implicit
/// unwrapping); holds one reference to target until then.
template <class R, class Inner>
class forwarder final : public waiter {
public:
    forwarder(shared_state<R>* target, Inner inner) noexcept : target_(target), inner_(std::move(inner)) {
        callback = &on_ready;
    }
    static void start(shared_state<R>* target, Inner inner) noexcept {
        if (!inner.valid()) {
            target->set_exception(std::make_exception_ptr(weft::future_error(std::future_errc::broken_promise)));
            target->release();
            return;
        }
        forwarder* f = nullptr;
        try {
            f = make_block<forwarder>(target, std::move(inner));
        } catch (...) {
            target->set_exception(std::current_exception());
            target->release();
            return;
        }
        shared_state_base* s = state_of(f->inner_);
        s->run_deferred();
        if (!s->add_waiter(*f)) finish(f);
    }

private:
    // A chain of unwrapping steps (a recursive async returning the next step's future)
    // completes in one cascade of these: bounded.
    static void on_ready(waiter* w) noexcept {
        complete_bounded("weft::future unwrapping", [self = static_cast<forwarder*>(w)]() noexcept { finish(self); });
    }

    static void finish(forwarder* self) noexcept {
        shared_state<R>* target = self->target_;
        fulfil(
            *target,
            [self]() -> decltype(auto) {
                if constexpr (std::is_void_v<R>) self->inner_.get();
                else if constexpr (std::is_reference_v<R>) return self->inner_.get();
                else return R(self->inner_.get());
            },
            [self]() noexcept { self->inner_ = Inner(); });
        destroy_block(self);
        target->release();
    }

    shared_state<R>* target_;
    Inner inner_;
};

template <class R>
void forward_into(shared_state<R>* target, future<R> inner) noexcept {
    forwarder<R, future<R>>::start(target, std::move(inner));
}
template <class R>
void forward_into(shared_state<R>* target, shared_future<R> inner) noexcept {
    forwarder<R, shared_future<R>>::start(target, std::move(inner));
}

/// Completes `s` with what `call()` returns, or with what it throws; when that is a future
/// (Raw is one), with that future's result once it arrives (implicit unwrapping). For the
/// body of a task that sets its own block's state (then, dataflow).
/// `done()` as in fulfil(): run once the call has returned or thrown, before publishing.
template <class Raw, class R, class Call, class Done>
void complete_from(shared_state<R>& s, Call&& call, Done&& done) noexcept {
    if constexpr (is_future_v<Raw>) {
        Raw inner;
        std::exception_ptr error;
        try {
            inner = std::forward<Call>(call)();
        } catch (...) {
            error = std::current_exception();
        }
        done();
        if (error) {  // published after the catch block, as in fulfil()
            s.set_exception(std::move(error));
            return;
        }
        s.add_ref();  // held by the forwarder until the inner result arrives
        forward_into<R>(&s, std::move(inner));
    } else {
        fulfil(s, std::forward<Call>(call), std::forward<Done>(done));
    }
}

/// Starts task `t`, whose inputs are all ready, as its launch policy says: sync (and
/// deferred, which a waiter started) runs it here within the inline bound, async prefers
/// the scheduler bypass; otherwise, and past the bound, it is spawned (handed straight to
/// a worker spinning idle if there is one: spawn_ready), or run here if the runtime is
/// gone rather than never. Run is t's invoke function, called directly.
template <class Policy, void (*Run)(task*) noexcept>
void launch_ready(task* t) noexcept {
    if constexpr (std::is_same_v<Policy, launch::sync_policy> || std::is_same_v<Policy, launch::deferred_policy>) {
        auto run = [t]() noexcept { Run(t); };
        if (run_inline_if_room(run)) return;
    }
    if constexpr (std::is_same_v<Policy, launch::async_policy>) {
        if (try_bypass(t)) return;
    }
    try {
        spawn_ready(t);
    } catch (...) {
        Run(t);
    }
}

/// A continuation: a task, the result's shared state and the waiter registered on the
/// input, in one block. References: the returned future and the pending run (for a
/// deferred one, from its start on: one never waited for dies with its future).
template <class Src, class G, class Policy>
class continuation final : public task,
                           public shared_state<typename unwrapped_value<std::invoke_result_t<G&, Src>>::type>,
                           public waiter {
    using raw_result = std::invoke_result_t<G&, Src>;
    using R = typename unwrapped_value<raw_result>::type;
    using state = shared_state<R>;
    static constexpr bool deferred = std::is_same_v<Policy, launch::deferred_policy>;

public:
    template <class G2>
    continuation(Src src, G2&& g, const Policy& p)
        : state(&destroy, deferred ? 1 : 2), src_(std::move(src)), fn_(std::in_place, std::forward<G2>(g)) {
        task::invoke = &run;
        waiter::callback = &on_input_ready;
        if constexpr (std::is_same_v<Policy, launch::async_policy>) apply_attributes(*this, p.attributes);
        if constexpr (std::is_same_v<Policy, launch::deferred_policy>) this->deferred_ = &start_deferred;
    }

    /// Registers on the input (or runs at once if it is ready).
    void start() noexcept {
        if constexpr (std::is_same_v<Policy, launch::deferred_policy>) return;  // starts on first wait
        shared_state_base* in = state_of(src_);
        in->run_deferred();
        if (!in->add_waiter(*this)) on_input_ready(this);
    }

private:
    static void on_input_ready(waiter* w) noexcept {
        launch_ready<Policy, &run>(static_cast<continuation*>(w));
    }

    static void run(task* t) noexcept {
        auto* self = static_cast<continuation*>(t);
        self->body();
        self->state::release();
    }

    void body() noexcept {
        Src src = std::move(src_);
        this->prefetch_waiters();  // the dependents load while g runs
        // g and the input are released before the result is published: a ready state
        // keeps nothing of the step before it (issue #20).
        complete_from<raw_result>(
            static_cast<state&>(*this), [this, &src]() -> decltype(auto) { return std::invoke(*fn_, std::move(src)); },
            [this, &src]() noexcept {
                fn_.reset();
                src = Src();
            });
    }

    /// The first wait starts it: it waits for its input as a sync continuation would,
    /// and the input (if deferred too) starts next, in run_deferred's loop.
    static void start_deferred(shared_state_base* s, deferred_starts& more) noexcept {
        auto* self = static_cast<continuation*>(static_cast<state*>(s));
        s->add_ref();  // the pending run's, from now on
        shared_state_base* in = state_of(self->src_);
        if (in->deferred_pending() && !more.push(in)) in->run_deferred();
        if (!in->add_waiter(*self)) on_input_ready(self);
    }

    static void destroy(shared_state_base* s) noexcept {
        auto* self = static_cast<continuation*>(static_cast<state*>(s));
        // A continuation never run (deferred, never waited for) still holds its input.
        shared_state_base::dispose(s, &destroy_now, self->fn_.has_value() || self->result_may_hold_states());
    }
    static void destroy_now(shared_state_base* s) noexcept {
        destroy_block(static_cast<continuation*>(static_cast<state*>(s)));
    }

    Src src_;
    std::optional<G> fn_;
};

template <class Src, class P, class G>
auto attach(Src&& src, P&& policy, G&& g) {
    using C = continuation<std::remove_cvref_t<Src>, std::decay_t<G>, std::remove_cvref_t<P>>;
    using R = typename unwrapped_value<std::invoke_result_t<std::decay_t<G>&, std::remove_cvref_t<Src>>>::type;
    C* c = make_block<C>(std::forward<Src>(src), std::forward<G>(g), policy);
    future<R> result(static_cast<shared_state<R>*>(c));
    c->start();
    return result;
}

}  // namespace detail

template <class T>
future<T>::future(future<future<T>>&& outer) {
    if (!outer.valid()) return;
    future<T> inner = outer.then(launch::sync, [](future<future<T>> o) { return o.get(); });
    state_ = std::exchange(inner.state_, nullptr);
}

}  // namespace weft
