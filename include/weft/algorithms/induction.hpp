// weft::induction: a variable that for_loop steps along with its iterations. The k-th
// iteration sees var + k*stride (computed from k, so any chunk can start anywhere);
// given a modifiable lvalue, var holds var + n*stride after a loop of n iterations, as
// after a sequential loop (the live-out value).
#pragma once

#include <weft/algorithms/detail/for_loop.hpp>

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

namespace weft {
namespace detail::floop {

/// The object weft::induction returns: a start value, a stride and, if LiveOut, the
/// variable that receives the final value.
template <class T, class S, bool LiveOut>
class induction_object {
public:
    using floop_argument = void;
    static constexpr bool keeps_chunk_states = false;

    induction_object(T* var, T start, S stride) : var_(var), start_(std::move(start)), stride_(std::move(stride)) {}

    /// A chunk's view of the variable from iteration k on.
    class state {
    public:
        state(const T& start, const S& stride, std::size_t k)
            : v_(exact ? offset(start, k, stride) : start), stride_(stride), k_(k) {}
        /// The value for the current iteration.
        T arg() const {
            if constexpr (exact) return v_;
            else return offset(v_, k_, stride_);
        }
        void next() {
            if constexpr (exact) v_ = offset(v_, 1, stride_);
            else ++k_;
        }

    private:
        // Integers and iterators step exactly, so a chunk adds the stride per iteration;
        // floating-point values are recomputed as start + k*stride, so that a value does
        // not depend on where its chunk began (v_ is then the start).
        static constexpr bool exact = !std::is_floating_point_v<T>;
        T v_;
        S stride_;
        std::size_t k_;
    };

    state chunk_state(std::size_t b) const { return state(start_, stride_, b); }

    template <class Get>
    void finish(std::size_t n, std::size_t, Get&&) {
        if constexpr (LiveOut) *var_ = offset(start_, n, stride_);
    }

private:
    T* var_;
    T start_;
    S stride_;
};

}  // namespace detail::floop

/// An induction variable for for_loop: the iteration k (counted from 0) gets
/// var + k*stride as an argument of the element function. var may be an integer (with
/// wrap-around as repeated additions give), a floating-point number (computed as
/// var + k*stride, which may round differently from repeated additions) or a
/// random-access iterator. If var is a modifiable lvalue it receives var + n*stride
/// once a loop of n iterations has ended without an exception (for a task policy, when
/// the future is ready: var must outlive the loop); a const or rvalue var has no
/// live-out value. The start value is var's value when induction() is called.
template <class T, class S = int>
    requires detail::floop::valid_induction<std::remove_cvref_t<T>, S>
auto induction(T&& var, S stride = 1) {
    using V = std::remove_cvref_t<T>;
    if constexpr (std::is_lvalue_reference_v<T> && !std::is_const_v<std::remove_reference_t<T>>)
        return detail::floop::induction_object<V, S, true>(std::addressof(var), var, stride);
    else
        return detail::floop::induction_object<V, S, false>(nullptr, V(std::forward<T>(var)), stride);
}

}  // namespace weft
