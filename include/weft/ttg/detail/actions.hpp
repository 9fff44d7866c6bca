// The parcels of the template task graph (issue #26): messages, broadcasts, stream
// sizes and ends, invocations and pulls for template tasks on other localities. Each is
// a plain action per key and value type, registered by its type's name, as the
// partitioned_vector's are.
#pragma once

#include <weft/distributed.hpp>
#include <weft/ttg/detail/core.hpp>

#include <cstdint>
#include <functional>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

namespace weft::ttg::detail {

/// What a template task takes from another locality, whatever its types: the local half
/// of an input terminal (no keymap; the message is already where it belongs).
template <class K, class V>
class local_input {
public:
    virtual ~local_input() = default;
    virtual void set(const K& k, V&& v) = 0;
    virtual void set_many(const std::vector<K>& keys, const V& v) = 0;
    virtual void set_size_here(const K& k, std::size_t n) = 0;
    virtual void finalize_here(const K& k) = 0;
};

/// Runs `fn` on template task number `id` of this locality, now or once it is made
/// (src/ttg/ttg.cpp); until then it counts as work in progress.
void with_tt(std::uint32_t id, message_fn fn);
/// Template task number `id` here, once it is made and executable (a pull from another
/// locality may come first). @throws weft::error if it is not within 60 s, or was
/// destroyed.
tt_base& wait_for_tt(std::uint32_t id);

/// The local input `terminal` of `tt`, as a local_input<K, V>. @throws weft::error when
/// the terminal does not exist or has other types (the localities built different
/// graphs).
template <class K, class V>
local_input<K, V>& local_port(tt_base& tt, std::uint32_t terminal);

/// A pull edge's value for key k, read here. @throws weft::error as local_port.
template <class K, class V>
V read_pulled(tt_base& tt, std::uint32_t terminal, const K& k);

/// Runs with_tt(tt, fn) for a message that came from another locality: what it throws
/// (a second value for a key, a stream misuse) is kept for fence() here, as a task
/// body's exception is; the message counts as received either way.
void deliver_message(std::uint32_t tt, message_fn fn) noexcept;

template <class K, class V>
void receive_message(std::uint32_t tt, std::uint32_t terminal, K key, V value) {
    deliver_message(tt, [terminal, k = std::move(key), v = std::move(value)](tt_base& t) mutable {
        local_port<K, V>(t, terminal).set(k, std::move(v));
    });
}
template <class K, class V>
void receive_broadcast(std::uint32_t tt, std::uint32_t terminal, std::vector<K> keys, V value) {
    deliver_message(tt, [terminal, ks = std::move(keys), v = std::move(value)](tt_base& t) {
        local_port<K, V>(t, terminal).set_many(ks, v);
    });
}
template <class K, class V>
void receive_size(std::uint32_t tt, std::uint32_t terminal, K key, std::uint64_t n) {
    deliver_message(tt, [terminal, k = std::move(key), n](tt_base& t) {
        local_port<K, V>(t, terminal).set_size_here(k, static_cast<std::size_t>(n));
    });
}
template <class K, class V>
void receive_finalize(std::uint32_t tt, std::uint32_t terminal, K key) {
    deliver_message(tt, [terminal, k = std::move(key)](tt_base& t) { local_port<K, V>(t, terminal).finalize_here(k); });
}
/// tt's invoke(key) where the key lives.
template <class K>
void receive_invoke(std::uint32_t tt, K key);
/// Where the pulled data lives: its value for key.
template <class K, class V>
V serve_pull(std::uint32_t tt, std::uint32_t terminal, K key);

/// Registers action A under its type's name at static initialisation.
template <class A>
struct ttg_action_registrar {
    ttg_action_registrar() {
        weft::distributed::detail::action_table::instance().add(weft::distributed::detail::action_entry{
            std::string_view(typeid(A).name()), typeid(typename A::traits::signature).name(), &A::invoke});
    }
};

template <class Derived, auto Fn>
struct ttg_action : weft::distributed::detail::plain_action<Derived, decltype(Fn), Fn> {
    static inline const std::string_view action_name{typeid(Derived).name()};
    static inline const ttg_action_registrar<Derived> registrar{};
};

template <class K, class V>
struct message_action : ttg_action<message_action<K, V>, &receive_message<K, V>> {};
template <class K, class V>
struct broadcast_action : ttg_action<broadcast_action<K, V>, &receive_broadcast<K, V>> {};
template <class K, class V>
struct size_action : ttg_action<size_action<K, V>, &receive_size<K, V>> {};
template <class K, class V>
struct finalize_action : ttg_action<finalize_action<K, V>, &receive_finalize<K, V>> {};
template <class K>
struct invoke_action : ttg_action<invoke_action<K>, &receive_invoke<K>> {};
template <class K, class V>
struct pull_action : ttg_action<pull_action<K, V>, &serve_pull<K, V>> {};

}  // namespace weft::ttg::detail
