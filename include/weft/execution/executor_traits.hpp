// Executors (seed 003 §4.2): objects that create the execution agents work runs on. An
// executor needs only async_execute; the free functions here (weft::execution::post,
// sync_execute, async_execute, then_execute, bulk_sync_execute, bulk_async_execute,
// processing_units_count, and the timed forms) call the executor's own member when it
// has one and otherwise build the operation from async_execute, as the seed's
// executor_traits do.
#pragma once

#include <weft/config/errors.hpp>
#include <weft/futures/future.hpp>
#include <weft/sched/this_task.hpp>

#include <chrono>
#include <concepts>
#include <cstddef>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft::execution {

namespace detail {
struct probe_fn {
    void operator()() const noexcept {}
};
}  // namespace detail

/// An executor: copyable, comparable, and able to run a function as an execution agent
/// and return a weft::future of its result (async_execute). Everything else has a
/// default built on that.
template <class E>
concept executor = std::copy_constructible<std::remove_cvref_t<E>> &&
                   std::equality_comparable<std::remove_cvref_t<E>> &&
                   requires(const std::remove_cvref_t<E>& e, detail::probe_fn f) {
                       { e.async_execute(f) } -> std::same_as<weft::future<void>>;
                   };

/// A bulk shape: a number of agents (indices 0..n-1) or a sized range of elements, each
/// element given to one agent. (Plain std::begin/std::size, not <ranges>, which clang 14
/// cannot compile with libstdc++ 12.)
template <class S>
concept shape = std::integral<std::remove_cvref_t<S>> || requires(S& s) {
    std::begin(s);
    std::end(s);
    std::size(s);
};

namespace detail {

template <class S, bool = std::integral<std::remove_cvref_t<S>>>
struct shape_element {
    using type = std::remove_cvref_t<S>;
};
template <class S>
struct shape_element<S, false> {
    using type = decltype(*std::begin(std::declval<S&>()));
};
/// What an agent of shape S receives: an index, or a reference to an element.
template <class S>
using shape_element_t = typename shape_element<S>::type;

template <class S>
std::size_t shape_size(const S& s) {
    if constexpr (std::integral<S>) return s > 0 ? static_cast<std::size_t>(s) : 0;
    else return static_cast<std::size_t>(std::size(s));
}

/// Calls fn(element) for each element of the shape, in order.
template <class S, class Fn>
void for_each_in_shape(S& s, Fn&& fn) {
    if constexpr (std::integral<std::remove_cvref_t<S>>) {
        for (std::remove_cvref_t<S> i = 0; i < s; ++i) fn(i);
    } else {
        for (auto&& x : s) fn(x);
    }
}

template <class F, class S, class... Args>
using bulk_result_t = std::invoke_result_t<F&, shape_element_t<S>, Args&...>;

/// Rethrows collected exceptions: a single one as is, several as weft::exception_list.
inline void rethrow_collected(std::vector<std::exception_ptr>& errors) {
    if (errors.size() == 1) std::rethrow_exception(errors.front());
    if (!errors.empty()) {
        const std::string what = std::to_string(errors.size()) + " agents of a weft bulk execution threw";
        throw weft::exception_list(std::move(errors), what);
    }
}

}  // namespace detail

/// Runs f(args...) as the executor's execution agent; returns the future of its result.
template <executor E, class F, class... Args>
auto async_execute(const E& e, F&& f, Args&&... args) {
    return e.async_execute(std::forward<F>(f), std::forward<Args>(args)...);
}

/// Runs f(args...) on the executor and waits for it; returns its result or rethrows.
template <executor E, class F, class... Args>
decltype(auto) sync_execute(const E& e, F&& f, Args&&... args) {
    if constexpr (requires { e.sync_execute(std::forward<F>(f), std::forward<Args>(args)...); })
        return e.sync_execute(std::forward<F>(f), std::forward<Args>(args)...);
    else
        return e.async_execute(std::forward<F>(f), std::forward<Args>(args)...).get();
}

/// Runs f(args...) on the executor without a result ("fire and forget"). An exception
/// escaping f cannot be returned: it ends the program with a message, as weft::post.
template <executor E, class F, class... Args>
void post(const E& e, F&& f, Args&&... args) {
    if constexpr (requires { e.post(std::forward<F>(f), std::forward<Args>(args)...); }) {
        e.post(std::forward<F>(f), std::forward<Args>(args)...);
    } else {
        (void)e.async_execute(
            [fn = std::forward<F>(f)](auto&&... a) mutable noexcept {
                // noexcept: an exception here has no one to go to; std::terminate says so.
                std::invoke(fn, std::forward<decltype(a)>(a)...);
            },
            std::forward<Args>(args)...);
    }
}

/// Runs f(predecessor, args...) on the executor once `predecessor` (a weft::future or
/// shared_future) is ready; f receives the ready future. Returns the future of f's result.
template <executor E, class F, class Future, class... Args>
    requires weft::detail::is_future_v<std::remove_cvref_t<Future>>
auto then_execute(const E& e, F&& f, Future&& predecessor, Args&&... args) {
    if constexpr (requires { e.then_execute(std::forward<F>(f), std::forward<Future>(predecessor), std::forward<Args>(args)...); }) {
        return e.then_execute(std::forward<F>(f), std::forward<Future>(predecessor), std::forward<Args>(args)...);
    } else {
        using P = std::remove_cvref_t<Future>;
        // The continuation itself only hands the work to the executor (sync); the
        // future of a future that results is unwrapped.
        weft::future<decltype(async_execute(e, f, std::declval<P>(), args...).get())> r =
            std::forward<Future>(predecessor).then(
                weft::launch::sync,
                [e, fn = std::forward<F>(f), ... a = std::forward<Args>(args)](P ready) mutable {
                    return async_execute(e, std::move(fn), std::move(ready), std::move(a)...);
                });
        return r;
    }
}

/// Runs f(element, args...) once per element of `s` (an integer n means 0..n-1) as
/// separate agents; returns their futures, in shape order (HPX returns bulk results,
/// N4406 discards them; so do we return them).
template <executor E, class F, shape S, class... Args>
auto bulk_async_execute(const E& e, F&& f, S&& s, Args&&... args) {
    if constexpr (requires { e.bulk_async_execute(std::forward<F>(f), std::forward<S>(s), std::forward<Args>(args)...); }) {
        return e.bulk_async_execute(std::forward<F>(f), std::forward<S>(s), std::forward<Args>(args)...);
    } else {
        using R = detail::bulk_result_t<F, S, Args...>;
        std::vector<weft::future<R>> out;
        out.reserve(detail::shape_size(s));
        detail::for_each_in_shape(s, [&](auto&& x) { out.push_back(e.async_execute(f, x, args...)); });
        return out;
    }
}

/// As bulk_async_execute, and waits: returns std::vector of the results in shape order
/// (nothing for void). Every agent runs to its end; if one threw, its exception is
/// rethrown, if several did, weft::exception_list holds them all.
template <executor E, class F, shape S, class... Args>
auto bulk_sync_execute(const E& e, F&& f, S&& s, Args&&... args) {
    if constexpr (requires { e.bulk_sync_execute(std::forward<F>(f), std::forward<S>(s), std::forward<Args>(args)...); }) {
        return e.bulk_sync_execute(std::forward<F>(f), std::forward<S>(s), std::forward<Args>(args)...);
    } else {
        using R = detail::bulk_result_t<F, S, Args...>;
        auto futures = execution::bulk_async_execute(e, std::forward<F>(f), std::forward<S>(s), std::forward<Args>(args)...);
        std::vector<std::exception_ptr> errors;
        for (auto& fu : futures) fu.wait();
        if constexpr (std::is_void_v<R>) {
            for (auto& fu : futures) {
                try {
                    fu.get();
                } catch (...) {
                    errors.push_back(std::current_exception());
                }
            }
            detail::rethrow_collected(errors);
        } else {
            std::vector<R> out;
            out.reserve(futures.size());
            for (auto& fu : futures) {
                try {
                    out.push_back(fu.get());
                } catch (...) {
                    errors.push_back(std::current_exception());
                }
            }
            detail::rethrow_collected(errors);
            return out;
        }
    }
}

/// The number of processing units the executor's agents run on (executor information):
/// its own answer if it has one, else the number of weft workers (at least 1).
template <executor E>
std::size_t processing_units_count(const E& e) {
    if constexpr (requires { { e.processing_units_count() } -> std::convertible_to<std::size_t>; })
        return static_cast<std::size_t>(e.processing_units_count());
    else
        return std::max<std::size_t>(1, weft::num_workers());
}

/// Timed execution: f(args...) on the executor, not before `deadline`. The waiting is a
/// suspended task (or the executor's own timed operation), never a blocked worker.
template <executor E, class F, class... Args>
auto async_execute_at(const E& e, std::chrono::steady_clock::time_point deadline, F&& f, Args&&... args) {
    if constexpr (requires { e.async_execute_at(deadline, std::forward<F>(f), std::forward<Args>(args)...); }) {
        return e.async_execute_at(deadline, std::forward<F>(f), std::forward<Args>(args)...);
    } else {
        return e.async_execute(
            [deadline, fn = std::forward<F>(f)](auto&&... a) mutable -> decltype(auto) {
                weft::this_task::sleep_until(deadline);
                return std::invoke(fn, std::forward<decltype(a)>(a)...);
            },
            std::forward<Args>(args)...);
    }
}

/// Timed execution: f(args...) on the executor, not before `delay` has passed.
template <executor E, class Rep, class Period, class F, class... Args>
auto async_execute_after(const E& e, std::chrono::duration<Rep, Period> delay, F&& f, Args&&... args) {
    return execution::async_execute_at(
        e, std::chrono::steady_clock::now() + std::chrono::ceil<std::chrono::steady_clock::duration>(delay),
        std::forward<F>(f), std::forward<Args>(args)...);
}

/// post() not before `deadline`.
template <executor E, class F, class... Args>
void post_at(const E& e, std::chrono::steady_clock::time_point deadline, F&& f, Args&&... args) {
    execution::post(
        e,
        [deadline, fn = std::forward<F>(f)](auto&&... a) mutable {
            weft::this_task::sleep_until(deadline);
            std::invoke(fn, std::forward<decltype(a)>(a)...);
        },
        std::forward<Args>(args)...);
}

/// post() not before `delay` has passed.
template <executor E, class Rep, class Period, class F, class... Args>
void post_after(const E& e, std::chrono::duration<Rep, Period> delay, F&& f, Args&&... args) {
    execution::post_at(e,
                       std::chrono::steady_clock::now() + std::chrono::ceil<std::chrono::steady_clock::duration>(delay),
                       std::forward<F>(f), std::forward<Args>(args)...);
}

}  // namespace weft::execution
