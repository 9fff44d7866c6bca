// Waiting for several futures at once: one waiter node per input, all pointing at one
// owner that counts arrivals (when_all, when_any, when_some, when_each, dataflow).
#pragma once

#include <weft/futures/future.hpp>

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace weft::detail {

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
