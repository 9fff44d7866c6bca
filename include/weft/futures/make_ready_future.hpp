// Ready futures: make_ready_future and make_exceptional_future, futures made with their
// result already in them.
#pragma once

#include <weft/futures/detail/future_core.hpp>

#include <exception>
#include <functional>
#include <type_traits>
#include <utility>

namespace weft {

namespace detail {
template <class D>
struct ready_value {
    using type = D;
};
template <class X>
struct ready_value<std::reference_wrapper<X>> {
    using type = X&;
};
}  // namespace detail

/// A ready future holding `v` (decayed; std::reference_wrapper<X> gives future<X&>).
/// No system allocation: the state comes from the worker's task-block pool.
template <class V>
auto make_ready_future(V&& v) {
    using T = typename detail::ready_value<std::decay_t<V>>::type;
    auto* s = detail::standalone_state<T>::make(1);
    if constexpr (std::is_reference_v<T>) s->set_value(v.get());
    else s->set_value(std::forward<V>(v));
    return future<T>(s);
}
/// A ready future<void>.
inline future<void> make_ready_future() {
    auto* s = detail::standalone_state<void>::make(1);
    s->set_value();
    return future<void>(s);
}

/// A ready future holding the exception `e`.
template <class T>
future<T> make_exceptional_future(std::exception_ptr e) {
    auto* s = detail::standalone_state<T>::make(1);
    s->set_exception(std::move(e));
    return future<T>(s);
}
/// A ready future holding a copy of the exception object `e`.
template <class T, class E>
    requires(!std::is_same_v<std::decay_t<E>, std::exception_ptr>)
future<T> make_exceptional_future(E&& e) {
    return make_exceptional_future<T>(std::make_exception_ptr(std::forward<E>(e)));
}

}  // namespace weft
