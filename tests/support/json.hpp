// Test support: a small strict JSON parser (RFC 8259), for checking that what weft writes
// (counter samples, traces) is JSON and has the expected shape.
//
//   const weft::test::json::value v = weft::test::json::parse(text);
//   for (const auto& s : v["samples"].as_array()) s["time_s"].as_number();
//
// Strict: no trailing commas, no comments, no leading zeros, no NaN/Infinity, no raw
// control characters in strings, no duplicate keys in an object, nothing but
// whitespace after the value. Malformed input throws std::runtime_error naming the
// offset, line and column of the problem.
#pragma once

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weft::test::json {

class value {
public:
    enum class kind { null, boolean, number, string, array, object };
    using array_t = std::vector<value>;
    using member = std::pair<std::string, value>;
    using object_t = std::vector<member>;  // in document order

    value() = default;
    static value make_bool(bool b) {
        value v;
        v.kind_ = kind::boolean;
        v.bool_ = b;
        return v;
    }
    static value make_number(double d) {
        value v;
        v.kind_ = kind::number;
        v.number_ = d;
        return v;
    }
    static value make_string(std::string s) {
        value v;
        v.kind_ = kind::string;
        v.string_ = std::move(s);
        return v;
    }
    static value make_array(array_t a) {
        value v;
        v.kind_ = kind::array;
        v.array_ = std::move(a);
        return v;
    }
    static value make_object(object_t o) {
        value v;
        v.kind_ = kind::object;
        v.object_ = std::move(o);
        return v;
    }

    kind type() const noexcept { return kind_; }
    bool is_null() const noexcept { return kind_ == kind::null; }
    bool is_bool() const noexcept { return kind_ == kind::boolean; }
    bool is_number() const noexcept { return kind_ == kind::number; }
    bool is_string() const noexcept { return kind_ == kind::string; }
    bool is_array() const noexcept { return kind_ == kind::array; }
    bool is_object() const noexcept { return kind_ == kind::object; }

    bool as_bool() const {
        expect(kind::boolean);
        return bool_;
    }
    double as_number() const {
        expect(kind::number);
        return number_;
    }
    const std::string& as_string() const {
        expect(kind::string);
        return string_;
    }
    const array_t& as_array() const {
        expect(kind::array);
        return array_;
    }
    const object_t& as_object() const {
        expect(kind::object);
        return object_;
    }

    /// The member `key` of an object, or nullptr.
    const value* find(std::string_view key) const {
        expect(kind::object);
        for (const auto& m : object_)
            if (m.first == key) return &m.second;
        return nullptr;
    }
    bool contains(std::string_view key) const { return is_object() && find(key) != nullptr; }
    /// The member `key` of an object. @throws std::out_of_range naming the key
    const value& operator[](std::string_view key) const {
        const value* v = find(key);
        if (v == nullptr) throw std::out_of_range("json: no member \"" + std::string(key) + "\"");
        return *v;
    }
    /// Element `i` of an array. @throws std::out_of_range
    const value& operator[](std::size_t i) const {
        expect(kind::array);
        if (i >= array_.size())
            throw std::out_of_range("json: index " + std::to_string(i) + " past an array of " +
                                    std::to_string(array_.size()));
        return array_[i];
    }
    /// Elements of an array or members of an object.
    std::size_t size() const {
        if (kind_ == kind::array) return array_.size();
        if (kind_ == kind::object) return object_.size();
        throw std::logic_error("json: size() of a " + std::string(kind_name(kind_)));
    }

    static const char* kind_name(kind k) noexcept {
        switch (k) {
        case kind::null: return "null";
        case kind::boolean: return "boolean";
        case kind::number: return "number";
        case kind::string: return "string";
        case kind::array: return "array";
        case kind::object: return "object";
        }
        return "?";
    }

private:
    void expect(kind k) const {
        if (kind_ != k)
            throw std::logic_error(std::string("json: expected a ") + kind_name(k) + ", have a " + kind_name(kind_));
    }

    kind kind_ = kind::null;
    bool bool_ = false;
    double number_ = 0;
    std::string string_;
    array_t array_;
    object_t object_;
};

namespace detail {

class parser {
public:
    explicit parser(std::string_view text) : s_(text) {}

    value parse_document() {
        skip_ws();
        value v = parse_value(0);
        skip_ws();
        if (p_ != s_.size()) fail("unexpected text after the JSON value");
        return v;
    }

private:
    static constexpr int max_depth = 512;

    [[noreturn]] void fail(const std::string& what) const { fail_at(p_, what); }
    [[noreturn]] void fail_at(std::size_t pos, const std::string& what) const {
        std::size_t line = 1, col = 1;
        for (std::size_t i = 0; i < pos && i < s_.size(); ++i) {
            if (s_[i] == '\n') {
                ++line;
                col = 1;
            } else {
                ++col;
            }
        }
        std::string near;
        if (pos < s_.size()) {
            const std::string_view tail = s_.substr(pos, 20);
            near = " near '";
            for (char c : tail) near += (static_cast<unsigned char>(c) < 0x20) ? ' ' : c;
            near += "'";
        } else {
            near = " at end of input";
        }
        throw std::runtime_error("json: " + what + " at offset " + std::to_string(pos) + " (line " +
                                 std::to_string(line) + ", column " + std::to_string(col) + ")" + near);
    }

    bool at_end() const noexcept { return p_ >= s_.size(); }
    char peek() const noexcept { return at_end() ? '\0' : s_[p_]; }

    void skip_ws() noexcept {
        while (!at_end() && (s_[p_] == ' ' || s_[p_] == '\t' || s_[p_] == '\n' || s_[p_] == '\r')) ++p_;
    }

    void expect_literal(std::string_view lit) {
        if (s_.substr(p_, lit.size()) != lit) fail("expected '" + std::string(lit) + "'");
        p_ += lit.size();
    }

    value parse_value(int depth) {
        if (depth > max_depth) fail("nesting deeper than " + std::to_string(max_depth));
        if (at_end()) fail("expected a value");
        switch (peek()) {
        case '{': return parse_object(depth);
        case '[': return parse_array(depth);
        case '"': return value::make_string(parse_string());
        case 't': expect_literal("true"); return value::make_bool(true);
        case 'f': expect_literal("false"); return value::make_bool(false);
        case 'n': expect_literal("null"); return value{};
        default:
            if (peek() == '-' || (peek() >= '0' && peek() <= '9')) return value::make_number(parse_number());
            fail("expected a value");
        }
    }

    value parse_object(int depth) {
        ++p_;  // '{'
        value::object_t members;
        skip_ws();
        if (peek() == '}') {
            ++p_;
            return value::make_object(std::move(members));
        }
        for (;;) {
            skip_ws();
            if (peek() != '"') fail("expected a string key");
            const std::size_t key_pos = p_;
            std::string key = parse_string();
            for (const auto& m : members)
                if (m.first == key) fail_at(key_pos, "duplicate key \"" + key + "\"");
            skip_ws();
            if (peek() != ':') fail("expected ':' after a key");
            ++p_;
            skip_ws();
            value v = parse_value(depth + 1);
            members.emplace_back(std::move(key), std::move(v));
            skip_ws();
            if (peek() == ',') {
                ++p_;
                continue;
            }
            if (peek() == '}') {
                ++p_;
                return value::make_object(std::move(members));
            }
            fail("expected ',' or '}' in an object");
        }
    }

    value parse_array(int depth) {
        ++p_;  // '['
        value::array_t items;
        skip_ws();
        if (peek() == ']') {
            ++p_;
            return value::make_array(std::move(items));
        }
        for (;;) {
            skip_ws();
            items.push_back(parse_value(depth + 1));
            skip_ws();
            if (peek() == ',') {
                ++p_;
                continue;
            }
            if (peek() == ']') {
                ++p_;
                return value::make_array(std::move(items));
            }
            fail("expected ',' or ']' in an array");
        }
    }

    unsigned hex4() {
        if (s_.size() - p_ < 4) fail("truncated \\u escape");
        unsigned v = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = s_[p_++];
            v <<= 4;
            if (c >= '0' && c <= '9') v |= static_cast<unsigned>(c - '0');
            else if (c >= 'a' && c <= 'f') v |= static_cast<unsigned>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') v |= static_cast<unsigned>(c - 'A' + 10);
            else {
                --p_;
                fail("bad hex digit in a \\u escape");
            }
        }
        return v;
    }

    static void append_utf8(std::string& out, std::uint32_t cp) {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }

    std::string parse_string() {
        const std::size_t start = p_;
        ++p_;  // '"'
        std::string out;
        for (;;) {
            if (at_end()) fail_at(start, "unterminated string");
            const char c = s_[p_];
            if (c == '"') {
                ++p_;
                return out;
            }
            if (static_cast<unsigned char>(c) < 0x20) fail("raw control character in a string");
            if (c != '\\') {
                out += c;
                ++p_;
                continue;
            }
            ++p_;
            if (at_end()) fail_at(start, "unterminated string");
            const char e = s_[p_++];
            switch (e) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                std::uint32_t cp = hex4();
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    if (s_.substr(p_, 2) != "\\u") fail("a high surrogate without its low surrogate");
                    p_ += 2;
                    const std::uint32_t lo = hex4();
                    if (lo < 0xDC00 || lo > 0xDFFF) fail("a high surrogate without its low surrogate");
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    fail("a lone low surrogate");
                }
                append_utf8(out, cp);
                break;
            }
            default:
                --p_;
                fail(std::string("bad escape '\\") + e + "'");
            }
        }
    }

    double parse_number() {
        const std::size_t start = p_;
        if (peek() == '-') ++p_;
        if (peek() == '0') {
            ++p_;
            if (peek() >= '0' && peek() <= '9') fail("leading zero in a number");
        } else if (peek() >= '1' && peek() <= '9') {
            while (peek() >= '0' && peek() <= '9') ++p_;
        } else {
            fail("expected a digit");
        }
        if (peek() == '.') {
            ++p_;
            if (!(peek() >= '0' && peek() <= '9')) fail("expected a digit after '.'");
            while (peek() >= '0' && peek() <= '9') ++p_;
        }
        if (peek() == 'e' || peek() == 'E') {
            ++p_;
            if (peek() == '+' || peek() == '-') ++p_;
            if (!(peek() >= '0' && peek() <= '9')) fail("expected a digit in an exponent");
            while (peek() >= '0' && peek() <= '9') ++p_;
        }
        double d = 0;
        const char* first = s_.data() + start;
        const char* last = s_.data() + p_;
        const auto [ptr, ec] = std::from_chars(first, last, d);
        if (ec != std::errc{} || ptr != last || !std::isfinite(d)) fail_at(start, "number out of range");
        return d;
    }

    std::string_view s_;
    std::size_t p_ = 0;
};

}  // namespace detail

/// Parses one JSON document. @throws std::runtime_error with the offset, line and column
/// of the first problem.
inline value parse(std::string_view text) { return detail::parser(text).parse_document(); }

}  // namespace weft::test::json
