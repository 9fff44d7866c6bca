// Actions: functions a locality may ask another to run (issue #23). WEFT_PLAIN_ACTION
// declares one; every action registers itself at static initialisation in a table that
// gives each an id, the same on every locality built from the same sources, and a
// checksum the localities compare at startup.
#pragma once

#include <weft/distributed/serialization.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

namespace weft::distributed::detail {

/// Decodes an action's arguments from `args`, sets `decoded`, runs it, and encodes its
/// result (nothing for void) into the archive `result()` returns (always called, once)
/// once the function has returned (the task may have moved to another thread meanwhile). If the result's
/// encoding points at it (zero-copy chunks), returns what keeps it alive until sent;
/// else null. Exceptions from decoding (weft::serialization_error; `decoded` still false)
/// and from the function propagate.
using invoke_fn = std::shared_ptr<const void> (*)(serialization::input_archive& args,
                                                  serialization::output_archive& (*result)(), bool& decoded);

/// A component action's invoke_fn: the same, on the object `object` (of the action's
/// component type, checked by the caller).
using invoke_on_fn = std::shared_ptr<const void> (*)(void* object, serialization::input_archive& args,
                                                     serialization::output_archive& (*result)(), bool& decoded);

/// Encodes `value` into `out`; if the encoding points into it (chunks), moves it into a
/// shared holder, encodes that instead and returns the holder (keep it until sent).
template <class T>
std::shared_ptr<const void> encode_kept(serialization::output_archive& out, T&& value) {
    using V = std::remove_cvref_t<T>;
    out(std::as_const(value));
    if (out.chunks().empty()) return nullptr;
    auto keep = std::make_shared<const V>(std::forward<T>(value));
    out.clear();
    out(*keep);
    return keep;
}

/// One registered action.
struct action_entry {
    std::string_view name;       ///< the action type's name as declared
    std::string_view signature;  ///< typeid(R(Args...)).name(): the same binary agrees
    invoke_fn invoke = nullptr;  ///< a plain action's (null for a component action)
    invoke_on_fn invoke_on = nullptr;          ///< a component action's (null for a plain action)
    const std::type_info* component = nullptr;  ///< a component action's component type
};

/// The process's actions. Registration happens during static initialisation; freeze()
/// (at runtime start) sorts them by name, gives each its index as id and computes the
/// checksum. Ids are then the same on every locality running the same binary (and on
/// binaries built from the same sources with the same actions: the checksum tells).
class action_table {
public:
    static action_table& instance() {
        static action_table t;
        return t;
    }

    /// Adds an action; returns its slot (its id is known after freeze()).
    std::size_t add(action_entry e) {
        const std::lock_guard lock(mutex_);
        if (frozen_) throw weft::error("weft: an action was registered after the runtime started: " + std::string(e.name));
        entries_.push_back(e);
        return entries_.size() - 1;
    }

    /// Sorts the table and computes ids and the checksum; idempotent.
    /// @throws weft::error if two actions share a name.
    void freeze() {
        const std::lock_guard lock(mutex_);
        if (frozen_) return;
        std::sort(entries_.begin(), entries_.end(),
                  [](const action_entry& a, const action_entry& b) { return a.name < b.name; });
        for (std::size_t i = 1; i < entries_.size(); ++i)
            if (entries_[i].name == entries_[i - 1].name)
                throw weft::error("weft: two actions are named '" + std::string(entries_[i].name) +
                                  "': give each WEFT_PLAIN_ACTION a name of its own");
        std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over names and signatures
        auto mix = [&h](std::string_view s) {
            for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
            h = (h ^ 0xffu) * 0x100000001b3ull;  // separator
        };
        for (const auto& e : entries_) {
            mix(e.name);
            mix(e.signature);
        }
        checksum_ = h;
        frozen_ = true;
    }

    /// The id of the action named `name`; after freeze(). @throws weft::error if unknown.
    std::uint32_t id_of(std::string_view name) const {
        const auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                                         [](const action_entry& e, std::string_view n) { return e.name < n; });
        if (!frozen_ || it == entries_.end() || it->name != name)
            throw weft::error("weft: no action named '" + std::string(name) + "' is registered");
        return static_cast<std::uint32_t>(it - entries_.begin());
    }
    /// The action with id `id`, or null for an id out of range (a malformed parcel).
    const action_entry* find(std::uint32_t id) const noexcept {
        return frozen_ && id < entries_.size() ? &entries_[id] : nullptr;
    }
    std::size_t size() const noexcept { return entries_.size(); }
    std::uint64_t checksum() const noexcept { return checksum_; }
    bool frozen() const noexcept { return frozen_; }

private:
    action_table() = default;
    std::mutex mutex_;
    std::vector<action_entry> entries_;
    std::uint64_t checksum_ = 0;
    bool frozen_ = false;
};

template <class F>
struct function_traits;
template <class R, class... A>
struct function_traits<R (*)(A...)> {
    using result = R;
    using arguments = std::tuple<std::decay_t<A>...>;
    using signature = R(A...);
};
template <class R, class... A>
struct function_traits<R (*)(A...) noexcept> : function_traits<R (*)(A...)> {};
// Member functions (component actions): the object is not an argument.
template <class R, class C, class... A>
struct function_traits<R (C::*)(A...)> : function_traits<R (*)(A...)> {
    using object = C;
};
template <class R, class C, class... A>
struct function_traits<R (C::*)(A...) const> : function_traits<R (*)(A...)> {
    using object = const C;
};
template <class R, class C, class... A>
struct function_traits<R (C::*)(A...) noexcept> : function_traits<R (C::*)(A...)> {};
template <class R, class C, class... A>
struct function_traits<R (C::*)(A...) const noexcept> : function_traits<R (C::*)(A...) const> {};

/// The base WEFT_PLAIN_ACTION's type derives from: the function, its types, its id.
template <class Derived, class F, F Fn>
struct plain_action {
    using traits = function_traits<F>;
    using result_type = typename traits::result;
    using arguments_type = typename traits::arguments;
    /// The function itself.
    static constexpr F function = Fn;

    /// Runs the action here, with arguments already decoded.
    template <class... A>
    static result_type call(A&&... a) {
        return Fn(std::forward<A>(a)...);
    }

    static std::shared_ptr<const void> invoke(serialization::input_archive& in,
                                              serialization::output_archive& (*result)(), bool& decoded) {
        arguments_type args{};
        std::apply([&in](auto&... a) { in(a...); }, args);
        in.finish();
        decoded = true;
        if constexpr (std::is_void_v<result_type>) {
            std::apply(Fn, std::move(args));
            (void)result();  // an empty result: the archive the answer is sent from
            return nullptr;
        } else {
            result_type r = std::apply(Fn, std::move(args));
            return encode_kept(result(), std::move(r));
        }
    }

    /// This action's id in the frozen table (looked up once).
    static std::uint32_t id() {
        static const std::uint32_t id = action_table::instance().id_of(Derived::action_name);
        return id;
    }
};

/// The base WEFT_COMPONENT_ACTION's type derives from: member function `Fn` of
/// component type `C`.
template <class Derived, class C, class F, F Fn>
struct component_action {
    using traits = function_traits<F>;
    using component_type = C;
    using result_type = typename traits::result;
    using arguments_type = typename traits::arguments;

    /// Runs the action on `object` here, with arguments already decoded.
    template <class... A>
    static result_type call(C& object, A&&... a) {
        return (object.*Fn)(std::forward<A>(a)...);
    }

    static std::shared_ptr<const void> invoke_on(void* object, serialization::input_archive& in,
                                                 serialization::output_archive& (*result)(), bool& decoded) {
        arguments_type args{};
        std::apply([&in](auto&... a) { in(a...); }, args);
        in.finish();
        decoded = true;
        C& self = *static_cast<C*>(object);
        auto run = [&self](auto&&... a) -> result_type { return (self.*Fn)(std::forward<decltype(a)>(a)...); };
        if constexpr (std::is_void_v<result_type>) {
            std::apply(run, std::move(args));
            (void)result();
            return nullptr;
        } else {
            result_type r = std::apply(run, std::move(args));
            return encode_kept(result(), std::move(r));
        }
    }

    static std::uint32_t id() {
        static const std::uint32_t id = action_table::instance().id_of(Derived::action_name);
        return id;
    }
};

template <class A>
concept has_component_type = requires { typename A::component_type; };

/// Registers action type A once, at static initialisation.
template <class A>
struct action_registrar {
    action_registrar() {
        if constexpr (has_component_type<A>) {
            action_table::instance().add(action_entry{A::action_name, typeid(typename A::traits::signature).name(),
                                                      nullptr, &A::invoke_on, &typeid(typename A::component_type)});
        } else {
            action_table::instance().add(
                action_entry{A::action_name, typeid(typename A::traits::signature).name(), &A::invoke});
        }
    }
};

}  // namespace weft::distributed::detail

/// Declares `name`, the action type of the plain function `fn`, at namespace scope:
/// `weft::async(name{}, locality, args...)` runs fn(args...) there and returns a future of
/// its result; `weft::post(name{}, locality, args...)` runs it without one. fn's
/// arguments and result must be serializable (weft/distributed/serialization.hpp). Each
/// action's name must be unique in the program.
#define WEFT_PLAIN_ACTION(fn, name)                                                                      \
    struct name : ::weft::distributed::detail::plain_action<name, decltype(&fn), &fn> {                \
        static constexpr ::std::string_view action_name = #name;                                         \
    };                                                                                                   \
    inline const ::weft::distributed::detail::action_registrar<name> weft_action_registrar_##name {}
