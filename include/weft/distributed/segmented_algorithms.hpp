// The parallel algorithms on partitioned_vector's segmented iterators (issue #25; seed 003
// §5.3, L196-L198: "every particular iteration is executed close to the data item").
//
// Each algorithm splits [first, last) at the partitions' bounds and sends each
// partition's part to where it lives as one component action; there the part runs with
// weft's local parallel algorithm (execution::par and its automatic chunking) or in
// order (seq). Only the parts' results cross localities (a count, a partial sum, an
// index, a scan's segment total and carry), and the caller combines them in partition
// order. With a task policy (`par(task)`) the algorithm returns a weft::future at once.
//
// Functions (f, op, pred, comp, generators) run where the data lives: they must be
// trivially copyable (a lambda whose captures are values: never pointers or references,
// which mean nothing on another locality) or default constructible and serializable.
// As for std's parallel algorithms, binary operations of reduce, transform_reduce and
// the scans must be associative and commutative (parts are combined in any grouping).
//
// Binary algorithms (transform over two vectors, copy, the scans with an output) need
// vectors of the same layout (partitions of the same sizes on the same localities) and
// ranges that start at the same index of each; anything else is a weft::error naming
// what differs, thrown before any partition is touched. Exceptions thrown by the
// functions reach the caller (the first partition's, in partition order).
#pragma once

#include <weft/algorithms.hpp>
#include <weft/distributed/partitioned_vector.hpp>
#include <weft/execution/policy.hpp>
#include <weft/futures/async.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft {

namespace distributed::detail {

/// The part of [first, last) in partition `seg`: local [b, e).
struct segment_part {
    std::size_t seg;
    std::uint64_t b, e;
};

inline std::vector<segment_part> split_range(const vector_data& d, std::uint64_t first, std::uint64_t last) {
    std::vector<segment_part> parts;
    for (std::size_t k = 0; k < d.segments.size(); ++k) {
        const segment_info& s = d.segments[k];
        const std::uint64_t b = std::max(first, s.first), e = std::min(last, s.first + s.size);
        if (b < e) parts.push_back({k, b - s.first, e - s.first});
    }
    return parts;
}

template <class It>
auto& container_of(const It& it, const char* what) {
    if (it.container() == nullptr) throw weft::error(std::string(what) + ": a singular partitioned_vector iterator");
    return *it.container();
}

/// Checks [first, last) and returns its vector.
template <class It>
auto& checked_range(const It& first, const It& last, const char* what) {
    auto& v = container_of(first, what);
    if (last.container() != first.container())
        throw weft::error(std::string(what) + ": first and last belong to different partitioned_vectors");
    if (first.index() > last.index() || last.index() > v.size())
        throw weft::error(std::string(what) + ": [first, last) is not a range of the vector (" +
                          std::to_string(first.index()) + ", " + std::to_string(last.index()) + " of " +
                          std::to_string(v.size()) + ")");
    return v;
}

/// Checks that `other` (from `it`) can run beside [first, ...) of `v`.
template <class V, class It>
auto& checked_other(const V& v, std::uint64_t first, std::uint64_t count, const It& it, const char* what,
                    const char* role) {
    auto& o = container_of(it, what);
    if (!v.same_layout(o))
        throw weft::error(std::string(what) + ": the " + role +
                          " is a partitioned_vector of another layout (partitions of other sizes or on other "
                          "localities): binary algorithms need the same layout");
    if (it.index() != first)
        throw weft::error(std::string(what) + ": the " + role + " starts at index " + std::to_string(it.index()) +
                          ", the input at " + std::to_string(first) + ": they must start at the same index");
    if (it.index() + count > o.size()) throw weft::error(std::string(what) + ": the " + role + " is too short");
    return o;
}

template <class P>
constexpr bool is_parallel_v = std::remove_cvref_t<P>::kind::parallel;

/// Runs `body()` now, or as a task whose future is returned (task policies).
template <class P, class F>
auto run_policy(F&& body) {
    if constexpr (execution::is_task_policy_v<P>) return weft::async(std::forward<F>(body));
    else return body();
}

/// Sends `op` to every part (with the same partitions of `others`), all at once (parallel
/// policies) or one after another (sequenced); returns the results in partition order.
template <class T, class Op, class... U>
auto on_parts(const partitioned_vector<T>& v, const std::vector<segment_part>& parts, const Op& op, bool parallel,
              const partitioned_vector<U>&... others) {
    using action = partition_apply_action<T, Op, U...>;
    (void)&action::registrar;
    using R = typename action::result_type;
    const vector_data& d = v.layout_data();
    auto call = [&](const segment_part& p) {
        std::vector<id_type> ids{others.layout_data().segments[p.seg].id...};
        return weft::async(action{}, d.segments[p.seg].id, op, p.b, p.e, parallel, std::move(ids));
    };
    std::vector<future<R>> fs;
    fs.reserve(parts.size());
    if (parallel) {
        for (const segment_part& p : parts) fs.push_back(call(p));
    } else {
        // In order, each part waited for before the next starts (as seq promises).
        for (const segment_part& p : parts) {
            fs.push_back(call(p));
            fs.back().wait();
        }
    }
    if constexpr (std::is_void_v<R>) {
        std::exception_ptr first_error;
        for (auto& f : fs) {
            try {
                f.get();
            } catch (...) {
                if (!first_error) first_error = std::current_exception();
            }
        }
        if (first_error) std::rethrow_exception(first_error);
    } else {
        std::vector<R> out;
        std::exception_ptr first_error;
        for (auto& f : fs) {
            try {
                out.push_back(f.get());
            } catch (...) {
                if (!first_error) first_error = std::current_exception();
            }
        }
        if (first_error) std::rethrow_exception(first_error);
        return out;
    }
}

/// Runs `g(policy)` with the local policy: par or seq.
template <class G>
decltype(auto) local_policy(bool parallel, G&& g) {
    if (parallel) return std::forward<G>(g)(execution::par);
    return std::forward<G>(g)(execution::seq);
}

template <class T>
auto at(std::vector<T>& d, std::size_t i) {
    return d.begin() + static_cast<std::ptrdiff_t>(i);
}

// --- The parts' operations (serializable: shipped functions, values) -------------------

template <class F>
struct for_each_op {
    shipped<F> f;
    template <class A>
    void serialize(A& a) { a(f); }
    template <class T>
    void operator()(std::vector<T>& d, std::size_t b, std::size_t e, bool par) const {
        const F& fn = unship(f);
        local_policy(par, [&](const auto& pol) { weft::for_each(pol, at(d, b), at(d, e), fn); });
    }
};

template <class V>
struct fill_op {
    V value{};
    template <class A>
    void serialize(A& a) { a(value); }
    template <class T>
    void operator()(std::vector<T>& d, std::size_t b, std::size_t e, bool par) const {
        local_policy(par, [&](const auto& pol) { weft::fill(pol, at(d, b), at(d, e), value); });
    }
};

template <class G>
struct generate_op {
    shipped<G> g;
    template <class A>
    void serialize(A& a) { a(g); }
    template <class T>
    void operator()(std::vector<T>& d, std::size_t b, std::size_t e, bool par) const {
        G gen = unship(g);
        local_policy(par, [&](const auto& pol) { weft::generate(pol, at(d, b), at(d, e), gen); });
    }
};

struct copy_op {
    template <class A>
    void serialize(A&) {}
    template <class T, class U>
    void operator()(std::vector<T>& d, std::vector<U>& out, std::size_t b, std::size_t e, bool par) const {
        if (static_cast<const void*>(&d) == static_cast<const void*>(&out)) return;  // onto itself
        local_policy(par, [&](const auto& pol) { weft::copy(pol, at(d, b), at(d, e), at(out, b)); });
    }
};

template <class F>
struct transform_op {
    shipped<F> f;
    template <class A>
    void serialize(A& a) { a(f); }
    template <class T, class U>
    void operator()(std::vector<T>& d, std::vector<U>& out, std::size_t b, std::size_t e, bool par) const {
        const F& fn = unship(f);
        local_policy(par, [&](const auto& pol) { weft::transform(pol, at(d, b), at(d, e), at(out, b), fn); });
    }
};

template <class F>
struct transform2_op {
    shipped<F> f;
    template <class A>
    void serialize(A& a) { a(f); }
    template <class T, class U, class W>
    void operator()(std::vector<T>& d, std::vector<U>& d2, std::vector<W>& out, std::size_t b, std::size_t e,
                    bool par) const {
        const F& fn = unship(f);
        local_policy(par, [&](const auto& pol) { weft::transform(pol, at(d, b), at(d, e), at(d2, b), at(out, b), fn); });
    }
};

/// A part's reduction: empty for an empty part (no identity is known).
template <class R, class Op, class Tr>
struct transform_reduce_op {
    shipped<Op> op;
    shipped<Tr> tr;
    template <class A>
    void serialize(A& a) { a(op, tr); }
    template <class T>
    std::optional<R> operator()(std::vector<T>& d, std::size_t b, std::size_t e, bool par) const {
        if (b == e) return std::nullopt;
        const Op& o = unship(op);
        const Tr& t = unship(tr);
        R first = std::invoke(t, d[b]);
        return local_policy(par, [&](const auto& pol) {
            return weft::transform_reduce(pol, at(d, b + 1), at(d, e), std::move(first), o, t);
        });
    }
};

template <class R, class Op, class Tr>
struct transform_reduce2_op {
    shipped<Op> op;
    shipped<Tr> tr;
    template <class A>
    void serialize(A& a) { a(op, tr); }
    template <class T, class U>
    std::optional<R> operator()(std::vector<T>& d, std::vector<U>& d2, std::size_t b, std::size_t e, bool par) const {
        if (b == e) return std::nullopt;
        const Op& o = unship(op);
        const Tr& t = unship(tr);
        R first = std::invoke(t, d[b], d2[b]);
        return local_policy(par, [&](const auto& pol) {
            return weft::transform_reduce(pol, at(d, b + 1), at(d, e), at(d2, b + 1), std::move(first), o, t);
        });
    }
};

template <class F>
struct count_if_op {
    shipped<F> pred;
    template <class A>
    void serialize(A& a) { a(pred); }
    template <class T>
    std::uint64_t operator()(std::vector<T>& d, std::size_t b, std::size_t e, bool par) const {
        const F& p = unship(pred);
        return static_cast<std::uint64_t>(
            local_policy(par, [&](const auto& pol) { return weft::count_if(pol, at(d, b), at(d, e), p); }));
    }
};

/// The first element of the part for which pred holds, as a local index.
template <class F>
struct find_if_op {
    shipped<F> pred;
    bool negate = false;
    template <class A>
    void serialize(A& a) { a(pred, negate); }
    template <class T>
    std::optional<std::uint64_t> operator()(std::vector<T>& d, std::size_t b, std::size_t e, bool par) const {
        const F& p = unship(pred);
        const bool neg = negate;
        auto it = local_policy(par, [&](const auto& pol) {
            return weft::find_if(pol, at(d, b), at(d, e), [&p, neg](const T& x) { return static_cast<bool>(std::invoke(p, x)) != neg; });
        });
        if (it == at(d, e)) return std::nullopt;
        return static_cast<std::uint64_t>(it - d.begin());
    }
};

/// The part's smallest and largest elements (first smallest, and the first or last
/// largest), as local indices and values.
template <class T>
struct extremes {
    std::uint64_t min_at = 0, max_at = 0;
    T min{}, max{};
    template <class A>
    void serialize(A& a) { a(min_at, max_at, min, max); }
};

template <class C>
struct minmax_op {
    shipped<C> comp;
    bool last_max = false;  ///< minmax_element's max is the last largest
    template <class A>
    void serialize(A& a) { a(comp, last_max); }
    template <class T>
    std::optional<extremes<T>> operator()(std::vector<T>& d, std::size_t b, std::size_t e, bool par) const {
        if (b == e) return std::nullopt;
        const C& c = unship(comp);
        extremes<T> x;
        local_policy(par, [&](const auto& pol) {
            if (last_max) {
                auto [lo, hi] = weft::minmax_element(pol, at(d, b), at(d, e), c);
                x.min_at = static_cast<std::uint64_t>(lo - d.begin());
                x.max_at = static_cast<std::uint64_t>(hi - d.begin());
            } else {
                x.min_at = static_cast<std::uint64_t>(weft::min_element(pol, at(d, b), at(d, e), c) - d.begin());
                x.max_at = static_cast<std::uint64_t>(weft::max_element(pol, at(d, b), at(d, e), c) - d.begin());
            }
        });
        x.min = d[static_cast<std::size_t>(x.min_at)];
        x.max = d[static_cast<std::size_t>(x.max_at)];
        return x;
    }
};

/// A scan's second pass: the part's scan, started from the carry of the parts before it.
template <class V, class Op>
struct scan_op {
    shipped<Op> op;
    std::optional<V> carry;  ///< what comes before the part (an exclusive scan's init included)
    bool inclusive = true;
    template <class A>
    void serialize(A& a) { a(op, carry, inclusive); }
    template <class T, class U>
    void operator()(std::vector<T>& d, std::vector<U>& out, std::size_t b, std::size_t e, bool par) const {
        const Op& o = unship(op);
        local_policy(par, [&](const auto& pol) {
            if (inclusive) {
                if (carry) weft::inclusive_scan(pol, at(d, b), at(d, e), at(out, b), o, *carry);
                else weft::inclusive_scan(pol, at(d, b), at(d, e), at(out, b), o);
            } else {
                weft::exclusive_scan(pol, at(d, b), at(d, e), at(out, b), *carry, o);
            }
        });
    }
};

template <class It>
using value_of = typename std::remove_cvref_t<decltype(*std::declval<It>().container())>::value_type;

/// Combines the parts' optional partial results in partition order onto `init`.
template <class R, class Op>
R fold_parts(R init, std::vector<std::optional<R>>& parts, const Op& op) {
    for (auto& p : parts)
        if (p) init = std::invoke(op, std::move(init), std::move(*p));
    return init;
}

/// The carries of a scan's parts: carry[k] = what comes before part k.
template <class V, class Op>
std::vector<std::optional<V>> scan_carries(std::optional<V> start, std::vector<std::optional<V>>& totals, const Op& op) {
    std::vector<std::optional<V>> carry;
    std::optional<V> acc = std::move(start);
    for (auto& t : totals) {
        carry.push_back(acc);
        if (t) acc = acc ? std::optional<V>(std::invoke(op, std::move(*acc), std::move(*t))) : std::move(t);
    }
    return carry;
}

struct identity_fn {
    template <class T>
    const T& operator()(const T& x) const noexcept {
        return x;
    }
};

}  // namespace distributed::detail

// --- The algorithms --------------------------------------------------------------------

/// f(x) for every element of [first, last), where it lives.
template <execution::execution_policy P, segmented_iterator It, class F>
auto for_each(P&& policy, It first, It last, F f) {
    namespace dd = distributed::detail;
    (void)policy;
    auto& v = dd::checked_range(first, last, "weft::for_each");
    auto parts = dd::split_range(v.layout_data(), first.index(), last.index());
    dd::for_each_op<F> op{dd::ship(f)};
    return dd::run_policy<P>([&v, parts = std::move(parts), op] { dd::on_parts(v, parts, op, dd::is_parallel_v<P>); });
}

/// f(x) for the `count` elements from first; returns first + count.
template <execution::execution_policy P, segmented_iterator It, std::integral Size, class F>
auto for_each_n(P&& policy, It first, Size count, F f) {
    namespace dd = distributed::detail;
    const std::uint64_t n = count > 0 ? static_cast<std::uint64_t>(count) : 0;
    auto& v = dd::container_of(first, "weft::for_each_n");
    if (first.index() + n > v.size()) throw weft::error("weft::for_each_n: first + count is past the vector's end");
    It last = first + static_cast<std::ptrdiff_t>(n);
    auto parts = dd::split_range(v.layout_data(), first.index(), last.index());
    dd::for_each_op<F> op{dd::ship(f)};
    (void)policy;
    return dd::run_policy<P>([&v, parts = std::move(parts), op, last] {
        dd::on_parts(v, parts, op, dd::is_parallel_v<P>);
        return last;
    });
}

/// Sets every element of [first, last) to `value`.
template <execution::execution_policy P, segmented_iterator It, class V>
auto fill(P&& policy, It first, It last, const V& value) {
    namespace dd = distributed::detail;
    (void)policy;
    auto& v = dd::checked_range(first, last, "weft::fill");
    auto parts = dd::split_range(v.layout_data(), first.index(), last.index());
    dd::fill_op<dd::value_of<It>> op{dd::value_of<It>(value)};
    return dd::run_policy<P>([&v, parts = std::move(parts), op] { dd::on_parts(v, parts, op, dd::is_parallel_v<P>); });
}

/// Assigns g() to every element of [first, last); each partition calls its own copy of g.
template <execution::execution_policy P, segmented_iterator It, class G>
auto generate(P&& policy, It first, It last, G g) {
    namespace dd = distributed::detail;
    (void)policy;
    auto& v = dd::checked_range(first, last, "weft::generate");
    auto parts = dd::split_range(v.layout_data(), first.index(), last.index());
    dd::generate_op<G> op{dd::ship(g)};
    return dd::run_policy<P>([&v, parts = std::move(parts), op] { dd::on_parts(v, parts, op, dd::is_parallel_v<P>); });
}

/// Copies [first, last) to dest (a vector of the same layout, from the same index);
/// returns dest + (last - first).
template <execution::execution_policy P, segmented_iterator It, segmented_iterator Out>
auto copy(P&& policy, It first, It last, Out dest) {
    namespace dd = distributed::detail;
    (void)policy;
    auto& v = dd::checked_range(first, last, "weft::copy");
    auto& o = dd::checked_other(v, first.index(), last.index() - first.index(), dest, "weft::copy", "destination");
    auto parts = dd::split_range(v.layout_data(), first.index(), last.index());
    Out end = dest + (last - first);
    return dd::run_policy<P>([&v, &o, parts = std::move(parts), end] {
        dd::on_parts(v, parts, dd::copy_op{}, dd::is_parallel_v<P>, o);
        return end;
    });
}

/// dest[i] = f(first[i]) over [first, last); returns dest + (last - first).
template <execution::execution_policy P, segmented_iterator It, segmented_iterator Out, class F>
auto transform(P&& policy, It first, It last, Out dest, F f) {
    namespace dd = distributed::detail;
    (void)policy;
    auto& v = dd::checked_range(first, last, "weft::transform");
    auto& o = dd::checked_other(v, first.index(), last.index() - first.index(), dest, "weft::transform", "destination");
    auto parts = dd::split_range(v.layout_data(), first.index(), last.index());
    dd::transform_op<F> op{dd::ship(f)};
    Out end = dest + (last - first);
    return dd::run_policy<P>([&v, &o, parts = std::move(parts), op, end] {
        dd::on_parts(v, parts, op, dd::is_parallel_v<P>, o);
        return end;
    });
}

/// dest[i] = f(first1[i], first2[i]) over [first1, last1); returns dest + (last1 - first1).
template <execution::execution_policy P, segmented_iterator It1, segmented_iterator It2, segmented_iterator Out, class F>
auto transform(P&& policy, It1 first1, It1 last1, It2 first2, Out dest, F f) {
    namespace dd = distributed::detail;
    (void)policy;
    auto& v = dd::checked_range(first1, last1, "weft::transform");
    const std::uint64_t n = last1.index() - first1.index();
    auto& v2 = dd::checked_other(v, first1.index(), n, first2, "weft::transform", "second input");
    auto& o = dd::checked_other(v, first1.index(), n, dest, "weft::transform", "destination");
    auto parts = dd::split_range(v.layout_data(), first1.index(), last1.index());
    dd::transform2_op<F> op{dd::ship(f)};
    Out end = dest + (last1 - first1);
    return dd::run_policy<P>([&v, &v2, &o, parts = std::move(parts), op, end] {
        dd::on_parts(v, parts, op, dd::is_parallel_v<P>, v2, o);
        return end;
    });
}

/// op-reduction of [first, last) onto init (op associative and commutative).
template <execution::execution_policy P, segmented_iterator It, class T, class Op = std::plus<>>
auto reduce(P&& policy, It first, It last, T init, Op op = {}) {
    namespace dd = distributed::detail;
    (void)policy;
    auto& v = dd::checked_range(first, last, "weft::reduce");
    auto parts = dd::split_range(v.layout_data(), first.index(), last.index());
    dd::transform_reduce_op<T, Op, dd::identity_fn> part{dd::ship(op), dd::ship(dd::identity_fn{})};
    return dd::run_policy<P>([&v, parts = std::move(parts), part, init = std::move(init), op]() mutable {
        auto partial = dd::on_parts(v, parts, part, dd::is_parallel_v<P>);
        return dd::fold_parts(std::move(init), partial, op);
    });
}

/// The sum of [first, last) from a value-initialized element.
template <execution::execution_policy P, segmented_iterator It>
auto reduce(P&& policy, It first, It last) {
    return weft::reduce(std::forward<P>(policy), first, last, distributed::detail::value_of<It>{});
}

/// reduce(op) of transform(x) over [first, last), onto init.
template <execution::execution_policy P, segmented_iterator It, class T, class Op, class Tr>
auto transform_reduce(P&& policy, It first, It last, T init, Op op, Tr tr) {
    namespace dd = distributed::detail;
    (void)policy;
    auto& v = dd::checked_range(first, last, "weft::transform_reduce");
    auto parts = dd::split_range(v.layout_data(), first.index(), last.index());
    dd::transform_reduce_op<T, Op, Tr> part{dd::ship(op), dd::ship(tr)};
    return dd::run_policy<P>([&v, parts = std::move(parts), part, init = std::move(init), op]() mutable {
        auto partial = dd::on_parts(v, parts, part, dd::is_parallel_v<P>);
        return dd::fold_parts(std::move(init), partial, op);
    });
}

/// reduce(op) of tr(first1[i], first2[i]) over [first1, last1), onto init.
template <execution::execution_policy P, segmented_iterator It1, segmented_iterator It2, class T, class Op = std::plus<>,
          class Tr = std::multiplies<>>
auto transform_reduce(P&& policy, It1 first1, It1 last1, It2 first2, T init, Op op = {}, Tr tr = {}) {
    namespace dd = distributed::detail;
    (void)policy;
    auto& v = dd::checked_range(first1, last1, "weft::transform_reduce");
    auto& v2 = dd::checked_other(v, first1.index(), last1.index() - first1.index(), first2, "weft::transform_reduce",
                                 "second input");
    auto parts = dd::split_range(v.layout_data(), first1.index(), last1.index());
    dd::transform_reduce2_op<T, Op, Tr> part{dd::ship(op), dd::ship(tr)};
    return dd::run_policy<P>([&v, &v2, parts = std::move(parts), part, init = std::move(init), op]() mutable {
        auto partial = dd::on_parts(v, parts, part, dd::is_parallel_v<P>, v2);
        return dd::fold_parts(std::move(init), partial, op);
    });
}

/// The elements of [first, last) for which pred holds.
template <execution::execution_policy P, segmented_iterator It, class F>
auto count_if(P&& policy, It first, It last, F pred) {
    namespace dd = distributed::detail;
    (void)policy;
    auto& v = dd::checked_range(first, last, "weft::count_if");
    auto parts = dd::split_range(v.layout_data(), first.index(), last.index());
    dd::count_if_op<F> op{dd::ship(pred)};
    return dd::run_policy<P>([&v, parts = std::move(parts), op] {
        std::uint64_t n = 0;
        for (std::uint64_t c : dd::on_parts(v, parts, op, dd::is_parallel_v<P>)) n += c;
        return static_cast<std::ptrdiff_t>(n);
    });
}

/// The elements of [first, last) equal to value.
template <execution::execution_policy P, segmented_iterator It, class V>
auto count(P&& policy, It first, It last, const V& value) {
    using T = distributed::detail::value_of<It>;
    return weft::count_if(std::forward<P>(policy), first, last, [value = T(value)](const T& x) { return x == value; });
}

namespace distributed::detail {
/// find_if's engine: the first element (by index) whose pred is not `negate`, or last.
template <class P, class It, class F>
auto find_first(It first, It last, F pred, bool negate, const char* what) {
    auto& v = checked_range(first, last, what);
    auto parts = split_range(v.layout_data(), first.index(), last.index());
    find_if_op<F> op{ship(pred), negate};
    return run_policy<P>([&v, parts = std::move(parts), op, first, last] {
        auto found = on_parts(v, parts, op, is_parallel_v<P>);
        for (std::size_t k = 0; k < parts.size(); ++k)
            if (found[k]) {
                const std::uint64_t global = v.layout_data().segments[parts[k].seg].first + *found[k];
                return first + static_cast<std::ptrdiff_t>(global - first.index());
            }
        return last;
    });
}
}  // namespace distributed::detail

/// The first element of [first, last) for which pred holds, or last.
template <execution::execution_policy P, segmented_iterator It, class F>
auto find_if(P&&, It first, It last, F pred) {
    return distributed::detail::find_first<P>(first, last, std::move(pred), false, "weft::find_if");
}

/// The first element of [first, last) for which pred does not hold, or last.
template <execution::execution_policy P, segmented_iterator It, class F>
auto find_if_not(P&&, It first, It last, F pred) {
    return distributed::detail::find_first<P>(first, last, std::move(pred), true, "weft::find_if_not");
}

/// The first element of [first, last) equal to value, or last.
template <execution::execution_policy P, segmented_iterator It, class V>
auto find(P&& policy, It first, It last, const V& value) {
    using T = distributed::detail::value_of<It>;
    return weft::find_if(std::forward<P>(policy), first, last, [value = T(value)](const T& x) { return x == value; });
}

namespace distributed::detail {
/// g(result), or for a task policy a future of it.
template <class P, class It, class Fut, class G>
auto then_bool(Fut&& f, G g) {
    if constexpr (execution::is_task_policy_v<P>) return std::forward<Fut>(f).then([g](auto r) { return g(r.get()); });
    else return g(std::forward<Fut>(f));
}
}  // namespace distributed::detail

/// Whether pred holds for some element of [first, last).
template <execution::execution_policy P, segmented_iterator It, class F>
auto any_of(P&&, It first, It last, F pred) {
    auto r = distributed::detail::find_first<P>(first, last, std::move(pred), false, "weft::any_of");
    return distributed::detail::then_bool<P, It>(std::move(r), [last](It it) { return it != last; });
}

/// Whether pred holds for every element of [first, last) (true for an empty range).
template <execution::execution_policy P, segmented_iterator It, class F>
auto all_of(P&&, It first, It last, F pred) {
    auto r = distributed::detail::find_first<P>(first, last, std::move(pred), true, "weft::all_of");
    return distributed::detail::then_bool<P, It>(std::move(r), [last](It it) { return it == last; });
}

/// Whether pred holds for no element of [first, last).
template <execution::execution_policy P, segmented_iterator It, class F>
auto none_of(P&&, It first, It last, F pred) {
    auto r = distributed::detail::find_first<P>(first, last, std::move(pred), false, "weft::none_of");
    return distributed::detail::then_bool<P, It>(std::move(r), [last](It it) { return it == last; });
}

namespace distributed::detail {
/// min_element, max_element and minmax_element's engine.
template <class P, class It, class C>
auto extremes_of(It first, It last, C comp, bool last_max, const char* what) {
    using T = value_of<It>;
    auto& v = checked_range(first, last, what);
    auto parts = split_range(v.layout_data(), first.index(), last.index());
    minmax_op<C> op{ship(comp), last_max};
    return run_policy<P>([&v, parts = std::move(parts), op, comp, first, last, last_max] {
        auto found = on_parts(v, parts, op, is_parallel_v<P>);
        std::pair<It, It> best{last, last};
        std::optional<T> lo, hi;
        for (std::size_t k = 0; k < parts.size(); ++k) {
            if (!found[k]) continue;
            const std::uint64_t base = v.layout_data().segments[parts[k].seg].first - first.index();
            const extremes<T>& x = *found[k];
            if (!lo || std::invoke(comp, x.min, *lo)) {  // a smaller one; ties keep the first
                lo = x.min;
                best.first = first + static_cast<std::ptrdiff_t>(base + x.min_at);
            }
            // The first largest (max_element), or the last (minmax_element).
            if (!hi || (last_max ? !std::invoke(comp, x.max, *hi) : std::invoke(comp, *hi, x.max))) {
                hi = x.max;
                best.second = first + static_cast<std::ptrdiff_t>(base + x.max_at);
            }
        }
        return best;
    });
}
}  // namespace distributed::detail

/// The first smallest element of [first, last) (last if empty).
template <execution::execution_policy P, segmented_iterator It, class C = std::less<>>
auto min_element(P&&, It first, It last, C comp = {}) {
    auto r = distributed::detail::extremes_of<P>(first, last, comp, false, "weft::min_element");
    return distributed::detail::then_bool<P, It>(std::move(r), [](std::pair<It, It> p) { return p.first; });
}

/// The first largest element of [first, last) (last if empty).
template <execution::execution_policy P, segmented_iterator It, class C = std::less<>>
auto max_element(P&&, It first, It last, C comp = {}) {
    auto r = distributed::detail::extremes_of<P>(first, last, comp, false, "weft::max_element");
    return distributed::detail::then_bool<P, It>(std::move(r), [](std::pair<It, It> p) { return p.second; });
}

/// {the first smallest, the last largest} of [first, last) ({last, last} if empty).
template <execution::execution_policy P, segmented_iterator It, class C = std::less<>>
auto minmax_element(P&&, It first, It last, C comp = {}) {
    return distributed::detail::extremes_of<P>(first, last, comp, true, "weft::minmax_element");
}

namespace distributed::detail {
/// The scans' engine: segment totals, carries in partition order, then each part's scan.
template <class P, class It, class Out, class V, class Op>
auto scan(It first, It last, Out dest, std::optional<V> init, Op op, bool inclusive, const char* what) {
    auto& v = checked_range(first, last, what);
    auto& o = checked_other(v, first.index(), last.index() - first.index(), dest, what, "destination");
    auto parts = split_range(v.layout_data(), first.index(), last.index());
    Out end = dest + (last - first);
    return run_policy<P>([&v, &o, parts = std::move(parts), init = std::move(init), op, inclusive, end]() mutable {
        const bool par = is_parallel_v<P>;
        transform_reduce_op<V, Op, identity_fn> total{ship(op), ship(identity_fn{})};
        auto totals = on_parts(v, parts, total, par);
        auto carries = scan_carries(std::move(init), totals, op);
        // Each part with its own carry: one action per part (their ops differ).
        std::vector<future<void>> fs;
        for (std::size_t k = 0; k < parts.size(); ++k) {
            scan_op<V, Op> s{ship(op), carries[k], inclusive};
            std::vector<segment_part> one{parts[k]};
            fs.push_back(weft::async([&v, &o, one = std::move(one), s] { on_parts(v, one, s, is_parallel_v<P>, o); }));
            if (!par) fs.back().wait();
        }
        for (auto& f : fs) f.get();
        return end;
    });
}
}  // namespace distributed::detail

/// dest[i] = op-sum of first[0..i] (op associative); returns dest + (last - first).
template <execution::execution_policy P, segmented_iterator It, segmented_iterator Out, class Op = std::plus<>>
auto inclusive_scan(P&&, It first, It last, Out dest, Op op = {}) {
    using V = distributed::detail::value_of<It>;
    return distributed::detail::scan<P>(first, last, dest, std::optional<V>{}, op, true, "weft::inclusive_scan");
}

/// dest[i] = init op-sum first[0..i]; returns dest + (last - first).
template <execution::execution_policy P, segmented_iterator It, segmented_iterator Out, class Op, class V>
auto inclusive_scan(P&&, It first, It last, Out dest, Op op, V init) {
    return distributed::detail::scan<P>(first, last, dest, std::optional<V>(std::move(init)), op, true,
                                        "weft::inclusive_scan");
}

/// dest[i] = init op-sum first[0..i-1]; returns dest + (last - first).
template <execution::execution_policy P, segmented_iterator It, segmented_iterator Out, class V, class Op = std::plus<>>
auto exclusive_scan(P&&, It first, It last, Out dest, V init, Op op = {}) {
    return distributed::detail::scan<P>(first, last, dest, std::optional<V>(std::move(init)), op, false,
                                        "weft::exclusive_scan");
}

}  // namespace weft
