// weft::reduction: a variable that for_loop reduces into. Each chunk of the loop works
// on a private accumulator that starts as the identity; once every chunk has run, the
// accumulators are combined in the order of the iterations and the result combined into
// the variable: var = combiner(var, acc_0 (+) acc_1 (+) ...). The combiner must be
// associative (it need not be commutative), and the identity its identity.
#pragma once

#include <weft/algorithms/detail/for_loop.hpp>

#include <concepts>
#include <cstddef>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace weft {
namespace detail::floop {

/// A type a reduction can accumulate in: copied from the identity, combined by moving.
template <class T>
concept reduction_variable = !std::is_const_v<T> && std::copy_constructible<T> && std::is_move_assignable_v<T>;

/// A combiner of two T's giving a T, copyable into the loop.
template <class Op, class T>
concept reduction_combiner = std::copy_constructible<Op> && std::is_invocable_r_v<T, Op&, T&&, T&&>;

/// The object weft::reduction returns.
template <class T, class Op>
class reduction_object {
public:
    using floop_argument = void;
    static constexpr bool keeps_chunk_states = true;

    reduction_object(T* var, T identity, Op op) : var_(var), identity_(std::move(identity)), op_(std::move(op)) {}

    /// A chunk's accumulator.
    struct state {
        T acc;
        T& arg() noexcept { return acc; }
        void next() noexcept {}
    };

    state chunk_state(std::size_t) const { return state{identity_}; }

    /// chunk(c) is the c-th of `chunks` accumulators in range order (none if the loop
    /// had no iterations: var is then left as it is).
    template <class Get>
    void finish(std::size_t, std::size_t chunks, Get&& chunk) {
        if (chunks == 0) return;
        T r = std::move(chunk(0).acc);
        for (std::size_t c = 1; c < chunks; ++c) r = static_cast<T>(std::invoke(op_, std::move(r), std::move(chunk(c).acc)));
        *var_ = static_cast<T>(std::invoke(op_, std::move(*var_), std::move(r)));
    }

private:
    T* var_;
    T identity_;
    Op op_;
};

/// min and max as combiners: the first of equals wins, as in a sequential scan.
struct minimum {
    template <class T>
    T operator()(const T& a, const T& b) const {
        return b < a ? b : a;
    }
};
struct maximum {
    template <class T>
    T operator()(const T& a, const T& b) const {
        return a < b ? b : a;
    }
};

}  // namespace detail::floop

/// A reduction for for_loop: the element function gets a T& to its chunk's accumulator,
/// which starts as `identity`; after the loop (without an exception), var =
/// combiner(var, the accumulators combined in iteration order). For a task policy var
/// is written when the future becomes ready, so it must outlive the loop.
/// The combiner is an element function: its exceptions reach the caller as the loop's.
template <class T, class Op>
    requires detail::floop::reduction_variable<T> && detail::floop::reduction_combiner<std::decay_t<Op>, T>
auto reduction(T& var, const std::type_identity_t<T>& identity, Op&& combiner) {
    return detail::floop::reduction_object<T, std::decay_t<Op>>(std::addressof(var), identity, std::forward<Op>(combiner));
}

/// Sum into var (identity T{}).
template <detail::floop::reduction_variable T>
auto reduction_plus(T& var) {
    return weft::reduction(var, T{}, std::plus<T>());
}

/// Product into var (identity T(1)).
template <detail::floop::reduction_variable T>
    requires std::constructible_from<T, int>
auto reduction_multiplies(T& var) {
    return weft::reduction(var, T(1), std::multiplies<T>());
}

/// Minimum into var (with var's value as the identity: var takes part in the minimum).
template <detail::floop::reduction_variable T>
auto reduction_min(T& var) {
    return weft::reduction(var, var, detail::floop::minimum());
}

/// Maximum into var (with var's value as the identity).
template <detail::floop::reduction_variable T>
auto reduction_max(T& var) {
    return weft::reduction(var, var, detail::floop::maximum());
}

/// Bitwise and into var (identity: all bits set).
template <detail::floop::reduction_variable T>
    requires std::integral<T>
auto reduction_bit_and(T& var) {
    return weft::reduction(var, static_cast<T>(~T{}), std::bit_and<T>());
}

/// Bitwise or into var (identity 0).
template <detail::floop::reduction_variable T>
    requires std::integral<T>
auto reduction_bit_or(T& var) {
    return weft::reduction(var, T{}, std::bit_or<T>());
}

/// Bitwise xor into var (identity 0).
template <detail::floop::reduction_variable T>
    requires std::integral<T>
auto reduction_bit_xor(T& var) {
    return weft::reduction(var, T{}, std::bit_xor<T>());
}

}  // namespace weft
