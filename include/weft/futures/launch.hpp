// Launch policies: how weft::async runs its function, and how a continuation (then,
// dataflow) runs once its inputs are ready.
//
// weft::launch is a bitmask type like std::launch, so that a program written against
// std::async ports by renaming std:: to weft:: (seed 000 Table 4): a `const weft::launch l`
// parameter, `weft::launch::async | weft::launch::deferred`, `(l & weft::launch::async)`.
// Each single policy also has a type of its own (launch::async_policy, ...), which
// then() and dataflow() dispatch on at compile time.
#pragma once

#include <weft/threads/task.hpp>

#include <concepts>
#include <cstdint>
#include <type_traits>

namespace weft {
namespace launch_detail {

class launch;

/// As a new task (the default). Carries optional attributes for that task.
struct async_policy {
    task_attributes attributes{};
    /// The same policy with a priority / name for the new task.
    constexpr async_policy operator()(task_attributes a) const noexcept { return async_policy{a}; }
};
/// weft::async: runs the function at once, in the caller, and returns a ready future.
/// then(): inline, in whatever completes the input (the completing task, or the caller
/// of then() if the input is ready); long chains fall back to a new task before the
/// stack runs low.
struct sync_policy {};
/// Started by the first get() or wait() of the result (or by a continuation or combinator
/// attached to it), in the waiter; never run if nobody waits. For then(): from its start
/// on as sync, and a chain of deferred steps starts in constant stack.
struct deferred_policy {};
/// weft::async only (seed 000 ch.6, HPX's fork): the new task runs at once on this
/// worker and the calling task's continuation is offered to thieves (continuation
/// stealing instead of child stealing).
struct fork_policy {};

/// A set of launch policies, as std::launch. With one policy set, weft::async does what
/// it says; with several, weft chooses per call (see weft::async(launch, f, args...)).
class launch {
public:
    using async_policy = launch_detail::async_policy;
    using sync_policy = launch_detail::sync_policy;
    using deferred_policy = launch_detail::deferred_policy;
    using fork_policy = launch_detail::fork_policy;

    /// Each converts to a launch holding just that policy.
    static constexpr async_policy async{};
    static constexpr deferred_policy deferred{};
    static constexpr sync_policy sync{};
    static constexpr fork_policy fork{};
    /// async | deferred: the runtime chooses (INNCABS's `optional`, std::async's default).
    static const launch optional;
    /// Every policy: the runtime chooses among all of them.
    static const launch all;

    enum bits : std::uint8_t {
        async_bit = 1,
        deferred_bit = 2,
        sync_bit = 4,
        fork_bit = 8,
        every_bit = 15,
    };

    /// async, as std::async without a policy.
    constexpr launch() noexcept = default;
    constexpr launch(async_policy p) noexcept : attributes_(p.attributes) {}
    constexpr launch(deferred_policy) noexcept : bits_(deferred_bit) {}
    constexpr launch(sync_policy) noexcept : bits_(sync_bit) {}
    constexpr launch(fork_policy) noexcept : bits_(fork_bit) {}
    /// From raw bits (launch::bits); bits outside every_bit are dropped.
    static constexpr launch from_bits(unsigned b) noexcept {
        launch l;
        l.bits_ = static_cast<std::uint8_t>(b & every_bit);
        return l;
    }

    constexpr unsigned to_bits() const noexcept { return bits_; }
    /// True if every policy of `other` is in this set.
    constexpr bool has(launch other) const noexcept { return (bits_ & other.bits_) == other.bits_ && other.bits_ != 0; }
    /// True if no policy is set (weft::async then throws weft::error).
    constexpr bool empty() const noexcept { return bits_ == 0; }
    /// True if exactly one policy is set.
    constexpr bool single() const noexcept { return bits_ != 0 && (bits_ & (bits_ - 1)) == 0; }
    /// The attributes (priority, name, stack size) of the task that async or fork make.
    constexpr const task_attributes& attributes() const noexcept { return attributes_; }
    /// The same set, with attributes for the task async or fork make.
    constexpr launch operator()(task_attributes a) const noexcept {
        launch l = *this;
        l.attributes_ = a;
        return l;
    }
    /// As std::launch: a non-empty set converts to true (`if (l & launch::async)`).
    constexpr explicit operator bool() const noexcept { return bits_ != 0; }

    constexpr launch& operator|=(launch b) noexcept;
    constexpr launch& operator&=(launch b) noexcept;
    constexpr launch& operator^=(launch b) noexcept;

    /// The result of a bitwise operation on `a` and `b`: bits `result`, and the attributes
    /// of whichever side has any (the left one's if both do).
    static constexpr launch combine(launch a, launch b, unsigned result) noexcept {
        launch l = from_bits(result);
        l.attributes_ = has_attributes(a.attributes_) ? a.attributes_ : b.attributes_;
        return l;
    }

private:
    static constexpr bool has_attributes(const task_attributes& a) noexcept {
        return a.priority != task_priority::normal || a.name != nullptr || a.stack_size != 0 ||
               a.worker != task_attributes::any_worker;
    }

    task_attributes attributes_{};
    std::uint8_t bits_ = async_bit;
};

// Namespace-scope operators rather than hidden friends: argument-dependent lookup then
// finds them for two policy objects too (launch::async | launch::deferred), whose
// operands convert to launch.
/// Sets compare by their policies only (not by their attributes).
constexpr bool operator==(launch a, launch b) noexcept { return a.to_bits() == b.to_bits(); }
constexpr launch operator|(launch a, launch b) noexcept { return launch::combine(a, b, a.to_bits() | b.to_bits()); }
constexpr launch operator&(launch a, launch b) noexcept { return launch::combine(a, b, a.to_bits() & b.to_bits()); }
constexpr launch operator^(launch a, launch b) noexcept { return launch::combine(a, b, a.to_bits() ^ b.to_bits()); }
constexpr launch operator~(launch a) noexcept { return launch::from_bits(~a.to_bits() & launch::every_bit); }
constexpr launch& launch::operator|=(launch b) noexcept { return *this = *this | b; }
constexpr launch& launch::operator&=(launch b) noexcept { return *this = *this & b; }
constexpr launch& launch::operator^=(launch b) noexcept { return *this = *this ^ b; }

inline constexpr launch launch::optional = launch::from_bits(launch::async_bit | launch::deferred_bit);
inline constexpr launch launch::all = launch::from_bits(launch::every_bit);

}  // namespace launch_detail

/// A set of launch policies (see launch_detail::launch).
using launch = launch_detail::launch;

/// True for the launch policy types that then() and dataflow() dispatch on at compile
/// time.
template <class P>
concept launch_policy = std::is_same_v<std::remove_cvref_t<P>, launch::async_policy> ||
                        std::is_same_v<std::remove_cvref_t<P>, launch::sync_policy> ||
                        std::is_same_v<std::remove_cvref_t<P>, launch::deferred_policy>;

/// What weft::async takes as its first argument to say how to run: a launch set or one
/// of the policy types (fork included).
template <class P>
concept async_launch = launch_policy<P> || std::is_same_v<std::remove_cvref_t<P>, launch::fork_policy> ||
                       std::is_same_v<std::remove_cvref_t<P>, launch>;

namespace detail {
struct executor_probe {
    void operator()() const noexcept {}
};
}  // namespace detail

/// What then(), dataflow() and async() accept in place of a launch policy: an object with
/// async_execute(f) (every weft::execution::executor is one). Stated here, below the
/// execution layer, by what it needs rather than by that layer's concept.
template <class E>
concept executor_like = !async_launch<E> && std::copy_constructible<std::remove_cvref_t<E>> &&
                        requires(const std::remove_cvref_t<E>& e) { e.async_execute(detail::executor_probe{}); };
}  // namespace weft
