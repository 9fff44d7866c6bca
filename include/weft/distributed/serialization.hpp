// weft's archive: the arguments and results of remote actions as bytes, and back
// (issue #23). Small, header-only, trait-based; accepts cereal's `serialize(Archive&)`
// syntax; large contiguous payloads travel beside the bytes as zero-copy chunks; the
// decoder trusts nothing it reads.
#pragma once

#include <weft/config/errors.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

namespace weft {

/// Bytes that do not decode into the expected values: truncated, corrupted, or from a
/// different build. Decoding stops at the first bad byte; nothing out of bounds is read.
class serialization_error : public error {
public:
    using error::error;
};

}  // namespace weft

/// @brief weft's archive.
///
/// **Format.** Values are written in the byte order and layout of the machine (a weft
/// system is one binary on one kind of machine: the action table's checksum, checked at
/// startup, guards against anything else). Trivially copyable types are copied as their
/// bytes (`bool` as one byte that must read back as 0 or 1); a count is 8 bytes; a
/// contiguous run of trivially copyable elements (`std::vector`, `std::basic_string`) is
/// its count, a one-byte flag and, below the archive's zero-copy threshold, the elements'
/// bytes inline; at or above it, the index of a *chunk*: a pointer to the elements that
/// travels beside the archive (the transport sends it as a message of its own, with no
/// copy on the sending side). `std::optional`, `std::unique_ptr` and `std::shared_ptr`
/// are a presence byte and the value (pointers by value: no sharing, no polymorphism);
/// `std::variant` the alternative's index (4 bytes) and its value; pairs, tuples and
/// arrays their elements; maps and sets their count and elements.
///
/// **User types** use cereal's syntax, so cereal-annotated types work unchanged: a
/// member `template <class Archive> void serialize(Archive& ar) { ar(a, b, c); }`, a free
/// `serialize(Archive&, T&)` found by ADL, or the split form `save(Archive&) const` +
/// `load(Archive&)` (members or free). `ar & x` works too. A type with neither, that is
/// not trivially copyable nor a supported standard type, does not compile
/// (`type_is_not_serializable<T>` names it). Raw pointers, `std::string_view` and
/// `std::span` are refused even though they are trivially copyable: their bytes mean
/// nothing in another process.
///
/// **Decoding trusts nothing.** Every read is bounds-checked; a count is checked against
/// the bytes left before anything is allocated; a `bool`, a variant index, a presence
/// byte, a chunk index and size, and a duplicate key in a map or set are checked; the
/// first bad value throws weft::serialization_error with what was expected and where.
/// An archive that decoded without error but has bytes left over is also an error
/// (`input_archive::finish`).
///
/// Example (from tests/unit/distributed/serialization_test.cpp):
/// @code
/// struct point {
///     int x = 0, y = 0;
///     std::string label;
///     template <class Archive>
///     void serialize(Archive& ar) { ar(x, y, label); }
///     bool operator==(const point&) const = default;
/// };
/// const std::vector<point> sent{{1, 2, "a"}, {3, 4, "b"}};
/// weft::serialization::output_archive out;
/// out(sent, std::optional<int>(7));
/// weft::serialization::input_archive in(out.bytes(), out.chunks());
/// std::vector<point> got;
/// std::optional<int> seven;
/// in(got, seven);
/// in.finish();  // every byte used
/// EXPECT_EQ(got, sent);
/// EXPECT_EQ(seven, 7);
/// @endcode
namespace weft::serialization {

class output_archive;
class input_archive;

/// A contiguous block of bytes that travels beside an archive instead of inside it.
struct chunk {
    const std::byte* data = nullptr;
    std::size_t size = 0;
};

/// Where the chunks of an input archive come from when they are not in memory: a
/// received parcel's chunks still travelling (the distributed layer receives each
/// straight into the storage its codec allocated).
class chunk_source {
public:
    /// Places chunk `index` (`size` bytes, as the archive checked) at `destination`;
    /// returns when it is there. @throws weft::serialization_error if it cannot.
    virtual void receive(std::size_t index, std::byte* destination, std::size_t size) = 0;

protected:
    ~chunk_source() = default;
};

/// An allocator that default-initializes: `std::vector<T, default_init_allocator<T>>(n)`
/// and `resize(n)` leave trivially copyable elements uninitialized instead of zeroing them
/// (the standard allocator value-initializes). Any other construction (from a value, from
/// arguments) is the standard allocator's.
template <class T>
struct default_init_allocator : std::allocator<T> {
    using value_type = T;
    template <class U>
    struct rebind {
        using other = default_init_allocator<U>;
    };
    default_init_allocator() = default;
    template <class U>
    constexpr default_init_allocator(const default_init_allocator<U>&) noexcept {}

    /// Default-initializes: no write at all for trivially copyable U.
    template <class U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
        std::allocator_traits<std::allocator<T>>::construct(static_cast<std::allocator<T>&>(*this), p,
                                                            std::forward<Args>(args)...);
    }
};

/// @brief A vector for bulk data that is overwritten anyway (a message, a tile, a halo):
/// `buffer<T>(n)` and `resize(n)` allocate without zeroing, so decoding a received
/// buffer writes each byte once (a `std::vector` is zeroed first, then overwritten: for
/// megabytes that is as long as the transfer). Encoded as a `std::vector<T>` is (the same
/// bytes), zero-copy above the threshold.
/// @code
/// weft::serialization::buffer<double> tile(n);   // n uninitialized doubles
/// std::fill(tile.begin(), tile.end(), 0.0);      // as with any vector
/// @endcode
template <class T>
using buffer = std::vector<T, default_init_allocator<T>>;

/// The zero-copy threshold archives use unless told otherwise: contiguous payloads of
/// at least this many bytes become chunks.
inline constexpr std::size_t default_zero_copy_threshold = std::size_t{64} * 1024;

/// Names a type that cannot be serialized in the compiler's error (see the header).
template <class T>
struct type_is_not_serializable {
    static_assert(sizeof(T) == 0,
                  "weft::serialization: this type cannot be serialized: give it a serialize(Archive&) member or free "
                  "function (cereal's syntax: ar(a, b, c)), or save/load, or make it trivially copyable");
};

namespace detail {

template <class T>
struct is_refused : std::bool_constant<std::is_pointer_v<T> || std::is_member_pointer_v<T>> {};
template <class C, class Tr>
struct is_refused<std::basic_string_view<C, Tr>> : std::true_type {};
template <class T, std::size_t N>
struct is_refused<std::span<T, N>> : std::true_type {};

template <class T, class A>
concept has_member_serialize = requires(T& t, A& a) { t.serialize(a); };
template <class T, class A>
concept has_free_serialize = requires(T& t, A& a) { serialize(a, t); };
template <class T, class A>
concept has_member_save = requires(const T& t, A& a) { t.save(a); };
template <class T, class A>
concept has_member_load = requires(T& t, A& a) { t.load(a); };
template <class T, class A>
concept has_free_save = requires(const T& t, A& a) { save(a, t); };
template <class T, class A>
concept has_free_load = requires(T& t, A& a) { load(a, t); };

template <class T>
concept user_serializable =
    has_member_serialize<T, output_archive> || has_free_serialize<T, output_archive> ||
    has_member_save<T, output_archive> || has_free_save<T, output_archive>;

/// Copied as bytes: trivially copyable, not refused, and not a user type with its own
/// serialization (which wins).
template <class T>
concept bitwise = std::is_trivially_copyable_v<T> && !is_refused<T>::value && !std::is_same_v<T, bool> &&
                  !user_serializable<T>;

template <class T>
struct is_contiguous_container : std::false_type {};
template <class T, class A>
struct is_contiguous_container<std::vector<T, A>> : std::bool_constant<bitwise<T>> {};
template <class C, class Tr, class A>
struct is_contiguous_container<std::basic_string<C, Tr, A>> : std::bool_constant<bitwise<C>> {};

/// Fewest bytes one encoded T takes (0 when unknown: user types), to bound counts.
template <class T>
struct min_bytes : std::integral_constant<std::size_t, 0> {};

}  // namespace detail

/// @brief Writes values into a growing byte buffer (and large contiguous payloads into
/// chunks that point at the caller's data: keep it alive and unchanged until sent).
class output_archive {
public:
    explicit output_archive(std::size_t zero_copy_threshold = default_zero_copy_threshold)
        : threshold_(zero_copy_threshold == 0 ? 1 : zero_copy_threshold) {}

    /// Writes each value in turn (cereal's syntax).
    template <class... T>
    output_archive& operator()(const T&... v) {
        (write(v), ...);
        return *this;
    }
    /// Writes one value (Boost's syntax, for serialize functions written that way).
    template <class T>
    output_archive& operator&(const T& v) {
        write(v);
        return *this;
    }

    const std::vector<std::byte>& bytes() const noexcept { return bytes_; }
    std::vector<std::byte>&& take_bytes() noexcept { return std::move(bytes_); }
    const std::vector<chunk>& chunks() const noexcept { return chunks_; }
    std::size_t zero_copy_threshold() const noexcept { return threshold_; }
    /// Empties the archive, keeping its memory (an archive reused for parcel after parcel
    /// allocates nothing once it has grown to their size).
    void clear() noexcept {
        bytes_.clear();
        chunks_.clear();
    }

    /// Appends `n` raw bytes.
    void write_bytes(const void* p, std::size_t n) {
        const std::size_t at = bytes_.size();
        bytes_.resize(at + n);
        if (n != 0) std::memcpy(bytes_.data() + at, p, n);
    }
    void write_count(std::size_t n) {
        const std::uint64_t v = n;
        write_bytes(&v, sizeof v);
    }

    template <class T>
    void write(const T& v);

    /// A contiguous run of `n` elements of a bitwise type: inline below the threshold,
    /// else a chunk.
    template <class T>
    void write_contiguous(const T* p, std::size_t n) {
        write_count(n);
        const std::size_t size = n * sizeof(T);
        if (size < threshold_) {
            write_byte(0);
            write_bytes(p, size);
            return;
        }
        write_byte(1);
        write_count(chunks_.size());
        chunks_.push_back(chunk{reinterpret_cast<const std::byte*>(p), size});
    }
    void write_byte(std::uint8_t b) { write_bytes(&b, 1); }

private:
    std::vector<std::byte> bytes_;
    std::vector<chunk> chunks_;
    std::size_t threshold_;
};

/// @brief Reads values back from bytes (and the chunks that came with them), checking
/// every read; throws weft::serialization_error at the first bad value.
class input_archive {
public:
    /// Reads `bytes`; the chunks they refer to are `chunks` (in memory, or, where a
    /// chunk's data is null, to be asked of `source` in order: each at most once).
    explicit input_archive(std::span<const std::byte> bytes, std::span<const chunk> chunks = {},
                           chunk_source* source = nullptr) noexcept
        : bytes_(bytes), chunks_(chunks), source_(source) {}

    /// A contiguous run read_contiguous found: inline bytes, a chunk in memory, or a
    /// chunk still to be received (data null).
    struct run {
        const std::byte* data = nullptr;
        std::size_t size = 0;
        std::size_t chunk = 0;  ///< the chunk's index when data is null
    };

    template <class... T>
    input_archive& operator()(T&... v) {
        (read(v), ...);
        return *this;
    }
    template <class T>
    input_archive& operator&(T& v) {
        read(v);
        return *this;
    }

    /// Throws weft::serialization_error unless every byte and every chunk has been read.
    void finish() const {
        if (pos_ != bytes_.size())
            fail(std::to_string(bytes_.size() - pos_) + " bytes left over after the last value");
        if (next_chunk_ != chunks_.size())
            fail(std::to_string(chunks_.size() - next_chunk_) + " chunks left over after the last value");
    }
    std::size_t remaining() const noexcept { return bytes_.size() - pos_; }
    std::size_t position() const noexcept { return pos_; }

    [[noreturn]] void fail(const std::string& what) const {
        throw serialization_error("weft::serialization: " + what + " (at byte " + std::to_string(pos_) + " of " +
                                  std::to_string(bytes_.size()) + ")");
    }

    void read_bytes(void* p, std::size_t n) {
        if (n > remaining())
            fail("truncated: " + std::to_string(n) + " bytes expected, " + std::to_string(remaining()) + " left");
        if (n != 0) std::memcpy(p, bytes_.data() + pos_, n);
        pos_ += n;
    }
    std::uint8_t read_byte() {
        std::uint8_t b = 0;
        read_bytes(&b, 1);
        return b;
    }
    /// A flag that must be 0 or 1.
    bool read_flag(const char* what) {
        const std::uint8_t b = read_byte();
        if (b > 1) fail(std::string(what) + ": " + std::to_string(b) + " where 0 or 1 was expected");
        return b == 1;
    }
    /// A count of elements that take at least `min_each` bytes each (0: unknown): no
    /// more than the bytes left can hold, and at most max_count.
    std::size_t read_count(std::size_t min_each) {
        std::uint64_t n = 0;
        read_bytes(&n, sizeof n);
        if (n > max_count) fail("a count of " + std::to_string(n) + " (more than " + std::to_string(max_count) + ")");
        if (min_each != 0 && n > remaining() / min_each)
            fail("a count of " + std::to_string(n) + " elements of at least " + std::to_string(min_each) +
                 " bytes, with " + std::to_string(remaining()) + " bytes left");
        return static_cast<std::size_t>(n);
    }
    /// How many elements to reserve room for before reading `n` of at least `min_each`
    /// bytes: never more than the bytes left justify.
    std::size_t reservable(std::size_t n, std::size_t min_each) const noexcept {
        return min_each == 0 ? std::min<std::size_t>(n, 1024) : n;
    }

    template <class T>
    void read(T& v);

    /// Reads what write_contiguous wrote for a bitwise T: where its elements' bytes are
    /// (inline, a chunk in memory, or a chunk still to come), checked before the caller
    /// allocates anything for them; copy_run() then fills the caller's storage. Chunks
    /// are used in order, each once.
    template <class T>
    run read_contiguous() {
        std::uint64_t n = 0;
        read_bytes(&n, sizeof n);
        if (n > max_count / sizeof(T)) fail("a run of " + std::to_string(n) + " elements (too many)");
        const std::size_t size = static_cast<std::size_t>(n) * sizeof(T);
        if (!read_flag("a chunk flag")) {
            if (size > remaining())
                fail("a run of " + std::to_string(n) + " elements of " + std::to_string(sizeof(T)) + " bytes, with " +
                     std::to_string(remaining()) + " bytes left");
            const run r{bytes_.data() + pos_, size, 0};
            pos_ += size;
            return r;
        }
        std::uint64_t k = 0;
        read_bytes(&k, sizeof k);
        if (k != next_chunk_)
            fail("chunk " + std::to_string(k) + " where chunk " + std::to_string(next_chunk_) + " was next");
        if (k >= chunks_.size())
            fail("chunk " + std::to_string(k) + " of " + std::to_string(chunks_.size()) + " received");
        const chunk& c = chunks_[static_cast<std::size_t>(k)];
        if (c.size != size)
            fail("chunk " + std::to_string(k) + " holds " + std::to_string(c.size) + " bytes, " + std::to_string(size) +
                 " expected");
        if (c.data == nullptr && source_ == nullptr) fail("chunk " + std::to_string(k) + " has no data");
        ++next_chunk_;
        return {c.data, c.size, static_cast<std::size_t>(k)};
    }
    /// Copies (or receives) the run `r` into `destination`, which has room for r.size bytes.
    void copy_run(const run& r, void* destination) {
        if (r.size == 0) return;
        if (r.data != nullptr) std::memcpy(destination, r.data, r.size);
        else source_->receive(r.chunk, static_cast<std::byte*>(destination), r.size);
    }
    /// Chunks used so far (all of them, after a complete decode).
    std::size_t chunks_used() const noexcept { return next_chunk_; }

    /// One more element that took no bytes; an error past empty_element_budget of them.
    void spend_empty_element() {
        if (empty_elements_left_ == 0)
            fail("more than " + std::to_string(empty_element_budget) + " elements that take no bytes");
        --empty_elements_left_;
    }
    /// Elements of user types that decode from no bytes at all, per archive.
    static constexpr std::size_t empty_element_budget = std::size_t{1} << 20;

    /// No container decodes to more elements than this (a bound on what a corrupted
    /// count of empty elements could make the decoder do).
    static constexpr std::uint64_t max_count = std::uint64_t{1} << 40;

private:
    std::span<const std::byte> bytes_;
    std::span<const chunk> chunks_;
    chunk_source* source_ = nullptr;
    std::size_t next_chunk_ = 0;
    std::size_t pos_ = 0;
    std::size_t empty_elements_left_ = empty_element_budget;
};

// ---------------------------------------------------------------------------------
// Codecs: how each kind of type is written and read. The primary template handles
// bitwise types, user types and refusals; the standard types have their own.

template <class T>
struct codec {
    static void write(output_archive& ar, const T& v) {
        if constexpr (std::is_same_v<T, bool>) {
            ar.write_byte(v ? 1 : 0);
        } else if constexpr (detail::is_refused<T>::value) {
            (void)type_is_not_serializable<T>{};
        } else if constexpr (detail::has_member_serialize<T, output_archive>) {
            const_cast<T&>(v).serialize(ar);  // cereal's one function for both directions
        } else if constexpr (detail::has_free_serialize<T, output_archive>) {
            serialize(ar, const_cast<T&>(v));
        } else if constexpr (detail::has_member_save<T, output_archive>) {
            v.save(ar);
        } else if constexpr (detail::has_free_save<T, output_archive>) {
            save(ar, v);
        } else if constexpr (std::is_trivially_copyable_v<T>) {
            ar.write_bytes(&v, sizeof(T));
        } else {
            (void)type_is_not_serializable<T>{};
        }
    }
    static void read(input_archive& ar, T& v) {
        if constexpr (std::is_same_v<T, bool>) {
            v = ar.read_flag("a bool");
        } else if constexpr (detail::is_refused<T>::value) {
            (void)type_is_not_serializable<T>{};
        } else if constexpr (detail::has_member_serialize<T, input_archive>) {
            v.serialize(ar);
        } else if constexpr (detail::has_free_serialize<T, input_archive>) {
            serialize(ar, v);
        } else if constexpr (detail::has_member_load<T, input_archive>) {
            v.load(ar);
        } else if constexpr (detail::has_free_load<T, input_archive>) {
            load(ar, v);
        } else if constexpr (std::is_trivially_copyable_v<T>) {
            ar.read_bytes(&v, sizeof(T));
        } else {
            (void)type_is_not_serializable<T>{};
        }
    }
};

template <class T>
void output_archive::write(const T& v) {
    codec<std::remove_cv_t<T>>::write(*this, v);
}
template <class T>
void input_archive::read(T& v) {
    codec<std::remove_cv_t<T>>::read(*this, v);
}

namespace detail {

template <class T>
    requires bitwise<T>
struct min_bytes<T> : std::integral_constant<std::size_t, sizeof(T)> {};
template <>
struct min_bytes<bool> : std::integral_constant<std::size_t, 1> {};

/// Reads `n` elements one by one through `add(element&&)`. Elements whose encoding may
/// be empty (user types) draw on the archive's budget of empty elements, so that a
/// corrupted count cannot make the decoder loop for ever.
template <class T, class Add>
void read_elements(input_archive& ar, std::size_t n, Add&& add) {
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t at = ar.position();
        T e{};
        ar.read(e);
        if constexpr (min_bytes<T>::value == 0) {
            if (ar.position() == at) ar.spend_empty_element();
        }
        add(std::move(e));
    }
}

/// Maps and sets: count, then elements; a duplicate key is corrupt input.
template <class C, class Element>
struct associative_codec {
    static void write(output_archive& ar, const C& c) {
        ar.write_count(c.size());
        for (const auto& e : c) ar.write(e);
    }
    static void read(input_archive& ar, C& c) {
        const std::size_t n = ar.read_count(min_bytes<Element>::value);
        C out;
        if constexpr (requires { out.reserve(n); }) out.reserve(ar.reservable(n, min_bytes<Element>::value));
        read_elements<Element>(ar, n, [&](Element&& e) {
            if (!out.insert(std::move(e)).second) ar.fail("a duplicate key");
        });
        c = std::move(out);
    }
};

}  // namespace detail

template <class T, class A>
struct codec<std::vector<T, A>> {
    static void write(output_archive& ar, const std::vector<T, A>& v) {
        if constexpr (detail::bitwise<T>) {
            ar.write_contiguous(v.data(), v.size());
        } else if constexpr (std::is_same_v<T, bool>) {
            ar.write_count(v.size());
            for (const bool b : v) ar.write_byte(b ? 1 : 0);
        } else {
            ar.write_count(v.size());
            for (const auto& e : v) ar.write(e);
        }
    }
    static void read(input_archive& ar, std::vector<T, A>& v) {
        if constexpr (detail::bitwise<T>) {
            const input_archive::run src = ar.read_contiguous<T>();
            std::vector<T, A> out(src.size / sizeof(T));
            ar.copy_run(src, out.data());
            v = std::move(out);
        } else if constexpr (std::is_same_v<T, bool>) {
            const std::size_t n = ar.read_count(1);
            std::vector<T, A> out(n);
            for (std::size_t i = 0; i < n; ++i) out[i] = ar.read_flag("a bool");
            v = std::move(out);
        } else {
            constexpr std::size_t min_each = detail::min_bytes<T>::value;
            const std::size_t n = ar.read_count(min_each);
            std::vector<T, A> out;
            out.reserve(ar.reservable(n, min_each));
            detail::read_elements<T>(ar, n, [&](T&& e) { out.push_back(std::move(e)); });
            v = std::move(out);
        }
    }
};

template <class C, class Tr, class A>
struct codec<std::basic_string<C, Tr, A>> {
    static_assert(detail::bitwise<C>, "weft::serialization: strings of a character type that is not trivially copyable");
    static void write(output_archive& ar, const std::basic_string<C, Tr, A>& s) { ar.write_contiguous(s.data(), s.size()); }
    static void read(input_archive& ar, std::basic_string<C, Tr, A>& s) {
        const input_archive::run src = ar.read_contiguous<C>();
        std::basic_string<C, Tr, A> out(src.size / sizeof(C), C{});
        ar.copy_run(src, out.data());
        s = std::move(out);
    }
};

template <class T, std::size_t N>
    requires(!detail::bitwise<std::array<T, N>>)
struct codec<std::array<T, N>> {
    static void write(output_archive& ar, const std::array<T, N>& a) {
        for (const auto& e : a) ar.write(e);
    }
    static void read(input_archive& ar, std::array<T, N>& a) {
        for (auto& e : a) ar.read(e);
    }
};

template <class T, std::size_t N>
    requires(!detail::bitwise<T[N]>)
struct codec<T[N]> {
    static void write(output_archive& ar, const T (&a)[N]) {
        for (const auto& e : a) ar.write(e);
    }
    static void read(input_archive& ar, T (&a)[N]) {
        for (auto& e : a) ar.read(e);
    }
};

template <class A, class B>
struct codec<std::pair<A, B>> {
    static void write(output_archive& ar, const std::pair<A, B>& p) { ar(p.first, p.second); }
    static void read(input_archive& ar, std::pair<A, B>& p) {
        static_assert(!std::is_const_v<A>, "maps are read as pair<K, V> and then inserted");
        ar(p.first, p.second);
    }
};

template <class... T>
struct codec<std::tuple<T...>> {
    static void write(output_archive& ar, const std::tuple<T...>& t) {
        std::apply([&ar](const auto&... e) { ar(e...); }, t);
    }
    static void read(input_archive& ar, std::tuple<T...>& t) {
        std::apply([&ar](auto&... e) { ar(e...); }, t);
    }
};

template <class T>
    requires(!detail::bitwise<std::optional<T>>)
struct codec<std::optional<T>> {
    static void write(output_archive& ar, const std::optional<T>& o) {
        ar.write_byte(o.has_value() ? 1 : 0);
        if (o) ar.write(*o);
    }
    static void read(input_archive& ar, std::optional<T>& o) {
        if (!ar.read_flag("an optional's presence")) {
            o.reset();
            return;
        }
        T v{};
        ar.read(v);
        o = std::move(v);
    }
};

template <class... T>
    requires(!detail::bitwise<std::variant<T...>>)
struct codec<std::variant<T...>> {
    static void write(output_archive& ar, const std::variant<T...>& v) {
        if (v.valueless_by_exception())
            throw serialization_error("weft::serialization: a std::variant that is valueless by exception");
        const auto index = static_cast<std::uint32_t>(v.index());
        ar.write_bytes(&index, sizeof index);
        std::visit([&ar](const auto& alt) { ar.write(alt); }, v);
    }
    static void read(input_archive& ar, std::variant<T...>& v) {
        std::uint32_t index = 0;
        ar.read_bytes(&index, sizeof index);
        if (index >= sizeof...(T))
            ar.fail("a variant index of " + std::to_string(index) + " (the variant has " +
                    std::to_string(sizeof...(T)) + " alternatives)");
        read_alternative(ar, v, index, std::index_sequence_for<T...>{});
    }

private:
    template <std::size_t... I>
    static void read_alternative(input_archive& ar, std::variant<T...>& v, std::uint32_t index,
                                 std::index_sequence<I...>) {
        (void)((index == I && (read_one<I>(ar, v), true)) || ...);
    }
    template <std::size_t I>
    static void read_one(input_archive& ar, std::variant<T...>& v) {
        std::variant_alternative_t<I, std::variant<T...>> alt{};
        ar.read(alt);
        v.template emplace<I>(std::move(alt));
    }
};

template <>
struct codec<std::monostate> {
    static void write(output_archive&, const std::monostate&) {}
    static void read(input_archive&, std::monostate&) {}
};

namespace detail {

/// unique_ptr and shared_ptr: a presence byte, then the pointee by value.
template <class P, class T>
struct pointer_codec {
    static_assert(!std::is_array_v<T>, "weft::serialization: a pointer to an array has no size to send; use std::vector");
    static_assert(!std::is_polymorphic_v<T>, "weft::serialization: pointers travel by value; a polymorphic type would be sliced");
    static void write(output_archive& ar, const P& p) {
        ar.write_byte(p ? 1 : 0);
        if (p) ar.write(*p);
    }
    static void read(input_archive& ar, P& p) {
        if (!ar.read_flag("a pointer's presence")) {
            p.reset();
            return;
        }
        auto v = std::make_unique<std::remove_const_t<T>>();
        ar.read(*v);
        p = P(std::move(v));
    }
};

}  // namespace detail

template <class T>
struct codec<std::unique_ptr<T>> : detail::pointer_codec<std::unique_ptr<T>, T> {};
template <class T>
struct codec<std::shared_ptr<T>> : detail::pointer_codec<std::shared_ptr<T>, T> {};

template <class K, class V, class C, class A>
struct codec<std::map<K, V, C, A>> : detail::associative_codec<std::map<K, V, C, A>, std::pair<K, V>> {};
template <class K, class V, class H, class E, class A>
struct codec<std::unordered_map<K, V, H, E, A>>
    : detail::associative_codec<std::unordered_map<K, V, H, E, A>, std::pair<K, V>> {};
template <class K, class C, class A>
struct codec<std::set<K, C, A>> : detail::associative_codec<std::set<K, C, A>, K> {};
template <class K, class H, class E, class A>
struct codec<std::unordered_set<K, H, E, A>> : detail::associative_codec<std::unordered_set<K, H, E, A>, K> {};

namespace detail {

template <class A, class B>
struct min_bytes<std::pair<A, B>>
    : std::integral_constant<std::size_t, min_bytes<std::remove_const_t<A>>::value + min_bytes<B>::value> {};
template <class... T>
struct min_bytes<std::tuple<T...>> : std::integral_constant<std::size_t, (std::size_t{0} + ... + min_bytes<T>::value)> {};
template <class T, class A>
struct min_bytes<std::vector<T, A>> : std::integral_constant<std::size_t, sizeof(std::uint64_t)> {};
template <class C, class Tr, class A>
struct min_bytes<std::basic_string<C, Tr, A>> : std::integral_constant<std::size_t, sizeof(std::uint64_t) + 1> {};
template <class T>
    requires(!bitwise<std::optional<T>>)
struct min_bytes<std::optional<T>> : std::integral_constant<std::size_t, 1> {};
template <class T, class D>
struct min_bytes<std::unique_ptr<T, D>> : std::integral_constant<std::size_t, 1> {};
template <class T>
struct min_bytes<std::shared_ptr<T>> : std::integral_constant<std::size_t, 1> {};
template <class... T>
    requires(!bitwise<std::variant<T...>>)
struct min_bytes<std::variant<T...>> : std::integral_constant<std::size_t, sizeof(std::uint32_t)> {};

}  // namespace detail

/// The values as one buffer, with every payload inline (no chunks).
template <class... T>
std::vector<std::byte> to_bytes(const T&... v) {
    output_archive ar(std::numeric_limits<std::size_t>::max());
    ar(v...);
    return ar.take_bytes();
}

/// Decodes `bytes` (made by to_bytes or an output_archive without chunks) into values
/// of types T...; every byte must be used. @throws weft::serialization_error.
template <class... T>
void from_bytes(std::span<const std::byte> bytes, T&... v) {
    input_archive ar(bytes);
    ar(v...);
    ar.finish();
}

}  // namespace weft::serialization
