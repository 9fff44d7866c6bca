// SHA-1 (FIPS 180-4) for the UTS benchmark's tree generator, and nothing else: UTS does
// not need a secure hash, only the exact bits of one, so that our trees are the published
// ones. Written for this benchmark; constexpr, so the test vectors below are checked by
// the compiler.
//
// A digest is kept as its five 32-bit words H0..H4; its bytes are those words, big-endian.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace weft::bench::uts {

using sha1_words = std::array<std::uint32_t, 5>;

namespace sha1_detail {

inline constexpr sha1_words initial{0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};

/// The next schedule word, computed in place in the 16-word ring.
constexpr std::uint32_t schedule(std::array<std::uint32_t, 16>& w, std::size_t t) noexcept {
    const std::uint32_t x = w[(t + 13) & 15] ^ w[(t + 8) & 15] ^ w[(t + 2) & 15] ^ w[t & 15];
    w[t & 15] = std::rotl(x, 1);
    return w[t & 15];
}

/// Folds one 64-byte block, given as 16 big-endian words, into h.
constexpr void compress(sha1_words& h, std::array<std::uint32_t, 16> w) noexcept {
    std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    const auto step = [&](std::uint32_t f, std::uint32_t k, std::uint32_t wt) {
        const std::uint32_t t = std::rotl(a, 5) + f + e + k + wt;
        e = d;
        d = c;
        c = std::rotl(b, 30);
        b = a;
        a = t;
    };
    // Four rounds of 20 steps, each with its own logical function and constant.
    for (std::size_t t = 0; t < 16; ++t) step((b & c) | (~b & d), 0x5A827999u, w[t]);
    for (std::size_t t = 16; t < 20; ++t) step((b & c) | (~b & d), 0x5A827999u, schedule(w, t));
    for (std::size_t t = 20; t < 40; ++t) step(b ^ c ^ d, 0x6ED9EBA1u, schedule(w, t));
    for (std::size_t t = 40; t < 60; ++t) step((b & c) | (b & d) | (c & d), 0x8F1BBCDCu, schedule(w, t));
    for (std::size_t t = 60; t < 80; ++t) step(b ^ c ^ d, 0xCA62C1D6u, schedule(w, t));
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
}

/// The 64 bytes at p as 16 big-endian words.
constexpr std::array<std::uint32_t, 16> load_block(const std::uint8_t* p) noexcept {
    std::array<std::uint32_t, 16> w{};
    for (std::size_t i = 0; i < 16; ++i) {
        w[i] = std::uint32_t{p[4 * i]} << 24 | std::uint32_t{p[4 * i + 1]} << 16 |
               std::uint32_t{p[4 * i + 2]} << 8 | std::uint32_t{p[4 * i + 3]};
    }
    return w;
}

}  // namespace sha1_detail

/// SHA-1 of the `size` bytes at `data`, any length.
constexpr sha1_words sha1(const std::uint8_t* data, std::size_t size) noexcept {
    sha1_words h = sha1_detail::initial;
    std::size_t done = 0;
    for (; size - done >= 64; done += 64) sha1_detail::compress(h, sha1_detail::load_block(data + done));
    // The tail, the 0x80 marker, zeros and the length in bits: one or two final blocks.
    std::array<std::uint8_t, 128> tail{};
    const std::size_t rest = size - done;
    for (std::size_t i = 0; i < rest; ++i) tail[i] = data[done + i];
    tail[rest] = 0x80;
    const std::size_t blocks = rest < 56 ? 1 : 2;
    const std::uint64_t bits = static_cast<std::uint64_t>(size) * 8;
    for (std::size_t i = 0; i < 8; ++i) tail[blocks * 64 - 1 - i] = static_cast<std::uint8_t>(bits >> (8 * i));
    for (std::size_t k = 0; k < blocks; ++k) sha1_detail::compress(h, sha1_detail::load_block(tail.data() + 64 * k));
    return h;
}

/// SHA-1 of the 24-byte message (the 20 bytes of `prefix`, then `suffix` big-endian): a
/// single block, built directly from words.
constexpr sha1_words sha1_words_then_u32(const sha1_words& prefix, std::uint32_t suffix) noexcept {
    std::array<std::uint32_t, 16> w{};
    for (std::size_t i = 0; i < 5; ++i) w[i] = prefix[i];
    w[5] = suffix;
    w[6] = 0x80000000u;  // the marker byte after the 24 message bytes
    w[15] = 24 * 8;      // the length in bits
    sha1_words h = sha1_detail::initial;
    sha1_detail::compress(h, w);
    return h;
}

namespace sha1_detail {

template <std::size_t N>
constexpr sha1_words of_text(const char (&text)[N]) noexcept {
    std::array<std::uint8_t, N> bytes{};
    for (std::size_t i = 0; i + 1 < N; ++i) bytes[i] = static_cast<std::uint8_t>(text[i]);
    return sha1(bytes.data(), N - 1);
}

// The FIPS 180 example messages: one block, empty, a tail needing a second padding block,
// and 112 bytes (a full block through the main loop, then the tail).
static_assert(of_text("abc") == sha1_words{0xA9993E36u, 0x4706816Au, 0xBA3E2571u, 0x7850C26Cu, 0x9CD0D89Du});
static_assert(of_text("") == sha1_words{0xDA39A3EEu, 0x5E6B4B0Du, 0x3255BFEFu, 0x95601890u, 0xAFD80709u});
static_assert(of_text("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
              sha1_words{0x84983E44u, 0x1C3BD26Eu, 0xBAAE4AA1u, 0xF95129E5u, 0xE54670F1u});
static_assert(of_text("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                      "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu") ==
              sha1_words{0xA49B2446u, 0xA02C645Bu, 0xF419F995u, 0xB6709125u, 0x3A04A259u});

// The one-block shortcut agrees with the general function.
constexpr bool shortcut_agrees() noexcept {
    const sha1_words prefix = of_text("weft uts");
    std::array<std::uint8_t, 24> bytes{};
    for (std::size_t i = 0; i < 5; ++i)
        for (std::size_t j = 0; j < 4; ++j) bytes[4 * i + j] = static_cast<std::uint8_t>(prefix[i] >> (24 - 8 * j));
    bytes[20] = 0x12;
    bytes[21] = 0x34;
    bytes[22] = 0x56;
    bytes[23] = 0x78;
    return sha1_words_then_u32(prefix, 0x12345678u) == sha1(bytes.data(), bytes.size());
}
static_assert(shortcut_agrees());

}  // namespace sha1_detail

}  // namespace weft::bench::uts
