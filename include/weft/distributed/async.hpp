// Remote actions: weft::async(action, target, args...) and weft::post(action, target,
// args...) (issue #23). The target is a locality's id; on this locality the action runs
// as an ordinary task with no serialization, elsewhere its arguments travel in a parcel
// and its result (or exception) comes back into the same weft::future local work uses.
#pragma once

#include <weft/distributed/action.hpp>
#include <weft/distributed/detail/parcelport.hpp>
#include <weft/distributed/id_type.hpp>
#include <weft/futures/async.hpp>
#include <weft/futures/future.hpp>
#include <weft/sched/post.hpp>

#include <cstddef>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

namespace weft {
namespace distributed {

/// True for the action types WEFT_PLAIN_ACTION declares.
template <class A>
concept action = requires {
    typename A::result_type;
    typename A::arguments_type;
    { A::action_name } -> std::convertible_to<std::string_view>;
    A::invoke;
};

namespace detail {

template <class Tuple, class... Args>
inline constexpr bool arguments_fit = [] {
    if constexpr (sizeof...(Args) != std::tuple_size_v<Tuple>) return false;
    else return std::is_constructible_v<Tuple, Args&&...>;
}();

/// Encodes args as the action's parameter types; if the encoding points into them
/// (zero-copy chunks), copies or moves them into a holder that lives until sent.
template <class Tuple, class... Args>
std::shared_ptr<const void> encode_arguments(serialization::output_archive& out, Args&&... args) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        (out(static_cast<const std::tuple_element_t<I, Tuple>&>(args)), ...);
    }(std::index_sequence_for<Args...>{});
    if (out.chunks().empty()) return nullptr;
    auto keep = std::make_shared<const Tuple>(std::forward<Args>(args)...);
    out.clear();
    std::apply([&out](const auto&... a) { out(a...); }, *keep);
    return keep;
}

/// Runs a posted action here; an exception ends the program (posted_action_failed).
template <class Action, class Tuple>
void run_posted(Tuple&& t) noexcept {
    try {
        std::apply(Action::function, std::forward<Tuple>(t));
    } catch (...) {
        posted_action_failed(Action::action_name, std::current_exception());
    }
}

}  // namespace detail
}  // namespace distributed

/// Runs `Action`'s function with `args` on locality `target` and returns a future of its
/// result. On this locality it is an ordinary task (arguments moved, not serialized);
/// elsewhere the arguments travel in a parcel. An exception the function throws reaches
/// the future: the standard exception types and weft's (parcel.hpp's exception_kind) as
/// themselves, any other as
/// weft::remote_exception (type name, message, locality).
/// @throws weft::runtime_state_error when no runtime runs; weft::error for an invalid
///         target or one that names no locality of this run.
/// @code
/// int square(int x) { return x * x; }
/// WEFT_PLAIN_ACTION(square, square_action);
/// weft::future<int> f = weft::async(square_action{}, weft::find_all_localities().back(), 7);
/// @endcode
template <distributed::action Action, class... Args>
future<typename Action::result_type> async(Action, const id_type& target, Args&&... args) {
    using R = typename Action::result_type;
    using tuple = typename Action::arguments_type;
    static_assert(distributed::detail::arguments_fit<tuple, Args...>,
                  "weft::async(action, target, args...): the arguments do not match the action's parameters");
    namespace dd = distributed::detail;
    dd::check_target("weft::async", target.locality_id(), target.valid());
    if (target.locality_id() == dd::here()) {
        return weft::async(task_attributes{task_priority::normal, Action::action_name.data()},
                           [t = tuple(std::forward<Args>(args)...)]() mutable -> R {
                               return std::apply(Action::function, std::move(t));
                           });
    }
    auto [id, result] = dd::continuations().template add<R>();
    try {
        serialization::output_archive& out = dd::scratch_archive();
        std::shared_ptr<const void> keep = dd::encode_arguments<tuple>(out, std::forward<Args>(args)...);
        dd::send_parcel(target.locality_id(), dd::parcel_kind::call, Action::id(), id, out, std::move(keep));
    } catch (...) {
        dd::continuations().fail(id, std::current_exception());
        throw;
    }
    return std::move(result);
}

/// Runs `Action`'s function with `args` on locality `target`, with no future. An
/// exception escaping it ends the program with a message naming the action and the
/// locality (there is nobody to hand it to).
/// @throws as weft::async(action, target, args...)
template <distributed::action Action, class... Args>
void post(Action, const id_type& target, Args&&... args) {
    using tuple = typename Action::arguments_type;
    static_assert(distributed::detail::arguments_fit<tuple, Args...>,
                  "weft::post(action, target, args...): the arguments do not match the action's parameters");
    namespace dd = distributed::detail;
    dd::check_target("weft::post", target.locality_id(), target.valid());
    if (target.locality_id() == dd::here()) {
        weft::post(task_attributes{task_priority::normal, Action::action_name.data()},
                   [t = tuple(std::forward<Args>(args)...)]() mutable { dd::run_posted<Action>(std::move(t)); });
        return;
    }
    serialization::output_archive& out = dd::scratch_archive();
    std::shared_ptr<const void> keep = dd::encode_arguments<tuple>(out, std::forward<Args>(args)...);
    dd::send_parcel(target.locality_id(), dd::parcel_kind::call, Action::id(), 0, out, std::move(keep));
}

}  // namespace weft
