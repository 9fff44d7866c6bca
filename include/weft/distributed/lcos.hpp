// Distributed LCOs (issue #24; seed 004 L51: LCOs organize flow control, wherever the
// event comes from). A weft::distributed::promise<T> has a global id that can travel in
// a parcel: setting it on any locality makes its future ready where it was made.
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
#include <weft/distributed/detail/parcelport.hpp>
#include <weft/distributed/id_type.hpp>
#include <weft/futures/future.hpp>

#include <exception>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

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
}  // namespace detail
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
