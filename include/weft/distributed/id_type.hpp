// Global ids: what a remote action is sent to (issue #23). In this first part of the
// distributed layer an id names a locality; part 2 (AGAS, issue #24) adds ids of
// components, whose upper half keeps the locality that created them.
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

    /// False for the null id.
    constexpr bool valid() const noexcept { return msb_ != 0; }
    explicit constexpr operator bool() const noexcept { return valid(); }
    /// The locality the id lives on (meaningless for the null id).
    constexpr std::uint32_t locality_id() const noexcept {
        return static_cast<std::uint32_t>((msb_ >> 32) - 1);
    }
    /// True if the id names a locality itself.
    constexpr bool is_locality() const noexcept { return valid() && (msb_ & 0xffffffffu) == 0 && lsb_ == 0; }

    constexpr std::uint64_t msb() const noexcept { return msb_; }
    constexpr std::uint64_t lsb() const noexcept { return lsb_; }

    friend constexpr bool operator==(const id_type&, const id_type&) noexcept = default;
    friend constexpr std::strong_ordering operator<=>(const id_type&, const id_type&) noexcept = default;

    /// "{locality#N}", or "{invalid}" for the null id.
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
