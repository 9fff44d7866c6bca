// weft::for_loop and weft::for_loop_strided (HPX's, after the Parallelism TS 2): a loop
// over an integer or iterator range with a stride, whose element function also gets
// induction variables (weft::induction) and reduction accumulators (weft::reduction).
//
//   std::int64_t sum = 0;
//   std::size_t j = 0;
//   weft::for_loop(weft::execution::par, 0, v.size(), weft::induction(j, 2), weft::reduction_plus(sum),
//                  [&](std::size_t i, std::size_t jv, std::int64_t& s) { s += v[i] * w[jv]; });
//   // sum: the total; j: 2 * v.size(), as after a sequential loop.
#pragma once

#include <weft/algorithms/detail/for_loop.hpp>
#include <weft/algorithms/induction.hpp>
#include <weft/algorithms/reduction.hpp>
#include <weft/execution/policy.hpp>

#include <type_traits>
#include <utility>

namespace weft {

/// Calls f(i, a...) for every i in [first, last), where first and last are both an
/// integer or both a forward iterator (first is converted to last's type), `args...`
/// (all but the last argument) are zero or more weft::induction and weft::reduction
/// objects, and f is the last argument. For each of them f gets, in order, the
/// induction's value for that iteration, or a reference to the accumulator of the
/// reduction for the chunk of iterations it runs in. The iterations run as the policy
/// says; for a task policy the call returns a weft::future<void> at once (the variables
/// of the inductions and reductions must then outlive it). Once the loop has ended, the
/// reductions are combined into their variables and lvalue inductions hold their
/// live-out values (neither happens if an element function threw).
/// @throws weft::exception_list of the element functions' exceptions (f's and the
/// combiners'; the unsequenced policies terminate instead).
template <execution::execution_policy P, class I, class... Args>
    requires detail::floop::for_loop_call<I, Args...>
auto for_loop(P&& policy, std::type_identity_t<I> first, I last, Args&&... args) {
    return detail::floop::start(policy, first, last, 1, "weft::for_loop", std::forward<Args>(args)...);
}

/// for_loop with i = first, first + stride, first + 2*stride, ... while i is short of
/// last: i < last for a positive stride, i > last for a negative one (for iterators:
/// stepping by |stride| never passes last; a negative stride needs bidirectional
/// iterators). A range in the other direction than the stride's has no iterations.
/// @throws weft::error at once if stride is 0 (or negative with forward-only
/// iterators); otherwise as for_loop.
template <execution::execution_policy P, class I, class S, class... Args>
    requires detail::floop::loop_stride<S> && detail::floop::for_loop_call<I, Args...>
auto for_loop_strided(P&& policy, std::type_identity_t<I> first, I last, S stride, Args&&... args) {
    return detail::floop::start(policy, first, last, stride, "weft::for_loop_strided", std::forward<Args>(args)...);
}

/// for_loop(execution::seq, first, last, args...).
template <class I, class... Args>
    requires(!execution::execution_policy<I>) && detail::floop::for_loop_call<I, Args...>
void for_loop(std::type_identity_t<I> first, I last, Args&&... args) {
    detail::floop::start(execution::seq, first, last, 1, "weft::for_loop", std::forward<Args>(args)...);
}

/// for_loop_strided(execution::seq, first, last, stride, args...).
template <class I, class S, class... Args>
    requires(!execution::execution_policy<I>) && detail::floop::loop_stride<S> &&
            detail::floop::for_loop_call<I, Args...>
void for_loop_strided(std::type_identity_t<I> first, I last, S stride, Args&&... args) {
    detail::floop::start(execution::seq, first, last, stride, "weft::for_loop_strided", std::forward<Args>(args)...);
}

}  // namespace weft
