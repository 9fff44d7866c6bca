// weft::adjacent_difference with an execution policy: one parallel loop, each chunk
// reading the element before it.
#pragma once

#include <weft/algorithms/detail/loop.hpp>
#include <weft/algorithms/detail/ranges.hpp>
#include <weft/algorithms/detail/scan.hpp>  // chunk_fn

#include <concepts>
#include <cstddef>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <ranges>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft {
namespace detail::algo {

/// adjacent_difference in place (d_first == first: std allows it only without a policy,
/// but a port from std would do it); returns the end. The chunk after [b, e) reads
/// element e - 1: each chunk writes its own last output only after the loop, and keeps a
/// copy of each element before it writes that element's output.
template <class P, class It, class Op>
It adjacent_difference_in_place(const P& p, It first, std::size_t n, Op& op) {
    using V = std::iter_value_t<It>;
    using R = std::decay_t<std::invoke_result_t<Op&, V&, V&>>;
    const auto at = index_of<P>(first, n);
    std::mutex m;
    std::vector<std::pair<std::size_t, R>> last_outputs;  // one per chunk but the last
    auto body = [&](std::size_t b, std::size_t e) {
        It i = at(b);
        V prev = b == 0 ? V(*i) : V(*at(b - 1));
        if (b == 0) {  // the first output is the first element: it stays
            ++b;
            ++i;
        }
        for (; b != e; ++b, ++i) {
            V cur = *i;
            if (b + 1 == e && e != n) {
                R r = std::invoke(op, cur, prev);
                std::lock_guard lock(m);
                last_outputs.emplace_back(b, std::move(r));
            } else {
                *i = std::invoke(op, cur, prev);
            }
            prev = std::move(cur);
        }
    };
    run_loop(p, n, chunk_fn(body), "weft::adjacent_difference");
    for (auto& [b, r] : last_outputs) *at(b) = std::move(r);
    return std::next(at(n - 1));
}

}  // namespace detail::algo

/// d_first[0] = first[0] and d_first[i] = op(first[i], first[i - 1]) for the other
/// elements of [first, last). d_first may be first (with a copyable value type: the elements
/// are then copied as they are read). Returns the end of the output (a future of it for a
/// task policy). @throws weft::exception_list.
template <execution::execution_policy P, std::forward_iterator In, std::forward_iterator Out, class Op = std::minus<>>
    requires std::indirectly_copyable<In, Out> && std::indirectly_writable<Out, std::indirect_result_t<Op&, In, In>>
auto adjacent_difference(P&& policy, In first, In last, Out d_first, Op op = {}) {
    return detail::algo::dispatch(policy, [first, last, d_first, op](const auto& p) mutable {
        const std::size_t n = detail::algo::count_of(first, last);
        if (n == 0) return d_first;
        using V = std::iter_value_t<In>;
        if constexpr (std::same_as<In, Out> && std::is_lvalue_reference_v<std::iter_reference_t<In>> &&
                      std::copyable<V> && std::invocable<Op&, V&, V&> &&
                      std::movable<std::decay_t<std::invoke_result_t<Op&, V&, V&>>> &&
                      std::indirectly_writable<In, std::decay_t<std::invoke_result_t<Op&, V&, V&>>>) {
            // The same elements? Compare addresses, not iterators (of two containers, a
            // checked library refuses to compare those).
            if (std::addressof(*first) == std::addressof(*d_first))
                return detail::algo::adjacent_difference_in_place(p, first, n, op);
        }
        const auto in = detail::algo::index_of<decltype(p)>(first, n);
        const auto out = detail::algo::index_of<decltype(p)>(d_first, n);
        auto body = [&](std::size_t b, std::size_t e) {
            In i = in(b);
            Out o = out(b);
            In prev = i;
            if (b == 0) {
                *o = *i;
                ++b, ++i, ++o;
            } else {
                prev = in(b - 1);
            }
            for (; b != e; ++b, ++o) {
                *o = std::invoke(op, *i, *prev);
                prev = i;
                ++i;
            }
        };
        detail::algo::run_loop(p, n, detail::algo::chunk_fn(body), "weft::adjacent_difference");
        return std::next(out(n - 1));
    });
}

/// adjacent_difference over a range (with a task policy, an lvalue range or a view: a
/// temporary would be destroyed under the running task).
template <execution::execution_policy P, std::ranges::forward_range R, std::forward_iterator Out,
          class Op = std::minus<>>
    requires detail::algo::policy_range<R, P> && std::indirectly_copyable<std::ranges::iterator_t<R>, Out> &&
             std::indirectly_writable<Out, std::indirect_result_t<Op&, std::ranges::iterator_t<R>, std::ranges::iterator_t<R>>>
auto adjacent_difference(P&& policy, R&& r, Out d_first, Op op = {}) {
    return weft::adjacent_difference(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), d_first,
                                     std::move(op));
}

}  // namespace weft
