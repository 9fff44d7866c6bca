// Template tasks (issue #26; seed 001 ch.6, §6.2.1-§6.2.5): a task body with typed,
// ordered input and output terminals. A task instance for key k is created when the
// first message for k arrives on any input, and runs, as a weft task, once every input
// has its value for k; it may send on its outputs to any keys. ttg::make_tt builds one.
#pragma once

#include <weft/distributed.hpp>
#include <weft/sched/post.hpp>
#include <weft/ttg/detail/actions.hpp>
#include <weft/ttg/detail/core.hpp>
#include <weft/ttg/detail/hold.hpp>
#include <weft/ttg/edge.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <vector>

namespace weft::ttg {

namespace detail {

/// What every template task is, whatever its types: its name, number and terminals for
/// the graph checks and the Dot printer, and the entry points of messages from other
/// localities.
class tt_base {
public:
    explicit tt_base(std::string name) : name_(std::move(name)) {}
    tt_base(const tt_base&) = delete;
    tt_base& operator=(const tt_base&) = delete;
    virtual ~tt_base() = default;

    const std::string& name() const noexcept { return name_; }
    /// The same on every locality (the order in which template tasks were made).
    std::uint32_t id() const noexcept { return id_; }

    virtual std::size_t num_inputs() const noexcept = 0;
    virtual std::size_t num_outputs() const noexcept = 0;
    virtual const edge_base* input_edge(std::size_t i) const noexcept = 0;
    virtual const edge_base* output_edge(std::size_t i) const noexcept = 0;
    const std::string& input_name(std::size_t i) const { return in_names_.at(i); }
    const std::string& output_name(std::size_t i) const { return out_names_.at(i); }

    /// (Internal) the local_input<K, V> of input `terminal`, if it has those types.
    virtual void* local_input_of(std::uint32_t terminal, const std::type_info& kv) noexcept = 0;
    /// (Internal) invoke(*key) here; `key` points at the key type named by `k`.
    virtual void invoke_here(const void* key, const std::type_info& k) = 0;
    /// (Internal) the value pull edge `terminal` holds for *key here, into *value.
    virtual void read_pull(std::uint32_t terminal, const void* key, void* value, const std::type_info& kv) = 0;

    /// (Internal) messages from other localities are delivered (src/ttg/ttg.cpp; under its
    /// registry lock).
    bool executable = false;

protected:
    std::string name_;
    std::vector<std::string> in_names_, out_names_;
    std::uint32_t id_ = 0;
};

template <class K, class V>
local_input<K, V>& local_port(tt_base& tt, std::uint32_t terminal) {
    void* p = tt.local_input_of(terminal, typeid(local_input<K, V>));
    if (p == nullptr)
        throw error("weft::ttg: a message for input terminal " + std::to_string(terminal) + " of template task '" +
                    tt.name() + "' does not fit it (no such terminal, or other types): every locality must build the "
                                "same graph, in the same order");
    return *static_cast<local_input<K, V>*>(p);
}

template <class K>
void receive_invoke(std::uint32_t tt, K key) {
    deliver_message(tt, [k = std::move(key)](tt_base& t) { t.invoke_here(&k, typeid(K)); });
}

template <class K, class V>
V serve_pull(std::uint32_t tt, std::uint32_t terminal, K key) {
    V value{};
    wait_for_tt(tt).read_pull(terminal, &key, &value, typeid(local_input<K, V>));
    return value;
}

/// The name weft's task reports and traces give template task instances: kept for the
/// process's life (a trace is written when the runtime stops). src/ttg/ttg.cpp.
const char* interned(const std::string& name);

/// weft's three priorities from a priomap's int: above 0 high, 0 normal, below 0 low.
constexpr task_priority priority_of(int p) noexcept {
    return p > 0 ? task_priority::high : p < 0 ? task_priority::low : task_priority::normal;
}

/// The forms a task body may take (seed 001 §6.2.1 and §6.2.5), with inputs A...:
enum class body_form {
    none,
    values,      ///< f(key, inputs..., outs) (f(inputs..., outs) for a void key)
    lvalues,     ///< the same, taking some inputs by non-const reference
    tuple,       ///< f(key, std::tuple<inputs...>&, outs)
    pure_value,  ///< f(key, inputs...) returning the value sent on output 0 for the same key
    pure_void,   ///< f(key, inputs...) returning nothing (a sink)
};

template <class F, class Key, class Outs, class... A>
constexpr body_form form_of() {
    if constexpr (std::is_void_v<Key>) {
        if constexpr (std::is_invocable_v<F&, A&&..., Outs&>) return body_form::values;
        else if constexpr (std::is_invocable_v<F&, A&..., Outs&>) return body_form::lvalues;
        else if constexpr (std::is_invocable_v<F&, std::tuple<A...>&, Outs&>) return body_form::tuple;
        else if constexpr (std::is_invocable_v<F&, A&&...>)
            return std::is_void_v<std::invoke_result_t<F&, A&&...>> ? body_form::pure_void : body_form::pure_value;
        else return body_form::none;
    } else {
        if constexpr (std::is_invocable_v<F&, const Key&, A&&..., Outs&>) return body_form::values;
        else if constexpr (std::is_invocable_v<F&, const Key&, A&..., Outs&>) return body_form::lvalues;
        else if constexpr (std::is_invocable_v<F&, const Key&, std::tuple<A...>&, Outs&>) return body_form::tuple;
        else if constexpr (std::is_invocable_v<F&, const Key&, A&&...>)
            return std::is_void_v<std::invoke_result_t<F&, const Key&, A&&...>> ? body_form::pure_void
                                                                                : body_form::pure_value;
        else return body_form::none;
    }
}

/// The input values a body takes: the non-void ones, in order.
template <class... V>
struct non_void_list;
template <>
struct non_void_list<> {
    using type = std::tuple<>;
};
template <class V, class... Rest>
struct non_void_list<V, Rest...> {
    using rest = typename non_void_list<Rest...>::type;
    using type = std::conditional_t<std::is_void_v<V>, rest,
                                    decltype(std::tuple_cat(std::declval<std::tuple<V>>(), std::declval<rest>()))>;
};

template <class F, class Key, class Outs, class Tuple>
struct form_of_tuple;
template <class F, class Key, class Outs, class... A>
struct form_of_tuple<F, Key, Outs, std::tuple<A...>> {
    static constexpr body_form value = form_of<F, Key, Outs, A...>();
};

}  // namespace detail

template <class Key, class Inputs, class Outputs, class F>
class TT;

/// A template task with key type Key, input value types InV... and output terminals
/// Out<OK, OV>... (ttg::make_tt makes one). Instances run as weft tasks on the locality
/// the keymap names, at the priority the priomap gives.
template <class Key, class... InV, class... OK, class... OV, class F>
class TT<Key, std::tuple<InV...>, std::tuple<Out<OK, OV>...>, F> final : public detail::tt_base {
    static constexpr std::size_t N = sizeof...(InV);
    using K = storage_t<Key>;
    using in_types = std::tuple<InV...>;
    template <std::size_t I>
    using in_t = std::tuple_element_t<I, in_types>;
    template <std::size_t I>
    using in_s = storage_t<in_t<I>>;

public:
    using key_type = Key;
    using output_terminals_type = std::tuple<Out<OK, OV>...>;

    TT(F body, const std::tuple<Edge<Key, InV>...>& ins, const std::tuple<Edge<OK, OV>...>& outs, std::string name,
       std::vector<std::string> in_names, std::vector<std::string> out_names)
        : detail::tt_base(std::move(name)), body_(std::move(body)) {
        in_names.resize(N);
        out_names.resize(sizeof...(OK));
        for (std::size_t i = 0; i < N; ++i)
            if (in_names[i].empty()) in_names[i] = "in" + std::to_string(i);
        for (std::size_t i = 0; i < sizeof...(OK); ++i)
            if (out_names[i].empty()) out_names[i] = "out" + std::to_string(i);
        in_names_ = std::move(in_names);
        out_names_ = std::move(out_names);
        task_name_ = detail::interned(name_);
        id_ = detail::register_tt(this);  // first: it refuses a graph some localities do not build
        try {
            connect_inputs(ins, std::make_index_sequence<N>{});
            connect_outputs(outs, std::make_index_sequence<sizeof...(OK)>{});
        } catch (...) {
            disconnect(std::make_index_sequence<N>{});
            detail::unregister_tt(id_);
            throw;
        }
    }

    ~TT() override {
        detail::unregister_tt(id_);
        disconnect(std::make_index_sequence<N>{});
        for (auto& s : shards_)
            for (auto& [k, in] : s.map) delete in;
    }

    /// Sets the keymap: the locality (0 to get_num_localities() - 1) that runs the
    /// instance for a key. The default hashes the key (locality 0 for a void key).
    template <class M>
    void set_keymap(M m) {
        keymap_ = [m = std::move(m)](const K& k) -> std::uint32_t {
            if constexpr (std::is_void_v<Key>) return static_cast<std::uint32_t>(m());
            else return static_cast<std::uint32_t>(m(k));
        };
    }
    /// Sets the priomap: an instance's priority from its key (above 0: high, 0: normal,
    /// below 0: low; weft has three levels).
    template <class M>
    void set_priomap(M m) {
        priomap_ = [m = std::move(m)](const K& k) -> int {
            if constexpr (std::is_void_v<Key>) return static_cast<int>(m());
            else return static_cast<int>(m(k));
        };
    }
    /// The locality that runs the instance for `k`.
    std::uint32_t owner(const K& k) const {
        const std::uint32_t n = weft::get_num_localities();
        const std::uint32_t l = keymap_ ? keymap_(k) : detail::default_keymap(k, n == 0 ? 1 : n);
        if (l >= (n == 0 ? 1 : n))
            throw error("weft::ttg: the keymap of template task '" + name_ + "' sent key " + detail::key_string(k) +
                        " to locality " + std::to_string(l) + ", and there are " + std::to_string(n));
        return l;
    }

    /// Makes input I a stream (seed 001 §6.2.3): its messages for a key are folded with
    /// `reducer` as they arrive, never a task per message: reducer(U&, T&&) in place, or
    /// reducer(U&&, T&&) returning the new U. The stream for a key is complete after
    /// `count` messages (0: when finalized, or its size set with set_argstream_size).
    template <class R, class T>
    static constexpr bool in_place_reducer() {
        if constexpr (std::is_invocable_v<R&, T&, T&&>) return std::is_void_v<std::invoke_result_t<R&, T&, T&&>>;
        else return false;
    }

    template <std::size_t I, class R>
    void set_input_reducer(R reducer, std::size_t count = 0) {
        static_assert(I < N, "weft::ttg::TT::set_input_reducer<I>: no input terminal I");
        using T = in_s<I>;
        std::get<I>(reducers_) = [r = std::move(reducer)](T& acc, T&& v) mutable {
            if constexpr (in_place_reducer<R, T>()) r(acc, std::move(v));
            else acc = r(std::move(acc), std::move(v));
        };
        stream_[I] = true;
        stream_size_[I] = count;
    }
    /// The stream of input I for key `k` holds `n` messages (here or where k lives).
    template <std::size_t I>
    void set_argstream_size(const K& k, std::size_t n) {
        std::get<I>(ports_).set_size(k, n);
    }
    /// The stream of input I for key `k` is complete.
    template <std::size_t I>
    void finalize_argstream(const K& k) {
        std::get<I>(ports_).finalize(k);
    }

    /// Creates the instance for `k` (where its keymap says): a template task with no
    /// inputs runs; one whose inputs are all pull edges reads them, then runs.
    void invoke(const K& k)
        requires(!std::is_void_v<Key>)
    {
        invoke_key(k);
    }
    void invoke()
        requires std::is_void_v<Key>
    {
        invoke_key(K{});
    }
    /// Delivers `args` to the inputs (one per non-void input, in order) for key `k`.
    template <class... A>
        requires(sizeof...(A) > 0 && !std::is_void_v<Key>)
    void invoke(const K& k, A&&... args) {
        invoke_with(k, std::forward_as_tuple(std::forward<A>(args)...));
    }

    /// The output terminals (for sends from outside a task body, e.g. to start a graph).
    output_terminals_type& outputs() noexcept { return outs_; }
    template <std::size_t I>
    auto& out() noexcept {
        return std::get<I>(outs_);
    }

    std::size_t num_inputs() const noexcept override { return N; }
    std::size_t num_outputs() const noexcept override { return sizeof...(OK); }
    const detail::edge_base* input_edge(std::size_t i) const noexcept override { return i < N ? in_edges_[i] : nullptr; }
    const detail::edge_base* output_edge(std::size_t i) const noexcept override {
        return i < sizeof...(OK) ? out_edges_[i] : nullptr;
    }

    void* local_input_of(std::uint32_t terminal, const std::type_info& kv) noexcept override {
        return find_port(terminal, kv, std::make_index_sequence<N>{});
    }
    void invoke_here(const void* key, const std::type_info& k) override {
        if (k != typeid(K)) throw error("weft::ttg: an invocation of template task '" + name_ + "' has another key type");
        start(*static_cast<const K*>(key));
    }
    void read_pull(std::uint32_t terminal, const void* key, void* value, const std::type_info& kv) override {
        read_pull_at(terminal, key, value, kv, std::make_index_sequence<N>{});
    }

private:
    struct instance {
        std::tuple<std::optional<storage_t<InV>>...> args;
        std::array<std::size_t, N> count{};             ///< messages received, per input
        std::array<std::size_t, N> expected{};          ///< a stream's size (0: until finalized)
        std::array<bool, N> complete{};
        std::size_t remaining = N;  ///< inputs not complete
        bool lazy_started = false;
    };

    template <std::size_t I>
    class port final : public detail::input_port<Key, in_t<I>>, public detail::local_input<K, in_s<I>> {
    public:
        using V = in_s<I>;
        TT* tt = nullptr;
        void put(const K& k, V&& v) override {
            const std::uint32_t to = tt->owner(k);
            if (to == weft::get_locality_id()) return tt->template accept<I>(k, std::move(v));
            detail::message_sent();
            (void)&detail::message_action<K, V>::registrar;
            weft::post(detail::message_action<K, V>{}, weft::find_locality(to), tt->id_, std::uint32_t{I}, k, std::move(v));
        }
        void put_many(const std::vector<K>& keys, const V& v) override {
            if constexpr (!std::is_copy_constructible_v<V>) {
                (void)keys;
                (void)v;
                throw error("weft::ttg: a broadcast of a move-only value");  // Out::broadcast refuses it
            } else {
                put_many_copies(keys, v);
            }
        }
        void put_many_copies(const std::vector<K>& keys, const V& v)
            requires std::is_copy_constructible_v<V>
        {
            const std::uint32_t here = weft::get_locality_id();
            std::unordered_map<std::uint32_t, std::vector<K>> away;
            for (const K& k : keys) {
                const std::uint32_t to = tt->owner(k);
                if (to == here) tt->template accept<I>(k, V(v));
                else away[to].push_back(k);
            }
            (void)&detail::broadcast_action<K, V>::registrar;
            for (auto& [to, ks] : away) {
                detail::message_sent();
                weft::post(detail::broadcast_action<K, V>{}, weft::find_locality(to), tt->id_, std::uint32_t{I}, ks, v);
            }
        }
        void set_size(const K& k, std::size_t n) override {
            const std::uint32_t to = tt->owner(k);
            if (to == weft::get_locality_id()) return set_size_here(k, n);
            detail::message_sent();
            (void)&detail::size_action<K, V>::registrar;
            weft::post(detail::size_action<K, V>{}, weft::find_locality(to), tt->id_, std::uint32_t{I}, k,
                       std::uint64_t{n});
        }
        void finalize(const K& k) override {
            const std::uint32_t to = tt->owner(k);
            if (to == weft::get_locality_id()) return finalize_here(k);
            detail::message_sent();
            (void)&detail::finalize_action<K, V>::registrar;
            weft::post(detail::finalize_action<K, V>{}, weft::find_locality(to), tt->id_, std::uint32_t{I}, k);
        }
        void set(const K& k, V&& v) override { tt->template accept<I>(k, std::move(v)); }
        void set_many(const std::vector<K>& keys, const V& v) override {
            if constexpr (!std::is_copy_constructible_v<V>) {
                (void)keys;
                (void)v;
                throw error("weft::ttg: a broadcast of a move-only value");
            } else {
                for (const K& k : keys) tt->template accept<I>(k, V(v));
            }
        }
        void set_size_here(const K& k, std::size_t n) override { tt->template size_stream<I>(k, n); }
        void finalize_here(const K& k) override { tt->template finalize_stream<I>(k); }
    };

    template <class Seq>
    struct ports_of;
    template <std::size_t... I>
    struct ports_of<std::index_sequence<I...>> {
        using type = std::tuple<port<I>...>;
    };

    struct alignas(64) shard {
        using map_type = std::unordered_map<K, instance*, detail::key_hash>;
        std::mutex m;
        map_type map;
        /// Nodes of instances that ran, kept for the next keys (a node is a malloc and a
        /// free, often on two threads, per instance otherwise).
        std::vector<typename map_type::node_type> spare;

        /// k's entry, made (with a null instance) if there is none; whether it was made.
        std::pair<typename map_type::iterator, bool> find_or_make(const K& k) {
            if (auto it = map.find(k); it != map.end()) return {it, false};
            if (spare.empty()) return map.try_emplace(k, nullptr);
            typename map_type::node_type nh = std::move(spare.back());
            spare.pop_back();
            nh.key() = k;
            nh.mapped() = nullptr;
            return {map.insert(std::move(nh)).position, true};
        }
        void drop(typename map_type::iterator it) {
            if (spare.size() < spare_nodes) spare.push_back(map.extract(it));
            else map.erase(it);
        }
    };
    static constexpr std::size_t spare_nodes = 64;
    static constexpr std::size_t shard_count = 32;

    shard& shard_of(const K& k) noexcept { return shards_[detail::key_hash{}(k) % shard_count]; }

    instance* make_instance() const {
        auto* in = new instance;
        for (std::size_t i = 0; i < N; ++i) in->expected[i] = stream_[i] ? stream_size_[i] : 1;
        return in;
    }

    /// Under the shard's lock: input I of `in` is complete.
    template <std::size_t I>
    static void complete(instance& in) noexcept {
        in.complete[I] = true;
        --in.remaining;
    }

    /// Input I's value for k, here.
    template <std::size_t I>
    void accept(const K& k, in_s<I>&& v) {
        change_instance<I>(k, [this, &k, &v](instance& in) {
            auto& slot = std::get<I>(in.args);
            if (!stream_[I]) {
                if (in.count[I] != 0) throw second_value(I, k);
                slot.emplace(std::move(v));
                in.count[I] = 1;
                complete<I>(in);
            } else {
                if (in.complete[I]) throw stream_overflow(I, k);
                if (!slot) slot.emplace(std::move(v));
                else std::get<I>(reducers_)(*slot, std::move(v));
                if (++in.count[I] == in.expected[I]) complete<I>(in);
            }
        });
    }

    template <std::size_t I>
    void size_stream(const K& k, std::size_t n) {
        if (!stream_[I])
            throw error("weft::ttg: set_argstream_size on input terminal " + std::to_string(I) + " ('" + in_names_[I] +
                        "') of template task '" + name_ + "', which is not a stream (set_input_reducer makes one)");
        change_instance<I>(k, [this, n, k](instance& in) {
            if (in.complete[I] || (n != 0 && in.count[I] > n))
                throw error("weft::ttg: the stream of input terminal " + std::to_string(I) + " ('" + in_names_[I] +
                            "') of template task '" + name_ + "' for key " + detail::key_string(k) + " has " +
                            std::to_string(in.count[I]) + " message(s) already: its size cannot be set to " +
                            std::to_string(n));
            in.expected[I] = n;
            if (n != 0 && in.count[I] == n) complete<I>(in);
        });
    }

    template <std::size_t I>
    void finalize_stream(const K& k) {
        if (!stream_[I])
            throw error("weft::ttg: finalize_argstream on input terminal " + std::to_string(I) + " ('" + in_names_[I] +
                        "') of template task '" + name_ + "', which is not a stream (set_input_reducer makes one)");
        change_instance<I>(k, [this, k](instance& in) {
            if (in.complete[I]) throw stream_overflow(I, k);
            if (in.count[I] == 0)
                throw error("weft::ttg: the stream of input terminal " + std::to_string(I) + " ('" + in_names_[I] +
                            "') of template task '" + name_ + "' for key " + detail::key_string(k) +
                            " was finalized with no message in it");
            complete<I>(in);
        });
    }

    /// Applies `change` to k's instance (made if new) under its shard's lock; runs the
    /// instance once complete, and starts its pulls when it is new or its turn comes.
    template <std::size_t I, class Change>
    void change_instance(const K& k, Change&& change) {
        if constexpr (N == 1) {
            // One plain input: its value completes the instance, which no other message
            // will look for (a chain's links, say). No table entry, no lock.
            if (!stream_[0] && greedy_pulls_ == 0 && lazy_pulls_ == 0) {
                instance* in = make_instance();
                try {
                    change(*in);
                } catch (...) {
                    delete in;
                    throw;
                }
                return after_change(k, in, false, false);
            }
        }
        shard& s = shard_of(k);
        instance* ready = nullptr;
        bool fresh = false, lazy = false;
        {
            std::lock_guard lock(s.m);
            auto [it, created] = s.find_or_make(k);
            if (created) {
                try {
                    it->second = make_instance();
                } catch (...) {
                    s.drop(it);
                    throw;
                }
                fresh = true;
            }
            instance& in = *it->second;
            change(in);
            lazy = take_lazy_turn(in);
            if (in.remaining == 0) {
                ready = it->second;
                s.drop(it);
            }
        }
        after_change(k, ready, fresh, lazy);
    }

    /// Under the lock: whether the lazy pulls start now (every other input complete).
    bool take_lazy_turn(instance& in) const noexcept {
        if (lazy_pulls_ == 0 || in.lazy_started) return false;
        std::size_t waiting_lazy = 0;
        for (std::size_t i = 0; i < N; ++i)
            if (pull_lazy_[i] && !in.complete[i]) ++waiting_lazy;
        if (in.remaining != waiting_lazy) return false;
        in.lazy_started = true;
        return true;
    }

    void after_change(const K& k, instance* ready, bool fresh, bool lazy) {
        if (fresh && greedy_pulls_ != 0) start_pulls(k, false, std::make_index_sequence<N>{});
        if (lazy) start_pulls(k, true, std::make_index_sequence<N>{});
        if (ready != nullptr) schedule(k, ready);
    }

    template <std::size_t... I>
    void start_pulls(const K& k, bool lazy, std::index_sequence<I...>) {
        (pull_one<I>(k, lazy), ...);
    }

    /// Reads pull input I for k, where its data lives; the value arrives as a message.
    template <std::size_t I>
    void pull_one(const K& k, bool lazy) {
        if constexpr (!std::is_void_v<in_t<I>>) {
            const auto* src = pull_[I];
            if (src == nullptr || pull_lazy_[I] != lazy) return;
            using V = in_s<I>;
            const auto& source = *static_cast<const detail::pull_source<Key, in_t<I>>*>(src);
            const std::uint32_t from = source.keymap(k);
            if (from == weft::get_locality_id()) return accept<I>(k, source.read(k));
            (void)&detail::pull_action<K, V>::registrar;
            detail::work_started();
            weft::async(detail::pull_action<K, V>{}, weft::find_locality(from), id_, std::uint32_t{I}, k)
                .then([this, k](future<V> f) {
                    try {
                        accept<I>(k, f.get());
                    } catch (...) {
                        detail::task_failed(std::current_exception());
                    }
                    detail::work_finished();
                });
        }
    }

    /// Runs the complete instance `in` for `k` as a weft task; from inside a body, the
    /// last instance it readies runs next on its worker (detail/hold.hpp).
    void schedule(const K& k, instance* in) {
        detail::work_started();
        const task_attributes a{priomap_ ? detail::priority_of(priomap_(k)) : task_priority::normal, task_name_};
        auto body = [this, k, in] { run(k, in); };
        using block = weft::detail::post_block<decltype(body)>;
        block* b = nullptr;
        try {
            b = weft::detail::make_block<block>(std::move(body));
        } catch (...) {
            delete in;
            detail::work_finished();
            throw;
        }
        weft::detail::apply_attributes(*b, a);
        detail::spawn_or_hold(b);
    }

    void run(const K& k, instance* in) noexcept {
        {
            detail::body_scope hold;
            try {
                call(k, *in, std::make_index_sequence<N>{});
            } catch (...) {
                detail::task_failed(std::current_exception());
            }
            delete in;
        }
        detail::work_finished();
    }

    template <std::size_t I>
    static auto arg_of(instance& in) {
        if constexpr (std::is_void_v<in_t<I>>) return std::tuple<>{};
        else return std::forward_as_tuple(std::move(*std::get<I>(in.args)));
    }

    template <std::size_t... I>
    void call(const K& k, instance& in, std::index_sequence<I...>) {
        auto args = std::tuple_cat(arg_of<I>(in)...);
        std::apply([this, &k](auto&&... a) { this->call_body(k, std::forward<decltype(a)>(a)...); }, std::move(args));
    }

    template <class... A>
    void call_body([[maybe_unused]] const K& k, A&&... a) {
        using outs_t = std::tuple<Out<OK, OV>...>;
        constexpr detail::body_form form = detail::form_of<F, Key, outs_t, std::remove_cvref_t<A>...>();
        if constexpr (std::is_void_v<Key>) {
            if constexpr (form == detail::body_form::values) body_(std::forward<A>(a)..., outs_);
            else if constexpr (form == detail::body_form::lvalues) body_(a..., outs_);
            else if constexpr (form == detail::body_form::tuple) {
                std::tuple<std::remove_cvref_t<A>...> t(std::forward<A>(a)...);
                body_(t, outs_);
            } else if constexpr (form == detail::body_form::pure_void) body_(std::forward<A>(a)...);
            else std::get<0>(outs_).sendv(body_(std::forward<A>(a)...));
        } else {
            if constexpr (form == detail::body_form::values) body_(k, std::forward<A>(a)..., outs_);
            else if constexpr (form == detail::body_form::lvalues) body_(k, a..., outs_);
            else if constexpr (form == detail::body_form::tuple) {
                std::tuple<std::remove_cvref_t<A>...> t(std::forward<A>(a)...);
                body_(k, t, outs_);
            } else if constexpr (form == detail::body_form::pure_void) body_(k, std::forward<A>(a)...);
            else std::get<0>(outs_).send(k, body_(k, std::forward<A>(a)...));
        }
    }

    void invoke_key(const K& k) {
        const std::uint32_t to = owner(k);
        if (to == weft::get_locality_id()) return start(k);
        detail::message_sent();
        (void)&detail::invoke_action<K>::registrar;
        weft::post(detail::invoke_action<K>{}, weft::find_locality(to), id_, k);
    }

    /// invoke(k) where k lives.
    void start(const K& k) {
        if constexpr (N == 0) {
            schedule(k, make_instance());
        } else {
            if (greedy_pulls_ + lazy_pulls_ != N)
                throw error("weft::ttg: invoke(key) on template task '" + name_ +
                            "', which has inputs that are not pull edges: send them values, or invoke(key, values...)");
            change_instance<0>(k, [](instance&) {});
        }
    }

    template <class Tuple>
    void invoke_with(const K& k, Tuple&& args) {
        using given = std::remove_cvref_t<Tuple>;
        using wanted = typename detail::non_void_list<InV...>::type;
        static_assert(std::tuple_size_v<given> == std::tuple_size_v<wanted>,
                      "weft::ttg::TT::invoke(key, args...): one argument per non-void input terminal");
        invoke_inputs(k, std::forward<Tuple>(args), std::make_index_sequence<N>{});
    }
    template <class Tuple, std::size_t... I>
    void invoke_inputs(const K& k, Tuple&& args, std::index_sequence<I...>) {
        (invoke_input<I>(k, args), ...);
    }
    /// The position among the non-void inputs of input I.
    template <std::size_t I>
    static constexpr std::size_t value_index() {
        std::size_t n = 0;
        constexpr bool is_void[] = {std::is_void_v<InV>..., false};
        for (std::size_t i = 0; i < I; ++i)
            if (!is_void[i]) ++n;
        return n;
    }
    template <std::size_t I, class Tuple>
    void invoke_input(const K& k, Tuple& args) {
        if constexpr (std::is_void_v<in_t<I>>) std::get<I>(ports_).put(k, in_s<I>{});
        else std::get<I>(ports_).put(k, in_s<I>(std::forward<std::tuple_element_t<value_index<I>(), Tuple>>(
                                                std::get<value_index<I>()>(args))));
    }

    template <std::size_t... I>
    void connect_inputs(const std::tuple<Edge<Key, InV>...>& ins, std::index_sequence<I...>) {
        (connect_input<I>(std::get<I>(ins)), ...);
    }
    template <std::size_t I>
    void connect_input(const Edge<Key, in_t<I>>& e) {
        auto& p = std::get<I>(ports_);
        p.tt = this;
        const auto& st = e.state();
        in_edges_[I] = st.get();
        st->consumers.push_back({this, I});
        if (st->source) {
            pull_[I] = &*st->source;
            pull_lazy_[I] = st->source->lazy;
            ++(st->source->lazy ? lazy_pulls_ : greedy_pulls_);
        } else {
            st->ports.push_back(&p);
        }
        keep_in_[I] = st;
    }
    template <std::size_t... I>
    void connect_outputs(const std::tuple<Edge<OK, OV>...>& outs, std::index_sequence<I...>) {
        ((std::get<I>(outs_).connect(std::get<I>(outs), this, I, out_names_[I]),
          out_edges_[I] = std::get<I>(outs).state().get(), keep_out_[I] = std::get<I>(outs).state()),
         ...);
    }
    template <std::size_t... I>
    void disconnect(std::index_sequence<I...>) noexcept {
        (disconnect_input<I>(), ...);
        for (auto& e : keep_out_)
            if (e) std::erase_if(e->producers, [this](const detail::terminal_ref& r) { return r.owner == this; });
    }
    template <std::size_t I>
    void disconnect_input() noexcept {
        auto st = std::static_pointer_cast<detail::edge_state<Key, in_t<I>>>(keep_in_[I]);
        if (!st) return;
        std::erase(st->ports, &std::get<I>(ports_));
        std::erase_if(st->consumers, [this](const detail::terminal_ref& r) { return r.owner == this; });
    }

    template <std::size_t... I>
    void* find_port([[maybe_unused]] std::uint32_t terminal, [[maybe_unused]] const std::type_info& kv,
                    std::index_sequence<I...>) noexcept {
        void* found = nullptr;
        ((terminal == I && kv == typeid(detail::local_input<K, in_s<I>>)
              ? (found = static_cast<detail::local_input<K, in_s<I>>*>(&std::get<I>(ports_)), 0)
              : 0),
         ...);
        return found;
    }
    template <std::size_t... I>
    void read_pull_at(std::uint32_t terminal, [[maybe_unused]] const void* key, [[maybe_unused]] void* value,
                      [[maybe_unused]] const std::type_info& kv, std::index_sequence<I...>) {
        bool done = false;
        (read_pull_one<I>(terminal, key, value, kv, done), ...);
        if (!done)
            throw error("weft::ttg: a pull for input terminal " + std::to_string(terminal) + " of template task '" +
                        name_ + "' does not fit it (not a pull edge, or other types)");
    }
    template <std::size_t I>
    void read_pull_one(std::uint32_t terminal, const void* key, void* value, const std::type_info& kv, bool& done) {
        if constexpr (!std::is_void_v<in_t<I>>) {
            if (terminal != I || kv != typeid(detail::local_input<K, in_s<I>>) || pull_[I] == nullptr) return;
            const auto& source = *static_cast<const detail::pull_source<Key, in_t<I>>*>(pull_[I]);
            *static_cast<in_s<I>*>(value) = source.read(*static_cast<const K*>(key));
            done = true;
        }
    }

    error second_value(std::size_t i, const K& k) const {
        return error("weft::ttg: input terminal " + std::to_string(i) + " ('" + in_names_[i] + "') of template task '" +
                     name_ + "' received a second value for key " + detail::key_string(k) +
                     " (an input takes one value per key; set_input_reducer makes it a stream)");
    }
    error stream_overflow(std::size_t i, const K& k) const {
        return error("weft::ttg: the stream of input terminal " + std::to_string(i) + " ('" + in_names_[i] +
                     "') of template task '" + name_ + "' for key " + detail::key_string(k) +
                     " received a message after it was complete");
    }

    F body_;
    std::tuple<Out<OK, OV>...> outs_;
    typename ports_of<std::make_index_sequence<N>>::type ports_;
    std::array<const detail::edge_base*, N> in_edges_{};
    std::array<const detail::edge_base*, sizeof...(OK)> out_edges_{};
    std::array<std::shared_ptr<detail::edge_base>, N> keep_in_{};
    std::array<std::shared_ptr<detail::edge_base>, sizeof...(OK)> keep_out_{};
    std::array<const void*, N> pull_{};  ///< a pull input's pull_source<Key, V>, or null
    std::array<bool, N> pull_lazy_{};
    std::size_t greedy_pulls_ = 0, lazy_pulls_ = 0;
    std::array<bool, N> stream_{};
    std::array<std::size_t, N> stream_size_{};
    std::tuple<std::function<void(storage_t<InV>&, storage_t<InV>&&)>...> reducers_;
    std::function<std::uint32_t(const K&)> keymap_;
    std::function<int(const K&)> priomap_;
    const char* task_name_ = nullptr;
    std::array<shard, shard_count> shards_;
};

namespace detail {
struct deduce_key {};
template <class KeyArg, class... InK>
struct key_of {
    using type = KeyArg;
};
template <class First, class... Rest>
struct key_of<deduce_key, First, Rest...> {
    static_assert((std::is_same_v<First, Rest> && ...),
                  "weft::ttg::make_tt: every input edge of a template task must carry the same key type");
    using type = First;
};
template <class KeyArg>
struct key_of<KeyArg> {
    static_assert(!std::is_same_v<KeyArg, deduce_key>,
                  "weft::ttg::make_tt: a template task without inputs needs its key type: make_tt<Key>(f, ...)");
    using type = KeyArg;
};
}  // namespace detail

/// Makes a template task (seed 001 §6.2.1, Listing 9): body `f` with input edges `ins`
/// and output edges `outs` (ttg::edges(...)), a name, and names for the terminals.
/// The body is called as f(key, inputs..., outs) (without the key for a void key; void
/// inputs are not passed), or f(key, std::tuple<inputs...>&, outs), or as a pure task
/// f(key, inputs...) whose result is sent on output 0 for the same key. `outs` is the
/// task's std::tuple<ttg::Out<K, V>...>&. The key type comes from the input edges (all
/// the same), or from make_tt<Key>(...) for a task with no inputs. A body that fits
/// none of these forms, or edges of other types than the terminals, do not compile.
template <class KeyArg = detail::deduce_key, class F, class... IK, class... IV, class... OK, class... OV>
auto make_tt(F f, const edge_list<Edge<IK, IV>...>& ins, const edge_list<Edge<OK, OV>...>& outs,
             std::string name = "tt", std::vector<std::string> in_names = {}, std::vector<std::string> out_names = {}) {
    using Key = typename detail::key_of<KeyArg, IK...>::type;
    static_assert((std::is_same_v<Key, IK> && ...),
                  "weft::ttg::make_tt: an input edge's key type differs from the template task's key type");
    using outs_t = std::tuple<Out<OK, OV>...>;
    static_assert(detail::form_of_tuple<F, Key, outs_t, typename detail::non_void_list<IV...>::type>::value !=
                      detail::body_form::none,
                  "weft::ttg::make_tt: the task body cannot be called as f(key, inputs..., outs) with these edges' "
                  "types (nor f(key, std::tuple<inputs...>&, outs), nor f(key, inputs...))");
    using tt_t = TT<Key, std::tuple<IV...>, outs_t, F>;
    return std::make_unique<tt_t>(std::move(f), ins.edges, outs.edges, std::move(name), std::move(in_names),
                                  std::move(out_names));
}

}  // namespace weft::ttg
