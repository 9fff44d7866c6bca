// The template task graph's machinery below the API (issue #26; seed 001 ch.6): the
// per-locality state every template task reports to (work in progress, messages sent
// and received between localities, exceptions of task bodies), the registry that names
// template tasks alike on every locality, and keys printed for error messages.
#pragma once

#include <weft/config/errors.hpp>

#include <atomic>
#include <concepts>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <variant>

namespace weft::ttg {

/// The storage type of a key or value that may be void: void travels as std::monostate.
template <class T>
using storage_t = std::conditional_t<std::is_void_v<T>, std::monostate, T>;

namespace detail {

class tt_base;

/// Template tasks by number: the n-th template task made on a locality is the n-th on
/// every other (TTG programs build the same graph everywhere), so a message names its
/// destination by that number. Messages for a number not made yet wait here until it is.
/// Defined in src/ttg/ttg.cpp.
std::uint32_t register_tt(tt_base* tt);
void unregister_tt(std::uint32_t id) noexcept;
/// Messages from other localities reach `tt` from now on (those that came before are
/// delivered now): make_graph_executable, execute and fence call it.
void make_executable(tt_base* tt);
void make_all_executable();

/// A message for a template task, run on it where it lives: std::function<void(tt_base&)>
/// but move-only (C++23's std::move_only_function, which C++20 lacks), so that the
/// values it carries may be move-only.
class message_fn {
public:
    message_fn() = default;
    template <class F>
        requires(!std::is_same_v<std::decay_t<F>, message_fn> && std::is_invocable_v<std::decay_t<F>&, tt_base&>)
    message_fn(F&& f)  // implicit: it stands for the callable
        : call_(std::make_unique<model<std::decay_t<F>>>(std::forward<F>(f))) {}
    void operator()(tt_base& t) { call_->run(t); }

private:
    struct callable {
        virtual ~callable() = default;
        virtual void run(tt_base& t) = 0;
    };
    template <class F>
    struct model final : callable {
        F f;
        template <class G>
        explicit model(G&& g) : f(std::forward<G>(g)) {}
        void run(tt_base& t) override { f(t); }
    };
    std::unique_ptr<callable> call_;
};

/// This locality's count of work in progress: template task instances scheduled or
/// running. fence() waits for it to reach zero (and for every other locality's).
void work_started() noexcept;
void work_finished() noexcept;
/// Messages to template tasks on other localities, sent and handled here (fence()'s
/// termination detection: F. Mattern's counters, as weft::run's).
void message_sent() noexcept;
void message_received() noexcept;
/// An exception escaped a task body (or a reducer) here: kept for fence().
void task_failed(std::exception_ptr e) noexcept;

/// Whether `T` prints with operator<<.
template <class T>
concept streamable = requires(std::ostream& os, const T& t) { os << t; };

template <class T>
void print_key(std::ostream& os, const T& k) {
    if constexpr (std::is_same_v<T, std::monostate>) {
        os << "(void key)";
    } else if constexpr (streamable<T>) {
        os << k;
    } else if constexpr (requires { std::tuple_size<T>::value; }) {
        os << '(';
        std::apply(
            [&os](const auto&... e) {
                bool first = true;
                ((os << (first ? "" : ", "), print_key(os, e), first = false), ...);
            },
            k);
        os << ')';
    } else {
        os << "<a key of type " << typeid(T).name() << '>';
    }
}

/// `k` as error messages show it: operator<< where it exists, tuples and pairs by
/// their elements, else the key's type.
template <class T>
std::string key_string(const T& k) {
    std::ostringstream os;
    print_key(os, k);
    return os.str();
}

/// Hashes keys for the per-template-task tables: std::hash, or for tuples and pairs a mix
/// of their elements' hashes.
struct key_hash {
    template <class T>
    std::size_t operator()(const T& k) const noexcept {
        if constexpr (requires { std::hash<T>{}(k); }) {
            return std::hash<T>{}(k);
        } else {
            static_assert(requires { std::tuple_size<T>::value; },
                          "weft::ttg: a key type needs std::hash, or must be a pair or tuple of hashable types");
            std::size_t h = 0x9e3779b97f4a7c15ULL;
            std::apply([&h, this](const auto&... e) { ((h = (h ^ (*this)(e)) * 0x100000001b3ULL), ...); }, k);
            return h ^ (h >> 29);
        }
    }
};

/// The keymap of a template task that set none: the key's hash (key_hash) modulo the
/// number of localities; a void key lives on locality 0.
template <class Key>
std::uint32_t default_keymap(const Key& k, std::uint32_t localities) noexcept {
    if constexpr (std::is_same_v<Key, std::monostate>) return 0;
    else return static_cast<std::uint32_t>(key_hash{}(k) % localities);
}

}  // namespace detail
}  // namespace weft::ttg
