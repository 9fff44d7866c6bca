// Collective operations over localities (issue #24): all_reduce, reduce, broadcast,
// all_gather, gather, scatter, all_to_all, exclusive_scan and barrier, over every
// locality or a sub-group (a communicator), each returning a weft::future.
//
// **Matching rule** (MPI's): the collective calls on one communicator are matched by
// their order on each locality: the k-th call on a communicator on every member is one
// collective, whatever the task or thread that makes it. Calls may be in flight at once
// (call A, do not wait, call B): they stay matched by order. Every member must make the
// same k-th call (same operation, same type, same root); what is detected otherwise:
// - on the parcel path (below), a different operation, value type or root is detected
//   (every contribution and result carries a hash of the three): the root's future and
//   those of the members waiting for a result the root's call sends get a weft::error
//   saying the calls do not match; a member waiting for a result the root's kind of
//   call does not send (all_reduce against the root's reduce) waits until the runtime
//   stops (see Shutdown);
// - on the MPI path, nothing is: MPI's own behaviour (garbage, an MPI error that ends
//   the program, or a call that never completes); nor a locality that takes the MPI path
//   while another takes the parcel path for the same call (both wait until the runtime
//   stops, see Shutdown); nor all_reduce/reduce vectors of different lengths on the MPI
//   path.
//
// **Two paths.** Where T is an arithmetic type (not bool) and the operation is
// std::plus, std::multiplies, min_op or max_op, all_reduce, reduce and exclusive_scan run
// as MPI's non-blocking collectives (MPI_Iallreduce, MPI_Ireduce, MPI_Iexscan; also for a
// std::vector of such a type, element by element); broadcast, all_gather, gather,
// scatter and all_to_all of a trivially copyable (bitwise) type run as MPI_Ibcast,
// MPI_Iallgather, MPI_Igather, MPI_Iscatter and MPI_Ialltoall of its bytes (a call of
// more than INT_MAX elements or bytes throws weft::error: MPI counts are ints); barrier is
// MPI_Ibarrier; reduce and all_reduce of 64 KiB and more run as binomial trees of
// point-to-point messages instead (Open MPI's MPI_Ireduce is slow there; see
// src/distributed/mpi_collectives.cpp). They run on weft's own communicators (never MPI_COMM_WORLD), started and
// completed by the transport's progress() (the one poller at a time): no worker blocks
// in MPI, and a task that waits in get() suspends. Any other serializable T and any
// callable T(T, T) take the parcel path: every contribution, serialized, goes to the
// root (group rank 0 for the all_* operations and exclusive_scan) in one parcel (a flat
// tree: no forwarding), the root combines them in rank order, op(op(v0, v1), v2)...,
// (so the operation need not commute, only associate) and sends each member its result.
// Contributions that arrive before the root's own call wait for it, keyed by
// (communicator, call number).
//
// **Without MPI**, or with one locality, or on a communicator of one member, every
// collective completes at once with the obvious result.
//
// **Shutdown.** A collective still pending when the runtime stops (a member never made
// the matching call and nobody waits on the future) fails its future with
// weft::runtime_state_error. A task that waits on such a collective keeps the runtime
// from stopping, as a task that waits for anything for ever does. Termination detection
// counts parcels, not MPI collectives; that is safe: a member that has yet to post its
// part of a collective is running the task that will post it, so it is not idle and no
// termination wave completes before it has posted; once every member has posted, MPI
// completes the collective by itself (the transport's close() waits for it).
//
// Example (tests/distributed/collectives.cpp, every locality runs it with --weft:spmd):
// @code
// namespace wc = weft::collectives;
// int sum = wc::all_reduce(int(weft::get_locality_id()), std::plus<>{}).get();
// wc::communicator half = wc::world().split(weft::get_locality_id() % 2);
// std::vector<int> got = wc::all_gather(half, 7).get();  // half.size() sevens
// @endcode
#pragma once

#include <weft/config/errors.hpp>
#include <weft/distributed/id_type.hpp>
#include <weft/distributed/serialization.hpp>
#include <weft/futures/future.hpp>
#include <weft/futures/make_ready_future.hpp>
#include <weft/futures/promise.hpp>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

namespace weft::collectives {

/// The smaller of two values (`b < a ? b : a`); on the MPI path, MPI_MIN.
struct min_op {
    template <class T>
    T operator()(const T& a, const T& b) const {
        return b < a ? b : a;
    }
};
/// The larger of two values (`a < b ? b : a`); on the MPI path, MPI_MAX.
struct max_op {
    template <class T>
    T operator()(const T& a, const T& b) const {
        return a < b ? b : a;
    }
};

namespace detail {

enum class kind : std::uint8_t { all_reduce, reduce, broadcast, all_gather, gather, scatter, all_to_all, exclusive_scan, barrier };
/// An MPI element type (bytes: MPI_BYTE).
enum class dtype : std::uint8_t { none, i8, u8, i16, u16, i32, u32, i64, u64, f32, f64, f128, bytes };
/// An MPI reduction operation.
enum class rop : std::uint8_t { none, sum, prod, min, max };

/// A communicator's shared state (compiled: src/distributed/collectives.cpp).
struct group;

/// One collective on the MPI path: what progress() posts, and the future to complete.
/// Allocated by the caller, owned by the compiled part once submitted (deleted after
/// done() or failed(); leaked if the runtime stops with its request still in MPI).
struct mpi_call {
    kind what = kind::barrier;
    dtype type = dtype::none;
    rop op = rop::none;
    std::uint32_t root = 0;   ///< a group rank
    const void* send = nullptr;
    void* recv = nullptr;
    std::size_t count = 0;    ///< elements of `type` per member (bytes for dtype::bytes)
    const void* comm = nullptr;  ///< set by the compiled part: the group's MPI_Comm*
    std::shared_ptr<const void> keep;  ///< set by the compiled part: the group, alive until done
    std::uint64_t sequence = 0;  ///< set by the compiled part: the call's number on its group
    std::shared_ptr<void> steps;  ///< the compiled part's: a call made of several MPI requests
    virtual ~mpi_call() = default;
    /// MPI completed the operation: the result is in place (under progress()'s lock).
    virtual void done() noexcept = 0;
    virtual void failed(std::exception_ptr e) noexcept = 0;
};

/// One collective on the parcel path (see the header comment).
struct parcel_call {
    virtual ~parcel_call() = default;
    /// On the root, once every contribution is there (in[r]: group rank r's bytes;
    /// empty for members that send none): the results, one per rank, or one for all.
    virtual std::vector<std::vector<std::byte>> combine(std::vector<std::vector<std::byte>>& in) = 0;
    /// This member's result arrived (may throw: a result that does not decode).
    virtual void done(std::span<const std::byte> result) = 0;
    virtual void failed(std::exception_ptr e) noexcept = 0;
};

/// Checks that a runtime runs and this locality is a member of `g`; returns the
/// group's size. @throws weft::runtime_state_error, weft::error (naming `what`)
std::uint32_t check_member(const group& g, const char* what);
std::uint32_t group_rank(const group& g) noexcept;
std::uint32_t group_size(const group& g) noexcept;
const std::vector<std::uint32_t>& group_members(const group& g) noexcept;
/// Submits an MPI-path collective (deletes `c` if it throws).
void submit_mpi(group& g, mpi_call* c);
/// Submits a parcel-path collective. Who contributes and who waits for a result
/// follows from `k`: for broadcast and scatter only the root contributes (`mine`), for
/// the others every member; for reduce and gather only the root waits for a result.
/// `c` combines on the root and completes a member that waits (null on a member that
/// neither combines nor waits).
void submit_parcel(group& g, kind k, std::uint64_t check, std::uint32_t root, std::vector<std::byte> mine,
                   std::unique_ptr<parcel_call> c);
std::shared_ptr<group> world_group();
std::shared_ptr<group> make_group(std::vector<std::uint32_t> members);
[[noreturn]] void throw_bad_root(const char* what, std::uint32_t root, std::uint32_t size);
[[noreturn]] void throw_bad_size(const char* what, std::size_t got, std::uint32_t size);
/// A bitwise collective whose bytes per call exceed INT_MAX (MPI's counts are ints).
[[noreturn]] void throw_too_large(const char* what);

template <class T>
constexpr dtype dtype_of() noexcept {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, bool> || !std::is_arithmetic_v<U>) {
        return dtype::none;
    } else if constexpr (std::is_floating_point_v<U>) {
        if constexpr (std::is_same_v<U, float>) return dtype::f32;
        else if constexpr (std::is_same_v<U, double>) return dtype::f64;
        else if constexpr (std::is_same_v<U, long double>) return dtype::f128;
        else return dtype::none;
    } else {
        constexpr bool s = std::is_signed_v<U>;
        if constexpr (sizeof(U) == 1) return s ? dtype::i8 : dtype::u8;
        else if constexpr (sizeof(U) == 2) return s ? dtype::i16 : dtype::u16;
        else if constexpr (sizeof(U) == 4) return s ? dtype::i32 : dtype::u32;
        else if constexpr (sizeof(U) == 8) return s ? dtype::i64 : dtype::u64;
        else return dtype::none;
    }
}

template <class Op, class T>
constexpr rop rop_of() noexcept {
    using O = std::remove_cvref_t<Op>;
    if constexpr (std::is_same_v<O, std::plus<>> || std::is_same_v<O, std::plus<T>>) return rop::sum;
    else if constexpr (std::is_same_v<O, std::multiplies<>> || std::is_same_v<O, std::multiplies<T>>) return rop::prod;
    else if constexpr (std::is_same_v<O, min_op>) return rop::min;
    else if constexpr (std::is_same_v<O, max_op>) return rop::max;
    else return rop::none;
}

template <class T>
struct element {
    using type = T;
    static constexpr bool vector = false;
};
template <class T>
struct element<std::vector<T>> {
    using type = T;
    static constexpr bool vector = true;
};

/// T, Op reduce on the MPI path (a scalar, or a vector element by element).
template <class T, class Op>
inline constexpr bool mpi_reducible =
    dtype_of<typename element<T>::type>() != dtype::none && rop_of<Op, typename element<T>::type>() != rop::none;
/// T travels as its bytes on the MPI path.
template <class T>
inline constexpr bool mpi_bitwise = serialization::detail::bitwise<T>;

/// FNV-1a of the operation, the type's name and the root: what the parcel path compares.
inline std::uint64_t call_check(kind k, const std::type_info& t, std::uint32_t root) noexcept {
    std::uint64_t h = 0xcbf29ce484222325ull;
    auto mix = [&h](std::uint64_t x) {
        for (int i = 0; i < 8; ++i) h = (h ^ ((x >> (8 * i)) & 0xffu)) * 0x100000001b3ull;
    };
    mix(static_cast<std::uint64_t>(k));
    for (const char* p = t.name(); *p != '\0'; ++p) mix(static_cast<unsigned char>(*p));
    mix(root);
    return h == 0 ? 1 : h;  // 0: no contribution yet
}

/// An MPI-path call holding its buffers and the promise of R.
template <class R, class Send>
struct typed_mpi_call final : mpi_call {
    Send out{};
    R result{};
    bool zero_result = false;  ///< exclusive_scan on rank 0: MPI leaves the result undefined
    weft::promise<R> p;
    void done() noexcept override {
        if (zero_result) result = R{};
        try {
            p.set_value(std::move(result));
        } catch (...) {
        }
    }
    void failed(std::exception_ptr e) noexcept override {
        try {
            p.set_exception(std::move(e));
        } catch (...) {
        }
    }
};

struct barrier_mpi_call final : mpi_call {
    weft::promise<void> p;
    void done() noexcept override {
        try {
            p.set_value();
        } catch (...) {
        }
    }
    void failed(std::exception_ptr e) noexcept override {
        try {
            p.set_exception(std::move(e));
        } catch (...) {
        }
    }
};

/// A parcel-path call: `Combine` runs on the root, the result decodes into R.
template <class R, class Combine>
struct typed_parcel_call final : parcel_call {
    explicit typed_parcel_call(Combine c) : combine_(std::move(c)) {}
    std::vector<std::vector<std::byte>> combine(std::vector<std::vector<std::byte>>& in) override { return combine_(in); }
    void done(std::span<const std::byte> result) override {
        if constexpr (std::is_void_v<R>) {
            p.set_value();
        } else {
            R r{};
            serialization::from_bytes(result, r);
            p.set_value(std::move(r));
        }
    }
    void failed(std::exception_ptr e) noexcept override {
        try {
            p.set_exception(std::move(e));
        } catch (...) {
        }
    }
    Combine combine_;
    weft::promise<R> p;
};

template <class T>
T decode(std::span<const std::byte> b) {
    T v{};
    serialization::from_bytes(b, v);
    return v;
}

/// Submits a parcel-path call returning R (see submit_parcel); `wait`: this member
/// waits for a result (else `local` is its result, at once).
template <class R, class Combine>
future<R> parcel_path(group& g, kind k, const std::type_info& t, std::uint32_t root, bool wait,
                      std::vector<std::byte> mine, Combine combine, R local = R{}) {
    std::unique_ptr<typed_parcel_call<R, Combine>> c;
    future<R> f;
    if (wait || group_rank(g) == root) {
        c = std::make_unique<typed_parcel_call<R, Combine>>(std::move(combine));
        if (wait) f = c->p.get_future();
    }
    submit_parcel(g, k, call_check(k, t, root), root, std::move(mine), std::move(c));
    if (!wait) return weft::make_ready_future(std::move(local));
    return f;
}

/// The fold of the contributions in rank order (the root's part of all_reduce/reduce).
template <class T, class Op>
T fold(std::vector<std::vector<std::byte>>& in, Op& op) {
    T acc = decode<T>(in[0]);
    for (std::size_t r = 1; r < in.size(); ++r) acc = op(std::move(acc), decode<T>(in[r]));
    return acc;
}

template <class T, class Op>
future<T> reduce_impl(group& g, kind k, T value, Op op, std::uint32_t root, const char* what) {
    const std::uint32_t n = check_member(g, what);
    if (root >= n) throw_bad_root(what, root, n);
    if (n == 1) return weft::make_ready_future(std::move(value));
    const bool everyone = k == kind::all_reduce;
    const bool is_root = group_rank(g) == root;
    if constexpr (mpi_reducible<T, Op>) {
        using E = typename element<T>::type;
        if constexpr (element<T>::vector)
            if (value.size() > static_cast<std::size_t>(INT_MAX))
                throw weft::error(std::string(what) + ": a vector of more than INT_MAX elements");
        auto c = std::make_unique<typed_mpi_call<T, T>>();
        c->what = k;
        c->type = dtype_of<E>();
        c->op = rop_of<Op, E>();
        c->root = root;
        if constexpr (element<T>::vector) {
            c->count = value.size();
            if (everyone || is_root) c->result.resize(value.size());
            c->out = std::move(value);
            c->send = c->out.data();
            c->recv = everyone || is_root ? c->result.data() : nullptr;
            if (!everyone && !is_root) c->result = c->out;  // a non-root's own value
        } else {
            c->count = 1;
            c->out = value;
            c->send = &c->out;
            c->recv = &c->result;
            if (!everyone && !is_root) c->result = value;
        }
        future<T> f = c->p.get_future();
        submit_mpi(g, c.release());
        return f;
    } else {
        if (!everyone && !is_root) {
            const T own = value;
            return parcel_path<T>(g, k, typeid(T), root, false, serialization::to_bytes(value),
                                  [](std::vector<std::vector<std::byte>>&) { return std::vector<std::vector<std::byte>>{}; },
                                  own);
        }
        return parcel_path<T>(g, k, typeid(T), root, true, serialization::to_bytes(value),
                              [op](std::vector<std::vector<std::byte>>& in) mutable {
                                  return std::vector<std::vector<std::byte>>{serialization::to_bytes(fold<T>(in, op))};
                              });
    }
}

/// The MPI path's byte count for `n` elements of T per member, if it fits an int.
template <class T>
bool fits_int(std::size_t n) noexcept {
    return n <= static_cast<std::size_t>(INT_MAX) / sizeof(T);
}

}  // namespace detail

/// @brief A group of localities that collectives run over: its members in order, a
/// locality's rank being its position in that list. Copies share the group.
///
/// Creating a communicator from a list of localities is itself collective over its
/// members: every member must create it, with the same list, in the same order
/// relative to the other communicators it creates (that order gives the group its
/// identity); a task creating one suspends until every member has. A locality not in
/// the list gets a communicator it cannot use (each collective throws weft::error).
class communicator {
public:
    /// Every locality (the same as world()).
    /// @throws weft::runtime_state_error when no runtime runs.
    communicator() : g_(detail::world_group()) {}
    /// The localities `localities` (ids in [0, get_num_localities()), no duplicates),
    /// ranked in the order given. Collective over them (see the class).
    /// @throws weft::runtime_state_error; weft::error for an empty list, a duplicate or
    ///         a locality not in this run.
    explicit communicator(std::vector<std::uint32_t> localities) : g_(detail::make_group(std::move(localities))) {}
    /// The same from locality ids. @throws as above; weft::error for an id that does
    /// not name a locality.
    explicit communicator(const std::vector<id_type>& localities) : g_(detail::make_group(ids(localities))) {}

    /// Collective over this communicator: the members that give the same `colour`, as a
    /// communicator each, ranked as here. Every member calls it (it counts as one of the
    /// communicator's collectives in the matching order); the call suspends the task
    /// until the new communicator exists.
    /// @code
    /// wc::communicator parity = wc::world().split(weft::get_locality_id() % 2);
    /// @endcode
    communicator split(std::uint32_t colour) const;

    /// This locality's rank in the group. @throws weft::error if it is not a member.
    std::uint32_t rank() const;
    /// The members.
    std::uint32_t size() const noexcept { return detail::group_size(*g_); }
    /// The members' locality numbers, by rank.
    const std::vector<std::uint32_t>& localities() const noexcept { return detail::group_members(*g_); }

    /// Internal: the shared state.
    detail::group& state() const noexcept { return *g_; }

private:
    static std::vector<std::uint32_t> ids(const std::vector<id_type>& localities) {
        std::vector<std::uint32_t> out;
        out.reserve(localities.size());
        for (const id_type& id : localities) {
            if (!id.is_locality()) throw weft::error("weft::collectives::communicator: " + id.to_string() + " is not a locality");
            out.push_back(id.locality_id());
        }
        return out;
    }
    std::shared_ptr<detail::group> g_;
};

/// Every locality, ranked by locality number. @throws weft::runtime_state_error when no
/// runtime runs.
inline communicator world() { return communicator(); }

/// @brief Combines every member's `value` with `op` (in rank order: op(op(v0, v1), v2)
/// ...) and gives the result to every member.
/// @param comm the group (world() if omitted); @param op any callable T(T, T), associative
/// @return a future of the combined value
/// @throws weft::runtime_state_error when no runtime runs; weft::error if this locality
///         is not in `comm`
/// @code
/// double lo = wc::all_reduce(x, wc::min_op{}).get();
/// @endcode
template <class T, class Op>
future<T> all_reduce(const communicator& comm, T value, Op op) {
    return detail::reduce_impl(comm.state(), detail::kind::all_reduce, std::move(value), std::move(op), 0,
                               "weft::collectives::all_reduce");
}
/// all_reduce over world().
template <class T, class Op>
future<T> all_reduce(T value, Op op) {
    return all_reduce(world(), std::move(value), std::move(op));
}

/// @brief Combines every member's `value` with `op` on group rank `root`.
/// @return on the root, the combined value; on every other member, its own `value`
///         (ready at once)
/// @throws as all_reduce; weft::error if root >= comm.size()
template <class T, class Op>
future<T> reduce(const communicator& comm, T value, Op op, std::uint32_t root) {
    return detail::reduce_impl(comm.state(), detail::kind::reduce, std::move(value), std::move(op), root,
                               "weft::collectives::reduce");
}
/// reduce over world().
template <class T, class Op>
future<T> reduce(T value, Op op, std::uint32_t root) {
    return reduce(world(), std::move(value), std::move(op), root);
}

/// @brief Group rank `root`'s `value`, on every member (the value given elsewhere is
/// ignored). @throws as reduce
template <class T>
future<T> broadcast(const communicator& comm, T value, std::uint32_t root) {
    constexpr const char* what = "weft::collectives::broadcast";
    detail::group& g = comm.state();
    const std::uint32_t n = detail::check_member(g, what);
    if (root >= n) detail::throw_bad_root(what, root, n);
    if (n == 1) return weft::make_ready_future(std::move(value));
    const bool is_root = detail::group_rank(g) == root;
    if constexpr (detail::mpi_bitwise<T>) {
        auto c = std::make_unique<detail::typed_mpi_call<T, char>>();
        c->what = detail::kind::broadcast;
        c->type = detail::dtype::bytes;
        c->root = root;
        c->count = sizeof(T);
        if (is_root) c->result = value;
        c->recv = &c->result;
        future<T> f = c->p.get_future();
        detail::submit_mpi(g, c.release());
        return f;
    } else {
        // Only the root sends; it has its result at once.
        std::vector<std::byte> mine = is_root ? serialization::to_bytes(value) : std::vector<std::byte>{};
        return detail::parcel_path<T>(
            g, detail::kind::broadcast, typeid(T), root, !is_root, std::move(mine),
            [root](std::vector<std::vector<std::byte>>& in) { return std::vector<std::vector<std::byte>>{std::move(in[root])}; },
            std::move(value));
    }
}
/// broadcast over world().
template <class T>
future<T> broadcast(T value, std::uint32_t root) {
    return broadcast(world(), std::move(value), root);
}

namespace detail {

template <class T>
future<std::vector<T>> gather_impl(group& g, kind k, T value, std::uint32_t root, const char* what) {
    const std::uint32_t n = check_member(g, what);
    if (root >= n) throw_bad_root(what, root, n);
    const bool everyone = k == kind::all_gather;
    const bool is_root = group_rank(g) == root;
    if (n == 1) return weft::make_ready_future(std::vector<T>{std::move(value)});
    if constexpr (mpi_bitwise<T>) {
        if (!fits_int<T>(n)) throw_too_large(what);
        auto c = std::make_unique<typed_mpi_call<std::vector<T>, T>>();
        c->what = k;
        c->type = dtype::bytes;
        c->root = root;
        c->count = sizeof(T);
        c->out = value;
        c->send = &c->out;
        if (everyone || is_root) {
            c->result.resize(n);
            c->recv = c->result.data();
        }
        future<std::vector<T>> f = c->p.get_future();
        submit_mpi(g, c.release());
        return f;
    } else {
        return parcel_path<std::vector<T>>(g, k, typeid(T), root, everyone || is_root, serialization::to_bytes(value),
                                           [](std::vector<std::vector<std::byte>>& in) {
                                               std::vector<T> all;
                                               all.reserve(in.size());
                                               for (auto& b : in) all.push_back(decode<T>(b));
                                               return std::vector<std::vector<std::byte>>{serialization::to_bytes(all)};
                                           });
    }
}

}  // namespace detail

/// @brief Every member's `value`, indexed by group rank, on every member.
/// @throws as all_reduce
template <class T>
future<std::vector<T>> all_gather(const communicator& comm, T value) {
    return detail::gather_impl(comm.state(), detail::kind::all_gather, std::move(value), 0, "weft::collectives::all_gather");
}
/// all_gather over world().
template <class T>
future<std::vector<T>> all_gather(T value) {
    return all_gather(world(), std::move(value));
}

/// @brief Every member's `value`, indexed by group rank, on group rank `root`; an empty
/// vector (ready at once) elsewhere. @throws as reduce
template <class T>
future<std::vector<T>> gather(const communicator& comm, T value, std::uint32_t root) {
    return detail::gather_impl(comm.state(), detail::kind::gather, std::move(value), root, "weft::collectives::gather");
}
/// gather over world().
template <class T>
future<std::vector<T>> gather(T value, std::uint32_t root) {
    return gather(world(), std::move(value), root);
}

/// @brief Group rank `root`'s `values[r]` to each member r (`values` is ignored, and may
/// be empty, elsewhere).
/// @throws as reduce; on the root, weft::error if values.size() != comm.size() (the
///         other members then wait until the runtime stops: see the header)
template <class T>
future<T> scatter(const communicator& comm, std::vector<T> values, std::uint32_t root) {
    constexpr const char* what = "weft::collectives::scatter";
    detail::group& g = comm.state();
    const std::uint32_t n = detail::check_member(g, what);
    if (root >= n) detail::throw_bad_root(what, root, n);
    const bool is_root = detail::group_rank(g) == root;
    if (is_root && values.size() != n) detail::throw_bad_size(what, values.size(), n);
    if (n == 1) return weft::make_ready_future(std::move(values.front()));
    if constexpr (detail::mpi_bitwise<T>) {
        if (!detail::fits_int<T>(n)) detail::throw_too_large(what);
        auto c = std::make_unique<detail::typed_mpi_call<T, std::vector<T>>>();
        c->what = detail::kind::scatter;
        c->type = detail::dtype::bytes;
        c->root = root;
        c->count = sizeof(T);
        if (is_root) {
            c->out = std::move(values);
            c->send = c->out.data();
        }
        c->recv = &c->result;
        future<T> f = c->p.get_future();
        detail::submit_mpi(g, c.release());
        return f;
    } else {
        std::vector<std::byte> mine = is_root ? serialization::to_bytes(values) : std::vector<std::byte>{};
        return detail::parcel_path<T>(g, detail::kind::scatter, typeid(T), root, true, std::move(mine),
                                      [root](std::vector<std::vector<std::byte>>& in) {
                                          const auto all = detail::decode<std::vector<T>>(in[root]);
                                          std::vector<std::vector<std::byte>> out;
                                          out.reserve(all.size());
                                          for (const T& v : all) out.push_back(serialization::to_bytes(v));
                                          return out;
                                      });
    }
}
/// scatter over world().
template <class T>
future<T> scatter(std::vector<T> values, std::uint32_t root) {
    return scatter(world(), std::move(values), root);
}

/// @brief Member r's `values[s]` goes to member s: each member gets the vector of what
/// every member sent it, indexed by sender's group rank.
/// @throws as all_reduce; weft::error if values.size() != comm.size() (on that member:
///         the others then wait until the runtime stops)
template <class T>
future<std::vector<T>> all_to_all(const communicator& comm, std::vector<T> values) {
    constexpr const char* what = "weft::collectives::all_to_all";
    detail::group& g = comm.state();
    const std::uint32_t n = detail::check_member(g, what);
    if (values.size() != n) detail::throw_bad_size(what, values.size(), n);
    if (n == 1) return weft::make_ready_future(std::move(values));
    if constexpr (detail::mpi_bitwise<T>) {
        if (!detail::fits_int<T>(n)) detail::throw_too_large(what);
        auto c = std::make_unique<detail::typed_mpi_call<std::vector<T>, std::vector<T>>>();
        c->what = detail::kind::all_to_all;
        c->type = detail::dtype::bytes;
        c->count = sizeof(T);
        c->out = std::move(values);
        c->send = c->out.data();
        c->result.resize(n);
        c->recv = c->result.data();
        future<std::vector<T>> f = c->p.get_future();
        detail::submit_mpi(g, c.release());
        return f;
    } else {
        // Through group rank 0 (the parcel path's flat tree): n^2 values pass there.
        return detail::parcel_path<std::vector<T>>(g, detail::kind::all_to_all, typeid(T), 0, true,
                                                   serialization::to_bytes(values),
                                                   [](std::vector<std::vector<std::byte>>& in) {
                                                       std::vector<std::vector<T>> from;
                                                       from.reserve(in.size());
                                                       for (auto& b : in) from.push_back(detail::decode<std::vector<T>>(b));
                                                       std::vector<std::vector<std::byte>> out;
                                                       for (std::size_t r = 0; r < from.size(); ++r) {
                                                           std::vector<T> mine;
                                                           mine.reserve(from.size());
                                                           for (auto& v : from) mine.push_back(std::move(v[r]));
                                                           out.push_back(serialization::to_bytes(mine));
                                                       }
                                                       return out;
                                                   });
    }
}
/// all_to_all over world().
template <class T>
future<std::vector<T>> all_to_all(std::vector<T> values) {
    return all_to_all(world(), std::move(values));
}

/// @brief The combination with `op` of the values of the members ranked below this one
/// (op(op(v0, v1), ... v(r-1))); group rank 0 gets T{} (a value-initialized T: MPI
/// leaves it undefined, weft does not).
/// @throws as all_reduce
template <class T, class Op>
future<T> exclusive_scan(const communicator& comm, T value, Op op) {
    constexpr const char* what = "weft::collectives::exclusive_scan";
    detail::group& g = comm.state();
    const std::uint32_t n = detail::check_member(g, what);
    if (n == 1) return weft::make_ready_future(T{});
    if constexpr (detail::mpi_reducible<T, Op> && !detail::element<T>::vector) {
        auto c = std::make_unique<detail::typed_mpi_call<T, T>>();
        c->what = detail::kind::exclusive_scan;
        c->type = detail::dtype_of<T>();
        c->op = detail::rop_of<Op, T>();
        c->count = 1;
        c->out = value;
        c->send = &c->out;
        c->recv = &c->result;
        c->zero_result = detail::group_rank(g) == 0;
        future<T> f = c->p.get_future();
        detail::submit_mpi(g, c.release());
        return f;
    } else {
        return detail::parcel_path<T>(g, detail::kind::exclusive_scan, typeid(T), 0, true,
                                      serialization::to_bytes(value), [op](std::vector<std::vector<std::byte>>& in) mutable {
                                          std::vector<std::vector<std::byte>> out;
                                          out.reserve(in.size());
                                          out.push_back(serialization::to_bytes(T{}));
                                          T acc = detail::decode<T>(in[0]);
                                          for (std::size_t r = 1; r < in.size(); ++r) {
                                              out.push_back(serialization::to_bytes(acc));
                                              if (r + 1 < in.size()) acc = op(std::move(acc), detail::decode<T>(in[r]));
                                          }
                                          return out;
                                      });
    }
}
/// exclusive_scan over world().
template <class T, class Op>
future<T> exclusive_scan(T value, Op op) {
    return exclusive_scan(world(), std::move(value), std::move(op));
}

/// @brief Ready on every member once every member has called it (MPI_Ibarrier).
/// @throws as all_reduce
future<void> barrier(const communicator& comm);
/// barrier over world().
future<void> barrier();

inline communicator communicator::split(std::uint32_t colour) const {
    const std::vector<std::uint32_t> colours = all_gather(*this, colour).get();
    std::vector<std::uint32_t> members;
    for (std::size_t r = 0; r < colours.size(); ++r)
        if (colours[r] == colour) members.push_back(localities()[r]);
    return communicator(std::move(members));
}

inline std::uint32_t communicator::rank() const {
    detail::check_member(*g_, "weft::collectives::communicator::rank");
    return detail::group_rank(*g_);
}

}  // namespace weft::collectives
