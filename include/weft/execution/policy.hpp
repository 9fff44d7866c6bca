// Execution policies (seed 003 §4.1): what may run concurrently. Each policy carries an
// executor (where and in what order) and executor parameters (how much work per agent);
// `policy.on(executor)` and `policy.with(parameters...)` return new policies, and
// `policy(task)` the task variant whose algorithms return a weft::future at once.
#pragma once

#include <weft/execution/executor_traits.hpp>
#include <weft/execution/executors.hpp>
#include <weft/execution/parameters.hpp>

#include <tuple>
#include <type_traits>
#include <utility>

namespace weft::execution {

/// Passed to a policy to get its task variant: par(task), seq(task).
struct task_policy_tag {
    explicit constexpr task_policy_tag() = default;
};
inline constexpr task_policy_tag task{};

/// The kinds of policy. A kind says whether iterations may run in parallel, whether they
/// may be interleaved on one thread (vectorized; an exception then terminates, as the
/// standard says), and whether algorithms return a future. Users may define their own
/// kind with the same three constants and `task_kind` / `sync_kind` aliases.
struct sequenced_kind {
    static constexpr bool parallel = false, unsequenced = false, is_task = false;
};
struct sequenced_task_kind {
    static constexpr bool parallel = false, unsequenced = false, is_task = true;
};
struct parallel_kind {
    static constexpr bool parallel = true, unsequenced = false, is_task = false;
};
struct parallel_task_kind {
    static constexpr bool parallel = true, unsequenced = false, is_task = true;
};
struct parallel_unsequenced_kind {
    static constexpr bool parallel = true, unsequenced = true, is_task = false;
};
struct unsequenced_kind {
    static constexpr bool parallel = false, unsequenced = true, is_task = false;
};

namespace detail {
template <class Kind>
struct task_of;
template <>
struct task_of<sequenced_kind> {
    using type = sequenced_task_kind;
};
template <>
struct task_of<sequenced_task_kind> {
    using type = sequenced_task_kind;
};
template <>
struct task_of<parallel_kind> {
    using type = parallel_task_kind;
};
template <>
struct task_of<parallel_task_kind> {
    using type = parallel_task_kind;
};
template <class Kind>
    requires requires { typename Kind::task_kind; }
struct task_of<Kind> {
    using type = typename Kind::task_kind;
};

/// The kind a task kind's algorithm runs with inside its task.
template <class Kind>
struct sync_of {
    using type = Kind;
};
template <>
struct sync_of<sequenced_task_kind> {
    using type = sequenced_kind;
};
template <>
struct sync_of<parallel_task_kind> {
    using type = parallel_kind;
};
template <class Kind>
    requires requires { typename Kind::sync_kind; }
struct sync_of<Kind> {
    using type = typename Kind::sync_kind;
};
}  // namespace detail

/// The parameters a policy carries (chunk and cores parameters), in the order given.
template <executor_parameter... Ps>
class execution_parameters {
public:
    constexpr execution_parameters() = default;
    constexpr explicit execution_parameters(Ps... ps)
        requires(sizeof...(Ps) > 0)
        : ps_(std::move(ps)...) {}
    constexpr const std::tuple<Ps...>& get() const noexcept { return ps_; }

private:
    std::tuple<Ps...> ps_;
};

/// An execution policy of kind `Kind` running on `Executor` with `Params`.
template <class Kind, executor Executor, class Params = execution_parameters<>>
class basic_execution_policy {
public:
    using kind = Kind;
    using executor_type = Executor;
    using parameters_type = Params;

    constexpr basic_execution_policy() = default;
    constexpr basic_execution_policy(Executor e, Params p) : exec_(std::move(e)), params_(std::move(p)) {}

    /// The same policy on executor `e`.
    template <executor E>
    constexpr auto on(E e) const {
        return basic_execution_policy<Kind, std::remove_cvref_t<E>, Params>(std::move(e), params_);
    }
    /// The same policy with parameters `ps...` (they replace the policy's parameters).
    template <executor_parameter... Ps>
    constexpr auto with(Ps... ps) const {
        using P = execution_parameters<Ps...>;
        return basic_execution_policy<Kind, Executor, P>(exec_, P(std::move(ps)...));
    }
    /// The task variant: its algorithms return a weft::future at once.
    constexpr auto operator()(task_policy_tag) const
        requires requires { typename detail::task_of<Kind>::type; }
    {
        return basic_execution_policy<typename detail::task_of<Kind>::type, Executor, Params>(exec_, params_);
    }

    /// The variant that is not a task policy (itself if it is not one).
    constexpr auto sync() const {
        return basic_execution_policy<typename detail::sync_of<Kind>::type, Executor, Params>(exec_, params_);
    }

    constexpr const Executor& executor() const noexcept { return exec_; }
    constexpr const Params& parameters() const noexcept { return params_; }

private:
    Executor exec_{};
    Params params_{};
};

using sequenced_policy = basic_execution_policy<sequenced_kind, sequenced_executor>;
using sequenced_task_policy = basic_execution_policy<sequenced_task_kind, sequenced_executor>;
using parallel_policy = basic_execution_policy<parallel_kind, parallel_executor>;
using parallel_task_policy = basic_execution_policy<parallel_task_kind, parallel_executor>;
using parallel_unsequenced_policy = basic_execution_policy<parallel_unsequenced_kind, parallel_executor>;
using unsequenced_policy = basic_execution_policy<unsequenced_kind, sequenced_executor>;

/// In order, on the caller.
inline constexpr sequenced_policy seq{};
/// Possibly in parallel, on weft's workers.
inline constexpr parallel_policy par{};
/// Possibly in parallel and interleaved within a thread.
inline constexpr parallel_unsequenced_policy par_unseq{};
/// Interleaved within the calling thread.
inline constexpr unsequenced_policy unseq{};

/// True for weft's execution policies (basic_execution_policy of any kind).
template <class T>
struct is_execution_policy : std::false_type {};
template <class K, class E, class P>
struct is_execution_policy<basic_execution_policy<K, E, P>> : std::true_type {};
template <class T>
inline constexpr bool is_execution_policy_v = is_execution_policy<std::remove_cvref_t<T>>::value;

template <class T>
concept execution_policy = is_execution_policy_v<T>;

/// True for the task variants, whose algorithms return futures.
template <class T>
inline constexpr bool is_task_policy_v = execution_policy<T> && std::remove_cvref_t<T>::kind::is_task;

}  // namespace weft::execution
