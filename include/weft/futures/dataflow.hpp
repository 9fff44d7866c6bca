// weft::dataflow: run a function as a task once all of its future arguments are ready.
#pragma once

#include <weft/futures/detail/fan_in.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <tuple>
#include <type_traits>

namespace weft {
namespace detail {

template <class F, class... Args>
using dataflow_raw_t = std::invoke_result_t<F&, Args...>;

/// The function and its arguments, destroyed together once the function has run.
template <class F, class... Args>
struct dataflow_call {
    F fn;
    std::tuple<Args...> args;
    template <class F2, class... A2>
    explicit dataflow_call(F2&& f, A2&&... a) : fn(std::forward<F2>(f)), args(std::forward<A2>(a)...) {}
};

/// The task, the result's state, the arguments and one waiter per future argument, in
/// one block. References: the returned future + the pending run (for a deferred one,
/// from its start on: one never waited for dies with its future).
template <class Policy, class F, class... Args>
class dataflow_block final : public task,
                             public shared_state<typename unwrapped_value<dataflow_raw_t<F, Args...>>::type> {
    using raw = dataflow_raw_t<F, Args...>;
    using R = typename unwrapped_value<raw>::type;
    using state = shared_state<R>;
    static constexpr std::size_t n = count_futures_v<Args...>;
    /// Some arguments are vectors of futures: their elements' waiters are allocated apart.
    static constexpr bool has_vectors = (is_future_vector_v<Args> || ...);

public:
    template <class F2, class... A2>
    dataflow_block(const Policy& p, F2&& f, A2&&... a)
        : state(&destroy, std::is_same_v<Policy, launch::deferred_policy> ? 1 : 2),
          call_(std::in_place, std::forward<F2>(f), std::forward<A2>(a)...), remaining_(n + 1) {
        task::invoke = &run;
        if constexpr (has_vectors) {
            std::size_t elements = 0;
            std::apply([&elements](const auto&... x) { ((elements += vector_size(x)), ...); }, call_->args);
            vector_nodes_.reset(new waiter[elements == 0 ? 1 : elements]);
            remaining_.store(n + elements + 1, std::memory_order_relaxed);  // relaxed: before the block is published
        }
        if constexpr (std::is_same_v<Policy, launch::async_policy>) apply_attributes(*this, p.attributes);
    }

    void start() noexcept {
        if constexpr (std::is_same_v<Policy, launch::deferred_policy>) {
            this->deferred_ = &start_deferred;
            return;
        }
        register_inputs(nullptr);
    }

private:
    template <class A>
    static std::size_t vector_size(const A& a) noexcept {
        if constexpr (is_future_vector_v<A>) return a.size();
        else return 0;
    }

    /// Registers a waiter on every future argument (and every element of a vector of
    /// futures); with `more` (a deferred start), the deferred ones among them go there to
    /// be started next instead of starting here.
    void register_inputs(deferred_starts* more) noexcept {
        // The inputs are interchangeable (only their count matters), so a node needs no
        // owner or index of its own: a callback waiter's waiting_task names the block. 32
        // bytes a node instead of fan_in_node's 56 keep a three-input block at 5 cache
        // lines instead of 6.
        const auto watch = [this, more](waiter& node, shared_state_base* s) {
            node.waiting_task = this;
            node.callback = &on_input_ready;
            if (more == nullptr) {
                if (!s->watch(node)) arrived(this);
                return;
            }
            if (s->deferred_pending() && !more->push(s)) s->run_deferred();
            if (!s->add_waiter(node)) arrived(this);
        };
        for_each_future(call_->args, [&watch, this](std::size_t i, shared_state_base* s) { watch(nodes_[i], s); });
        if constexpr (has_vectors) {
            std::size_t j = 0;
            std::apply(
                [&](auto&... x) {
                    (([&] {
                         if constexpr (is_future_vector_v<decltype(x)>)
                             for (auto& f : x) watch(vector_nodes_[j++], state_of(f));
                     }()),
                     ...);
                },
                call_->args);
        }
        arrived(this);
    }

    static void on_input_ready(waiter* w) noexcept { arrived(static_cast<dataflow_block*>(w->waiting_task)); }

    static void arrived(dataflow_block* self) noexcept {
        // acq_rel: the last arrival sees every input's result and the registration.
        if (self->remaining_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
        launch_ready<Policy, &run>(self);
    }

    static void run(task* t) noexcept {
        auto* self = static_cast<dataflow_block*>(t);
        self->body();
        self->state::release();
    }

    void body() noexcept {
        this->prefetch_waiters();  // the dependents load while f runs
        // The function and its inputs are destroyed before the result is published, so
        // a chain of dataflows does not keep every earlier step alive (HPX releases the
        // inputs too; issue #20).
        complete_from<raw>(
            static_cast<state&>(*this),
            [this]() -> decltype(auto) { return std::apply(call_->fn, std::move(call_->args)); },
            [this]() noexcept { call_.reset(); });
    }

    /// The first wait starts it: it waits for its inputs as a sync dataflow would, and
    /// the deferred inputs start next, in run_deferred's loop.
    static void start_deferred(shared_state_base* s, deferred_starts& more) noexcept {
        auto* self = static_cast<dataflow_block*>(static_cast<state*>(s));
        s->add_ref();  // the pending run's, from now on
        self->register_inputs(&more);
    }

    static void destroy(shared_state_base* s) noexcept {
        auto* self = static_cast<dataflow_block*>(static_cast<state*>(s));
        // Never run (deferred, never waited for): it still holds its inputs.
        shared_state_base::dispose(s, &destroy_now, self->call_.has_value() || self->result_may_hold_states());
    }
    static void destroy_now(shared_state_base* s) noexcept {
        destroy_block(static_cast<dataflow_block*>(static_cast<state*>(s)));
    }

    std::optional<dataflow_call<F, Args...>> call_;
    waiter nodes_[n == 0 ? 1 : n];
    struct no_vector_nodes {};
    /// The waiters of the vector arguments' elements (allocated only when there are any).
    [[no_unique_address]] std::conditional_t<has_vectors, std::unique_ptr<waiter[]>, no_vector_nodes> vector_nodes_;
    std::atomic<std::size_t> remaining_;  // next to the nodes: an arrival touches one line or two
};

}  // namespace detail

/// Runs `f(args...)` once every future or shared_future among the arguments is ready,
/// according to `policy` (launch::async: a new task, the default; launch::sync: inline
/// in whatever completes the last input; launch::deferred: on the first wait of the
/// result). `f` receives the futures themselves, ready (wrap it in weft::unwrapping to
/// receive values); a std::vector of futures or shared_futures counts as one argument
/// whose every element is waited for (f receives the vector, each element ready; its
/// elements' waiters take one allocation of their own); other arguments are
/// decay-copied and passed through. Returns the
/// future of f's result, unwrapped if f returns a future. A seed 000 §1.8 LCO.
/// @throws weft::future_error (no_state) if a future argument has no shared state,
/// naming the argument; nothing is moved from then.
template <launch_policy P, class F, class... Args>
    requires std::is_invocable_v<std::decay_t<F>&, std::decay_t<Args>...>
auto dataflow(P&& policy, F&& f, Args&&... args) {
    static_assert(detail::storable_futures_v<Args...>,
                  "weft::dataflow: pass unique futures with std::move(f) (or use shared_future)");
    using R = typename detail::unwrapped_value<detail::dataflow_raw_t<std::decay_t<F>, std::decay_t<Args>...>>::type;
    if constexpr (detail::storable_futures_v<Args...>) {
        detail::require_states("weft::dataflow", args...);
        using block = detail::dataflow_block<std::remove_cvref_t<P>, std::decay_t<F>, std::decay_t<Args>...>;
        block* b = detail::make_block<block>(policy, std::forward<F>(f), std::forward<Args>(args)...);
        future<R> result(static_cast<detail::shared_state<R>*>(b));
        b->start();
        return result;
    } else {
        return future<R>();
    }
}

/// As dataflow(policy, f, args...), run as the launch set `l` says at this call
/// (detail::with_launch: fork runs as async; a set chooses as weft::async does).
/// @throws weft::error for an empty set.
template <class F, class... Args>
    requires std::is_invocable_v<std::decay_t<F>&, std::decay_t<Args>...>
auto dataflow(launch l, F&& f, Args&&... args) {
    return detail::with_launch(l, [&](auto policy) {
        return dataflow(policy, std::forward<F>(f), std::forward<Args>(args)...);
    });
}

/// As dataflow(policy, f, args...), with f run by `executor` (its async_execute) once
/// every future argument is ready.
template <executor_like E, class F, class... Args>
    requires std::is_invocable_v<std::decay_t<F>&, std::decay_t<Args>...>
auto dataflow(E&& executor, F&& f, Args&&... args) {
    static_assert(detail::storable_futures_v<Args...>,
                  "weft::dataflow: pass unique futures with std::move(f) (or use shared_future)");
    if constexpr (detail::storable_futures_v<Args...>) {
        return dataflow(
            launch::sync,
            [e = std::forward<E>(executor), fn = std::forward<F>(f)](auto&&... ready) mutable {
                return e.async_execute(std::move(fn), std::forward<decltype(ready)>(ready)...);
            },
            std::forward<Args>(args)...);
    } else {
        return future<void>();  // unused: the assertion above has failed
    }
}

/// dataflow(launch::async, f, args...).
template <class F, class... Args>
    requires(!launch_policy<F>) && (!executor_like<F>) && std::is_invocable_v<std::decay_t<F>&, std::decay_t<Args>...>
auto dataflow(F&& f, Args&&... args) {
    static_assert(detail::storable_futures_v<Args...>,
                  "weft::dataflow: pass unique futures with std::move(f) (or use shared_future)");
    if constexpr (detail::storable_futures_v<Args...>) {
        return dataflow(launch::async, std::forward<F>(f), std::forward<Args>(args)...);
    } else {
        using R = typename detail::unwrapped_value<detail::dataflow_raw_t<std::decay_t<F>, std::decay_t<Args>...>>::type;
        return future<R>();
    }
}

}  // namespace weft
