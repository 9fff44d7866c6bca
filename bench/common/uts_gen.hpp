// UTS, the Unbalanced Tree Search benchmark (Olivier et al., "UTS: An Unbalanced Tree
// Search Benchmark", LCPC 2006): the pure tree generator (node state, child count, child
// state) and the named trees with their node counts. No dependency but nettle (SHA-1) and
// the standard library: shared by bench/uts (uts_tree.hpp adds the benchmark's options,
// check and result line) and tools/schedsim (which simulates the same trees). Link
// PkgConfig::NETTLE (pkg-config name `nettle`, Debian package nettle-dev).
//
// The generator follows the UTS reference definition, so that the node counts are the
// published ones:
//   - a node is a 20-byte SHA-1 digest (its "state") and its depth;
//   - the root's state is SHA-1 of 20 bytes: 16 zero bytes, then the seed (-r) as 4 bytes
//     big-endian;
//   - child i's state is SHA-1 of 24 bytes: the parent's state, then i as 4 bytes
//     big-endian;
//   - a node's random number is its state's last 4 bytes, big-endian, masked to 31 bits;
//     divided by 2^31 it is a uniform u in [0, 1);
//   - binomial trees (-t 0): the root has floor(b) children (-b); any other node has m
//     children (-m) if u < q (-q), else none;
//   - geometric trees (-t 1): a node at depth h draws from a geometric distribution of
//     mean b_h, floor(log(1 - u) / log(1 - p)) children with p = 1 / (1 + b_h); shape
//     `fixed` (-a 3): b_h = b for h < d (-d), 0 below; shape `cyclic` (-a 2):
//     b_h = b^sin(2 pi h / d) for h <= 5 d, 0 below (the root uses b);
//   - no node but a binomial root has more than 100 children.
// SHA-1 comes from nettle (<nettle/sha1.h>); a state is the digest's 20 bytes, so "the
// last 4 bytes" are state[16..19].
#pragma once

#include <nettle/sha1.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numbers>
#include <string_view>

namespace weft::bench::uts {

enum class tree_type { binomial, geometric };
enum class geo_shape { fixed, cyclic };

/// One named tree: the reference generator's parameters and its node count.
struct tree {
    const char* name;
    const char* uts_args;  ///< the same tree in the UTS reference's options
    tree_type type;
    geo_shape shape;       ///< geometric only
    double b;              ///< -b: root children (binomial), mean branching (geometric)
    int d;                 ///< -d: depth limit / period (geometric)
    double q;              ///< -q: probability that a non-root node has children (binomial)
    int m;                 ///< -m: children of a non-root node that has any (binomial)
    std::int32_t seed;     ///< -r
    std::uint64_t nodes;   ///< nodes in the tree
    int depth;             ///< the deepest node's depth, as bench_uts_serial measures it
    bool published;        ///< `nodes` is UTS's published count (else measured by bench_uts_serial)
};

// T1, T1L, T2L, T3, T3L: UTS's sample trees, with their published node counts (T1L, T2L
// and T3L are the trees of seed 002's Table 1, whose published depths 13, 67 and 17,844
// and leaf counts bench_uts_serial reproduces too). T1XS and T3XS: small trees of the
// same two kinds for quick runs and tests, counted by bench_uts_serial (and by every
// parallel version, which must agree).
inline constexpr tree trees[] = {
    {"T1XS", "-t 1 -a 3 -d 8 -b 4 -r 19", tree_type::geometric, geo_shape::fixed, 4.0, 8, 0.0, 0, 19, 257042, 8, false},
    {"T3XS", "-t 0 -b 2000 -q 0.198 -m 5 -r 7", tree_type::binomial, geo_shape::fixed, 2000.0, 0, 0.198, 5, 7, 295641,
     424, false},
    {"T1", "-t 1 -a 3 -d 10 -b 4 -r 19", tree_type::geometric, geo_shape::fixed, 4.0, 10, 0.0, 0, 19, 4130071, 10,
     true},
    {"T1L", "-t 1 -a 3 -d 13 -b 4 -r 29", tree_type::geometric, geo_shape::fixed, 4.0, 13, 0.0, 0, 29, 102181082,
     13, true},
    {"T2L", "-t 1 -a 2 -d 23 -b 7 -r 220", tree_type::geometric, geo_shape::cyclic, 7.0, 23, 0.0, 0, 220, 96793510,
     67, true},
    {"T3", "-t 0 -b 2000 -q 0.124875 -m 8 -r 42", tree_type::binomial, geo_shape::fixed, 2000.0, 0, 0.124875, 8, 42,
     4112897, 1572, true},
    {"T3L", "-t 0 -b 2000 -q 0.200014 -m 5 -r 7", tree_type::binomial, geo_shape::fixed, 2000.0, 0, 0.200014, 5, 7,
     111345631, 17844, true},
};

inline constexpr int max_children = 100;  ///< for every node but a binomial root

/// A node: its SHA-1 state (the digest's 20 bytes) and its depth (the root's is 0).
struct node {
    std::array<std::uint8_t, SHA1_DIGEST_SIZE> state;
    std::int32_t height;
};

namespace detail {
/// SHA-1 of `bytes` (nettle).
inline std::array<std::uint8_t, SHA1_DIGEST_SIZE> sha1(const std::uint8_t* bytes, std::size_t n) noexcept {
    sha1_ctx ctx;
    sha1_init(&ctx);
    sha1_update(&ctx, n, bytes);
    std::array<std::uint8_t, SHA1_DIGEST_SIZE> out;
    sha1_digest(&ctx, out.size(), out.data());
    return out;
}
/// `v`'s 4 bytes, big-endian, at `out`.
inline void put_u32_be(std::uint8_t* out, std::uint32_t v) noexcept {
    for (std::size_t i = 0; i < 4; ++i) out[i] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
}
}  // namespace detail

inline node make_root(const tree& t) noexcept {
    std::array<std::uint8_t, 20> bytes{};
    detail::put_u32_be(bytes.data() + 16, static_cast<std::uint32_t>(t.seed));
    return node{detail::sha1(bytes.data(), bytes.size()), 0};
}

inline node make_child(const node& parent, int i) noexcept {
    std::array<std::uint8_t, SHA1_DIGEST_SIZE + 4> bytes;
    std::memcpy(bytes.data(), parent.state.data(), SHA1_DIGEST_SIZE);
    detail::put_u32_be(bytes.data() + SHA1_DIGEST_SIZE, static_cast<std::uint32_t>(i));
    return node{detail::sha1(bytes.data(), bytes.size()), parent.height + 1};
}

/// The node's uniform random number in [0, 1): the state's last 4 bytes, big-endian,
/// masked to 31 bits, over 2^31.
inline double uniform(const node& n) noexcept {
    const auto* s = n.state.data() + SHA1_DIGEST_SIZE - 4;
    const std::uint32_t r = (std::uint32_t{s[0]} << 24) | (std::uint32_t{s[1]} << 16) | (std::uint32_t{s[2]} << 8) |
                            std::uint32_t{s[3]};
    return static_cast<double>(r & 0x7FFFFFFFu) / 2147483648.0;
}

/// The mean branching factor of a geometric tree at depth h.
inline double geometric_mean(const tree& t, int h) noexcept {
    if (h == 0) return t.b;
    switch (t.shape) {
        case geo_shape::fixed:
            return h < t.d ? t.b : 0.0;
        case geo_shape::cyclic:
            if (h > 5 * t.d) return 0.0;
            return std::pow(t.b, std::sin(2.0 * std::numbers::pi * static_cast<double>(h) / static_cast<double>(t.d)));
    }
    return 0.0;
}

inline int num_children(const tree& t, const node& n) noexcept {
    if (t.type == tree_type::binomial) {
        if (n.height == 0) return static_cast<int>(std::floor(t.b));
        const int c = uniform(n) < t.q ? t.m : 0;
        return c > max_children ? max_children : c;
    }
    const double mean = geometric_mean(t, n.height);
    // A mean of 0 gives p = 1 and log(1 - p) = -inf: the formula's answer is 0 as well.
    if (mean == 0.0) return 0;
    const double p = 1.0 / (1.0 + mean);
    const double c = std::floor(std::log(1.0 - uniform(n)) / std::log(1.0 - p));
    return c > max_children ? max_children : static_cast<int>(c);
}

inline constexpr const tree* find_tree(std::string_view name) noexcept {
    for (const tree& t : trees)
        if (name == t.name) return &t;
    return nullptr;
}

}  // namespace weft::bench::uts
