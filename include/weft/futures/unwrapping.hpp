// weft::unwrapping: adapts a function to receive the values of future arguments.
#pragma once

#include <weft/futures/future.hpp>

#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace weft {
namespace detail {

// One argument as a tuple of what the function receives: a future<T>'s value (moved
// out), a shared_future<T>'s value (const T&), nothing for future<void> (but its
// exception is rethrown), anything else as is.
template <class A>
auto unwrap_one(A&& a) {
    using D = std::remove_cvref_t<A>;
    if constexpr (is_future_v<D>) {
        using T = typename D::value_type;
        if constexpr (std::is_void_v<T>) {
            a.get();
            return std::tuple<>{};
        } else if constexpr (std::is_same_v<D, future<T>>) {
            return std::tuple<T>(a.get());
        } else {
            return std::tuple<decltype(a.get())>(a.get());
        }
    } else {
        return std::tuple<A&&>(std::forward<A>(a));
    }
}

template <class F>
struct unwrapped {
    F f;
    template <class... A>
    decltype(auto) operator()(A&&... a) {
        return std::apply(f, std::tuple_cat(unwrap_one(std::forward<A>(a))...));
    }
    template <class... A>
    decltype(auto) operator()(A&&... a) const {
        return std::apply(f, std::tuple_cat(unwrap_one(std::forward<A>(a))...));
    }
};

}  // namespace detail

/// Adapts `f` so that it can be called with ready futures and receives their values:
/// a future<T> argument becomes T, a shared_future<T> becomes const T&, a future<void>
/// disappears; other arguments pass through. An input's exception is rethrown instead.
/// @code
/// auto sum = weft::dataflow(weft::unwrapping([](int a, int b) { return a + b; }), fa, fb);
/// @endcode
template <class F>
detail::unwrapped<std::decay_t<F>> unwrapping(F&& f) {
    return {std::forward<F>(f)};
}

}  // namespace weft
