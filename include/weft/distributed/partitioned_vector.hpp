// weft::partitioned_vector<T> (issue #25; seed 003 §5.3, L192-L201): one vector whose
// elements live in partitions spread over localities, each partition a component on its
// locality. Element access goes to the partition that holds the element; the segmented
// algorithms (weft/distributed/segmented_algorithms.hpp) run each partition's part where
// it lives, with the local parallel algorithm, and only results and boundary values
// cross localities.
//
// @code
// weft::partitioned_vector<double> v(1'000'000, 1.0, weft::container_layout(8));  // 8 partitions over every locality
// v.set_value(17, 2.5);
// double s = weft::reduce(weft::execution::par, v.begin(), v.end(), 0.0);
// v.register_as("field");                                  // another locality:
// auto w = weft::partitioned_vector<double>::connect_to("field");
// @endcode
//
// Layout: weft::container_layout(parts[, localities]) (component.hpp): `parts` partitions
// in blocks over the localities (the first parts/L on the first locality, and so on), or
// container_layout::cyclic. Partition i holds n/parts elements, one more for i < n % parts
// (so partitions may be empty when parts > n). Without a layout: one partition per
// locality.
//
// Lifetime: the vector made by a constructor owns its partitions; copies share them, and
// the last copy on the creating locality destroys them (and unregisters its name). A
// vector from connect_to() (or any copy sent elsewhere) only refers to them: use it while
// the owner lives.
//
// T must be serializable (weft/distributed/serialization.hpp) and default constructible.
#pragma once

#include <weft/distributed/component.hpp>
#include <weft/distributed/serialization.hpp>
#include <weft/futures/future.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

namespace weft {

template <class T>
class partitioned_vector;

namespace distributed::detail {

/// A function object on its way to another locality: a trivially copyable one (a lambda
/// whose captures are values: numbers, ids, small structs; never pointers or references,
/// which mean nothing elsewhere) travels as its bytes, since every locality runs the same
/// binary; any other must be default constructible and serializable itself.
template <class F>
struct fn_box {
    static_assert(std::is_trivially_copyable_v<F>, "fn_box holds trivially copyable function objects");
    alignas(F) std::byte bytes[sizeof(F)] = {};

    fn_box() = default;
    explicit fn_box(const F& f) noexcept { std::memcpy(bytes, &f, sizeof(F)); }
    // A trivially copyable type is an implicit-lifetime type: copying its bytes into
    // suitably aligned storage makes an F there (P0593).
    const F& get() const noexcept { return *std::launder(reinterpret_cast<const F*>(bytes)); }
    F& get() noexcept { return *std::launder(reinterpret_cast<F*>(bytes)); }
};

template <class F>
concept shippable_function =
    std::is_trivially_copyable_v<F> ||
    (std::is_default_constructible_v<F> && serialization::detail::user_serializable<F>);

template <class F>
using shipped = std::conditional_t<std::is_trivially_copyable_v<F>, fn_box<F>, F>;

template <class F>
shipped<F> ship(const F& f) {
    static_assert(shippable_function<F>,
                  "weft: a function given to an algorithm on a partitioned_vector runs where the data lives: it must "
                  "be trivially copyable (a lambda capturing values, not pointers or references) or default "
                  "constructible and serializable");
    if constexpr (std::is_trivially_copyable_v<F>) return fn_box<F>(f);
    else return f;
}
template <class F>
const F& unship(const fn_box<F>& b) noexcept {
    return b.get();
}
template <class F>
const F& unship(const F& f) noexcept {
    return f;
}

/// One partition: its elements, and (partition 0 of a registered vector) the whole
/// vector's description for connect_to. Not migratable (it has no serialize): its id
/// resolves here with no message.
template <class T>
struct partition_server : component<partition_server<T>> {
    std::vector<T> data;
    std::vector<std::byte> description;  ///< set by register_as on partition 0

    partition_server() = default;
    explicit partition_server(std::uint64_t n) : data(static_cast<std::size_t>(n)) {}
    partition_server(std::uint64_t n, T value) : data(static_cast<std::size_t>(n), std::move(value)) {}

    T get_value(std::uint64_t i) const { return data.at(static_cast<std::size_t>(i)); }
    void set_value(std::uint64_t i, T value) { data.at(static_cast<std::size_t>(i)) = std::move(value); }
    std::vector<T> get_values(std::uint64_t b, std::uint64_t e) const {
        if (b > e || e > data.size()) throw weft::error("weft::partitioned_vector: a range past a partition's end");
        return std::vector<T>(data.begin() + static_cast<std::ptrdiff_t>(b), data.begin() + static_cast<std::ptrdiff_t>(e));
    }
    void set_description(std::vector<std::byte> d) { description = std::move(d); }
    std::vector<std::byte> get_description() const { return description; }

    /// Runs a segmented algorithm's part on [b, e) of this partition (and of the same
    /// partitions of `others`, other vectors of the same layout, which live here too).
    template <class Op, class... U>
    auto apply(Op op, std::uint64_t b, std::uint64_t e, bool parallel, std::vector<id_type> others)
        -> decltype(op(data, (std::declval<std::vector<U>&>())..., std::size_t{}, std::size_t{}, bool{})) {
        if (b > e || e > data.size())
            throw weft::error("weft::partitioned_vector: an algorithm's range past a partition's end");
        if (others.size() != sizeof...(U)) throw weft::error("weft::partitioned_vector: a malformed algorithm call");
        return apply_pinned<Op, U...>(op, b, e, parallel, others, std::index_sequence_for<U...>{});
    }

private:
    template <class Op, class... U, std::size_t... I>
    auto apply_pinned(Op& op, std::uint64_t b, std::uint64_t e, bool parallel, const std::vector<id_type>& others,
                      std::index_sequence<I...>) {
        local_ref refs[sizeof...(U) + 1];
        ((refs[I] = agas_pin(others[I], typeid(partition_server<U>), "weft::partitioned_vector's algorithm")), ...);
        for (std::size_t i = 0; i < sizeof...(U); ++i)
            if (!refs[i])
                throw weft::error("weft::partitioned_vector: an algorithm over vectors whose partitions are not "
                                  "on the same localities (their layouts differ)");
        auto other = [&](auto tag, std::size_t i) -> std::vector<typename decltype(tag)::type>& {
            using V = typename decltype(tag)::type;
            auto& d = static_cast<partition_server<V>*>(refs[i].get())->data;
            if (e > d.size())
                throw weft::error("weft::partitioned_vector: an algorithm over vectors whose partitions differ in size");
            return d;
        };
        (void)other;  // unused when the algorithm reads no other vector
        return op(data, other(std::type_identity<U>{}, I)..., static_cast<std::size_t>(b), static_cast<std::size_t>(e),
                  parallel);
    }
};

/// A registrar for the actions made per instantiation below: named by their mangled
/// type name, unique and the same on every locality of one binary (unlike a compiler's
/// pretty name, which does not tell two lambdas of one function apart).
template <class A>
struct typeid_action_registrar {
    typeid_action_registrar() {
        action_table::instance().add(action_entry{std::string_view(typeid(A).name()),
                                                  typeid(typename A::traits::signature).name(), nullptr, &A::invoke_on,
                                                  &typeid(typename A::component_type)});
    }
};

#define WEFT_PARTITION_ACTION(action, fn)                                                                        \
    template <class T>                                                                                           \
    struct action : component_action<action<T>, partition_server<T>, decltype(&partition_server<T>::fn),        \
                                     &partition_server<T>::fn> {                                                 \
        static inline const std::string_view action_name{typeid(action).name()};                                 \
        static inline const typeid_action_registrar<action> registrar{};                                         \
    }
WEFT_PARTITION_ACTION(partition_get_action, get_value);
WEFT_PARTITION_ACTION(partition_set_action, set_value);
WEFT_PARTITION_ACTION(partition_get_values_action, get_values);
WEFT_PARTITION_ACTION(partition_set_description_action, set_description);
WEFT_PARTITION_ACTION(partition_get_description_action, get_description);
#undef WEFT_PARTITION_ACTION

template <class T, class Op, class... U>
struct partition_apply_action
    : component_action<partition_apply_action<T, Op, U...>, partition_server<T>,
                       decltype(&partition_server<T>::template apply<Op, U...>),
                       &partition_server<T>::template apply<Op, U...>> {
    static inline const std::string_view action_name{typeid(partition_apply_action).name()};
    static inline const typeid_action_registrar<partition_apply_action> registrar{};
};

template <class T>
struct component_registration<partition_server<T>> {
    static inline const std::string_view name{typeid(partition_server<T>).name()};
    static inline const component_registrar<partition_server<T>> registrar{std::string_view(typeid(partition_server<T>).name())};
};

/// One partition as the vector's handles know it.
struct segment_info {
    id_type id;              ///< the partition component
    id_type locality;        ///< where it lives
    std::uint64_t first = 0;  ///< its first element's global index
    std::uint64_t size = 0;
};

/// What every copy of a vector shares: its partitions, and ownership on the creating
/// locality (destroys them with the last copy).
struct vector_data {
    std::uint64_t size = 0;
    std::vector<segment_info> segments;
    bool owner = false;
    std::string name;  ///< registered under (owner only)

    vector_data() = default;
    vector_data(const vector_data&) = delete;
    vector_data& operator=(const vector_data&) = delete;
    ~vector_data() {
        if (!owner) return;
        try {
            if (!name.empty()) (void)unregister_with_basename(name).get();
            std::vector<future<void>> gone;
            for (const segment_info& s : segments) gone.push_back(destroy(s.id));
            for (auto& g : gone) g.get();
        } catch (...) {
            // The runtime stopped first: its shutdown destroys the components (counted).
        }
    }

    /// The segment holding global index i (i < size).
    std::size_t segment_of(std::uint64_t i) const noexcept {
        // The last segment whose first element is <= i and that is not empty.
        auto it = std::upper_bound(segments.begin(), segments.end(), i,
                                   [](std::uint64_t x, const segment_info& s) { return x < s.first; });
        std::size_t k = static_cast<std::size_t>(it - segments.begin()) - 1;
        while (segments[k].size == 0) --k;  // empty segments share their successor's first
        return k;
    }
    /// The description connect_to reads: size, then each segment's id, locality, first, size.
    std::vector<std::byte> describe() const;
    static std::shared_ptr<vector_data> from_description(const std::vector<std::byte>& bytes);
};

inline std::vector<std::byte> vector_data::describe() const {
    serialization::output_archive out;
    out(size, static_cast<std::uint64_t>(segments.size()));
    for (const segment_info& s : segments) out(s.id, s.locality, s.first, s.size);
    return std::vector<std::byte>(out.take_bytes());
}

inline std::shared_ptr<vector_data> vector_data::from_description(const std::vector<std::byte>& bytes) {
    auto d = std::make_shared<vector_data>();
    serialization::input_archive in(bytes);
    std::uint64_t count = 0;
    in(d->size, count);
    for (std::uint64_t i = 0; i < count; ++i) {
        segment_info s;
        in(s.id, s.locality, s.first, s.size);
        d->segments.push_back(s);
    }
    in.finish();
    return d;
}

[[noreturn]] inline void index_out_of_range(const char* what, std::uint64_t i, std::uint64_t size) {
    throw weft::error(std::string("weft::partitioned_vector::") + what + ": index " + std::to_string(i) +
                      " is out of range (size " + std::to_string(size) + ")");
}

/// The element an iterator of a partitioned_vector points at: reads and writes go to its
/// partition (an action where that is another locality).
template <class T>
class element_reference {
public:
    element_reference(partitioned_vector<T>* v, std::uint64_t i) : v_(v), i_(i) {}
    operator T() const { return v_->get_value(i_); }
    const element_reference& operator=(const T& x) const {
        v_->set_value(i_, x);
        return *this;
    }

private:
    partitioned_vector<T>* v_;
    std::uint64_t i_;
};

}  // namespace distributed::detail

/// A segmented iterator: a global index into a partitioned_vector that knows its
/// segment (the partition holding the element) and its offset there. Random access by
/// arithmetic; dereferencing gives a proxy whose reads and writes are get_value and
/// set_value (each a round trip where the element is remote: use the algorithms for
/// anything but a few elements). Not a std iterator (its reference is a proxy); the
/// algorithms in weft/distributed/segmented_algorithms.hpp take it.
template <class T>
class partitioned_vector_iterator {
public:
    // No value_type: with one, std would take this for an input iterator (its proxy
    // converts to T) and the local algorithms' overloads would compete for it.
    using element_value_type = T;
    using difference_type = std::ptrdiff_t;
    /// Marks segmented iterators (weft::segmented_iterator).
    using segmented_iterator_tag = void;

    partitioned_vector_iterator() = default;
    partitioned_vector_iterator(partitioned_vector<T>* v, std::uint64_t i) noexcept : v_(v), i_(i) {}

    std::uint64_t index() const noexcept { return i_; }
    partitioned_vector<T>* container() const noexcept { return v_; }
    /// The partition holding the element (i < size()).
    std::size_t segment() const;
    /// The element's offset in its partition.
    std::uint64_t local_index() const;

    distributed::detail::element_reference<T> operator*() const { return {v_, i_}; }
    distributed::detail::element_reference<T> operator[](difference_type n) const {
        return {v_, static_cast<std::uint64_t>(static_cast<difference_type>(i_) + n)};
    }
    partitioned_vector_iterator& operator++() noexcept {
        ++i_;
        return *this;
    }
    partitioned_vector_iterator operator++(int) noexcept { return {v_, i_++}; }
    partitioned_vector_iterator& operator--() noexcept {
        --i_;
        return *this;
    }
    partitioned_vector_iterator operator--(int) noexcept { return {v_, i_--}; }
    partitioned_vector_iterator& operator+=(difference_type n) noexcept {
        i_ = static_cast<std::uint64_t>(static_cast<difference_type>(i_) + n);
        return *this;
    }
    partitioned_vector_iterator& operator-=(difference_type n) noexcept { return *this += -n; }
    friend partitioned_vector_iterator operator+(partitioned_vector_iterator it, difference_type n) noexcept {
        return it += n;
    }
    friend partitioned_vector_iterator operator+(difference_type n, partitioned_vector_iterator it) noexcept {
        return it += n;
    }
    friend partitioned_vector_iterator operator-(partitioned_vector_iterator it, difference_type n) noexcept {
        return it -= n;
    }
    friend difference_type operator-(const partitioned_vector_iterator& a, const partitioned_vector_iterator& b) noexcept {
        return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    friend bool operator==(const partitioned_vector_iterator& a, const partitioned_vector_iterator& b) noexcept {
        return a.i_ == b.i_ && a.v_ == b.v_;
    }
    friend auto operator<=>(const partitioned_vector_iterator& a, const partitioned_vector_iterator& b) noexcept {
        return a.i_ <=> b.i_;
    }

private:
    partitioned_vector<T>* v_ = nullptr;
    std::uint64_t i_ = 0;
};

/// A partition as segments() reports it.
struct partition_segment {
    id_type locality;        ///< where the partition lives
    std::uint64_t begin = 0;  ///< its first element's global index
    std::uint64_t end = 0;    ///< one past its last
    id_type id;              ///< the partition component's id
};

template <class T>
class partitioned_vector {
    static_assert(std::is_default_constructible_v<T>, "weft::partitioned_vector<T>: T must be default constructible");

public:
    using value_type = T;
    using size_type = std::uint64_t;
    using iterator = partitioned_vector_iterator<T>;

    /// How long connect_to waits for the name before it gives up (weft::error).
    static constexpr std::chrono::seconds connect_timeout{10};

    /// An empty vector with no partition.
    partitioned_vector() : data_(std::make_shared<distributed::detail::vector_data>()) {}
    /// `n` default-constructed elements in `layout.count` partitions placed by `layout`.
    /// Suspends the calling task until every partition exists.
    /// @throws weft::error for a layout of 0 partitions or a target that is not a locality.
    explicit partitioned_vector(size_type n, const container_layout& layout = default_layout())
        : data_(make(n, layout, nullptr)) {}
    /// `n` copies of `value`.
    partitioned_vector(size_type n, const T& value, const container_layout& layout = default_layout())
        : data_(make(n, layout, &value)) {}

    size_type size() const noexcept { return data_->size; }
    bool empty() const noexcept { return data_->size == 0; }
    std::size_t get_num_partitions() const noexcept { return data_->segments.size(); }
    /// Each partition's locality, global range and component id, in order.
    std::vector<partition_segment> segments() const {
        std::vector<partition_segment> out;
        for (const auto& s : data_->segments) out.push_back({s.locality, s.first, s.first + s.size, s.id});
        return out;
    }

    iterator begin() noexcept { return {this, 0}; }
    iterator end() noexcept { return {this, data_->size}; }

    /// The element at global index `i` (from its partition). @throws weft::error (out of range)
    future<T> get_value_async(size_type i) const {
        if (i >= size()) distributed::detail::index_out_of_range("get_value", i, size());
        const auto& s = data_->segments[data_->segment_of(i)];
        return weft::async(distributed::detail::partition_get_action<T>{}, s.id, i - s.first);
    }
    T get_value(size_type i) const { return get_value_async(i).get(); }
    /// Sets the element at global index `i`. @throws weft::error (out of range)
    future<void> set_value_async(size_type i, T x) {
        if (i >= size()) distributed::detail::index_out_of_range("set_value", i, size());
        const auto& s = data_->segments[data_->segment_of(i)];
        return weft::async(distributed::detail::partition_set_action<T>{}, s.id, i - s.first, std::move(x));
    }
    void set_value(size_type i, T x) { set_value_async(i, std::move(x)).get(); }
    /// Every element, gathered here (for checks and small vectors).
    std::vector<T> gather() const {
        std::vector<future<std::vector<T>>> parts;
        for (const auto& s : data_->segments)
            parts.push_back(weft::async(distributed::detail::partition_get_values_action<T>{}, s.id, std::uint64_t{0}, s.size));
        std::vector<T> all;
        all.reserve(static_cast<std::size_t>(size()));
        for (auto& p : parts) {
            std::vector<T> part = p.get();
            all.insert(all.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
        }
        return all;
    }

    /// Registers this vector under `name` so that other localities can connect_to it; the
    /// name goes with the last owning copy. @throws weft::error if the vector has no
    /// partition or the name is taken.
    void register_as(const std::string& name) {
        if (data_->segments.empty()) throw weft::error("weft::partitioned_vector::register_as: a vector with no partition");
        if (!data_->name.empty())
            throw weft::error("weft::partitioned_vector::register_as: already registered as '" + data_->name + "'");
        const id_type first = data_->segments.front().id;
        weft::async(distributed::detail::partition_set_description_action<T>{}, first, data_->describe()).get();
        if (!register_with_basename(name_of(name), first).get())
            throw weft::error("weft::partitioned_vector::register_as: the name '" + name + "' is taken");
        if (data_->owner) data_->name = name_of(name);
    }
    /// The vector another locality registered as `name`; waits for the registration up
    /// to `timeout` (connect_timeout by default). The result refers to the owner's
    /// partitions (it does not own them).
    /// @throws weft::error if nothing is registered under `name` by then.
    static partitioned_vector connect_to(const std::string& name,
                                         std::chrono::milliseconds timeout = connect_timeout) {
        touch_registrars();
        future<id_type> found = find_from_basename(name_of(name));
        if (found.wait_for(timeout) != future_status::ready)
            throw weft::error("weft::partitioned_vector::connect_to: no vector was registered as '" + name + "' within " +
                              std::to_string(timeout.count()) + " ms");
        const id_type first = found.get();
        const std::vector<std::byte> d =
            weft::async(distributed::detail::partition_get_description_action<T>{}, first).get();
        if (d.empty())
            throw weft::error("weft::partitioned_vector::connect_to: '" + name + "' names no partitioned_vector");
        partitioned_vector v;
        v.data_ = distributed::detail::vector_data::from_description(d);
        return v;
    }

    /// What the algorithms read (weft/distributed/segmented_algorithms.hpp).
    const distributed::detail::vector_data& layout_data() const noexcept { return *data_; }
    /// True if `o` has partitions of the same sizes on the same localities (binary
    /// algorithms need that).
    template <class U>
    bool same_layout(const partitioned_vector<U>& o) const noexcept {
        const auto& a = data_->segments;
        const auto& b = o.layout_data().segments;
        if (a.size() != b.size() || size() != o.size()) return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (a[i].locality != b[i].locality || a[i].size != b[i].size) return false;
        return true;
    }

private:
    static container_layout default_layout() { return container_layout(get_num_localities()); }
    static std::string name_of(const std::string& name) { return "weft/partitioned_vector/" + name; }

    /// Instantiates the registrars of this T's component and actions (a program that
    /// uses partitioned_vector<T> registers them on every locality at start-up).
    static void touch_registrars() noexcept {
        namespace dd = distributed::detail;
        (void)&dd::component_registration<dd::partition_server<T>>::registrar;
        (void)&dd::partition_get_action<T>::registrar;
        (void)&dd::partition_set_action<T>::registrar;
        (void)&dd::partition_get_values_action<T>::registrar;
        (void)&dd::partition_set_description_action<T>::registrar;
        (void)&dd::partition_get_description_action<T>::registrar;
    }

    static std::shared_ptr<distributed::detail::vector_data> make(size_type n, const container_layout& layout,
                                                                   const T* value) {
        touch_registrars();
        if (layout.count == 0) throw weft::error("weft::partitioned_vector: a layout of 0 partitions");
        std::vector<id_type> where = layout.targets.empty() ? find_all_localities() : layout.targets;
        for (const id_type& l : where)
            if (!l.is_locality())
                throw weft::error("weft::partitioned_vector: a layout's target is not a locality's id: " + l.to_string());
        // Which locality each partition goes to: blocks (or cyclic) as new_ places them.
        const std::size_t parts = layout.count;
        std::vector<id_type> place(parts);
        const std::vector<std::size_t> share = layout.shares(where.size());
        if (layout.is_cyclic) {
            for (std::size_t i = 0; i < parts; ++i) place[i] = where[i % where.size()];
        } else {
            std::size_t k = 0;
            for (std::size_t l = 0; l < where.size(); ++l)
                for (std::size_t j = 0; j < share[l]; ++j) place[k++] = where[l];
        }
        auto d = std::make_shared<distributed::detail::vector_data>();
        d->size = n;
        std::vector<future<id_type>> made;
        std::uint64_t first = 0;
        for (std::size_t i = 0; i < parts; ++i) {
            const std::uint64_t len = n / parts + (i < n % parts ? 1 : 0);
            d->segments.push_back({id_type{}, place[i], first, len});
            first += len;
            made.push_back(value != nullptr ? new_<distributed::detail::partition_server<T>>(place[i], len, *value)
                                            : new_<distributed::detail::partition_server<T>>(place[i], len));
        }
        for (std::size_t i = 0; i < parts; ++i) d->segments[i].id = made[i].get();
        d->owner = true;
        return d;
    }

    std::shared_ptr<distributed::detail::vector_data> data_;
};

template <class T>
std::size_t partitioned_vector_iterator<T>::segment() const {
    if (i_ >= v_->size()) distributed::detail::index_out_of_range("iterator::segment", i_, v_->size());
    return v_->layout_data().segment_of(i_);
}

template <class T>
std::uint64_t partitioned_vector_iterator<T>::local_index() const {
    return i_ - v_->layout_data().segments[segment()].first;
}

// Not a std iterator: the local algorithms' overloads (constrained on std's iterator
// concepts) must never take it.
static_assert(!std::input_iterator<partitioned_vector_iterator<int>>);

/// Iterators of partitioned_vector (and whatever else marks itself as segmented).
template <class It>
concept segmented_iterator = requires { typename It::segmented_iterator_tag; } && requires(const It& it) {
    { it.container() };
    { it.index() } -> std::convertible_to<std::uint64_t>;
};

}  // namespace weft
