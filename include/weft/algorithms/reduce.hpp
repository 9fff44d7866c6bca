// weft::reduce and weft::transform_reduce with an execution policy: each chunk reduces
// its elements, then the chunk results are combined in the order of the range (so a
// floating-point result does not depend on which worker ran which chunk). Within a chunk
// of a random-access range, elements are combined four at a time as std::reduce does
// (regroupable below): a sum of doubles is then not limited by the latency of one add
// per element.
#pragma once

#include <weft/algorithms/detail/loop.hpp>
#include <weft/algorithms/detail/ranges.hpp>

#include <algorithm>
#include <functional>
#include <iterator>
#include <mutex>
#include <optional>
#include <ranges>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft {
namespace detail::algo {

/// Runs partial(b, e) -> T on every chunk [b, e) of [0, n) and returns the results in
/// range order, each with its chunk's first index.
template <class T, class Policy, class Partial>
std::vector<std::pair<std::size_t, T>> chunk_results(const Policy& p, std::size_t n, Partial&& partial,
                                                     const char* algorithm) {
    std::mutex m;
    std::vector<std::pair<std::size_t, T>> partials;
    run_loop(p, n, [&](std::size_t b, std::size_t e) {
        T acc = partial(b, e);
        std::lock_guard lock(m);
        partials.emplace_back(b, std::move(acc));
    }, algorithm);
    std::sort(partials.begin(), partials.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return partials;
}

/// Calls `f` as an element function outside the chunks (combining their results): an
/// exception reaches the caller as the chunks' do.
template <class Policy, class F>
void call_element_function(const char* algorithm, F&& f) {
    if constexpr (std::remove_cvref_t<Policy>::kind::unsequenced) {
        [&]() noexcept { f(); }();  // as for the chunks: an exception terminates
    } else {
        error_sink errors;
        try {
            f();
        } catch (...) {
            errors.add(std::current_exception());
        }
        errors.rethrow(algorithm);
    }
}

/// A chunk of a reduction may combine its elements four at a time (the regrouping
/// std::reduce allows, done the same way in every chunk): random access, and `op` takes
/// two elements (E: what the chunk combines) and two results.
template <class It, class T, class Op, class E>
concept regroupable = std::random_access_iterator<It> && std::is_invocable_r_v<T, Op&, E, E> &&
                      std::is_invocable_r_v<T, Op&, T, T>;

/// Combines elem(it), elem(it + 1), ..., n elements, into `acc` with `op` and returns it:
/// four at a time when regroupable (as std::reduce: four elements combined among
/// themselves, then into acc, so that the dependency chain through acc is a quarter as
/// long), else one by one. The chunk loop of reduce and transform_reduce.
///
/// Not inlined, on purpose: inlined into chunk_results, whose result object's address goes
/// to a vector, GCC 12 merged `acc` with that object and kept it in memory, a store and a
/// load at every turn of the loop (a sum of doubles took 1.6-1.7x std::reduce's time).
/// Here `acc` is a parameter whose address nothing takes; one call per chunk costs nothing.
template <class T, class It, class Op, class Elem>
[[gnu::noinline]] T combine_run(T acc, It it, std::size_t n, Op& op, const Elem& elem) {
    if constexpr (regroupable<It, T, Op, decltype(elem(it))>) {
        for (; n >= 4; n -= 4, it += 4) {
            T x = std::invoke(op, elem(it), elem(it + 1));
            T y = std::invoke(op, elem(it + 2), elem(it + 3));
            acc = std::invoke(op, std::move(acc), std::invoke(op, std::move(x), std::move(y)));
        }
    }
    for (; n != 0; --n, ++it) acc = std::invoke(op, std::move(acc), elem(it));
    return acc;
}

/// Combines transform(*i, *j) over n pairs (i, j advancing together) into `acc` with `op`,
/// one by one: the chunk loop of the binary transform_reduce (not inlined: see combine_run).
template <class T, class It1, class It2, class Op, class Tr>
[[gnu::noinline]] T accumulate_pairs(T acc, It1 i, It2 j, std::size_t n, Op& op, Tr& transform) {
    for (; n != 0; --n, ++i, ++j) acc = std::invoke(op, std::move(acc), std::invoke(transform, *i, *j));
    return acc;
}

/// Reduces [0, n) with `op` from `init`: partial(b, e) reduces one chunk [b, e)
/// (std::reduce's freedom to regroup is used only at chunk boundaries).
template <class Policy, class T, class Op, class Partial>
T reduce_chunks(const Policy& p, std::size_t n, T init, Op& op, Partial&& partial, const char* algorithm) {
    auto partials = chunk_results<T>(p, n, std::forward<Partial>(partial), algorithm);
    call_element_function<Policy>(algorithm, [&] {
        for (auto& [at, v] : partials) init = std::invoke(op, std::move(init), std::move(v));
    });
    return init;
}

}  // namespace detail::algo

/// Reduces [first, last) with `op` (associative and commutative, as for std::reduce),
/// starting from init. Returns the result (a future of it for a task policy).
/// @throws weft::exception_list.
template <execution::execution_policy P, std::forward_iterator It, class T, class Op>
    requires std::is_invocable_r_v<T, Op&, T, std::iter_reference_t<It>>
auto reduce(P&& policy, It first, It last, T init, Op op) {
    return detail::algo::dispatch(policy, [first, last, init, op](const auto& p) mutable {
        const std::size_t n = detail::algo::count_of(first, last);
        const auto at = detail::algo::index_of<decltype(p)>(first, n);
        return detail::algo::reduce_chunks(p, n, std::move(init), op, [&](std::size_t b, std::size_t e) {
            It it = at(b);
            T head = *it;
            return detail::algo::combine_run<T>(std::move(head), std::next(it), e - b - 1, op,
                                                [](const It& i) -> decltype(auto) { return *i; });
        }, "weft::reduce");
    });
}

/// reduce with std::plus<>.
template <execution::execution_policy P, std::forward_iterator It, class T>
auto reduce(P&& policy, It first, It last, T init) {
    return weft::reduce(std::forward<P>(policy), first, last, std::move(init), std::plus<>());
}

/// reduce with std::plus<> from a value-initialized element type.
template <execution::execution_policy P, std::forward_iterator It>
auto reduce(P&& policy, It first, It last) {
    return weft::reduce(std::forward<P>(policy), first, last, std::iter_value_t<It>{}, std::plus<>());
}

/// reduce over a range.
template <execution::execution_policy P, std::ranges::forward_range R, class T, class Op = std::plus<>>
    requires detail::algo::policy_range<R, P> && std::ranges::common_range<R>
auto reduce(P&& policy, R&& r, T init, Op op = {}) {
    return weft::reduce(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), std::move(init),
                        std::move(op));
}

/// Reduces transform(*it) for it in [first, last) with `reduce_op`, from init.
template <execution::execution_policy P, std::forward_iterator It, class T, class ReduceOp, class TransformOp>
    requires std::is_invocable_v<TransformOp&, std::iter_reference_t<It>>
auto transform_reduce(P&& policy, It first, It last, T init, ReduceOp reduce_op, TransformOp transform_op) {
    return detail::algo::dispatch(policy, [first, last, init, reduce_op, transform_op](const auto& p) mutable {
        const std::size_t n = detail::algo::count_of(first, last);
        const auto at = detail::algo::index_of<decltype(p)>(first, n);
        return detail::algo::reduce_chunks(p, n, std::move(init), reduce_op, [&](std::size_t b, std::size_t e) {
            It it = at(b);
            T head = std::invoke(transform_op, *it);
            return detail::algo::combine_run<T>(std::move(head), std::next(it), e - b - 1, reduce_op,
                                                [&](const It& i) -> decltype(auto) { return std::invoke(transform_op, *i); });
        }, "weft::transform_reduce");
    });
}

/// Reduces transform_op(first1[i], first2[i]) for the elements of [first1, last1) with
/// `reduce_op`, from init.
template <execution::execution_policy P, std::forward_iterator It1, std::forward_iterator It2, class T,
          class ReduceOp, class TransformOp>
    requires std::is_invocable_v<TransformOp&, std::iter_reference_t<It1>, std::iter_reference_t<It2>>
auto transform_reduce(P&& policy, It1 first1, It1 last1, It2 first2, T init, ReduceOp reduce_op,
                      TransformOp transform_op) {
    return detail::algo::dispatch(policy, [first1, last1, first2, init, reduce_op, transform_op](const auto& p) mutable {
        const std::size_t n = detail::algo::count_of(first1, last1);
        const auto a = detail::algo::index_of<decltype(p)>(first1, n);
        const auto b = detail::algo::index_of<decltype(p)>(first2, n);
        return detail::algo::reduce_chunks(p, n, std::move(init), reduce_op, [&](std::size_t lo, std::size_t hi) {
            It1 i = a(lo);
            It2 j = b(lo);
            T head = std::invoke(transform_op, *i, *j);
            return detail::algo::accumulate_pairs<T>(std::move(head), std::next(i), std::next(j), hi - lo - 1, reduce_op,
                                                     transform_op);
        }, "weft::transform_reduce");
    });
}

/// The inner product: transform_reduce with std::plus<> and std::multiplies<>.
template <execution::execution_policy P, std::forward_iterator It1, std::forward_iterator It2, class T>
auto transform_reduce(P&& policy, It1 first1, It1 last1, It2 first2, T init) {
    return weft::transform_reduce(std::forward<P>(policy), first1, last1, first2, std::move(init), std::plus<>(),
                                  std::multiplies<>());
}

/// reduce over a range with std::plus<> from a value-initialized element type.
template <execution::execution_policy P, std::ranges::forward_range R>
    requires detail::algo::policy_range<R, P>
auto reduce(P&& policy, R&& r) {
    return weft::reduce(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r));
}

/// transform_reduce over a range.
template <execution::execution_policy P, std::ranges::forward_range R, class T, class ReduceOp, class TransformOp>
    requires detail::algo::policy_range<R, P> && std::is_invocable_v<TransformOp&, std::ranges::range_reference_t<R>>
auto transform_reduce(P&& policy, R&& r, T init, ReduceOp reduce_op, TransformOp transform_op) {
    return weft::transform_reduce(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), std::move(init),
                                  std::move(reduce_op), std::move(transform_op));
}

/// transform_reduce over a range and the range of the same length at first2.
template <execution::execution_policy P, std::ranges::forward_range R, std::forward_iterator It2, class T,
          class ReduceOp, class TransformOp>
    requires detail::algo::policy_range<R, P> &&
             std::is_invocable_v<TransformOp&, std::ranges::range_reference_t<R>, std::iter_reference_t<It2>>
auto transform_reduce(P&& policy, R&& r, It2 first2, T init, ReduceOp reduce_op, TransformOp transform_op) {
    return weft::transform_reduce(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), first2,
                                  std::move(init), std::move(reduce_op), std::move(transform_op));
}

/// The inner product over a range and the range of the same length at first2.
template <execution::execution_policy P, std::ranges::forward_range R, std::forward_iterator It2, class T>
    requires detail::algo::policy_range<R, P>
auto transform_reduce(P&& policy, R&& r, It2 first2, T init) {
    return weft::transform_reduce(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), first2,
                                  std::move(init));
}

}  // namespace weft
