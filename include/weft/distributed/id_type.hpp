// Global ids: what a remote action is sent to (issues #23, #24). An id names a locality,
// a component or a distributed LCO. Its upper half keeps the locality that created the
// object (its home), so that an object that never moves resolves with no message; a
// migratable one (flag in the id) resolves through its home (src/distributed/agas.cpp).
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

namespace weft {

/// The global id of a locality (or, later, of an object on one). The default id is
/// invalid ("null"); ids compare and hash by value and travel as 16 bytes.
class id_type {
public:
    constexpr id_type() noexcept = default;

    /// The id of locality `n`.
    static constexpr id_type locality(std::uint32_t n) noexcept {
        return id_type((std::uint64_t{n} + 1) << 32, 0);
    }

    /// What an object id names (flags in the lower half of msb).
    static constexpr std::uint64_t component_flag = 1;   ///< a component (weft::component<T>)
    static constexpr std::uint64_t migratable_flag = 2;  ///< may move: resolve through the home
    static constexpr std::uint64_t lco_flag = 4;         ///< a distributed LCO (promise, ...)

    /// The id of object number `sequence` (never 0) created on locality `home`.
    static constexpr id_type object(std::uint32_t home, std::uint64_t flags, std::uint64_t sequence) noexcept {
        return id_type(((std::uint64_t{home} + 1) << 32) | (flags & 0xffffffffu), sequence);
    }

    /// False for the null id.
    constexpr bool valid() const noexcept { return msb_ != 0; }
    explicit constexpr operator bool() const noexcept { return valid(); }
    /// The locality the id was created on (meaningless for the null id): the locality
    /// itself, or an object's home. A migratable object may live elsewhere now:
    /// weft::get_locality(id) says where.
    constexpr std::uint32_t locality_id() const noexcept {
        return static_cast<std::uint32_t>((msb_ >> 32) - 1);
    }
    /// True if the id names a locality itself.
    constexpr bool is_locality() const noexcept { return valid() && (msb_ & 0xffffffffu) == 0 && lsb_ == 0; }
    /// True if the id names a component.
    constexpr bool is_component() const noexcept { return valid() && (msb_ & component_flag) != 0; }
    /// True if the id names an object that may migrate (its location is asked of its home).
    constexpr bool is_migratable() const noexcept { return valid() && (msb_ & migratable_flag) != 0; }
    /// True if the id names a distributed LCO.
    constexpr bool is_lco() const noexcept { return valid() && (msb_ & lco_flag) != 0; }

    constexpr std::uint64_t msb() const noexcept { return msb_; }
    constexpr std::uint64_t lsb() const noexcept { return lsb_; }

    friend constexpr bool operator==(const id_type&, const id_type&) noexcept = default;
    friend constexpr std::strong_ordering operator<=>(const id_type&, const id_type&) noexcept = default;

    /// "{locality#N}", "{locality#N/flags:sequence}" for an object, "{invalid}" for the null id.
    std::string to_string() const {
        if (!valid()) return "{invalid}";
        if (is_locality()) return "{locality#" + std::to_string(locality_id()) + "}";
        return "{locality#" + std::to_string(locality_id()) + "/" + std::to_string(msb_ & 0xffffffffu) + ":" +
               std::to_string(lsb_) + "}";
    }
    friend std::ostream& operator<<(std::ostream& os, const id_type& id) { return os << id.to_string(); }

    /// For serialization (trivially copyable: travels as its 16 bytes).
    constexpr id_type(std::uint64_t msb, std::uint64_t lsb) noexcept : msb_(msb), lsb_(lsb) {}

private:
    std::uint64_t msb_ = 0;  ///< locality + 1 in the upper half (0: null), object bits below
    std::uint64_t lsb_ = 0;
};

}  // namespace weft

template <>
struct std::hash<weft::id_type> {
    std::size_t operator()(const weft::id_type& id) const noexcept {
        return std::hash<std::uint64_t>{}(id.msb() * 0x9e3779b97f4a7c15ull ^ id.lsb());
    }
};
