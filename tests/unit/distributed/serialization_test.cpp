// weft's archive (include/weft/distributed/serialization.hpp, issue #23): round trips
// of every supported type, alone and nested, empty and large, through the inline and the
// zero-copy (chunk) path; random nested values against the originals (model-based);
// cereal-style user types (serialize member, free function, save/load); and the checks
// the decoder makes on bad counts, flags, indices, chunks and left-over bytes.
#include <weft/distributed/counters.hpp>
#include <weft/distributed/serialization.hpp>

#include <gtest/gtest.h>

#include <cstring>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

namespace ws = weft::serialization;

namespace {

struct point {
    int x = 0, y = 0;
    std::string label;
    template <class Archive>
    void serialize(Archive& ar) {
        ar(x, y, label);
    }
    bool operator==(const point&) const = default;
};

TEST(serialization, example_from_the_header) {
    const std::vector<point> sent{{1, 2, "a"}, {3, 4, "b"}};
    weft::serialization::output_archive out;
    out(sent, std::optional<int>(7));
    weft::serialization::input_archive in(out.bytes(), out.chunks());
    std::vector<point> got;
    std::optional<int> seven;
    in(got, seven);
    in.finish();  // every byte used
    EXPECT_EQ(got, sent);
    EXPECT_EQ(seven, 7);
}

/// Writes `v` with `threshold`, reads it back into a fresh T, checks every byte was used.
template <class T>
T round_trip(const T& v, std::size_t threshold = ws::default_zero_copy_threshold) {
    ws::output_archive out(threshold);
    out(v);
    ws::input_archive in(out.bytes(), out.chunks());
    T got{};
    in(got);
    in.finish();
    return got;
}

enum class color : std::uint8_t { red, green, blue };

struct pod {
    double d;
    std::int16_t s;
    char c;
    bool operator==(const pod&) const = default;
};

// A free serialize function, found by ADL.
struct by_free_function {
    std::vector<int> v;
    std::map<std::string, double> m;
    bool operator==(const by_free_function&) const = default;
};
template <class Archive>
void serialize(Archive& ar, by_free_function& f) {
    ar(f.v, f.m);
}

// cereal's split form: save const and load, as members.
class split_member {
public:
    split_member() = default;
    explicit split_member(std::string s) : s_(std::move(s)), size_(s_.size()) {}
    template <class Archive>
    void save(Archive& ar) const {
        ar(s_);
    }
    template <class Archive>
    void load(Archive& ar) {
        ar(s_);
        size_ = s_.size();  // derived state rebuilt on load
    }
    bool operator==(const split_member&) const = default;

private:
    std::string s_;
    std::size_t size_ = 0;
};

// Boost's `ar & x` inside serialize.
struct ampersand {
    int a = 0;
    std::string b;
    template <class Archive>
    void serialize(Archive& ar) {
        ar & a & b;
    }
    bool operator==(const ampersand&) const = default;
};

TEST(serialization, scalars_enums_and_trivially_copyable_types) {
    EXPECT_EQ(round_trip(42), 42);
    EXPECT_EQ(round_trip(std::int64_t{-1} << 62), std::int64_t{-1} << 62);
    EXPECT_EQ(round_trip(3.5), 3.5);
    EXPECT_EQ(round_trip(true), true);
    EXPECT_EQ(round_trip(false), false);
    EXPECT_EQ(round_trip('x'), 'x');
    EXPECT_EQ(round_trip(color::blue), color::blue);
    EXPECT_EQ(round_trip(pod{1.25, -7, 'q'}), (pod{1.25, -7, 'q'}));
    EXPECT_EQ(round_trip(std::array<int, 3>{1, 2, 3}), (std::array<int, 3>{1, 2, 3}));
}

TEST(serialization, standard_containers_and_vocabulary_types) {
    EXPECT_EQ(round_trip(std::string("hello")), "hello");
    EXPECT_EQ(round_trip(std::string()), "");
    EXPECT_EQ(round_trip(std::wstring(L"wide")), L"wide");
    EXPECT_EQ(round_trip(std::vector<int>{}), std::vector<int>{});
    EXPECT_EQ(round_trip(std::vector<bool>{true, false, true}), (std::vector<bool>{true, false, true}));
    EXPECT_EQ(round_trip(std::vector<std::string>{"a", "", "ccc"}), (std::vector<std::string>{"a", "", "ccc"}));
    EXPECT_EQ(round_trip(std::array<std::string, 2>{"x", "y"}), (std::array<std::string, 2>{"x", "y"}));
    EXPECT_EQ(round_trip(std::pair<std::string, int>{"k", 1}), (std::pair<std::string, int>{"k", 1}));
    EXPECT_EQ(round_trip(std::tuple<int, std::string, double>{1, "two", 3.0}),
              (std::tuple<int, std::string, double>{1, "two", 3.0}));
    EXPECT_EQ(round_trip(std::tuple<>{}), std::tuple<>{});
    EXPECT_EQ(round_trip(std::optional<std::string>{}), std::nullopt);
    EXPECT_EQ(round_trip(std::optional<std::string>{"some"}), std::optional<std::string>{"some"});
    EXPECT_EQ(round_trip(std::optional<int>{5}), std::optional<int>{5});
    using var = std::variant<std::monostate, int, std::string>;
    EXPECT_EQ(round_trip(var{}), var{});
    EXPECT_EQ(round_trip(var{7}), var{7});
    EXPECT_EQ(round_trip(var{std::string("s")}), var{std::string("s")});
    const std::map<std::string, std::vector<int>> m{{"a", {1}}, {"b", {}}, {"c", {2, 3}}};
    EXPECT_EQ(round_trip(m), m);
    const std::unordered_map<int, std::string> um{{1, "one"}, {2, "two"}};
    EXPECT_EQ(round_trip(um), um);
    const std::set<std::string> s{"x", "y"};
    EXPECT_EQ(round_trip(s), s);
    const std::unordered_set<int> us{3, 1, 4};
    EXPECT_EQ(round_trip(us), us);
}

TEST(serialization, smart_pointers_travel_by_value) {
    EXPECT_EQ(round_trip(std::unique_ptr<int>()), nullptr);
    EXPECT_EQ(*round_trip(std::make_unique<std::string>("u")), "u");
    EXPECT_EQ(round_trip(std::shared_ptr<int>()), nullptr);
    const auto sp = std::make_shared<std::vector<int>>(std::vector<int>{1, 2});
    const auto got = round_trip(sp);
    ASSERT_NE(got, nullptr);
    EXPECT_NE(got.get(), sp.get());
    EXPECT_EQ(*got, *sp);
}

TEST(serialization, user_types_in_each_of_cereals_forms) {
    EXPECT_EQ(round_trip(point{1, 2, "p"}), (point{1, 2, "p"}));
    const by_free_function f{{1, 2, 3}, {{"pi", 3.14}}};
    EXPECT_EQ(round_trip(f), f);
    EXPECT_EQ(round_trip(split_member("split")), split_member("split"));
    EXPECT_EQ(round_trip(ampersand{9, "amp"}), (ampersand{9, "amp"}));
    const std::map<int, std::vector<std::optional<point>>> nested{{1, {point{1, 1, "a"}, std::nullopt}}, {2, {}}};
    EXPECT_EQ(round_trip(nested), nested);
}

TEST(serialization, large_payloads_go_as_chunks_without_a_copy_on_the_sending_side) {
    std::vector<double> big(100'000);
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<double>(i) * 0.5;
    const std::string text(200'000, 'z');
    ws::output_archive out;  // default threshold: 64 KiB
    out(big, text, std::vector<int>{1, 2, 3});
    ASSERT_EQ(out.chunks().size(), 2u);
    EXPECT_EQ(out.chunks()[0].data, reinterpret_cast<const std::byte*>(big.data()));  // points at the caller's data
    EXPECT_EQ(out.chunks()[0].size, big.size() * sizeof(double));
    EXPECT_EQ(out.chunks()[1].size, text.size());
    EXPECT_LT(out.bytes().size(), 100u);  // counts, flags and the small vector only

    ws::input_archive in(out.bytes(), out.chunks());
    std::vector<double> big2;
    std::string text2;
    std::vector<int> small;
    in(big2, text2, small);
    in.finish();
    EXPECT_EQ(big2, big);
    EXPECT_EQ(text2, text);
    EXPECT_EQ(small, (std::vector<int>{1, 2, 3}));
}


/// Copies each chunk it is asked for from the real ones; remembers where the last went.
class recording_source_for_buffer final : public ws::chunk_source {
public:
    explicit recording_source_for_buffer(std::span<const ws::chunk> real) : real_(real) {}
    void receive(std::size_t index, std::byte* destination, std::size_t size) override {
        ++asked;
        where = destination;
        ASSERT_LT(index, real_.size());
        ASSERT_EQ(size, real_[index].size);
        std::memcpy(destination, real_[index].data, size);
    }
    std::size_t asked = 0;
    std::byte* where = nullptr;

private:
    std::span<const ws::chunk> real_;
};

// weft::serialization::buffer: a vector whose sized construction and resize do not zero;
// its bytes on the wire are a std::vector's, inline and as a chunk received in place.
TEST(serialization, buffer_is_a_vector_that_is_not_zeroed_and_encodes_as_one) {
    static_assert(std::is_same_v<ws::buffer<int>::value_type, int>);
    ws::buffer<int> filled(5, 7);  // construction from a value is still the standard one
    EXPECT_EQ(std::vector<int>(filled.begin(), filled.end()), std::vector<int>(5, 7));
    filled.resize(8);
    filled[7] = 3;
    EXPECT_EQ(filled[7], 3);

    for (const std::size_t n : {std::size_t{0}, std::size_t{10}, std::size_t{100'000}}) {  // inline, inline, chunk
        ws::buffer<double> b(n);
        for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<double>(i) + 0.25;
        const std::vector<double> v(b.begin(), b.end());
        ws::output_archive ob, ov;
        ob(b);
        ov(v);
        EXPECT_TRUE(std::equal(ob.bytes().begin(), ob.bytes().end(), ov.bytes().begin(), ov.bytes().end())) << n;
        ASSERT_EQ(ob.chunks().size(), n >= 100'000 ? 1u : 0u);
        // Decoded from the vector's bytes, chunks arriving into the buffer's storage.
        recording_source_for_buffer src(ov.chunks());
        std::vector<ws::chunk> travelling;  // not in memory: the source receives them
        for (const ws::chunk& c : ov.chunks()) travelling.push_back({nullptr, c.size});
        ws::input_archive in(ov.bytes(), travelling, &src);
        ws::buffer<double> back;
        in(back);
        in.finish();
        EXPECT_EQ(std::vector<double>(back.begin(), back.end()), v) << n;
        if (n >= 100'000) {
            ASSERT_EQ(src.asked, 1u);
            EXPECT_EQ(src.where, reinterpret_cast<std::byte*>(back.data()));
        }
    }
}

// A chunk source as the distributed layer's: chunks are not in memory but "arrive" when
// the decoder asks, straight into the storage the codec allocated.
class recording_source final : public ws::chunk_source {
public:
    explicit recording_source(const std::vector<ws::chunk>& real) : real_(real) {}
    void receive(std::size_t index, std::byte* destination, std::size_t size) override {
        asked.emplace_back(index, destination);
        ASSERT_LT(index, real_.size());
        ASSERT_EQ(size, real_[index].size);
        std::memcpy(destination, real_[index].data, size);
    }
    std::vector<std::pair<std::size_t, std::byte*>> asked;

private:
    const std::vector<ws::chunk>& real_;
};

TEST(serialization, chunks_not_yet_here_are_received_into_the_final_storage_in_order) {
    const std::vector<double> a(10'000, 1.5);
    const std::string b(5'000, 'q');
    const std::vector<std::vector<int>> c{std::vector<int>(3'000, 7), {}, std::vector<int>(2'000, 9)};
    ws::output_archive out(1024);
    out(a, b, c);
    ASSERT_EQ(out.chunks().size(), 4u);
    std::vector<ws::chunk> announced;
    for (const ws::chunk& k : out.chunks()) announced.push_back({nullptr, k.size});  // sizes only, as a parcel says
    recording_source source(out.chunks());
    ws::input_archive in(out.bytes(), announced, &source);
    std::vector<double> a2;
    std::string b2;
    std::vector<std::vector<int>> c2;
    in(a2, b2, c2);
    in.finish();
    EXPECT_EQ(a2, a);
    EXPECT_EQ(b2, b);
    EXPECT_EQ(c2, c);
    ASSERT_EQ(source.asked.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(source.asked[i].first, i);
    EXPECT_EQ(source.asked[0].second, reinterpret_cast<std::byte*>(a2.data()));  // no copy in between
    EXPECT_EQ(source.asked[3].second, reinterpret_cast<std::byte*>(c2[2].data()));
    EXPECT_EQ(in.chunks_used(), 4u);
}

TEST(serialization, chunks_out_of_order_reused_or_left_over_are_errors) {
    const std::vector<char> x(100, 'x'), y(200, 'y');
    ws::output_archive out(10);
    out(x, y);
    ASSERT_EQ(out.chunks().size(), 2u);
    // Left over: decode only the first value.
    {
        ws::input_archive in(out.bytes(), out.chunks());
        std::vector<char> x2;
        in(x2);
        EXPECT_THROW(in.finish(), weft::serialization_error);  // bytes and a chunk left
    }
    // A chunk index other than the next one: swap the two indices in the bytes.
    std::vector<std::byte> bytes = out.bytes();
    const std::size_t first = sizeof(std::uint64_t) + 1;  // x's count, its chunk flag, then its chunk index
    std::uint64_t one = 1;
    std::memcpy(bytes.data() + first, &one, sizeof one);
    ws::input_archive in(bytes, out.chunks());
    std::vector<char> x2;
    try {
        in(x2);
        FAIL() << "chunk 1 was accepted where chunk 0 was next";
    } catch (const weft::serialization_error& e) {
        EXPECT_NE(std::string(e.what()).find("where chunk 0 was next"), std::string::npos) << e.what();
    }
    // No data and no source: an error, not a null read.
    const std::vector<ws::chunk> empty{{nullptr, 100}, {nullptr, 200}};
    ws::input_archive none(out.bytes(), empty);
    EXPECT_THROW(none(x2), weft::serialization_error);
}

TEST(serialization, a_small_threshold_forces_the_chunk_path_everywhere) {
    const std::vector<std::vector<int>> vv{{1}, {}, {2, 3, 4}};
    EXPECT_EQ(round_trip(vv, 1), vv);
    const std::map<std::string, std::string> m{{"key", "value"}, {"", "empty key"}};
    EXPECT_EQ(round_trip(m, 1), m);
    ws::output_archive out(1);
    out(std::string("abc"));
    EXPECT_EQ(out.chunks().size(), 1u);
}

TEST(serialization, huge_vector_round_trips_inline_and_chunked) {
    std::vector<std::uint32_t> v(8 * 1024 * 1024);  // 32 MiB
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint32_t>(i * 2654435761u);
    EXPECT_EQ(round_trip(v), v);
    EXPECT_EQ(round_trip(v, std::numeric_limits<std::size_t>::max()), v);
}

TEST(serialization, to_bytes_and_from_bytes) {
    const auto bytes = ws::to_bytes(1, std::string("two"), std::vector<int>(100'000, 3));
    int one = 0;
    std::string two;
    std::vector<int> three;
    ws::from_bytes(bytes, one, two, three);
    EXPECT_EQ(one, 1);
    EXPECT_EQ(two, "two");
    EXPECT_EQ(three, std::vector<int>(100'000, 3));
}

// Model-based: random nested values of one composite type, written and read back with a
// random threshold, must equal the originals.
using composite = std::vector<std::tuple<int, std::string, std::optional<std::vector<double>>,
                                         std::map<int, std::string>, std::variant<int, std::string, point>>>;

composite random_composite(std::mt19937& rng) {
    auto rnd = [&](unsigned n) { return static_cast<unsigned>(rng() % n); };
    auto str = [&] { return std::string(rnd(40), static_cast<char>('a' + rnd(26))); };
    composite c(rnd(12));
    for (auto& [i, s, o, m, v] : c) {
        i = static_cast<int>(rng());
        s = str();
        if (rnd(2) != 0) o = std::vector<double>(rnd(3000), 1.5 * rnd(100));
        for (unsigned k = rnd(5); k > 0; --k) m[static_cast<int>(rnd(1000))] = str();
        switch (rnd(3)) {
            case 0: v = static_cast<int>(rng()); break;
            case 1: v = str(); break;
            default: v = point{static_cast<int>(rnd(9)), static_cast<int>(rnd(9)), str()}; break;
        }
    }
    return c;
}

TEST(serialization, model_random_nested_values_round_trip) {
    std::mt19937 rng(2026);
    for (int i = 0; i < 300; ++i) {
        const composite c = random_composite(rng);
        const std::size_t threshold = std::size_t{1} << (rng() % 18);  // 1 B .. 128 KiB
        ASSERT_EQ(round_trip(c, threshold), c) << "value " << i << ", threshold " << threshold;
    }
}

// --- The decoder's checks -------------------------------------------------------------

template <class T>
std::string decode_error(std::span<const std::byte> bytes, std::span<const ws::chunk> chunks = {}) {
    try {
        ws::input_archive in(bytes, chunks);
        T v{};
        in(v);
        in.finish();
    } catch (const weft::serialization_error& e) {
        return e.what();
    }
    return {};
}

std::vector<std::byte> raw(std::initializer_list<int> b) {
    std::vector<std::byte> v;
    for (int x : b) v.push_back(static_cast<std::byte>(x));
    return v;
}

TEST(serialization, truncated_input_is_an_error_not_a_read_out_of_bounds) {
    const auto bytes = ws::to_bytes(std::vector<std::string>{"hello", "world"});
    for (std::size_t n = 0; n < bytes.size(); ++n) {
        const std::string e = decode_error<std::vector<std::string>>(std::span(bytes).first(n));
        EXPECT_NE(e, "") << "prefix of " << n << " bytes decoded";
    }
    EXPECT_EQ(decode_error<std::vector<std::string>>(bytes), "");
}

TEST(serialization, left_over_bytes_are_an_error) {
    auto bytes = ws::to_bytes(5);
    bytes.push_back(std::byte{0});
    EXPECT_NE(decode_error<int>(bytes).find("left over"), std::string::npos);
}

TEST(serialization, bad_flags_indices_and_counts_are_named) {
    EXPECT_NE(decode_error<bool>(raw({2})).find("a bool"), std::string::npos);
    EXPECT_NE(decode_error<std::optional<std::string>>(raw({7})).find("optional"), std::string::npos);
    auto variant_bytes = ws::to_bytes(std::uint32_t{5});
    using two = std::variant<int, std::string>;
    EXPECT_NE(decode_error<two>(variant_bytes).find("variant index"), std::string::npos);
    // A count of 2^40 strings in 8 bytes: refused before anything is allocated.
    auto count_bytes = ws::to_bytes(std::uint64_t{1} << 40);
    EXPECT_NE(decode_error<std::vector<std::string>>(count_bytes).find("count"), std::string::npos);
    // A run of 2^37 ints said to be inline, with nothing behind it.
    auto run = ws::to_bytes(std::uint64_t{1} << 37, std::uint8_t{0});
    EXPECT_NE(decode_error<std::vector<int>>(run).find("bytes left"), std::string::npos);
    // A chunk that was never received, and one of the wrong size.
    auto chunked = ws::to_bytes(std::uint64_t{4}, std::uint8_t{1}, std::uint64_t{0});
    EXPECT_NE(decode_error<std::vector<int>>(chunked).find("chunk 0 of 0"), std::string::npos);
    const std::byte storage[12] = {};
    const ws::chunk wrong{storage, sizeof storage};
    EXPECT_NE(decode_error<std::vector<int>>(chunked, std::span(&wrong, 1)).find("holds 12 bytes, 16 expected"),
              std::string::npos);
    // The same key twice in a map.
    auto dup = ws::to_bytes(std::uint64_t{2}, 1, std::string("a"), 1, std::string("b"));
    using int_map = std::map<int, std::string>;
    EXPECT_NE(decode_error<int_map>(dup).find("duplicate key"), std::string::npos);
}

TEST(serialization, errors_say_where) {
    using int_bool = std::pair<int, bool>;
    const std::string e = decode_error<int_bool>(ws::to_bytes(1, std::uint8_t{9}));
    EXPECT_NE(e.find("at byte 5 of 5"), std::string::npos) << e;
    EXPECT_NE(e.find("weft::serialization"), std::string::npos) << e;
}

}  // namespace

// A counter's value as a remote counter query brings it back (weft/distributed/counters.hpp).
TEST(serialization, counter_values_round_trip) {
    const std::vector<weft::counters::counter_value> sent{
        {"/threads{locality#1/total}/idle-rate", "%", 12.5, true, "", 0.25},
        {"/hardware{locality#1/total}/cycles", "cycles", 0, false, "no PMU in this VM", 1e-3}};
    weft::serialization::output_archive out;
    out(sent);
    weft::serialization::input_archive in(out.bytes(), out.chunks());
    std::vector<weft::counters::counter_value> got;
    in(got);
    in.finish();
    ASSERT_EQ(got.size(), sent.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].name, sent[i].name);
        EXPECT_EQ(got[i].unit, sent[i].unit);
        EXPECT_EQ(got[i].value, sent[i].value);
        EXPECT_EQ(got[i].available, sent[i].available);
        EXPECT_EQ(got[i].reason, sent[i].reason);
        EXPECT_EQ(got[i].interval_s, sent[i].interval_s);
    }
    // Truncated: an error, not a value.
    weft::serialization::input_archive cut(std::span<const std::byte>(out.bytes()).first(out.bytes().size() - 3));
    EXPECT_THROW(cut(got), weft::serialization_error);
}
