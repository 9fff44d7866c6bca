// Pieces shared by weft::merge, sort, stable_sort and stable_partition: the co-rank of a
// stable merge (how a position of its output splits the two inputs, so that any stretch
// of the output can be merged on its own: "merge path"), a merge that moves a given number
// of outputs, and a scratch buffer of raw storage filled by a parallel pass.
#pragma once

#include <weft/algorithms/detail/loop.hpp>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__linux__) && __has_include(<sys/mman.h>)
#include <sys/mman.h>
#if defined(MADV_HUGEPAGE)
#define WEFT_SCRATCH_MMAP 1
#endif
#endif

// A namespace of their own: other algorithms' helpers live in detail::algo too.
namespace weft::detail::algo::order {

/// Output elements per iteration of a merge loop. The chunk parameters group these
/// pieces: even a chunk of one iteration then amortizes its co-rank search (O(log n)
/// comparisons, mostly cache misses) over enough elements.
inline constexpr std::size_t merge_piece = 2048;

/// run_loop(p, n, body, algorithm) through an erased body.
template <class P>
void loop(const P& p, std::size_t n, chunk_fn body, const char* algorithm) {
    run_loop(p, n, body, algorithm);
}

/// Runs f() as the one iteration of a loop under p: on the caller (or p's executor, for
/// a sequential policy), its exception delivered as the policy says.
template <class P, class F>
void serially(const P& p, const char* algorithm, F&& f) {
    loop(p, 1, chunk_fn([&](std::size_t, std::size_t) { f(); }), algorithm);
}

/// a / b rounded up.
inline std::size_t div_up(std::size_t a, std::size_t b) noexcept { return a / b + (a % b != 0 ? 1 : 0); }

/// The iterator i positions after `first`, for an index held as a size.
template <class It>
It advanced(It first, std::size_t i) {
    return std::next(first, static_cast<std::iter_difference_t<It>>(i));
}

/// A user comparator as a plain function object returning bool (the std algorithms used
/// inside chunks call comp(a, b); the user's may need std::invoke).
template <class Comp>
struct as_less {
    Comp* comp;
    template <class A, class B>
    bool operator()(A&& a, B&& b) const {
        return static_cast<bool>(std::invoke(*comp, std::forward<A>(a), std::forward<B>(b)));
    }
};

/// How many of the first d outputs of the stable merge of a[0, na) and b[0, nb) come from
/// a (on ties a's elements go first, as in std::merge). a(i) and b(j) return iterators to
/// the elements; d <= na + nb. O(log min(d, na)) comparisons.
template <class A, class B, class Less>
std::size_t co_rank(std::size_t d, const A& a, std::size_t na, const B& b, std::size_t nb, Less& less) {
    std::size_t lo = d > nb ? d - nb : 0;
    std::size_t hi = std::min(d, na);
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        // a[mid] is among the first d outputs unless b[d - mid - 1], which then would be
        // too, is strictly less.
        if (less(*b(d - mid - 1), *a(mid))) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/// Trivially copyable small elements are merged without a branch on the comparison (a
/// conditional move): on random keys the branch is mispredicted every other element.
template <class T>
inline constexpr bool branchless_merge = std::is_trivially_copyable_v<T> && sizeof(T) <= 2 * sizeof(void*);

/// Moves the first k outputs of the stable merge of [a, ae) and [b, be) to out, assigning
/// or (Construct) constructing them in raw storage; k <= (ae - a) + (be - b). Returns the
/// end of the output. If an element function throws while constructing, the elements
/// constructed here are destroyed first.
template <bool Construct, class In, class Out, class Less>
Out merge_move_n(In a, In ae, In b, In be, Out out, std::size_t k, Less& less) {
    using T = std::iter_value_t<In>;
    const auto put = [](Out o, auto&& v) {
        if constexpr (Construct) std::construct_at(std::addressof(*o), std::forward<decltype(v)>(v));
        else *o = std::forward<decltype(v)>(v);
    };
    const Out start = out;
    try {
        while (k > 0) {
            const auto na = static_cast<std::size_t>(ae - a);
            const auto nb = static_cast<std::size_t>(be - b);
            if (na == 0 || nb == 0) {
                In& rest = na == 0 ? b : a;
                for (; k > 0; --k, ++rest, ++out) put(out, std::ranges::iter_move(rest));
                break;
            }
            // `safe` steps cannot run past the end of either input: no bound checks in them.
            const std::size_t safe = std::min({na, nb, k});
            k -= safe;
            for (std::size_t s = 0; s < safe; ++s, ++out) {
                if constexpr (branchless_merge<T>) {
                    const bool from_b = less(*b, *a);
                    const T& va = *a;
                    const T& vb = *b;
                    put(out, T(from_b ? vb : va));
                    b += static_cast<std::iter_difference_t<In>>(from_b);
                    a += static_cast<std::iter_difference_t<In>>(!from_b);
                } else if (less(*b, *a)) {
                    put(out, std::ranges::iter_move(b));
                    ++b;
                } else {
                    put(out, std::ranges::iter_move(a));
                    ++a;
                }
            }
        }
    } catch (...) {
        if constexpr (Construct) std::destroy(start, out);
        throw;
    }
    return out;
}

/// Buffers from this size on come straight from the kernel, asking for transparent huge
/// pages: the first pass into a buffer of the range's size would otherwise take a page
/// fault every 4 KiB (a large share of a sort's time in a virtual machine).
inline constexpr std::size_t huge_scratch_bytes = std::size_t{32} << 20;

/// Raw storage for n elements of T, which the algorithm constructs in one parallel pass
/// (construct_by) and which are destroyed with the buffer.
template <class T>
class scratch {
public:
    explicit scratch(std::size_t n) : p_(allocate(n)), n_(n) {}
    scratch(const scratch&) = delete;
    scratch& operator=(const scratch&) = delete;
    ~scratch() {
        if (built_) std::destroy_n(p_, n_);
#ifdef WEFT_SCRATCH_MMAP
        if (mapped(n_)) {
            ::munmap(p_, n_ * sizeof(T));
            return;
        }
#endif
        std::allocator<T>().deallocate(p_, n_);
    }

    T* data() const noexcept { return p_; }

    /// Records the units of a constructing pass that have finished.
    struct marks {
        unsigned char* flags = nullptr;  // null: nothing to record (T is trivially destructible)
        void operator()(std::size_t first_unit, std::size_t last_unit) const noexcept {
            if (flags != nullptr) std::fill(flags + first_unit, flags + last_unit, static_cast<unsigned char>(1));
        }
    };

    /// Runs pass(marks), which must construct every element, unit by unit: each of its
    /// `units` units constructs its elements fully and then calls marks(u, u + 1) (or
    /// marks for a run of units), or constructs none (it destroys what it built before
    /// its exception leaves). If the pass throws, the elements of the marked units are
    /// destroyed (destroy_unit(u)) before the exception goes on.
    template <class Pass, class DestroyUnit>
    void construct_by(std::size_t units, Pass&& pass, DestroyUnit&& destroy_unit) {
        if constexpr (std::is_trivially_destructible_v<T>) {
            (void)units;
            (void)destroy_unit;
            pass(marks{});
        } else {
            std::vector<unsigned char> done(units, 0);
            try {
                pass(marks{done.data()});
            } catch (...) {
                for (std::size_t u = 0; u < units; ++u)
                    if (done[u] != 0) destroy_unit(u);
                throw;
            }
        }
        built_ = true;
    }

private:
    static bool mapped(std::size_t n) noexcept {
        return alignof(T) <= 4096 && n <= std::numeric_limits<std::size_t>::max() / sizeof(T) &&
               n * sizeof(T) >= huge_scratch_bytes;
    }
    static T* allocate(std::size_t n) {
#ifdef WEFT_SCRATCH_MMAP
        if (mapped(n)) {
            void* p = ::mmap(nullptr, n * sizeof(T), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (p == MAP_FAILED) throw std::bad_alloc();
            (void)::madvise(p, n * sizeof(T), MADV_HUGEPAGE);  // a hint: without it, small pages
            return static_cast<T*>(p);
        }
#endif
        return std::allocator<T>().allocate(n);
    }

    T* p_;
    std::size_t n_;
    bool built_ = false;
};

}  // namespace weft::detail::algo::order
