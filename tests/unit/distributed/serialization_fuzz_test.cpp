// The archive's decoder against bad bytes (issue #23): a seeded random driver feeds it
// random buffers and mutated valid encodings (bytes flipped, runs overwritten, truncated,
// extended, chunks dropped or resized) for several target types. Each decode must either
// succeed or throw weft::serialization_error: no other exception (a bad_alloc would mean
// a count was trusted), no crash and, under ASan+UBSan, no read out of bounds or
// undefined behaviour. Seeded, so a failure reproduces; the seed and case are printed.
#include <weft/distributed/serialization.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

namespace ws = weft::serialization;

namespace {

struct empty_user_type {
    template <class Archive>
    void serialize(Archive&) {}
    bool operator==(const empty_user_type&) const = default;
};

struct record {
    std::uint32_t id = 0;
    std::string name;
    std::vector<double> values;
    std::optional<std::map<std::string, std::int64_t>> tags;
    std::variant<std::monostate, bool, std::string, std::vector<std::uint16_t>> extra;
    std::vector<empty_user_type> markers;
    template <class Archive>
    void serialize(Archive& ar) {
        ar(id, name, values, tags, extra, markers);
    }
    bool operator==(const record&) const = default;
};

using target = std::vector<record>;

/// What a decode did: 0 decoded, 1 serialization_error; anything else fails the test.
/// `depth` gets the byte an error was found at (the decoder got that far).
template <class T>
int decode(std::span<const std::byte> bytes, std::span<const ws::chunk> chunks, std::string& other,
           std::size_t* depth = nullptr) {
    try {
        ws::input_archive in(bytes, chunks);
        T v{};
        in(v);
        in.finish();
        return 0;
    } catch (const weft::serialization_error& e) {
        const std::string what = e.what();
        if (const auto at = what.rfind("at byte "); depth != nullptr && at != std::string::npos)
            *depth = std::stoul(what.substr(at + 8));
        return 1;
    } catch (const std::exception& e) {
        other = e.what();
        return 2;
    } catch (...) {
        other = "an exception of unknown type";
        return 2;
    }
}

record random_record(std::mt19937& rng) {
    auto rnd = [&](unsigned n) { return static_cast<unsigned>(rng() % n); };
    record r;
    r.id = rng();
    r.name.assign(rnd(20), static_cast<char>('a' + rnd(26)));
    r.values.assign(rnd(50), 0.25 * rnd(1000));
    if (rnd(2) != 0) {
        r.tags.emplace();
        for (unsigned k = rnd(4); k > 0; --k) (*r.tags)[std::string(rnd(6), 'k') + std::to_string(k)] = rnd(100);
    }
    switch (rnd(4)) {
        case 0: break;
        case 1: r.extra = rnd(2) != 0; break;
        case 2: r.extra = std::string(rnd(10), 'x'); break;
        default: r.extra = std::vector<std::uint16_t>(rnd(30), 7); break;
    }
    r.markers.resize(rnd(5));
    return r;
}

TEST(serialization_fuzz, random_bytes_decode_or_are_rejected) {
    std::mt19937 rng(23);
    std::vector<std::byte> buf;
    std::size_t deepest = 0;
    for (int i = 0; i < 20'000; ++i) {
        buf.resize(rng() % 200);
        for (auto& b : buf) {
            // Mostly small values: counts, flags and indices near valid ones reach deeper.
            const unsigned r = rng();
            b = static_cast<std::byte>(r % 4 == 0 ? r >> 8 : (r >> 8) % 3);
        }
        std::string other;
        std::size_t depth = 0;
        const int a = decode<target>(buf, {}, other, &depth);
        deepest = std::max(deepest, depth);
        ASSERT_NE(a, 2) << "case " << i << ": " << other;
        const int b = decode<std::map<std::string, std::vector<int>>>(buf, {}, other);
        ASSERT_NE(b, 2) << "case " << i << ": " << other;
        const int c = decode<std::tuple<bool, std::optional<int>, std::variant<int, std::string>>>(buf, {}, other);
        ASSERT_NE(c, 2) << "case " << i << ": " << other;
    }
    EXPECT_GT(deepest, 24u);  // the driver gets past the first counts, into the records
}

TEST(serialization_fuzz, mutated_valid_encodings_decode_or_are_rejected) {
    std::mt19937 rng(2311);
    int rejected = 0, decoded = 0;
    for (int i = 0; i < 3'000; ++i) {
        target t(rng() % 6);
        for (auto& r : t) r = random_record(rng);
        ws::output_archive out(std::size_t{1} << (rng() % 10));  // 1 B .. 512 B: many chunks
        out(t);
        std::vector<std::byte> bytes = out.bytes();
        std::vector<ws::chunk> chunks = out.chunks();
        {  // The untouched encoding decodes to the original.
            ws::input_archive in(bytes, chunks);
            target back;
            in(back);
            in.finish();
            ASSERT_EQ(back, t) << "case " << i;
        }
        std::vector<std::byte> spare(64);
        for (int m = 0; m < 8; ++m) {
            std::vector<std::byte> b = bytes;
            std::vector<ws::chunk> c = chunks;
            switch (rng() % 6) {
                case 0:  // flip bits
                    for (int k = 0; k < 1 + static_cast<int>(rng() % 4) && !b.empty(); ++k)
                        b[rng() % b.size()] ^= static_cast<std::byte>(1u << (rng() % 8));
                    break;
                case 1:  // overwrite a run with one value (0xff makes huge counts)
                    if (!b.empty()) {
                        const std::size_t at = rng() % b.size(), n = std::min<std::size_t>(b.size() - at, 1 + rng() % 9);
                        const auto v = static_cast<std::byte>(rng() % 2 != 0 ? 0xff : rng());
                        for (std::size_t k = 0; k < n; ++k) b[at + k] = v;
                    }
                    break;
                case 2:  // truncate
                    b.resize(b.empty() ? 0 : rng() % b.size());
                    break;
                case 3:  // extend
                    for (unsigned k = 1 + rng() % 16; k > 0; --k) b.push_back(static_cast<std::byte>(rng()));
                    break;
                case 4:  // drop a chunk
                    if (!c.empty()) c.erase(c.begin() + static_cast<std::ptrdiff_t>(rng() % c.size()));
                    break;
                default:  // a chunk of another size
                    if (!c.empty()) c[rng() % c.size()] = ws::chunk{spare.data(), rng() % spare.size()};
                    break;
            }
            std::string other;
            const int r = decode<target>(b, c, other);
            ASSERT_NE(r, 2) << "case " << i << " mutation " << m << ": " << other;
            (r == 0 ? decoded : rejected)++;
        }
    }
    EXPECT_GT(rejected, 0);
    EXPECT_GT(decoded, 0);  // some mutations land in values, not structure
}

TEST(serialization_fuzz, a_count_of_empty_user_elements_is_bounded) {
    // 2^40 elements that each take no bytes: the decoder stops at its budget.
    const auto bytes = ws::to_bytes(std::uint64_t{1} << 40);
    std::string other;
    EXPECT_EQ(decode<std::vector<empty_user_type>>(bytes, {}, other), 1) << other;
    // A legitimate vector of empty elements within the budget decodes.
    const std::vector<empty_user_type> some(1000);
    std::vector<empty_user_type> back;
    ws::from_bytes(ws::to_bytes(some), back);
    EXPECT_EQ(back.size(), 1000u);
}

}  // namespace
