// Parcels (seed 004 §II: "a parcel is a message that carries an action to be performed
// at the destination"): the wire format, checked on the way in, and how a remote
// action's exception travels back (issue #23).
#pragma once

#include <weft/counters/counters.hpp>
#include <weft/distributed/serialization.hpp>
#include <weft/lcos/channel.hpp>

#include <cxxabi.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <typeinfo>
#include <cstring>
#include <exception>
#include <new>
#include <span>
#include <utility>
#include <stdexcept>
#include <string>
#include <vector>

namespace weft {

/// An exception thrown by a remote action whose type does not travel (anything but the
/// standard exception types and weft's, see parcel.hpp's exception_kind): what() holds
/// the original type's name, its message and the locality it was thrown on.
class remote_exception : public error {
public:
    remote_exception(std::string type, std::string message, std::uint32_t locality)
        : error("exception of type " + type + " on locality " + std::to_string(locality) + ": " + message),
          type_(std::move(type)), message_(std::move(message)), locality_(locality) {}
    const std::string& type_name() const noexcept { return type_; }
    const std::string& message() const noexcept { return message_; }
    std::uint32_t locality() const noexcept { return locality_; }

private:
    std::string type_, message_;
    std::uint32_t locality_;
};

}  // namespace weft

namespace weft::distributed::detail {

/// What a parcel carries.
enum class parcel_kind : std::uint8_t {
    call = 1,       ///< run `action` with the payload's arguments; answer `continuation` unless 0
    result = 2,     ///< complete `continuation` with the payload's value
    exception = 3,  ///< complete `continuation` with the payload's encoded exception
    /// a message too large for one transport message: its one chunk is that message,
    /// to be received (under chunk_tag) and then read as a message of its own
    large_message = 4,
    /// run component action `action` on the object whose id begins the payload (the
    /// arguments follow); answer `continuation` on `origin` unless 0. Forwarded (hops
    /// counted) where the object is not.
    component_call = 5,
};

/// The fixed part of a parcel, as it travels (trivially copyable, 48 bytes). A message
/// is one or more parcels back to back; each header is followed by its chunks' sizes
/// (`chunks` of 8 bytes) and its payload (`payload_bytes`: the archive's bytes). The
/// chunks themselves travel as messages of their own, chunk i under the transport tag
/// `chunk_tag + i`, so that whoever decodes the parcel receives them straight into
/// their final storage, whenever it gets to them.
struct parcel_header {
    std::uint32_t magic = parcel_magic;
    std::uint8_t version = parcel_version;
    parcel_kind kind = parcel_kind::call;
    std::uint16_t hops = 0;         ///< component_call: times forwarded so far
    std::uint32_t source = 0;       ///< sending locality
    std::uint32_t destination = 0;  ///< receiving locality
    std::uint32_t action = 0;       ///< call: the action's id
    std::uint32_t chunks = 0;       ///< zero-copy chunks that follow the message
    std::uint64_t continuation = 0; ///< call: the caller's continuation (0: none); else the one to complete
    std::uint64_t payload_bytes = 0;
    std::uint32_t chunk_tag = 0;    ///< the transport tag of chunk 0
    std::uint32_t origin = 0;       ///< component_call: the locality the answer goes to (the source unless forwarded)

    static constexpr std::uint32_t parcel_magic = 0x50544657;  // "WFTP" in memory order
    static constexpr std::uint8_t parcel_version = 3;
    /// More chunks than this in one parcel is a malformed parcel.
    static constexpr std::uint32_t max_chunks = 4096;
    /// A component call forwarded more often than this fails (an object that cannot be
    /// found: a routing loop must end in an error, not in traffic).
    static constexpr std::uint16_t max_hops = 64;
};
static_assert(sizeof(parcel_header) == 48 && std::is_trivially_copyable_v<parcel_header>);

/// A parcel found in a message: its header, chunk sizes and payload (views into the message).
struct parcel_view {
    parcel_header header;
    const std::byte* chunk_sizes = nullptr;  ///< header.chunks sizes of 8 bytes (unaligned)
    std::span<const std::byte> payload;

    /// The size of chunk `i` (< header.chunks).
    std::uint64_t chunk_size(std::size_t i) const noexcept {
        std::uint64_t s = 0;
        std::memcpy(&s, chunk_sizes + i * sizeof s, sizeof s);
        return s;
    }
};

/// Appends a parcel to `message`: header, chunk sizes, payload.
inline void append_parcel(std::vector<std::byte>& message, parcel_header h, std::span<const serialization::chunk> chunks,
                          std::span<const std::byte> payload) {
    h.chunks = static_cast<std::uint32_t>(chunks.size());
    h.payload_bytes = payload.size();
    const std::size_t at = message.size();
    message.resize(at + sizeof h + chunks.size() * sizeof(std::uint64_t) + payload.size());
    std::byte* p = message.data() + at;
    std::memcpy(p, &h, sizeof h);
    p += sizeof h;
    for (const auto& c : chunks) {
        const std::uint64_t size = c.size;
        std::memcpy(p, &size, sizeof size);
        p += sizeof size;
    }
    if (!payload.empty()) std::memcpy(p, payload.data(), payload.size());
}

/// What a receiving locality knows to check a message against.
struct parcel_limits {
    std::uint32_t here = 0;        ///< this locality: every parcel must be addressed to it
    std::uint32_t localities = 1;  ///< sources must be below this
    std::size_t actions = 0;       ///< call parcels' action ids must be below this
};

/// Splits a message into its parcels (appended to `out`), checking every header against
/// `limits` (magic, version, kind, source, destination, action, chunk count, sizes within
/// the message) before `out` receives any.
/// @throws weft::serialization_error at the first malformed parcel; nothing is trusted.
inline void split_message(std::span<const std::byte> message, const parcel_limits& limits,
                          std::vector<parcel_view>& out) {
    const std::size_t first = out.size();
    std::size_t pos = 0;
    auto fail = [&](const std::string& what) {
        const std::size_t index = out.size() - first;
        out.resize(first);
        throw serialization_error("weft: malformed parcel " + std::to_string(index) + " at byte " +
                                  std::to_string(pos) + " of a " + std::to_string(message.size()) +
                                  "-byte message: " + what);
    };
    if (message.empty()) fail("an empty message");
    while (pos < message.size()) {
        parcel_view v;
        if (message.size() - pos < sizeof(parcel_header)) fail("truncated header");
        std::memcpy(&v.header, message.data() + pos, sizeof(parcel_header));
        const parcel_header& h = v.header;
        if (h.magic != parcel_header::parcel_magic) fail("bad magic (not a weft parcel)");
        if (h.version != parcel_header::parcel_version)
            fail("version " + std::to_string(h.version) + ", this build speaks " +
                 std::to_string(parcel_header::parcel_version));
        if (h.kind != parcel_kind::call && h.kind != parcel_kind::result && h.kind != parcel_kind::exception &&
            h.kind != parcel_kind::large_message && h.kind != parcel_kind::component_call)
            fail("unknown kind " + std::to_string(static_cast<unsigned>(h.kind)));
        if (h.destination != limits.here)
            fail("addressed to locality " + std::to_string(h.destination) + ", received on " +
                 std::to_string(limits.here));
        if (h.source >= limits.localities) fail("from locality " + std::to_string(h.source) + " of " + std::to_string(limits.localities));
        const bool is_call = h.kind == parcel_kind::call || h.kind == parcel_kind::component_call;
        if (is_call && h.action >= limits.actions)
            fail("action " + std::to_string(h.action) + " of " + std::to_string(limits.actions));
        if (h.origin >= limits.localities)
            fail("answer to locality " + std::to_string(h.origin) + " of " + std::to_string(limits.localities));
        if (h.kind != parcel_kind::component_call && h.hops != 0) fail("a forwarded parcel that is not a component call");
        if (h.hops > parcel_header::max_hops) fail(std::to_string(h.hops) + " hops");
        if (h.kind == parcel_kind::component_call && h.payload_bytes < 16) fail("a component call with no target");
        if ((h.kind == parcel_kind::result || h.kind == parcel_kind::exception) && h.continuation == 0)
            fail("a result for continuation 0");
        if (h.kind == parcel_kind::large_message && (h.chunks != 1 || h.payload_bytes != 0 || h.continuation != 0))
            fail("a large-message parcel with " + std::to_string(h.chunks) + " chunks and " +
                 std::to_string(h.payload_bytes) + " payload bytes");
        if (h.chunks > parcel_header::max_chunks) fail(std::to_string(h.chunks) + " chunks");
        pos += sizeof(parcel_header);
        if ((message.size() - pos) / sizeof(std::uint64_t) < h.chunks) fail("truncated chunk sizes");
        v.chunk_sizes = message.data() + pos;
        pos += h.chunks * sizeof(std::uint64_t);
        for (std::size_t i = 0; i < h.chunks; ++i)
            if (v.chunk_size(i) > serialization::input_archive::max_count)
                fail("a chunk of " + std::to_string(v.chunk_size(i)) + " bytes");
        if (h.payload_bytes > message.size() - pos)
            fail("a payload of " + std::to_string(h.payload_bytes) + " bytes, " + std::to_string(message.size() - pos) +
                 " left");
        v.payload = message.subspan(pos, static_cast<std::size_t>(h.payload_bytes));
        pos += static_cast<std::size_t>(h.payload_bytes);
        out.push_back(v);
    }
}

/// As above, into a new vector.
inline std::vector<parcel_view> split_message(std::span<const std::byte> message, const parcel_limits& limits) {
    std::vector<parcel_view> out;
    split_message(message, limits, out);
    return out;
}

// --- Exceptions across localities ---------------------------------------------------

/// A type's name as written (the ABI's demangler), or its mangled name if that fails.
inline std::string type_name(const std::type_info& t) {
    int status = 0;
    const std::unique_ptr<char, void (*)(void*)> s(abi::__cxa_demangle(t.name(), nullptr, nullptr, &status), std::free);
    return status == 0 && s ? std::string(s.get()) : std::string(t.name());
}

/// The exception types that travel as themselves.
enum class exception_kind : std::uint8_t {
    other = 0,  ///< anything else: weft::remote_exception on arrival
    runtime_error, logic_error, invalid_argument, out_of_range, length_error, domain_error, range_error,
    overflow_error, underflow_error, bad_alloc, exception,
    weft_error, runtime_state_error, bad_option, serialization_error, remote_exception, lco_error,
    channel_closed,
    bad_counter_name,
    count
};

/// The kind of an exception whose type is exactly one that travels, else other (a
/// subclass does not travel as its base: it would lose what makes it a subclass).
inline exception_kind kind_of(const std::type_info& t) noexcept {
    static const std::pair<const std::type_info*, exception_kind> known[] = {
        {&typeid(std::runtime_error), exception_kind::runtime_error},
        {&typeid(std::logic_error), exception_kind::logic_error},
        {&typeid(std::invalid_argument), exception_kind::invalid_argument},
        {&typeid(std::out_of_range), exception_kind::out_of_range},
        {&typeid(std::length_error), exception_kind::length_error},
        {&typeid(std::domain_error), exception_kind::domain_error},
        {&typeid(std::range_error), exception_kind::range_error},
        {&typeid(std::overflow_error), exception_kind::overflow_error},
        {&typeid(std::underflow_error), exception_kind::underflow_error},
        {&typeid(std::bad_alloc), exception_kind::bad_alloc},
        {&typeid(weft::error), exception_kind::weft_error},
        {&typeid(weft::runtime_state_error), exception_kind::runtime_state_error},
        {&typeid(weft::bad_option), exception_kind::bad_option},
        {&typeid(weft::serialization_error), exception_kind::serialization_error},
        {&typeid(weft::lco_error), exception_kind::lco_error},
        {&typeid(weft::channel_closed), exception_kind::channel_closed},
        {&typeid(weft::bad_counter_name), exception_kind::bad_counter_name},
    };
    for (const auto& [type, kind] : known)
        if (*type == t) return kind;
    return exception_kind::other;
}

/// Encodes the exception `e` thrown on locality `here`: kind, type name, message, origin
/// and (for weft::lco_error) the error code.
inline void encode_exception(serialization::output_archive& out, const std::exception_ptr& e, std::uint32_t here) {
    exception_kind kind = exception_kind::other;
    std::string type = "an exception of unknown type", message;
    std::uint32_t origin = here;
    std::int32_t code = 0;
    try {
        std::rethrow_exception(e);
    } catch (const weft::remote_exception& x) {  // forwarded: keep where it came from
        kind = exception_kind::remote_exception;
        type = x.type_name();
        message = x.message();
        origin = x.locality();
    } catch (const std::exception& x) {
        kind = kind_of(typeid(x));
        type = type_name(typeid(x));
        message = x.what();
        if (kind == exception_kind::lco_error) code = static_cast<const weft::lco_error&>(x).code().value();
    } catch (...) {
    }
    out(static_cast<std::uint8_t>(kind), type, message, origin, code);
}

/// The exception encode_exception wrote, as an exception_ptr of the same type where the
/// type travels, else weft::remote_exception. @throws weft::serialization_error.
inline std::exception_ptr decode_exception(serialization::input_archive& in) {
    std::uint8_t k = 0;
    std::string type, message;
    std::uint32_t origin = 0;
    std::int32_t code = 0;
    in(k, type, message, origin, code);
    in.finish();
    if (k >= static_cast<std::uint8_t>(exception_kind::count)) in.fail("an exception kind of " + std::to_string(k));
    switch (static_cast<exception_kind>(k)) {
        case exception_kind::runtime_error: return std::make_exception_ptr(std::runtime_error(message));
        case exception_kind::logic_error: return std::make_exception_ptr(std::logic_error(message));
        case exception_kind::invalid_argument: return std::make_exception_ptr(std::invalid_argument(message));
        case exception_kind::out_of_range: return std::make_exception_ptr(std::out_of_range(message));
        case exception_kind::length_error: return std::make_exception_ptr(std::length_error(message));
        case exception_kind::domain_error: return std::make_exception_ptr(std::domain_error(message));
        case exception_kind::range_error: return std::make_exception_ptr(std::range_error(message));
        case exception_kind::overflow_error: return std::make_exception_ptr(std::overflow_error(message));
        case exception_kind::underflow_error: return std::make_exception_ptr(std::underflow_error(message));
        case exception_kind::bad_alloc: return std::make_exception_ptr(std::bad_alloc());
        case exception_kind::weft_error: return std::make_exception_ptr(weft::error(message));
        case exception_kind::runtime_state_error: return std::make_exception_ptr(weft::runtime_state_error(message));
        case exception_kind::bad_option: return std::make_exception_ptr(weft::bad_option(message));
        case exception_kind::serialization_error: return std::make_exception_ptr(weft::serialization_error(message));
        case exception_kind::lco_error:
            return std::make_exception_ptr(weft::lco_error(static_cast<std::errc>(code), message));
        case exception_kind::channel_closed: return std::make_exception_ptr(weft::channel_closed());
        case exception_kind::bad_counter_name: return std::make_exception_ptr(weft::bad_counter_name(message));
        case exception_kind::exception:
        case exception_kind::other:
        case exception_kind::remote_exception:
        case exception_kind::count: break;
    }
    return std::make_exception_ptr(weft::remote_exception(type, message, origin));
}

}  // namespace weft::distributed::detail
