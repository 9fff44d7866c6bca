// Waiting for several futures at once: one waiter node per input, all pointing at one
// owner that counts arrivals (when_all, when_any, when_some, when_each, dataflow).
#pragma once

#include <weft/futures/future.hpp>

#include <cstddef>
#include <iterator>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft::detail {

template <class T>
struct is_shared_future_impl : std::false_type {};
template <class T>
struct is_shared_future_impl<shared_future<T>> : std::true_type {};

/// True for an argument a combinator can store: a shared_future in any form, or a unique
/// future passed as a (non-const) rvalue. An lvalue future would have to be copied.
template <class A>
inline constexpr bool storable_future_v =
    is_shared_future_impl<std::remove_cvref_t<A>>::value ||
    (!std::is_lvalue_reference_v<A> && !std::is_const_v<std::remove_reference_t<A>>);

/// storable_future_v for every future among the forwarded arguments As (others pass).
template <class... As>
inline constexpr bool storable_futures_v = ((!is_future_v<As> || storable_future_v<As>) && ...);

/// A range (container, view) whose elements are futures or shared_futures.
template <class R>
concept future_range = requires(R& r) {
    std::begin(r);
    std::end(r);
    requires is_future_v<std::iter_value_t<decltype(std::begin(r))>>;
};

template <class T>
struct is_future_vector_impl : std::false_type {};
template <class T, class A>
struct is_future_vector_impl<std::vector<T, A>> : std::bool_constant<is_future_v<T>> {};
/// True for a std::vector of futures or shared_futures: dataflow waits for each element.
template <class T>
inline constexpr bool is_future_vector_v = is_future_vector_impl<std::remove_cvref_t<T>>::value;

/// Throws future_error (no_state) naming `call` and the element of the vector argument at
/// `position` (1-based) that has no shared state.
template <class V>
void require_states_of_vector(const char* call, const V& v, std::size_t position) {
    for (std::size_t i = 0; i < v.size(); ++i)
        if (!v[i].valid())
            throw weft::future_error(std::future_errc::no_state, std::string(call) + ": element " + std::to_string(i) +
                                                                     " of argument " + std::to_string(position));
}

/// A waiter registered on one input; tells its owner which input became ready.
struct fan_in_node final : waiter {
    void* owner = nullptr;
    std::size_t index = 0;
    void (*arrived)(void* owner, std::size_t index) noexcept = nullptr;

    fan_in_node() noexcept { callback = &on_ready; }
    fan_in_node(const fan_in_node&) = delete;

    /// Registers on `s` (starting a deferred input); if it is ready already, reports at once.
    void watch(shared_state_base* s) noexcept {
        if (!s->watch(*this)) arrived(owner, index);
    }

private:
    static void on_ready(waiter* w) noexcept {
        auto* n = static_cast<fan_in_node*>(w);
        n->arrived(n->owner, n->index);
    }
};

/// The shared state behind a future argument, or null for anything else.
template <class A>
shared_state_base* state_if_future(const A& a) noexcept {
    if constexpr (is_future_v<A>) return state_of(a);
    else return nullptr;
}

/// Throws future_error (no_state) naming `call` and the position of the first future
/// argument without a shared state (default-constructed or moved from): a combinator
/// given one would otherwise wait for it forever. Checked before anything is moved.
template <class... As>
void require_states(const char* call, const As&... as) {
    std::size_t position = 0;
    [[maybe_unused]] const auto check = [&](const auto& a) {
        ++position;
        if constexpr (is_future_vector_v<decltype(a)>) {
            require_states_of_vector(call, a, position);
        } else if constexpr (is_future_v<std::remove_cvref_t<decltype(a)>>) {
            if (!a.valid())
                throw weft::future_error(std::future_errc::no_state, std::string(call) + ": argument " +
                                                                         std::to_string(position) + " of " +
                                                                         std::to_string(sizeof...(As)));
        }
    };
    (check(as), ...);
}

/// As require_states, for the futures in [first, last) (a multi-pass range).
template <class It>
void require_states_in(const char* call, It first, It last) {
    for (std::size_t position = 0; first != last; ++first, ++position)
        if (!first->valid())
            throw weft::future_error(std::future_errc::no_state,
                                     std::string(call) + ": the future at position " + std::to_string(position) +
                                         " of the range");
}

/// Number of future / shared_future types among Ts.
template <class... Ts>
inline constexpr std::size_t count_futures_v = (std::size_t{0} + ... + (is_future_v<Ts> ? 1u : 0u));

/// Calls f(i, state) for each future in the tuple, i = its position among the futures.
template <class Tuple, class F>
void for_each_future(Tuple& t, F&& f) {
    std::size_t i = 0;
    std::apply(
        [&](auto&... a) {
            (([&] {
                 if (shared_state_base* s = state_if_future(a)) f(i++, s);
             }()),
             ...);
        },
        t);
}

}  // namespace weft::detail
