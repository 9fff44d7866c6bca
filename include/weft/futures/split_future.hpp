// weft::split_future: one future per element of a future tuple or array.
#pragma once

#include <weft/futures/future.hpp>

#include <array>
#include <tuple>
#include <utility>

namespace weft {
namespace detail {

// Each continuation moves out only its own element, so no two touch the same one.
template <std::size_t I, class Whole>
auto element_future(const shared_future<Whole>& whole) {
    return whole.then(launch::sync, [](shared_future<Whole> w) {
        return std::move(std::get<I>(const_cast<Whole&>(w.get())));
    });
}

}  // namespace detail

/// Splits a future of a tuple into a tuple of futures, one per element; an exception in
/// the input reaches every output. The input future becomes invalid.
template <class... Ts>
std::tuple<future<Ts>...> split_future(future<std::tuple<Ts...>>&& f) {
    auto whole = std::move(f).share();
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return std::tuple<future<Ts>...>(detail::element_future<I>(whole)...);
    }(std::index_sequence_for<Ts...>{});
}

/// Splits a future of an array into an array of futures.
template <class T, std::size_t N>
std::array<future<T>, N> split_future(future<std::array<T, N>>&& f) {
    auto whole = std::move(f).share();
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return std::array<future<T>, N>{detail::element_future<I>(whole)...};
    }(std::make_index_sequence<N>{});
}

}  // namespace weft
