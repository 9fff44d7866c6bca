// Edges and output terminals of the template task graph (issue #26; seed 001 ch.6,
// §6.2.1): an Edge<Key, Value> joins output terminals (Out) to the input terminals of
// template tasks; every message on it is a key (which task instance) and a value.
#pragma once

#include <weft/ttg/detail/core.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft::ttg {

namespace detail {

/// A terminal as the graph checks and the Dot printer see it.
struct terminal_ref {
    tt_base* owner = nullptr;
    std::size_t index = 0;
};

/// What every edge is, whatever its types.
struct edge_base {
    std::string name;
    std::vector<terminal_ref> producers;  ///< output terminals that send on it
    std::vector<terminal_ref> consumers;  ///< input terminals it delivers to
    bool pull = false;                    ///< a pull edge: values come from a container
    explicit edge_base(std::string n) : name(std::move(n)) {}
    virtual ~edge_base() = default;
};

/// An input terminal, as the edges that deliver to it see it. Implemented by the
/// template task (tt.hpp); each call goes to the locality its keymap names.
template <class Key, class Value>
class input_port {
public:
    using key_type = storage_t<Key>;
    using value_type = storage_t<Value>;
    virtual ~input_port() = default;
    /// Delivers `v` for key `k` (moved).
    virtual void put(const key_type& k, value_type&& v) = 0;
    /// Delivers a copy of `v` for each key of `keys`: one message per locality.
    virtual void put_many(const std::vector<key_type>& keys, const value_type& v) = 0;
    /// The stream of key `k` on this terminal holds `n` values.
    virtual void set_size(const key_type& k, std::size_t n) = 0;
    /// The stream of key `k` on this terminal is complete.
    virtual void finalize(const key_type& k) = 0;
};

/// A pull edge's source: the value for a key, read where the data lives (seed 001
/// §6.2.4), and that place.
template <class Key, class Value>
struct pull_source {
    std::function<storage_t<Value>(const storage_t<Key>&)> read;
    std::function<std::uint32_t(const storage_t<Key>&)> keymap;
    bool lazy = false;  ///< read once the task's other inputs have arrived, not at its creation
};

template <class Key, class Value>
struct edge_state final : edge_base {
    std::vector<input_port<Key, Value>*> ports;  ///< the consumers' ports, in connection order
    std::optional<pull_source<Key, Value>> source;
    using edge_base::edge_base;
};

}  // namespace detail

/// An edge: the flow of (Key, Value) messages from output terminals to input terminals
/// (seed 001 §6.2.1). `Value` may be void (pure control flow: keys only), `Key` may be
/// void (pure data flow: one task instance at a time). Copies of an Edge are the same
/// edge. Any number of output and input terminals may join one edge; a template task
/// may feed its own inputs (cycles unfold at run time).
template <class Key, class Value>
class Edge {
public:
    using key_type = Key;
    using value_type = Value;

    explicit Edge(std::string name = "edge") : s_(std::make_shared<detail::edge_state<Key, Value>>(std::move(name))) {}

    /// A pull edge (seed 001 §6.2.4, Listing 10): nobody sends on it; a task instance
    /// created for key k reads `container[index_of(k)]` on the locality `keymap(k)`
    /// names (where that container's data lives), fetched at creation (default) or, with
    /// `lazy`, once the task's other inputs have arrived. Every locality passes its own
    /// container (its own part of the data).
    template <class Container, class IndexOf, class Keymap>
    Edge(std::string name, bool is_pull, Container& container, IndexOf index_of, Keymap keymap, bool lazy = false)
        : Edge(std::move(name)) {
        if (!is_pull) return;
        s_->pull = true;
        s_->source = detail::pull_source<Key, Value>{
            [&container, index_of](const storage_t<Key>& k) -> storage_t<Value> { return container[index_of(k)]; },
            [keymap](const storage_t<Key>& k) -> std::uint32_t { return static_cast<std::uint32_t>(keymap(k)); }, lazy};
    }

    const std::string& name() const noexcept { return s_->name; }
    bool is_pull() const noexcept { return s_->pull; }

    /// (Internal) the shared state.
    const std::shared_ptr<detail::edge_state<Key, Value>>& state() const noexcept { return s_; }

private:
    std::shared_ptr<detail::edge_state<Key, Value>> s_;
};

/// The edges of a template task's inputs or outputs, in terminal order: ttg::edges(a, b).
template <class... Es>
struct edge_list {
    std::tuple<Es...> edges;
};

template <class... K, class... V>
edge_list<Edge<K, V>...> edges(const Edge<K, V>&... e) {
    return {std::tuple<Edge<K, V>...>(e...)};
}

/// An output terminal: what a task body sends on (seed 001 §6.2.1). Sends go to every
/// input terminal its edge joins, each on the locality the receiver's keymap names:
/// moved into the last receiver here, copied for the others, serialized (once per
/// message) for another locality. Sends from concurrent tasks are safe.
template <class Key, class Value>
class Out {
public:
    using key_type = Key;
    using value_type = Value;
    using K = storage_t<Key>;
    using V = storage_t<Value>;

    Out() = default;

    /// Sends `value` for `key`.
    template <class U>
        requires(!std::is_void_v<Key> && !std::is_void_v<Value> && std::is_constructible_v<V, U &&>)
    void send(const K& key, U&& value) const {
        deliver(key, std::forward<U>(value));
    }
    /// Sends `key` on a control edge (void value).
    void sendk(const K& key) const
        requires(!std::is_void_v<Key> && std::is_void_v<Value>)
    {
        deliver(key, V{});
    }
    /// Sends `value` on a data edge (void key).
    template <class U>
        requires(std::is_void_v<Key> && !std::is_void_v<Value> && std::is_constructible_v<V, U &&>)
    void sendv(U&& value) const {
        deliver(K{}, std::forward<U>(value));
    }
    /// Sends nothing on an edge whose key and value are both void: triggers the receiver.
    void send() const
        requires(std::is_void_v<Key> && std::is_void_v<Value>)
    {
        deliver(K{}, V{});
    }
    /// Sends one value to many keys: one message per receiving locality, whatever the
    /// number of keys there.
    template <class Range>
        requires(!std::is_void_v<Key>)
    void broadcast(const Range& keys, const V& value) const {
        static_assert(std::is_copy_constructible_v<V>,
                      "weft::ttg::Out::broadcast: one value to many keys needs a copyable value type");
        std::vector<K> ks;
        for (const auto& k : keys) ks.push_back(k);
        if (ks.empty()) return;
        for (detail::input_port<Key, Value>* p : ports()) p->put_many(ks, value);
    }
    /// Broadcast of keys on a control edge.
    template <class Range>
        requires(!std::is_void_v<Key> && std::is_void_v<Value>)
    void broadcastk(const Range& keys) const {
        broadcast(keys, V{});
    }
    /// The receivers' streams for `key` hold `n` values (streaming terminals).
    void set_size(const K& key, std::size_t n) const {
        for (detail::input_port<Key, Value>* p : ports()) p->set_size(key, n);
    }
    /// The receivers' streams for `key` are complete (streaming terminals).
    void finalize(const K& key) const {
        for (detail::input_port<Key, Value>* p : ports()) p->finalize(key);
    }

    const std::string& name() const noexcept { return name_; }
    /// (Internal) joins this terminal (terminal `index` of `owner`) to `e`.
    void connect(const Edge<Key, Value>& e, detail::tt_base* owner, std::size_t index, std::string name) {
        edge_ = e.state();
        name_ = std::move(name);
        edge_->producers.push_back({owner, index});
    }
    const detail::edge_state<Key, Value>* edge() const noexcept { return edge_.get(); }

private:
    const std::vector<detail::input_port<Key, Value>*>& ports() const {
        if (!edge_) throw error("weft::ttg: send on output terminal '" + name_ + "', which is joined to no edge");
        return edge_->ports;
    }
    template <class U>
    void deliver(const K& key, U&& value) const {
        const auto& ps = ports();
        if (ps.empty()) return;
        if constexpr (std::is_copy_constructible_v<V>) {
            for (std::size_t i = 0; i + 1 < ps.size(); ++i) ps[i]->put(key, V(value));
        } else if (ps.size() > 1) {
            throw error("weft::ttg: a send on output terminal '" + name_ + "' of a move-only value, to an edge with " +
                        std::to_string(ps.size()) + " input terminals: each would need a copy");
        }
        ps.back()->put(key, V(std::forward<U>(value)));
    }

    std::shared_ptr<detail::edge_state<Key, Value>> edge_;
    std::string name_;
};

/// Sends `value` for `key` on output terminal I of a task body's `outs`.
template <std::size_t I, class Key, class Value, class... Outs>
void send(const Key& key, Value&& value, std::tuple<Outs...>& outs) {
    std::get<I>(outs).send(key, std::forward<Value>(value));
}
/// Sends `key` on control output terminal I (void value).
template <std::size_t I, class Key, class... Outs>
void sendk(const Key& key, std::tuple<Outs...>& outs) {
    std::get<I>(outs).sendk(key);
}
/// Sends `value` on data output terminal I (void key).
template <std::size_t I, class Value, class... Outs>
void sendv(Value&& value, std::tuple<Outs...>& outs) {
    std::get<I>(outs).sendv(std::forward<Value>(value));
}
/// Sends `value` to every key of `keys` on output terminal I.
template <std::size_t I, class Range, class Value, class... Outs>
void broadcast(const Range& keys, const Value& value, std::tuple<Outs...>& outs) {
    std::get<I>(outs).broadcast(keys, value);
}
/// Sends every key of `keys` on control output terminal I.
template <std::size_t I, class Range, class... Outs>
void broadcastk(const Range& keys, std::tuple<Outs...>& outs) {
    std::get<I>(outs).broadcastk(keys);
}
/// Sets the size of the receivers' streams for `key` on output terminal I.
template <std::size_t I, class Key, class... Outs>
void set_size(const Key& key, std::size_t n, std::tuple<Outs...>& outs) {
    std::get<I>(outs).set_size(key, n);
}
/// Completes the receivers' streams for `key` on output terminal I.
template <std::size_t I, class Key, class... Outs>
void finalize(const Key& key, std::tuple<Outs...>& outs) {
    std::get<I>(outs).finalize(key);
}

}  // namespace weft::ttg
