// weft::copy_if with an execution policy: a first pass evaluates pred once per element
// (remembering the answers) and counts per chunk; the counts, summed in range order, give
// each chunk's place in the output; a second pass copies each chunk's elements there.
#pragma once

#include <weft/algorithms/detail/compact.hpp>
#include <weft/algorithms/detail/loop.hpp>
#include <weft/algorithms/detail/ranges.hpp>

#include <algorithm>
#include <functional>
#include <iterator>
#include <memory>
#include <ranges>
#include <utility>
#include <vector>

namespace weft {
namespace detail::algo {

template <class P, class In, class Out, class Pred>
Out copy_if_impl(const P& p, In first, In last, Out d_first, Pred& pred, const char* algorithm) {
    const std::size_t n = count_of(first, last);
    if constexpr (!std::remove_cvref_t<P>::kind::parallel) {
        // One chunk, [0, n), through the policy's executor.
        run_loop(p, n, [&](std::size_t, std::size_t) {
            d_first = std::copy_if(first, last, d_first,
                                   [&pred](auto&& x) { return std::invoke(pred, std::forward<decltype(x)>(x)); });
        }, algorithm);
        return d_first;
    } else {
        if (n == 0) return d_first;
        const auto in = index_of<P>(first, n);
        // pred's answers, one byte each (not std::vector<bool>: chunks write them
        // concurrently, and neighbouring bits would share a word).
        const std::unique_ptr<unsigned char[]> chosen(new unsigned char[n]);
        chunk_log log;
        run_loop(p, n, [&](std::size_t b, std::size_t e) {
            std::size_t k = 0;
            In it = in(b);
            for (std::size_t i = b; i != e; ++i, ++it) {
                const bool c = static_cast<bool>(std::invoke(pred, *it));
                chosen[i] = c;
                k += c;
            }
            log.add({b, e, k, false});
        }, algorithm);
        const std::vector<kept_chunk>& chunks = log.sorted();
        // Each chunk's first output iterator (walking the output once if it is not
        // random access).
        std::vector<Out> outs;
        outs.reserve(chunks.size());
        for (const kept_chunk& c : chunks) {
            outs.push_back(d_first);
            d_first = std::next(d_first, static_cast<std::iter_difference_t<Out>>(c.kept));
        }
        run_loop(p, chunks.size(), [&](std::size_t b, std::size_t e) {
            for (; b != e; ++b) {
                const kept_chunk& c = chunks[b];
                if (c.kept == 0) continue;
                Out o = outs[b];
                In it = in(c.begin);
                for (std::size_t i = c.begin; i != c.end; ++i, ++it) {
                    if (chosen[i]) {
                        *o = *it;
                        ++o;
                    }
                }
            }
        }, algorithm);
        return d_first;
    }
}

}  // namespace detail::algo

/// Copies the elements of [first, last) that satisfy pred to d_first, keeping their
/// order (the ranges must not overlap); returns the end of the output (a future of it
/// for a task policy). pred is called once per element.
/// @throws weft::exception_list of pred's and the copies' exceptions.
template <execution::execution_policy P, std::forward_iterator In, std::forward_iterator Out, class Pred>
    requires std::indirect_unary_predicate<Pred, In> && std::indirectly_copyable<In, Out>
auto copy_if(P&& policy, In first, In last, Out d_first, Pred pred) {
    return detail::algo::dispatch(policy, [first, last, d_first, pred](const auto& p) mutable {
        return detail::algo::copy_if_impl(p, first, last, d_first, pred, "weft::copy_if");
    });
}

/// copy_if over a range.
template <execution::execution_policy P, std::ranges::forward_range R, std::forward_iterator Out, class Pred>
    requires detail::algo::policy_range<R, P> && std::indirect_unary_predicate<Pred, std::ranges::iterator_t<R>> &&
             std::indirectly_copyable<std::ranges::iterator_t<R>, Out>
auto copy_if(P&& policy, R&& r, Out d_first, Pred pred) {
    return weft::copy_if(std::forward<P>(policy), std::ranges::begin(r), std::ranges::end(r), d_first, std::move(pred));
}

}  // namespace weft
