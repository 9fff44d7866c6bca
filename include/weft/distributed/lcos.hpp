// Distributed LCOs (issue #24; seed 004 L51: LCOs organize flow control, wherever the
// event comes from). They suspend tasks, never workers (off a worker thread, the waiting
// calls block the thread).
// - weft::distributed::promise<T>: a global id that can travel in a parcel; setting it on
//   any locality makes its future ready where it was made.
// - weft::distributed::barrier: a reusable barrier over a set of localities (one
//   participant per locality), on the collectives' barrier (MPI_Ibarrier).
// - weft::distributed::latch: a single-use countdown that lives on the locality that
//   created it, found by other localities through a basename.
// - weft::distributed::channel<T>: a FIFO channel that lives on the locality that
//   created it, found through a basename, so that senders and receivers anywhere meet.
// The latch and the channel are components (src/distributed/lcos.cpp) owned by the
// handles on the locality that created them: when the last of those goes, the latch's
// waiters fail (weft::lco_error) or the channel closes, and the component is destroyed.
// Handles made by connect() on other localities do not own it.
//
// @code
// weft::distributed::promise<int> p;
// weft::id_type pid = p.get_id();
// weft::future<int> f = p.get_future();
// weft::post(compute_action{}, weft::find_all_localities().back(), pid);  // which calls
// //   weft::set_lco_value(pid, 42);                                      // over there
// int v = f.get();
// @endcode
#pragma once

#include <weft/distributed/action.hpp>
#include <weft/distributed/collectives.hpp>
#include <weft/distributed/detail/parcelport.hpp>
#include <weft/distributed/id_type.hpp>
#include <weft/distributed/locality.hpp>
#include <weft/distributed/serialization.hpp>
#include <weft/futures/future.hpp>
#include <weft/futures/launch.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft {
namespace distributed {

/// @brief A promise whose id can be sent anywhere: weft::set_lco_value(id, v) on any
/// locality makes get_future()'s future ready here.
///
/// The promise is registered (and its id valid) from construction until it is set, or
/// until the runtime stops (an unset promise's future then fails with
/// weft::runtime_state_error). Destroying the promise object does not unregister it:
/// its future still completes when someone sets it. A second set is an error: thrown
/// by set_lco_value when the promise lives on the setter's locality, else reported on
/// stderr by the promise's locality (a rejected parcel) and ignored.
template <class T = void>
class promise {
public:
    /// Registers a new promise on this locality. @throws weft::runtime_state_error
    /// without a running runtime.
    promise() {
        detail::check_target("weft::distributed::promise", detail::here(), true);
        auto [continuation, f] = detail::continuations().template add<T>();
        id_ = id_type::object(detail::here(), id_type::lco_flag, continuation);
        future_ = std::move(f);
    }
    promise(promise&&) noexcept = default;
    promise& operator=(promise&&) noexcept = default;
    promise(const promise&) = delete;
    promise& operator=(const promise&) = delete;

    /// The promise's global id (send it anywhere; set it with weft::set_lco_value).
    id_type get_id() const noexcept { return id_; }
    /// The future that becomes ready when the promise is set; once.
    /// @throws weft::error on a second call.
    future<T> get_future() {
        if (!future_.valid()) throw weft::error("weft::distributed::promise: get_future() was already called");
        return std::move(future_);
    }

private:
    id_type id_;
    future<T> future_;
};

namespace detail {
/// Completes the promise `id` names with the value in `payload`, or sends it there.
void set_lco(const char* what, const id_type& id, const serialization::output_archive& payload,
             std::shared_ptr<const void> keep);

// The latch's and the channel's servers (src/distributed/lcos.cpp): components whose
// types stay private to that file. Each call is an action on the server `id`.
id_type latch_create(const std::string& basename, std::int64_t expected);
future<void> latch_count_down(const id_type& id, std::int64_t n);
future<void> latch_wait(const id_type& id);
future<bool> latch_try_wait(const id_type& id);
id_type channel_create(const std::string& basename, std::uint64_t capacity);
future<void> channel_send(const id_type& id, std::vector<std::byte> value);
future<std::vector<std::byte>> channel_receive(const id_type& id);
future<void> channel_close(const id_type& id);
/// The server registered under `basename` by a `what` (suspends until it is).
id_type lco_connect(const char* what, const std::string& basename);

/// The creating locality's ownership of a latch or channel server: the last handle
/// there releases it (unregisters its name, fails a latch's waiters or closes a
/// channel, then destroys it).
struct lco_owner {
    lco_owner(id_type i, bool channel, std::string name) noexcept
        : id(i), is_channel(channel), basename(std::move(name)) {}
    lco_owner(const lco_owner&) = delete;
    lco_owner& operator=(const lco_owner&) = delete;
    ~lco_owner();
    id_type id;
    bool is_channel;
    std::string basename;  ///< unregistered first
};
}  // namespace detail

/// @brief A reusable barrier over a set of localities: arrive_and_wait() on every member
/// returns once all of them have arrived, then the barrier can be used again.
///
/// One participant per locality: the k-th arrival on each member is the k-th phase (as
/// the collectives' matching rule, which it follows: every barrier has a communicator
/// of its own). Constructing one is collective over its members (each must make it,
/// with the same list, in the same order relative to its other barriers and
/// communicators); the constructor suspends until they all have.
///
/// @code
/// weft::distributed::barrier b;      // every locality, on every locality (--weft:spmd)
/// step(0);
/// b.arrive_and_wait();              // all localities finished step 0
/// step(1);
/// @endcode
class barrier {
public:
    /// Every locality. @throws weft::runtime_state_error without a running runtime.
    barrier() : barrier(find_all_localities()) {}
    /// The localities `localities` (locality ids, no duplicates).
    /// @throws weft::runtime_state_error; weft::error for an empty list, a duplicate, an id
    ///         that is not a locality's, or this locality not in the list.
    explicit barrier(const std::vector<id_type>& localities) : comm_(localities) {
        (void)comm_.rank();  // throws weft::error unless this locality is a member
    }

    /// Arrives; the future is ready once every member has arrived in this phase.
    future<void> arrive() { return collectives::barrier(comm_); }
    /// Arrives and suspends the calling task until every member has arrived.
    void arrive_and_wait() { arrive().get(); }
    /// The members.
    const collectives::communicator& communicator() const noexcept { return comm_; }

private:
    collectives::communicator comm_;
};

/// @brief A single-use countdown shared by localities: count_down() from anywhere
/// decrements it, wait() anywhere suspends the calling task until it reaches zero.
///
/// It lives on the locality that create()s it, registered under a basename (sequence
/// 0; see weft::register_with_basename); other localities connect() to it by that name.
/// Every call is an action on it (a round trip when it lives elsewhere). As
/// weft::latch, count_down() of a negative count or past zero throws weft::lco_error
/// (invalid_argument) and leaves the count unchanged. When the last handle on the
/// creating locality goes, its name is unregistered, waiters still waiting fail with
/// weft::lco_error (operation_canceled), then the latch is destroyed: later calls fail
/// with weft::error.
///
/// @code
/// namespace wd = weft::distributed;
/// const auto n = static_cast<std::ptrdiff_t>(weft::get_num_localities());
/// wd::latch done = weft::get_locality_id() == 0 ? wd::latch::create("done", n) : wd::latch::connect("done");
/// work();
/// done.arrive_and_wait();  // every locality has finished work()
/// @endcode
class latch {
public:
    /// An empty handle (every call throws weft::error).
    latch() = default;
    /// A handle (not owning) on the latch whose id is `id` (from get_id(), sent here).
    explicit latch(const id_type& id) noexcept : id_(id) {}
    /// Makes a latch on this locality that opens after `expected` count-downs and
    /// registers it under `basename`. @throws weft::lco_error (invalid_argument) for a
    /// negative `expected`; weft::error if the name is taken; weft::runtime_state_error.
    static latch create(const std::string& basename, std::ptrdiff_t expected) {
        latch l;
        l.owner_ = std::make_shared<detail::lco_owner>(detail::latch_create(basename, expected), false, basename);
        l.id_ = l.owner_->id;
        return l;
    }
    /// The latch registered under `basename` (suspends until it is registered, on any
    /// locality). @throws weft::runtime_state_error.
    static latch connect(const std::string& basename) {
        latch l;
        l.id_ = detail::lco_connect("weft::distributed::latch::connect", basename);
        return l;
    }

    /// Decrements the count by `n`; ready when done. @throws as count_down (in the future).
    future<void> async_count_down(std::ptrdiff_t n = 1) const { return detail::latch_count_down(id(), n); }
    /// Decrements the count by `n` (waits for the latch to acknowledge).
    /// @throws weft::lco_error for n < 0 or n past zero (the count is unchanged).
    void count_down(std::ptrdiff_t n = 1) const { async_count_down(n).get(); }
    /// Ready when the count is zero.
    future<void> async_wait() const { return detail::latch_wait(id()); }
    /// Suspends the calling task until the count is zero.
    void wait() const { async_wait().get(); }
    /// Whether the count is zero now.
    bool try_wait() const { return detail::latch_try_wait(id()).get(); }
    /// count_down(n), then wait().
    void arrive_and_wait(std::ptrdiff_t n = 1) const {
        count_down(n);
        wait();
    }
    /// The latch's global id (a component's).
    id_type get_id() const noexcept { return id_; }
    explicit operator bool() const noexcept { return static_cast<bool>(id_); }

private:
    const id_type& id() const {
        if (!id_) throw weft::error("weft::distributed::latch: an empty handle (use latch::create or latch::connect)");
        return id_;
    }
    std::shared_ptr<detail::lco_owner> owner_;  ///< set on the creating locality
    id_type id_;
};

/// @brief A FIFO channel of T values between localities: values sent from anywhere are
/// received anywhere, each by exactly one receiver.
///
/// It lives on the locality that create()s it (unbounded, or holding at most
/// `capacity` values), registered under a basename; other localities connect() by that
/// name. T travels through the serializer. A send is an action that completes once the
/// channel has taken the value (a send to a full bounded channel waits there for
/// room); a receive completes with the oldest value, waiting there for one. Values sent
/// by one task with send() (each awaited) arrive in the order sent; async_send()s in
/// flight at the same time may arrive in any order. close() (or the last handle on the
/// creating locality going, which also unregisters the name and then destroys the
/// channel) closes it: as weft::channel, later sends fail with
/// weft::channel_closed, receivers drain the values left and then get
/// weft::channel_closed.
///
/// @code
/// namespace wd = weft::distributed;
/// // locality 0                                // locality 1
/// auto ping = wd::channel<int>::create("ping"); auto ping = wd::channel<int>::connect("ping");
/// auto pong = wd::channel<int>::connect("pong"); auto pong = wd::channel<int>::create("pong");
/// ping.send(1);                                 pong.send(ping.receive() + 1);
/// int two = pong.receive();
/// @endcode
template <class T>
class channel {
public:
    /// An empty handle (every call throws weft::error).
    channel() = default;
    /// A handle (not owning) on the channel whose id is `id` (from get_id(), sent here).
    explicit channel(const id_type& id) noexcept : id_(id) {}
    /// Makes a channel on this locality (unbounded if `capacity` is 0) and registers it
    /// under `basename`. @throws weft::error if the name is taken; weft::runtime_state_error.
    static channel create(const std::string& basename, std::size_t capacity = 0) {
        channel c;
        c.owner_ = std::make_shared<detail::lco_owner>(detail::channel_create(basename, capacity), true, basename);
        c.id_ = c.owner_->id;
        return c;
    }
    /// The channel registered under `basename` (suspends until it is registered, on any
    /// locality). @throws weft::runtime_state_error.
    static channel connect(const std::string& basename) {
        channel c;
        c.id_ = detail::lco_connect("weft::distributed::channel::connect", basename);
        return c;
    }

    /// Sends `v`; ready once the channel has taken it (weft::channel_closed if closed).
    future<void> async_send(const T& v) const {
        const id_type& target = id();
        return detail::channel_send(target, serialization::to_bytes(v));
    }
    /// Sends `v`, suspending until the channel has taken it.
    /// @throws weft::channel_closed if the channel is closed.
    void send(const T& v) const { async_send(v).get(); }
    /// The oldest value, once there is one (weft::channel_closed once closed and drained).
    future<T> async_receive() const {
        return detail::channel_receive(id()).then(launch::sync, [](future<std::vector<std::byte>> f) {
            const std::vector<std::byte> bytes = f.get();
            T v{};
            serialization::from_bytes(bytes, v);
            return v;
        });
    }
    /// Receives the oldest value, suspending until there is one.
    /// @throws weft::channel_closed once the channel is closed and drained.
    T receive() const { return async_receive().get(); }
    /// Closes the channel (idempotent); returns once it is closed.
    void close() const { detail::channel_close(id()).get(); }
    /// The channel's global id (a component's).
    id_type get_id() const noexcept { return id_; }
    explicit operator bool() const noexcept { return static_cast<bool>(id_); }

private:
    const id_type& id() const {
        if (!id_)
            throw weft::error("weft::distributed::channel: an empty handle (use channel::create or channel::connect)");
        return id_;
    }
    std::shared_ptr<detail::lco_owner> owner_;  ///< set on the creating locality
    id_type id_;
};

}  // namespace distributed

/// Sets the distributed promise `id` names (on whichever locality made it) to `value`,
/// which must be of the promise's type. @throws weft::error if `id` is not a promise's
/// id, or (on the promise's own locality) the promise was already set.
template <class T>
void set_lco_value(const id_type& id, T&& value) {
    namespace dd = distributed::detail;
    serialization::output_archive& out = dd::scratch_archive();
    std::shared_ptr<const void> keep = dd::encode_kept(out, std::forward<T>(value));
    dd::set_lco("weft::set_lco_value", id, out, std::move(keep));
}

/// Sets the distributed promise<void> `id` names. @throws as set_lco_value(id, value).
void set_lco_value(const id_type& id);

/// Makes the distributed promise `id` names fail with `e` (rethrown by its future as the
/// same type where the type travels: see weft::async). @throws as set_lco_value.
void set_lco_exception(const id_type& id, std::exception_ptr e);

}  // namespace weft
