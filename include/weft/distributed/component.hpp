// Components (issue #24; seed 004 L57-L68: "components are the main building blocks of
// remotable actions"): C++ objects with a global id, created on any locality, called
// through their actions from any locality, moved between localities with their id
// unchanged, and destroyed explicitly.
//
// @code
// struct accumulator : weft::component<accumulator> {
//     std::int64_t total = 0;
//     void add(std::int64_t x) { total += x; }
//     std::int64_t get() const { return total; }
//     WEFT_COMPONENT_ACTION(accumulator, add, add_action);
//     WEFT_COMPONENT_ACTION(accumulator, get, get_action);
// };
// WEFT_REGISTER_COMPONENT(accumulator);
//
// weft::id_type id = weft::new_<accumulator>(weft::find_all_localities()[1]).get();
// weft::post(accumulator::add_action{}, id, 5);
// std::int64_t t = weft::async(accumulator::get_action{}, id).get();
// weft::migrate(id, weft::find_here()).get();   // the id stays valid
// weft::destroy(id).get();
// @endcode
//
// Rules (docs/distributed.md, "Components"):
// - An object is only touched by its actions, which may run concurrently (as any two
//   tasks): protect its state as you would a shared object, or call it from one task.
// - A component whose type is serializable (a serialize function, or trivially
//   copyable) is migratable: its id carries a flag, calls find it through its home
//   locality's table and a per-locality cache (src/distributed/agas.cpp). Any other
//   component stays where it was created; its id resolves with no message.
// - Lifetime is explicit: weft::destroy, or a weft::client<T>, which destroys on release.
//   Components alive when the runtime stops are destroyed then, and counted as leaked.
// - Migration and destruction wait for the calls running on the object: an action that
//   waits for its own object's migrate or destroy waits for ever (as a task waiting on
//   itself would).
#pragma once

#include <weft/distributed/action.hpp>
#include <weft/distributed/async.hpp>
#include <weft/distributed/detail/parcelport.hpp>
#include <weft/distributed/id_type.hpp>
#include <weft/distributed/locality.hpp>
#include <weft/futures/async.hpp>
#include <weft/futures/future.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

namespace weft {

namespace distributed::detail {
struct component_access;
}

/// The base of every component type T (CRTP): `struct T : weft::component<T> {...}`.
/// It holds the object's global id (16 bytes, trivially copyable).
template <class T>
class component {
public:
    /// This object's global id (the null id until the runtime registered it).
    id_type get_id() const noexcept { return id_; }

private:
    friend struct distributed::detail::component_access;
    id_type id_{};
};

namespace distributed::detail {

struct component_access {
    template <class T>
    static void set_id(component<T>& c, const id_type& id) noexcept {
        c.id_ = id;
    }
};

/// A component type T can migrate when the serializer can write and read it back into a
/// default-constructed T.
template <class T>
concept migratable_component =
    std::is_default_constructible_v<T> &&
    (serialization::detail::user_serializable<T> ||
     (std::is_trivially_copyable_v<T> && !serialization::detail::is_refused<T>::value));

/// One registered component type.
struct component_type_entry {
    std::string_view name;                      ///< as given to WEFT_REGISTER_COMPONENT
    const std::type_info* type = nullptr;
    void (*destroy)(void* object) noexcept = nullptr;
    /// Migration (both null: the type does not migrate): writes the object's state, and
    /// makes a new object from it (with `id` set).
    void (*save)(const void* object, serialization::output_archive& out) = nullptr;
    void* (*load)(serialization::input_archive& in, const id_type& id) = nullptr;
};

/// The process's component types, sorted by name at freeze() (runtime start): a type's
/// index is the same on every locality of one program (which the action table's check
/// already guarantees: every component registers actions).
class component_table {
public:
    static component_table& instance() {
        static component_table t;
        return t;
    }
    void add(component_type_entry e) {
        const std::lock_guard lock(mutex_);
        if (frozen_)
            throw weft::error("weft: a component type was registered after the runtime started: " +
                              std::string(e.name));
        entries_.push_back(e);
    }
    /// Sorts by name; idempotent. @throws weft::error if two types share a name.
    void freeze() {
        const std::lock_guard lock(mutex_);
        if (frozen_) return;
        std::sort(entries_.begin(), entries_.end(),
                  [](const component_type_entry& a, const component_type_entry& b) { return a.name < b.name; });
        for (std::size_t i = 1; i < entries_.size(); ++i)
            if (entries_[i].name == entries_[i - 1].name)
                throw weft::error("weft: two component types are registered as '" + std::string(entries_[i].name) +
                                  "'");
        frozen_ = true;
    }
    /// The index of type `t`. @throws weft::error if it was never registered.
    std::uint32_t index_of(const std::type_info& t) const {
        for (std::size_t i = 0; i < entries_.size(); ++i)
            if (*entries_[i].type == t) return static_cast<std::uint32_t>(i);
        throw weft::error("weft: component type " + type_name(t) +
                          " is not registered: add WEFT_REGISTER_COMPONENT(T) at namespace scope");
    }
    /// The type with index `i`, or null (a malformed parcel).
    const component_type_entry* find(std::uint32_t i) const noexcept {
        return frozen_ && i < entries_.size() ? &entries_[i] : nullptr;
    }
    bool frozen() const noexcept { return frozen_; }

private:
    component_table() = default;
    std::mutex mutex_;
    std::vector<component_type_entry> entries_;
    bool frozen_ = false;
};

template <class T>
std::uint32_t component_type_index() {
    static const std::uint32_t index = component_table::instance().index_of(typeid(T));
    return index;
}

/// Specialized by WEFT_REGISTER_COMPONENT(T).
template <class T>
struct component_registration;

template <class T>
struct component_registrar {
    explicit component_registrar(std::string_view name) {
        component_type_entry e{name, &typeid(T), [](void* p) noexcept { delete static_cast<T*>(p); }};
        if constexpr (migratable_component<T>) {
            e.save = [](const void* p, serialization::output_archive& out) { out(*static_cast<const T*>(p)); };
            e.load = [](serialization::input_archive& in, const id_type& id) -> void* {
                auto object = std::make_unique<T>();
                in(*object);
                in.finish();
                component_access::set_id(*object, id);
                return object.release();
            };
        }
        component_table::instance().add(e);
    }
};

// --- The address space (src/distributed/agas.cpp) ------------------------------------

/// Registers `object`, of component type index `type` and just made on this locality,
/// under a new id (migratable if its type is); returns it. The table owns the object.
id_type agas_insert_new(void* object, std::uint32_t type, bool migratable);

/// A pin on a component that lives here: while one is held the object neither migrates
/// nor is destroyed. Null when the object does not live here (moved, moving, destroyed).
class local_ref {
public:
    local_ref() noexcept = default;
    local_ref(void* object, void* instance) noexcept : object_(object), instance_(instance) {}
    local_ref(local_ref&& o) noexcept : object_(std::exchange(o.object_, nullptr)), instance_(std::exchange(o.instance_, nullptr)) {}
    local_ref& operator=(local_ref&& o) noexcept {
        if (this != &o) {
            reset();
            object_ = std::exchange(o.object_, nullptr);
            instance_ = std::exchange(o.instance_, nullptr);
        }
        return *this;
    }
    ~local_ref() { reset(); }
    explicit operator bool() const noexcept { return object_ != nullptr; }
    void* get() const noexcept { return object_; }
    void reset() noexcept;

private:
    void* object_ = nullptr;
    void* instance_ = nullptr;
};

/// Pins component `id` if it lives here. @throws weft::error if it lives here but is not
/// a `expected` (an action of another component type: `what` names it).
local_ref agas_pin(const id_type& id, const std::type_info& expected, std::string_view what);

/// Sends a component call (payload: the target id, then the arguments) to where `target`
/// lives, as far as this locality knows (the home, or the cache); handles it here if it
/// should live here but does not now (held while it moves, else forwarded or failed).
void send_component_call(const id_type& target, std::uint32_t action, std::uint64_t continuation,
                         const serialization::output_archive& payload, std::shared_ptr<const void> keep);

/// Checks an id given to a component operation (`what`). @throws weft::runtime_state_error,
/// weft::error (null, not a component, a locality that is not in this run).
void check_component(const char* what, const id_type& id);

template <class T, class... A>
id_type create_component(A... a) {
    const std::uint32_t type = component_type_index<T>();
    auto object = std::make_unique<T>(std::move(a)...);
    const id_type id = agas_insert_new(object.get(), type, migratable_component<T>);
    component_access::set_id(*object, id);
    object.release();  // the table's now
    return id;
}

template <class T, class... A>
std::vector<id_type> create_components(std::uint64_t n, A... a) {
    std::vector<id_type> ids;
    ids.reserve(static_cast<std::size_t>(n));
    for (std::uint64_t i = 0; i < n; ++i) ids.push_back(create_component<T, A...>(a...));
    return ids;
}

template <class T, class... A>
struct create_tag {};

/// A name unique to type T and the same in every process of one binary, known at
/// compile time (so that registrars initialized in any order can read it).
template <class T>
constexpr std::string_view type_tag() noexcept {
    return __PRETTY_FUNCTION__;
}

/// The action that makes a T from A... on a locality (one per T and argument list; its
/// name is its tag's type_tag, the same on every locality of one program).
template <class T, class... A>
struct create_action : plain_action<create_action<T, A...>, id_type (*)(A...), &create_component<T, A...>> {
    static constexpr std::string_view action_name = type_tag<create_tag<T, A...>>();
    static inline const action_registrar<create_action> registrar{};
};
template <class T, class... A>
struct create_many_action
    : plain_action<create_many_action<T, A...>, std::vector<id_type> (*)(std::uint64_t, A...),
                   &create_components<T, A...>> {
    static constexpr std::string_view action_name = type_tag<create_tag<std::vector<T>, A...>>();
    static inline const action_registrar<create_many_action> registrar{};
};

}  // namespace distributed::detail

namespace distributed {
/// True for the action types WEFT_COMPONENT_ACTION declares.
template <class A>
concept component_action = requires {
    typename A::component_type;
    typename A::result_type;
    typename A::arguments_type;
    { A::action_name } -> std::convertible_to<std::string_view>;
    A::invoke_on;
};
}  // namespace distributed

/// Where components go: `n` of them over a list of localities (all of them by default),
/// in blocks (the first n/L on the first locality, and so on; the remainder spread over
/// the first ones), or cyclically (component i on locality i mod L).
struct container_layout {
    /// `n` components in blocks over every locality.
    explicit container_layout(std::size_t n) : count(n) {}
    /// `n` components in blocks over `localities` (locality ids).
    /// @throws weft::error if `localities` is empty.
    container_layout(std::size_t n, std::vector<id_type> localities) : count(n), targets(std::move(localities)) {
        if (targets.empty()) throw weft::error("weft::container_layout: an empty list of localities");
    }
    /// `n` components cyclically over `localities` (every locality if empty).
    static container_layout cyclic(std::size_t n, std::vector<id_type> localities = {}) {
        container_layout l(n);
        l.targets = std::move(localities);
        l.is_cyclic = true;
        return l;
    }

    std::size_t count = 0;
    std::vector<id_type> targets;  ///< empty: every locality
    bool is_cyclic = false;

    /// How many components each of `targets` (or of every locality) receives, in order.
    std::vector<std::size_t> shares(std::size_t localities) const {
        std::vector<std::size_t> s(localities, count / localities);
        for (std::size_t i = 0; i < count % localities; ++i) ++s[i];
        return s;
    }
};

/// Creates a T on `locality` from `args` (serializable, moved or copied there) and
/// returns a future of its global id.
/// @throws weft::error if `locality` is not a locality of this run, or T is not
///         registered (WEFT_REGISTER_COMPONENT).
template <class T, class... Args>
    requires std::is_base_of_v<component<T>, T>
future<id_type> new_(const id_type& locality, Args&&... args) {
    using action = distributed::detail::create_action<T, std::decay_t<Args>...>;
    (void)&action::registrar;  // registers the action at static initialisation
    if (!locality.is_locality())
        throw weft::error("weft::new_: the target must be a locality's id, not " + locality.to_string());
    (void)distributed::detail::component_type_index<T>();  // unregistered: a clear error here
    return weft::async(action{}, locality, std::forward<Args>(args)...);
}

/// Creates `layout.count` T's, each from a copy of `args`, placed by `layout`; the future
/// holds their ids in layout order (by locality, then creation).
template <class T, class... Args>
    requires std::is_base_of_v<component<T>, T>
future<std::vector<id_type>> new_(const container_layout& layout, Args&&... args) {
    using action = distributed::detail::create_many_action<T, std::decay_t<Args>...>;
    (void)&action::registrar;
    (void)distributed::detail::component_type_index<T>();
    std::vector<id_type> where = layout.targets.empty() ? find_all_localities() : layout.targets;
    for (const id_type& l : where)
        if (!l.is_locality())
            throw weft::error("weft::new_: a container_layout's target is not a locality's id: " + l.to_string());
    if (where.empty()) throw weft::error("weft::new_: a container_layout over no locality");
    if (layout.is_cyclic) {
        // Component i on locality i mod L: make each locality's share, then interleave.
        std::vector<future<std::vector<id_type>>> parts;
        const std::vector<std::size_t> share = layout.shares(where.size());
        for (std::size_t i = 0; i < where.size(); ++i)
            parts.push_back(weft::async(action{}, where[i], std::uint64_t{share[i]}, args...));
        return weft::async([parts = std::move(parts), n = layout.count]() mutable {
            std::vector<std::vector<id_type>> got;
            for (auto& p : parts) got.push_back(p.get());
            std::vector<id_type> ids;
            ids.reserve(n);
            for (std::size_t i = 0; ids.size() < n; ++i)
                for (auto& g : got)
                    if (i < g.size()) ids.push_back(g[i]);
            return ids;
        });
    }
    std::vector<future<std::vector<id_type>>> parts;
    const std::vector<std::size_t> share = layout.shares(where.size());
    for (std::size_t i = 0; i < where.size(); ++i)
        if (share[i] != 0) parts.push_back(weft::async(action{}, where[i], std::uint64_t{share[i]}, args...));
    return weft::async([parts = std::move(parts), n = layout.count]() mutable {
        std::vector<id_type> ids;
        ids.reserve(n);
        for (auto& p : parts)
            for (const id_type& id : p.get()) ids.push_back(id);
        return ids;
    });
}

/// Runs component action `Action` on the object `target` names, wherever it lives now,
/// and returns a future of its result. Where the object lives here, the call is a task
/// with no serialization; elsewhere a parcel (forwarded if the object moved, held while
/// it moves: it runs exactly once).
/// @throws weft::error for a null id, an id that is not a component's, or (here) an
///         object of another type; an object that no longer exists fails the future
///         with a weft::error naming it.
template <distributed::component_action Action, class... Args>
future<typename Action::result_type> async(Action, const id_type& target, Args&&... args) {
    using R = typename Action::result_type;
    using C = typename Action::component_type;
    using tuple = typename Action::arguments_type;
    static_assert(distributed::detail::arguments_fit<tuple, Args...>,
                  "weft::async(action, target, args...): the arguments do not match the action's parameters");
    namespace dd = distributed::detail;
    dd::check_component("weft::async", target);
    if (dd::local_ref ref = dd::agas_pin(target, typeid(C), Action::action_name)) {
        return weft::async(task_attributes{task_priority::normal, Action::action_name.data()},
                           [ref = std::move(ref), t = tuple(std::forward<Args>(args)...)]() mutable -> R {
                               C& self = *static_cast<C*>(ref.get());
                               return std::apply([&self](auto&&... a) -> R {
                                   return Action::call(self, std::forward<decltype(a)>(a)...);
                               }, std::move(t));
                           });
    }
    auto [id, result] = dd::continuations().template add<R>();
    try {
        serialization::output_archive& out = dd::scratch_archive();
        out(target);
        std::shared_ptr<const void> keep = dd::encode_arguments<tuple>(out, std::forward<Args>(args)...);
        dd::send_component_call(target, Action::id(), id, out, std::move(keep));
    } catch (...) {
        dd::continuations().fail(id, std::current_exception());
        throw;
    }
    return std::move(result);
}

/// Runs component action `Action` on `target` with no future. An exception escaping it,
/// or a target that no longer exists, ends the program with a message naming the action
/// and the locality.
/// @throws as weft::async(action, target, args...)
template <distributed::component_action Action, class... Args>
void post(Action, const id_type& target, Args&&... args) {
    using C = typename Action::component_type;
    using tuple = typename Action::arguments_type;
    static_assert(distributed::detail::arguments_fit<tuple, Args...>,
                  "weft::post(action, target, args...): the arguments do not match the action's parameters");
    namespace dd = distributed::detail;
    dd::check_component("weft::post", target);
    if (dd::local_ref ref = dd::agas_pin(target, typeid(C), Action::action_name)) {
        weft::post(task_attributes{task_priority::normal, Action::action_name.data()},
                   [ref = std::move(ref), t = tuple(std::forward<Args>(args)...)]() mutable {
                       C& self = *static_cast<C*>(ref.get());
                       try {
                           std::apply([&self](auto&&... a) { Action::call(self, std::forward<decltype(a)>(a)...); },
                                      std::move(t));
                       } catch (...) {
                           dd::posted_action_failed(Action::action_name, std::current_exception());
                       }
                   });
        return;
    }
    serialization::output_archive& out = dd::scratch_archive();
    out(target);
    std::shared_ptr<const void> keep = dd::encode_arguments<tuple>(out, std::forward<Args>(args)...);
    dd::send_component_call(target, Action::id(), 0, out, std::move(keep));
}

/// Destroys the component `id` names, wherever it lives, once the actions running on it
/// have returned. The future is ready when it is gone; later calls to `id` fail with a
/// weft::error. Destroying an id twice fails the second future (weft::error).
future<void> destroy(const id_type& id);

/// Moves the migratable component `id` names to `locality` (its state through the
/// serializer); the id stays valid. Calls made meanwhile are held and then run exactly
/// once, on the new copy. Ready when the object lives at `locality`.
/// @throws weft::error if the component's type cannot migrate (not serializable) or
///         `locality` is not a locality of this run (in the future).
future<void> migrate(const id_type& id, const id_type& locality);

/// The id of the locality `id` lives on now (a locality's id names itself).
future<id_type> get_locality(const id_type& id);

/// Registers `id` under (`basename`, `sequence`) for find_from_basename; the future is
/// true if the name was free, false if it was taken (the old registration stays).
future<bool> register_with_basename(const std::string& basename, const id_type& id, std::size_t sequence = 0);
/// Registers the id `f` will hold, once it is ready (a new_ call's future, say); the
/// future is as above, or holds `f`'s exception.
inline future<bool> register_with_basename(const std::string& basename, future<id_type>&& f,
                                           std::size_t sequence = 0) {
    // A task of its own (launch::async): it waits for the registration's answer.
    return std::move(f).then(launch::async, [basename, sequence](future<id_type> id) {
        return register_with_basename(basename, id.get(), sequence).get();
    });
}
/// The same for a shared future (which stays usable).
inline future<bool> register_with_basename(const std::string& basename, const shared_future<id_type>& f,
                                           std::size_t sequence = 0) {
    return f.then(launch::async, [basename, sequence](shared_future<id_type> id) {
        return register_with_basename(basename, id.get(), sequence).get();
    });
}
/// Removes the name (`basename`, `sequence`): the future holds the id it named, or the
/// null id if it named none. Later finds wait for a new registration.
future<id_type> unregister_with_basename(const std::string& basename, std::size_t sequence = 0);
/// The id registered under (`basename`, `sequence`); ready once it has been registered
/// (on any locality, before or after this call).
future<id_type> find_from_basename(const std::string& basename, std::size_t sequence = 0);

/// Owns a component: destroys it when the last copy of the client is released (or
/// reset), on this locality. Copies share ownership (a local count; no distributed
/// reference counting: a client sent to another locality travels as a plain id).
template <class T>
class client {
public:
    client() = default;
    /// Takes ownership of `id`.
    explicit client(id_type id) : owner_(std::make_shared<holder>(id)) {}
    /// Takes ownership of the id `f` will hold (waits for it).
    explicit client(future<id_type>&& f) : client(f.get()) {}

    id_type get_id() const noexcept { return owner_ ? owner_->id : id_type{}; }
    explicit operator bool() const noexcept { return owner_ != nullptr; }
    /// Gives up ownership without destroying; returns the id.
    id_type release() {
        if (!owner_) return {};
        const id_type id = owner_->id;
        owner_->id = id_type{};
        owner_.reset();
        return id;
    }
    void reset() noexcept { owner_.reset(); }

private:
    struct holder {
        explicit holder(id_type i) : id(i) {}
        holder(const holder&) = delete;
        holder& operator=(const holder&) = delete;
        ~holder() {
            if (!id) return;
            try {
                destroy(id).get();
            } catch (...) {
                // Already destroyed, or the runtime stopped: nothing left to release.
            }
        }
        id_type id;
    };
    std::shared_ptr<holder> owner_;
};

}  // namespace weft

/// Declares `name`, the action type of member function `fn` of component type `type`,
/// inside the class: `weft::async(type::name{}, id, args...)` runs id's fn(args...).
/// Each action's name ("type::name") must be unique in the program.
#define WEFT_COMPONENT_ACTION(type, fn, name)                                                                     \
    struct name : ::weft::distributed::detail::component_action<name, type, decltype(&type::fn), &type::fn> {   \
        static constexpr ::std::string_view action_name = #type "::" #name;                                     \
    };                                                                                                            \
    static inline const ::weft::distributed::detail::action_registrar<name> weft_action_registrar_##name {}

/// Registers component type `type` at global namespace scope (once per program, e.g.
/// in the header beside the type): new_<type> needs it, and so does migration (the type
/// is found by name on the new locality).
#define WEFT_REGISTER_COMPONENT(type)                                                                             \
    static_assert(::std::is_base_of_v<::weft::component<type>, type>,                                             \
                  "WEFT_REGISTER_COMPONENT(T): T must derive from weft::component<T>");                           \
    template <>                                                                                                   \
    struct weft::distributed::detail::component_registration<type> {                                             \
        static constexpr ::std::string_view name = #type;                                                         \
        static inline const ::weft::distributed::detail::component_registrar<type> registrar{name};               \
    }
