// The chunked scan behind inclusive_scan, exclusive_scan and their transform_ variants.
//
// A sequential policy scans in one pass. A parallel one is the classic reduce, combine,
// scan, over the chunks of the policy's loop:
//  1. Each chunk either scans its elements at once, if the carry into it (init and every
//     element before it, combined) is known when it starts, or reduces them to their
//     sum. The carry is combined in range order as chunks finish: the agent that holds
//     it walks it over every reduced chunk waiting at its end, giving each its carry
//     (one op per chunk). So when the chunks run one after another (one core, or a busy
//     machine) every chunk scans at once and this pass is the whole scan.
//  2. The reduced chunks (the very same ranges, whatever the chunk parameter) are
//     scanned from their carries, in parallel, the longest first.
// op is only applied to neighbours in range order, so it need be associative, not
// commutative. The last chunk's sum is never needed, so pass 1 leaves the last
// 1/(cores + 1) of the range out of its loop and pass 2 alone scans it: with static
// chunks the scan takes 2/(cores + 1) of the time on one core, the best a
// reduce-then-scan does (not 2/cores, with one agent idle in pass 1).
#pragma once

#include <weft/algorithms/detail/loop.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <functional>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft::detail::algo {

/// The element function of the scans that do not transform.
struct scan_identity {
    template <class X>
    constexpr X&& operator()(X&& x) const noexcept {
        return std::forward<X>(x);
    }
};

/// What a scan whose sums are of type T needs of its operation, U being the type of an
/// element (as transformed): op(T, U), op(U, U) and op(T, T) convertible to T (std's
/// requirements for the parallel overloads, less op(U, T), which is never called).
template <class Op, class T, class U>
concept scan_operation = std::movable<T> && std::is_invocable_r_v<T, Op&, T, U> &&
                         std::is_invocable_r_v<T, Op&, U, U> && std::is_invocable_r_v<T, Op&, T, T>;

/// Scans the `count` (>= 1) elements from i into o, from `carry` (empty: an inclusive scan
/// without init, at its first element), and leaves the carry past them in `carry`. Each
/// element is read before its output is written, so o may be i.
template <class T, bool Exclusive, class In, class Out, class Op, class F>
void scan_chunk(In i, Out o, std::size_t count, std::optional<T>& carry, Op& op, F& f) {
    if constexpr (Exclusive) {
        T acc = std::move(*carry);
        for (; count != 0; --count, ++i, ++o) {
            T next = static_cast<T>(std::invoke(op, acc, std::invoke(f, *i)));
            *o = std::move(acc);
            acc = std::move(next);
        }
        carry = std::move(acc);
    } else {
        if (!carry) {
            carry.emplace(static_cast<T>(std::invoke(f, *i)));
            *o = *carry;
            ++i, ++o, --count;
        }
        T acc = std::move(*carry);
        for (; count != 0; --count, ++i, ++o) {
            acc = static_cast<T>(std::invoke(op, std::move(acc), std::invoke(f, *i)));
            *o = acc;
        }
        carry = std::move(acc);
    }
}

/// The sum of the `count` (>= 2) elements from i. (From op of the first two, so that T
/// need not be constructible from an element.)
template <class T, class In, class Op, class F>
T reduce_chunk(In i, std::size_t count, Op& op, F& f) {
    In j = std::next(i);
    T acc = static_cast<T>(std::invoke(op, std::invoke(f, *i), std::invoke(f, *j)));
    for (++j, count -= 2; count != 0; --count, ++j) acc = static_cast<T>(std::invoke(op, std::move(acc), std::invoke(f, *j)));
    return acc;
}

/// The parameters of pass 2: the chunks of pass 1 are its iterations, handed out one at
/// a time (they are already of the size the policy chose) to as many agents as pass 1 had.
struct scan_pass2_parameters {
    std::size_t cores;
    ex::chunking chunks(const ex::loop_shape&) const noexcept { return {ex::chunk_schedule::dynamic, 1}; }
    std::size_t processing_units_count(std::size_t available, std::size_t) const noexcept {
        return std::min(available, cores);
    }
};

/// Writes the inclusive (Exclusive: exclusive) scan of f(e) for the elements e of
/// [first, last) under op, with sums of type T, from `init` (may be empty for an
/// inclusive scan), to d_first; returns the end of the output. d_first may be first.
template <class T, bool Exclusive, class P, class In, class Out, class Op, class F>
Out scan(const P& p, In first, In last, Out d_first, std::optional<T> init, Op& op, F& f, const char* algorithm) {
    const std::size_t n = count_of(first, last);
    if (n == 0) return d_first;
    const auto in = index_of<P>(first, n);
    const auto out = index_of<P>(d_first, n);
    std::optional<T> carry = std::move(init);
    if constexpr (!std::remove_cvref_t<P>::kind::parallel) {
        // One chunk, or chunks in order: each goes on from the last.
        auto body = [&](std::size_t b, std::size_t e) { scan_chunk<T, Exclusive>(in(b), out(b), e - b, carry, op, f); };
        run_loop(p, n, chunk_fn(body), algorithm);
    } else {
        using params_t = std::remove_cvref_t<decltype(p.parameters().get())>;
        const std::size_t cores =
            cores_for<std::tuple_size_v<params_t>>(p.parameters().get(), ex::processing_units_count(p.executor()), n);
        const std::size_t loop_end = cores > 1 ? n - n / (cores + 1) : n;  // the rest: pass 2 only

        // A reduced chunk: its range and its sum (none for the last chunk, whose sum no
        // one needs, nor for a chunk of one element, whose element serves), then its carry.
        struct piece {
            std::size_t begin, end;
            std::optional<T> value;
        };
        // Under m: [0, known) have their carries (`carry` is the carry into `known`); the
        // agent that holds the chain (if `held`) is the only one that touches `carry`.
        std::mutex m;
        std::size_t known = 0;
        bool held = false;
        std::map<std::size_t, piece> waiting;  // reduced chunks past `known`, by begin
        std::vector<piece> pending;             // reduced chunks with their carries
        // The holder, with the lock: walks the carry over the reduced chunks that wait at
        // `known`, then lets the chain go. op runs without the lock.
        const auto walk = [&](std::unique_lock<std::mutex>& lock) {
            for (auto it = waiting.find(known); it != waiting.end(); it = waiting.find(known)) {
                piece c = std::move(it->second);
                waiting.erase(it);
                lock.unlock();
                T into = std::move(*carry);
                if (c.end != n) {
                    if (c.value) carry.emplace(static_cast<T>(std::invoke(op, into, std::move(*c.value))));
                    else carry.emplace(static_cast<T>(std::invoke(op, into, std::invoke(f, *in(c.begin)))));
                }
                c.value = std::move(into);
                lock.lock();
                known = c.end;
                pending.push_back(std::move(c));
            }
            held = false;
        };
        auto pass1 = [&](std::size_t b, std::size_t e) {
            std::unique_lock lock(m);
            if (!held && known == b) {
                held = true;
                lock.unlock();
                scan_chunk<T, Exclusive>(in(b), out(b), e - b, carry, op, f);
                lock.lock();
                known = e;
            } else {
                lock.unlock();
                piece c{b, e, std::nullopt};
                if (e != n && e - b >= 2) c.value.emplace(reduce_chunk<T>(in(b), e - b, op, f));
                lock.lock();
                waiting.emplace(b, std::move(c));
                if (held || known != b) return;  // the holder, or whoever reaches b, walks on
                held = true;
            }
            walk(lock);
        };
        run_loop(p, loop_end, chunk_fn(pass1), algorithm);
        // Every chunk has finished and none threw: the carry has reached loop_end.
        if (loop_end != n) pending.push_back({loop_end, n, std::move(carry)});
        // The longest first, so that the agents finish together.
        std::sort(pending.begin(), pending.end(),
                  [](const piece& x, const piece& y) { return x.end - x.begin > y.end - y.begin; });
        auto pass2 = [&](std::size_t kb, std::size_t ke) {
            for (; kb != ke; ++kb) {
                piece& c = pending[kb];
                scan_chunk<T, Exclusive>(in(c.begin), out(c.begin), c.end - c.begin, c.value, op, f);
            }
        };
        run_loop(p.with(scan_pass2_parameters{cores}), pending.size(), chunk_fn(pass2), algorithm);
    }
    return std::next(out(n - 1));
}

}  // namespace weft::detail::algo
