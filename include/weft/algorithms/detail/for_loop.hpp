// The machinery behind weft::for_loop and weft::for_loop_strided: the iteration space
// (integers or iterators, any nonzero stride), the protocol the induction and reduction
// objects follow, and the loop that runs the element function over chunks of the space.
//
// Iterations are numbered k = 0, 1, ..., n-1. Everything a chunk [b, e) needs is a
// function of k alone (index = first + k*stride, induction = var + k*its_stride), so a
// chunk can start anywhere without knowing what the chunks before it did. Reductions
// keep one accumulator per chunk; the accumulators are combined in the order of k.
#pragma once

#include <weft/algorithms/detail/loop.hpp>
#include <weft/config/errors.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <iterator>
#include <limits>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft::detail::floop {

/// An integral type other than bool (bool has no meaningful stride).
template <class T>
concept integer = std::integral<T> && !std::same_as<std::remove_cv_t<T>, bool>;

/// What an induction variable may be with a stride of type S: an integer (integer
/// stride), a floating-point number (arithmetic stride) or a random-access iterator
/// (integer stride), so that its k-th value is computable in O(1).
template <class T, class S>
concept valid_induction = (integer<T> && integer<S>) ||
                          (std::floating_point<T> && (integer<S> || std::floating_point<S>)) ||
                          (std::random_access_iterator<T> && integer<S>);

/// base + k*stride, as k repeated additions of stride would give. Integers use
/// modular arithmetic in a wide unsigned type (exactly the wrap-around of repeated
/// unsigned additions, and the same value as signed additions whenever those do not
/// overflow), so no intermediate k*stride overflows a signed type.
template <class T, class S>
    requires valid_induction<T, S>
constexpr T offset(const T& base, std::size_t k, const S& stride) {
    if constexpr (integer<T>) {
        using U = std::make_unsigned_t<std::common_type_t<T, S, std::intmax_t>>;
        return static_cast<T>(static_cast<U>(base) + static_cast<U>(k) * static_cast<U>(stride));
    } else if constexpr (std::floating_point<T>) {
        using C = std::common_type_t<T, S>;
        return static_cast<T>(static_cast<C>(base) + static_cast<C>(k) * static_cast<C>(stride));
    } else {
        using D = std::iter_difference_t<T>;
        return base + static_cast<D>(k) * static_cast<D>(stride);
    }
}

// --- The argument protocol ------------------------------------------------------------
// An induction or reduction object A has:
//   using floop_argument = void;                  (marks it)
//   static constexpr bool keeps_chunk_states;       (reductions: the loop keeps each
//                                                    chunk's state for finish)
//   state chunk_state(std::size_t b) const;         (a chunk's state at iteration b;
//                                                    called concurrently)
//   state::arg()                                    (what f gets this iteration)
//   state::next()                                   (on to the next iteration)
//   void finish(std::size_t n, std::size_t chunks, Get chunk)
//                                                   (after the loop; chunk(c) is the c-th
//                                                    chunk's final state, in range order)

template <class A>
concept argument = requires { typename std::remove_cvref_t<A>::floop_argument; };

/// What the element function gets for an argument that is not an induction or
/// reduction object (so that checking the call does not fail hard).
struct not_an_induction_or_reduction {};

template <class A>
struct arg_of {
    using type = not_an_induction_or_reduction;
};
template <argument A>
struct arg_of<A> {
    using state = decltype(std::declval<const std::remove_cvref_t<A>&>().chunk_state(std::size_t{}));
    using type = decltype(std::declval<state&>().arg());
};

/// A loop index: an integer, or a forward iterator.
template <class I>
concept loop_index = integer<I> || std::forward_iterator<I>;

/// A stride: an integer.
template <class S>
concept loop_stride = integer<S>;

/// f can be stored (decayed) and called as f(i, a...) with the loop index (a prvalue
/// copy) and, per argument, the induction's value or a reference to the reduction's
/// accumulator.
template <class I, class F, class... A>
concept body_for = std::constructible_from<std::decay_t<F>, F> &&
                   std::invocable<std::decay_t<F>&, I, typename arg_of<A>::type...>;

/// Splits for_loop's trailing arguments (args..., f): K indexes args.
template <class I, class Seq, class... Args>
struct call_check;
template <class I, std::size_t... K, class... Args>
struct call_check<I, std::index_sequence<K...>, Args...> {
    using all = std::tuple<Args...>;
    static constexpr bool arguments = (argument<std::tuple_element_t<K, all>> && ...);
    static constexpr bool body = body_for<I, std::tuple_element_t<sizeof...(K), all>, std::tuple_element_t<K, all>...>;
};
template <class I, class... Args>
using check_t = call_check<I, std::make_index_sequence<sizeof...(Args) - 1>, Args...>;

// The named steps of for_loop_call, so that a rejected call says which one failed.
template <class I, class... Args>
concept only_inductions_and_reductions_before_the_function = check_t<I, Args...>::arguments;
template <class I, class... Args>
concept function_callable_with_index_and_arguments = check_t<I, Args...>::body;

/// for_loop(policy, first, last, Args...) is well formed: I is an integer or a forward
/// iterator, Args is (induction or reduction objects..., f), and f(i, a...) is callable.
template <class I, class... Args>
concept for_loop_call = loop_index<I> && (sizeof...(Args) >= 1) &&
                        only_inductions_and_reductions_before_the_function<I, Args...> &&
                        function_callable_with_index_and_arguments<I, Args...>;

// --- The iteration space --------------------------------------------------------------

/// The iterations of [first, last) with a nonzero stride: first + k*stride for k in
/// [0, n), each short of last in the stride's direction. at(k) gives the k-th index in
/// O(1); next(i, k) turns index k-1 into index k (k < n).
template <class I, class S, bool Parallel>
class iterations;

template <integer I, class S, bool Parallel>
class iterations<I, S, Parallel> {
public:
    iterations(I first, I last, S stride) : first_(first), stride_(stride) {
        // Counted in a wide unsigned type: last - first and |stride| always fit there.
        using U = std::make_unsigned_t<std::common_type_t<I, S, std::intmax_t>>;
        const bool up = stride > 0;
        if (up ? !(first < last) : !(last < first)) return;
        const U d = up ? static_cast<U>(static_cast<U>(last) - static_cast<U>(first))
                       : static_cast<U>(static_cast<U>(first) - static_cast<U>(last));
        const U s = up ? static_cast<U>(stride) : static_cast<U>(U{0} - static_cast<U>(stride));
        const U n = d / s + (d % s != 0 ? U{1} : U{0});
        if constexpr (sizeof(U) > sizeof(std::size_t)) {
            if (n > std::numeric_limits<std::size_t>::max())
                throw weft::error("weft::for_loop: more iterations than std::size_t can count");
        }
        n_ = static_cast<std::size_t>(n);
    }
    std::size_t size() const noexcept { return n_; }
    I at(std::size_t k) const { return offset(first_, k, stride_); }
    void next(I& i, std::size_t) const { i = offset(i, 1, stride_); }

private:
    I first_;
    S stride_;
    std::size_t n_ = 0;
};

template <class I, class S, bool Parallel>
    requires(!integer<I> && std::forward_iterator<I>)
class iterations<I, S, Parallel> {
    using D = std::iter_difference_t<I>;
    // A parallel loop over iterators without O(1) indexing lists its iteration points
    // once (one walk, one vector per loop), so that any chunk can start in O(1).
    static constexpr bool listed = Parallel && !std::random_access_iterator<I>;

public:
    iterations(I first, I last, S stride) : first_(first), stride_(static_cast<D>(stride)) {
        const D s = stride_ > 0 ? stride_ : -stride_;
        if constexpr (std::random_access_iterator<I>) {
            const D d = stride_ > 0 ? last - first : first - last;
            if (d > 0) n_ = static_cast<std::size_t>(d / s + (d % s != 0 ? 1 : 0));
        } else {
            // Walk first -> last one step at a time (backwards for a negative stride),
            // never stepping past last.
            for (I it = first; it != last; ++n_) {
                if constexpr (listed) points_.push_back(it);
                for (D j = 0; j < s && it != last; ++j) {
                    if constexpr (std::bidirectional_iterator<I>) {
                        if (stride_ < 0) --it;
                        else ++it;
                    } else {
                        ++it;  // a negative stride was rejected before the loop started
                    }
                }
            }
        }
    }
    std::size_t size() const noexcept { return n_; }
    I at(std::size_t k) const {
        if constexpr (std::random_access_iterator<I>) return first_ + static_cast<D>(k) * stride_;
        else if constexpr (listed) return points_[k];
        else return std::next(first_, static_cast<D>(k) * stride_);  // sequential: k is 0
    }
    void next(I& i, std::size_t k) const {
        if constexpr (std::random_access_iterator<I>) i += stride_;
        else if constexpr (listed) i = points_[k];
        else std::advance(i, stride_);  // k < n: the k-th point is there, short of last
    }

private:
    I first_;
    D stride_;
    std::size_t n_ = 0;
    std::vector<I> points_;
};

// --- The loop ----------------------------------------------------------------------------

/// Calls f as an element function outside the chunks (the reductions' combiners): an
/// exception reaches the caller as the chunks' do (a weft::exception_list; the
/// unsequenced policies terminate).
template <class Policy, class F>
void element_function(const char* name, F&& f) {
    if constexpr (std::remove_cvref_t<Policy>::kind::unsequenced) {
        [&]() noexcept { f(); }();
    } else {
        algo::error_sink errors;
        try {
            f();
        } catch (...) {
            errors.add(std::current_exception());
        }
        errors.rethrow(name);
    }
}

/// Runs the loop now, under a non-task policy: f(i, a.arg()...) for every iteration,
/// then each argument's finish (live-out values, reductions combined into their vars).
/// If an element function throws, the arguments' variables are left as they were.
template <class Policy, class I, class S, class F, class... A>
void run(const Policy& policy, I first, I last, S stride, F& f, std::tuple<A...>& args, const char* name) {
    const iterations<I, S, std::remove_cvref_t<Policy>::kind::parallel> space(first, last, stride);
    const std::size_t n = space.size();
    using states = std::tuple<decltype(std::declval<const A&>().chunk_state(std::size_t{}))...>;
    constexpr bool keep = (A::keeps_chunk_states || ...);
    // Each chunk's final states, with the chunk's first iteration (sorted afterwards:
    // chunks finish in any order). Only reductions need them.
    std::mutex m;
    std::vector<std::pair<std::size_t, states>> kept;
    algo::run_loop(policy, n, [&](std::size_t b, std::size_t e) {
        I i = space.at(b);
        states s = std::apply([&](const A&... a) { return states(a.chunk_state(b)...); }, args);
        for (std::size_t k = b;;) {
            std::apply([&](auto&... st) { std::invoke(f, static_cast<I>(i), st.arg()...); }, s);
            if (++k == e) break;
            space.next(i, k);
            std::apply([](auto&... st) { (st.next(), ...); }, s);
        }
        if constexpr (keep) {
            std::lock_guard lock(m);
            kept.emplace_back(b, std::move(s));
        }
    }, name);
    if constexpr (keep)
        std::sort(kept.begin(), kept.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    element_function<Policy>(name, [&] {
        [&]<std::size_t... J>(std::index_sequence<J...>) {
            (std::get<J>(args).finish(n, kept.size(), [&kept](std::size_t c) -> auto& { return std::get<J>(kept[c].second); }),
             ...);
        }(std::index_sequence_for<A...>{});
    });
}

/// Checks the stride, then runs the loop as the policy says (a future at once for a
/// task policy). args is (induction and reduction objects..., f); they are copied (the
/// objects refer to their variables, which must outlive the loop).
template <class Policy, class I, class S, class... Args>
auto start(const Policy& policy, I first, I last, S stride, const char* name, Args&&... args) {
    if (stride == 0) throw weft::error(std::string(name) + ": the stride is 0 (the loop would never end)");
    if constexpr (!integer<I> && !std::bidirectional_iterator<I> && std::is_signed_v<S>) {
        if (stride < 0)
            throw weft::error(std::string(name) + ": a negative stride needs bidirectional iterators or an integral index");
    }
    constexpr std::size_t nargs = sizeof...(Args) - 1;
    auto all = std::forward_as_tuple(std::forward<Args>(args)...);
    using all_t = std::tuple<Args...>;
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
        using F = std::decay_t<std::tuple_element_t<nargs, all_t>>;
        using objects = std::tuple<std::remove_cvref_t<std::tuple_element_t<K, all_t>>...>;
        return algo::dispatch(policy, [first, last, stride, name, f = F(std::get<nargs>(std::move(all))),
                                       a = objects(std::get<K>(std::move(all))...)](const auto& p) mutable {
            run(p, first, last, stride, f, a, name);
        });
    }(std::make_index_sequence<nargs>{});
}

}  // namespace weft::detail::floop
