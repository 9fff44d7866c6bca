// What the counters layer writes: printed counters (--weft:print-counter and friends, as
// runtime_config fields) in JSON, CSV and text, periodic and at exit, to a destination
// file; evaluate_active/add_active; and the Chrome trace (--weft:trace). Every output is
// parsed (JSON with tests/support/json.hpp) and its structure checked.
//
// No sleeps: where a periodic sample must exist, the test polls the destination file until
// one appears (generous deadline) while a task holds a worker busy.
#include "support/json.hpp"
#include "support/wait_until.hpp"

#include <weft/counters/counters.hpp>
#include <weft/weft.hpp>

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace wc = weft::counters;
namespace json = weft::test::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;
using clk = std::chrono::steady_clock;

weft::runtime_config config(const char* scheduler, unsigned threads) {
    weft::runtime_config cfg;
    cfg.threads = threads;
    cfg.scheduler = scheduler;
    cfg.bind = false;
    return cfg;
}

std::string total(std::string_view path) { return "/threads{locality#0/total}/" + std::string(path); }
std::string worker(unsigned i, std::string_view path) {
    return "/threads{locality#0/worker-thread#" + std::to_string(i) + "}/" + std::string(path);
}
const std::string uptime_name = "/runtime{locality#0/total}/uptime";

void spin_for(clk::duration d) {
    const auto start = clk::now();
    while (clk::now() - start < d) {
    }
}

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

std::string read_file(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

using weft::test::wait_until;

int fork_tree(int depth) {
    if (depth == 0) return 1;
    auto left = weft::async(fork_tree, depth - 1);
    const int right = fork_tree(depth - 1);
    return left.get() + right;
}

// A fresh path in the temp directory, removed when the test ends.
class output_test : public ::testing::Test {
protected:
    fs::path temp(const std::string& name) {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        std::string base = std::string("weft_") + info->test_suite_name() + "_" + info->name() + "_" +
                           std::to_string(::getpid()) + "_" + name;
        for (char& c : base)
            if (c == '/') c = '_';
        fs::path p = fs::temp_directory_path() / base;
        fs::remove(p);
        paths_.push_back(p);
        return p;
    }
    void TearDown() override {
        for (const auto& p : paths_) {
            std::error_code ec;
            fs::remove(p, ec);
        }
    }

private:
    std::vector<fs::path> paths_;
};

// ---------------------------------------------------------------------------------
// Output parsers.

// RFC 4180 records: fields separated by ',', quoted fields may hold ',', '"' (doubled) and newlines.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string field;
    bool quoted = false, field_started = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"') {
                if (i + 1 < text.size() && text[i + 1] == '"') {
                    field += '"';
                    ++i;
                } else {
                    quoted = false;
                }
            } else {
                field += c;
            }
            continue;
        }
        if (c == '"' && field.empty() && !field_started) {
            quoted = true;
            field_started = true;
        } else if (c == ',') {
            row.push_back(std::move(field));
            field.clear();
            field_started = false;
        } else if (c == '\n') {
            row.push_back(std::move(field));
            field.clear();
            field_started = false;
            rows.push_back(std::move(row));
            row.clear();
        } else {
            field += c;
            field_started = true;
        }
    }
    EXPECT_FALSE(quoted) << "unterminated quoted CSV field";
    EXPECT_TRUE(field.empty() && row.empty()) << "CSV text does not end with a newline";
    return rows;
}

// Number of complete lines.
std::size_t lines_in(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

std::vector<std::string> split_lines(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream is(s);
    for (std::string line; std::getline(is, line);) out.push_back(line);
    return out;
}

// A number that is the whole of `s`.
bool whole_number(const std::string& s, double& out) {
    if (s.empty()) return false;
    std::size_t used = 0;
    try {
        out = std::stod(s, &used);
    } catch (const std::exception&) {
        return false;
    }
    return used == s.size();
}

// One line of the text format, HPX's shape: NAME,SAMPLE,TIME[s],VALUE[UNIT] (or
// "unavailable: why"), then ",DESCRIPTION" when there is one. NAME has no comma here.
struct text_line {
    bool ok = false;
    std::string name;
    long sample = 0;
    double time_s = 0;
    bool available = false;
    double value = 0;
    std::string unit, description;
};

text_line parse_text_line(const std::string& line) {
    text_line t;
    const std::size_t c1 = line.find(',');
    if (c1 == std::string::npos) return t;
    const std::size_t c2 = line.find(',', c1 + 1);
    if (c2 == std::string::npos) return t;
    const std::size_t c3 = line.find(',', c2 + 1);
    if (c3 == std::string::npos) return t;
    t.name = line.substr(0, c1);
    if (!t.name.starts_with("/")) return t;
    const std::string sample = line.substr(c1 + 1, c2 - c1 - 1);
    if (sample.empty() || sample.find_first_not_of("0123456789") != std::string::npos) return t;
    t.sample = std::stol(sample);
    const std::string time = line.substr(c2 + 1, c3 - c2 - 1);
    if (!time.ends_with("[s]") || !whole_number(time.substr(0, time.size() - 3), t.time_s)) return t;
    const std::string rest = line.substr(c3 + 1);
    if (rest.starts_with("unavailable: ")) {
        t.ok = true;  // the reason may contain commas: no description is split off
        return t;
    }
    const std::size_t open = rest.find('[');
    const std::size_t close = rest.find(']');
    if (open == std::string::npos || close == std::string::npos || close < open) return t;
    if (!whole_number(rest.substr(0, open), t.value)) return t;
    t.unit = rest.substr(open + 1, close - open - 1);
    const std::string tail = rest.substr(close + 1);
    if (!tail.empty()) {
        if (tail[0] != ',') return t;
        t.description = tail.substr(1);
    }
    t.available = true;
    t.ok = true;
    return t;
}

// ---------------------------------------------------------------------------------
// The JSON parser itself.

TEST(json_parser, parses_every_kind_of_value) {
    const json::value v = json::parse(
        R"( {"a": [1, -2.5, 3e2, 0, -0.0, 1E-2], "s": "x\"y\\z\/\n\t\u0041\u00e9\ud83d\ude00", "t": true,
             "f": false, "n": null, "o": {"nested": {}}, "e": []} )");
    ASSERT_TRUE(v.is_object());
    EXPECT_EQ(v.size(), 7u);
    EXPECT_EQ(v["a"].size(), 6u);
    EXPECT_EQ(v["a"][0].as_number(), 1);
    EXPECT_EQ(v["a"][1].as_number(), -2.5);
    EXPECT_EQ(v["a"][2].as_number(), 300);
    EXPECT_EQ(v["a"][5].as_number(), 0.01);
    EXPECT_EQ(v["s"].as_string(), "x\"y\\z/\n\tA\xc3\xa9\xf0\x9f\x98\x80");
    EXPECT_TRUE(v["t"].as_bool());
    EXPECT_FALSE(v["f"].as_bool());
    EXPECT_TRUE(v["n"].is_null());
    EXPECT_TRUE(v["o"]["nested"].is_object());
    EXPECT_EQ(v["e"].size(), 0u);
    EXPECT_FALSE(v.contains("missing"));
    EXPECT_THROW(v["missing"], std::out_of_range);
    EXPECT_THROW(v["a"].as_string(), std::logic_error);
    EXPECT_EQ(json::parse("42").as_number(), 42);
    EXPECT_EQ(json::parse("\"\"").as_string(), "");
}

TEST(json_parser, rejects_malformed_input_with_a_position) {
    for (const char* bad : {"", "{", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "[01]", "[1.]", "[.5]", "[1e]",
                            "[-]", "[+1]", "\"abc", "\"a\nb\"", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "[NaN]",
                            "[Infinity]", "tru", "nul", "[1] x", "{\"k\":1,\"k\":2}", "[1 2]", "{\"a\":}", "'a'",
                            "[1e999]"}) {
        try {
            json::parse(bad);
            ADD_FAILURE() << "accepted: " << bad;
        } catch (const std::runtime_error& e) {
            EXPECT_TRUE(contains(e.what(), "offset")) << e.what();
            EXPECT_TRUE(contains(e.what(), "line")) << e.what();
        }
    }
    try {
        json::parse("{\n  \"a\": [1,\n  2,, 3]}");
        ADD_FAILURE();
    } catch (const std::runtime_error& e) {
        EXPECT_TRUE(contains(e.what(), "line 3, column 5")) << e.what();
    }
    // Deep nesting is refused, not a stack overflow.
    EXPECT_THROW(json::parse(std::string(100000, '[')), std::runtime_error);
}

// ---------------------------------------------------------------------------------
// Printed counters: periodic samples and the one at exit, in each format.

struct expected_counter {
    std::string name;
    std::string unit;
};

// The counters printed by the format tests (names as printed, with their units).
std::vector<expected_counter> printed_counters(bool with_arithmetic) {
    std::vector<expected_counter> v = {{total("count/cumulative"), "tasks"},
                                       {worker(0, "count/cumulative"), "tasks"},
                                       {worker(1, "count/cumulative"), "tasks"},
                                       {uptime_name, "s"},
                                       {total("idle-rate"), "%"}};
    if (with_arithmetic)
        v.push_back({"/arithmetics/divide@/threads/time/cumulative,/threads/count/cumulative", "ns/tasks"});
    return v;
}

class printed_counters_test : public output_test, public ::testing::WithParamInterface<const char*> {};

INSTANTIATE_TEST_SUITE_P(formats, printed_counters_test, ::testing::Values("json", "csv", "text"));

TEST_P(printed_counters_test, periodic_samples_then_one_at_exit) {
    const std::string format = GetParam();
    const bool text = format == "text";  // text lines are comma-separated: no name with a comma there
    const auto expected = printed_counters(!text);
    const fs::path out = temp("counters." + format);
    weft::runtime_config cfg = config("local-priority", 2);
    cfg.print_counters = {"/threads/count/cumulative", "/threads{locality#0/worker-thread#*}/count/cumulative",
                          "/runtime/uptime", "/threads/idle-rate"};
    if (!text) cfg.print_counters.push_back(expected.back().name);
    cfg.print_counter_interval_ms = 5;
    cfg.print_counter_format = format;
    cfg.print_counter_destination = out.string();
    constexpr int k = 100;
    {
        weft::runtime rt(cfg);
        std::atomic<bool> release{false};
        auto blocker = weft::async([&release] {
            while (!release.load(std::memory_order_acquire)) std::this_thread::yield();
        });
        for (int i = 0; i < k; ++i) weft::post([] { spin_for(20us); });
        // A periodic sample is in the file (the printer flushes after each).
        const std::size_t n_names = expected.size();
        wait_until(
            [&] {
                const std::string s = read_file(out);
                if (format == "json") return contains(s, "{\"sample\": 1,");
                if (format == "csv") return lines_in(s) >= 2;
                return lines_in(s) >= n_names;
            },
            "a periodic sample in the destination file");
        release.store(true, std::memory_order_release);
        blocker.get();
        rt.stop();
    }
    const std::string s = read_file(out);
    SCOPED_TRACE(s.substr(0, 4000));
    std::map<std::string, std::string> unit_of;
    for (const auto& e : expected) unit_of[e.name] = e.unit;
    std::set<std::string> names;
    for (const auto& e : expected) names.insert(e.name);

    // What the last sample ("at exit") must say.
    const auto check_at_exit = [&](const std::map<std::string, double>& last) {
        ASSERT_EQ(last.count(total("count/cumulative")), 1u);
        EXPECT_EQ(last.at(total("count/cumulative")), k + 1);  // the posts and the blocker
        EXPECT_EQ(last.at(worker(0, "count/cumulative")) + last.at(worker(1, "count/cumulative")), k + 1);
        EXPECT_GT(last.at(uptime_name), 0.0);
        EXPECT_GE(last.at(total("idle-rate")), 0.0);
        EXPECT_LE(last.at(total("idle-rate")), 100.0);
        if (!text) {
            EXPECT_GT(last.at(expected.back().name), 0.0);
        }
    };

    if (format == "json") {
        const json::value doc = json::parse(s);
        ASSERT_TRUE(doc.is_object());
        EXPECT_EQ(doc.size(), 1u);
        const auto& samples = doc["samples"].as_array();
        ASSERT_GE(samples.size(), 2u);
        double last_time = -1;
        for (std::size_t i = 0; i < samples.size(); ++i) {
            const auto& smp = samples[i];
            ASSERT_TRUE(smp.is_object());
            EXPECT_EQ(smp["sample"].as_number(), static_cast<double>(i + 1));
            const double t = smp["time_s"].as_number();
            EXPECT_GE(t, last_time);
            last_time = t;
            const std::string& d = smp["description"].as_string();
            if (i + 1 == samples.size()) EXPECT_EQ(d, "at exit");
            else EXPECT_EQ(d, "");
            const auto& vals = smp["values"].as_object();
            std::set<std::string> seen;
            for (const auto& [name, v] : vals) {
                seen.insert(name);
                EXPECT_EQ(v["unit"].as_string(), unit_of[name]) << name;
                if (v["value"].is_null()) EXPECT_FALSE(v["unavailable"].as_string().empty()) << name;
                else EXPECT_TRUE(v["value"].is_number()) << name;
            }
            EXPECT_EQ(seen, names);
        }
        std::map<std::string, double> last;
        for (const auto& [name, v] : samples.back()["values"].as_object()) {
            ASSERT_TRUE(v["value"].is_number()) << name;
            last[name] = v["value"].as_number();
        }
        check_at_exit(last);
    } else if (format == "csv") {
        const auto rows = parse_csv(s);
        ASSERT_GE(rows.size(), 3u);  // header, a periodic sample, the one at exit
        const auto& header = rows[0];
        ASSERT_EQ(header.size(), 3 + expected.size());
        EXPECT_EQ(header[0], "sample");
        EXPECT_EQ(header[1], "time_s");
        EXPECT_EQ(header[2], "description");
        std::vector<std::string> columns;
        std::set<std::string> seen;
        for (std::size_t c = 3; c < header.size(); ++c) {
            const auto at = header[c].rfind(" [");
            ASSERT_NE(at, std::string::npos) << header[c];
            ASSERT_TRUE(header[c].ends_with("]")) << header[c];
            const std::string name = header[c].substr(0, at);
            EXPECT_EQ(header[c].substr(at + 2, header[c].size() - at - 3), unit_of[name]) << header[c];
            columns.push_back(name);
            seen.insert(name);
        }
        EXPECT_EQ(seen, names);
        double last_time = -1;
        for (std::size_t r = 1; r < rows.size(); ++r) {
            ASSERT_EQ(rows[r].size(), header.size()) << "row " << r;
            EXPECT_EQ(std::stod(rows[r][0]), static_cast<double>(r));
            const double t = std::stod(rows[r][1]);
            EXPECT_GE(t, last_time);
            last_time = t;
            EXPECT_EQ(rows[r][2], r + 1 == rows.size() ? "at exit" : "");
            for (std::size_t c = 3; c < rows[r].size(); ++c) {
                if (rows[r][c].empty()) continue;  // unavailable in that sample
                std::size_t used = 0;
                (void)std::stod(rows[r][c], &used);
                EXPECT_EQ(used, rows[r][c].size()) << rows[r][c];
            }
        }
        std::map<std::string, double> last;
        for (std::size_t c = 3; c < header.size(); ++c) {
            ASSERT_FALSE(rows.back()[c].empty()) << columns[c - 3];
            last[columns[c - 3]] = std::stod(rows.back()[c]);
        }
        check_at_exit(last);
    } else {
        // HPX's shape: NAME,SAMPLE,TIME[s],VALUE[UNIT] (or "unavailable: why"), then
        // ",DESCRIPTION" when there is one.
        std::map<long, std::map<std::string, double>> samples;
        std::map<long, std::set<std::string>> descriptions;
        const auto lines = split_lines(s);
        ASSERT_GE(lines.size(), 2 * expected.size());
        for (const auto& line : lines) {
            const text_line t = parse_text_line(line);
            ASSERT_TRUE(t.ok) << "not NAME,SAMPLE,TIME[s],VALUE[UNIT]: " << line;
            EXPECT_EQ(names.count(t.name), 1u) << t.name;
            if (t.available) {
                EXPECT_EQ(t.unit, unit_of[t.name]) << line;
                samples[t.sample][t.name] = t.value;
            } else {
                samples[t.sample][t.name] = std::nan("");
            }
            descriptions[t.sample].insert(t.description);
        }
        ASSERT_GE(samples.size(), 2u);
        long expect_sample = 1;
        for (const auto& [n, vals] : samples) {
            EXPECT_EQ(n, expect_sample++);
            std::set<std::string> seen;
            for (const auto& [name, v] : vals) seen.insert(name);
            EXPECT_EQ(seen, names) << "sample " << n;
        }
        EXPECT_EQ(descriptions.rbegin()->second, std::set<std::string>{"at exit"});
        EXPECT_EQ(descriptions.begin()->second, std::set<std::string>{""});
        check_at_exit(samples.rbegin()->second);
    }
}

// With reset_counters each periodic sample covers its own interval, so the samples add up.
TEST_F(output_test, reset_counters_makes_samples_add_up) {
    const fs::path out = temp("reset.json");
    weft::runtime_config cfg = config("local-priority", 2);
    cfg.print_counters = {"/threads/count/cumulative"};
    cfg.print_counter_interval_ms = 5;
    cfg.print_counter_format = "json";
    cfg.print_counter_destination = out.string();
    cfg.reset_counters = true;
    constexpr int k = 200;
    {
        weft::runtime rt(cfg);
        std::atomic<bool> release{false};
        auto blocker = weft::async([&release] {
            while (!release.load(std::memory_order_acquire)) std::this_thread::yield();
        });
        for (int i = 0; i < k; ++i) weft::post([] { spin_for(10us); });
        wait_until([&] { return contains(read_file(out), "{\"sample\": 2,"); }, "two periodic samples");
        release.store(true, std::memory_order_release);
        blocker.get();
    }
    const json::value doc = json::parse(read_file(out));
    const auto& samples = doc["samples"].as_array();
    ASSERT_GE(samples.size(), 3u);
    double sum = 0;
    for (const auto& smp : samples) sum += smp["values"][total("count/cumulative")]["value"].as_number();
    EXPECT_EQ(sum, k + 1);
}

// ---------------------------------------------------------------------------------
// evaluate_active, add_active.

TEST_F(output_test, evaluate_active_prints_a_described_sample) {
    const fs::path out = temp("active.json");
    weft::runtime_config cfg = config("single", 1);
    cfg.print_counters = {"/threads/count/cumulative"};
    cfg.print_counter_format = "json";
    cfg.print_counter_destination = out.string();
    const std::string odd = "odd \"description\", with\ttab \\ and\nnewline";
    {
        weft::runtime rt(cfg);
        for (int i = 0; i < 6; ++i) weft::post([] {});
        rt.wait();
        wc::evaluate_active(true, "mine");
        for (int i = 0; i < 4; ++i) weft::post([] {});
        rt.wait();
        wc::evaluate_active(false, odd);
    }
    const json::value doc = json::parse(read_file(out));
    const auto& samples = doc["samples"].as_array();
    ASSERT_EQ(samples.size(), 3u);
    const auto count = [&](std::size_t i) { return samples[i]["values"][total("count/cumulative")]["value"].as_number(); };
    EXPECT_EQ(samples[0]["description"].as_string(), "mine");
    EXPECT_EQ(count(0), 6);
    EXPECT_EQ(samples[1]["description"].as_string(), odd);
    EXPECT_EQ(count(1), 4);  // since the reset
    EXPECT_EQ(samples[2]["description"].as_string(), "at exit");
    EXPECT_EQ(count(2), 4);  // the second print did not reset
    for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(samples[i]["sample"].as_number(), static_cast<double>(i + 1));
}

TEST_F(output_test, evaluate_active_in_csv_quotes_the_description) {
    const fs::path out = temp("active.csv");
    weft::runtime_config cfg = config("single", 1);
    cfg.print_counters = {"/threads/count/cumulative", "/arithmetics/add@/threads/count/cumulative,/threads/count/cumulative"};
    cfg.print_counter_format = "csv";
    cfg.print_counter_destination = out.string();
    {
        weft::runtime rt(cfg);
        weft::post([] {});
        rt.wait();
        wc::evaluate_active(false, "a, \"b\"");
        // The CSV header is written: the columns cannot change any more.
        EXPECT_THROW(wc::add_active("/runtime/uptime"), weft::runtime_state_error);
    }
    const auto rows = parse_csv(read_file(out));
    ASSERT_EQ(rows.size(), 3u);
    ASSERT_EQ(rows[0].size(), 5u);
    EXPECT_EQ(rows[0][4], "/arithmetics/add@/threads/count/cumulative,/threads/count/cumulative [tasks]");
    EXPECT_EQ(rows[1][2], "a, \"b\"");
    EXPECT_EQ(rows[1][3], "1");
    EXPECT_EQ(rows[1][4], "2");
    EXPECT_EQ(rows[2][2], "at exit");
}

TEST_F(output_test, add_active_starts_printing_and_nothing_active_prints_nothing) {
    const fs::path quiet = temp("quiet.json");
    {
        weft::runtime_config cfg = config("single", 1);
        cfg.print_counter_format = "json";
        cfg.print_counter_destination = quiet.string();
        weft::runtime rt(cfg);
        EXPECT_NO_THROW(wc::evaluate_active(true, "nothing"));  // no active counter: does nothing
        wc::reset_active();
    }
    EXPECT_EQ(read_file(quiet), "");

    const fs::path out = temp("added.json");
    weft::runtime_config cfg = config("single", 1);
    cfg.print_counter_format = "json";
    cfg.print_counter_destination = out.string();
    {
        weft::runtime rt(cfg);
        EXPECT_THROW(wc::add_active("/threads/no-such"), weft::bad_counter_name);
        wc::add_active("/threads/count/cumulative");
        for (int i = 0; i < 3; ++i) weft::post([] {});
        rt.wait();
        wc::evaluate_active(false, "added");
    }
    const json::value doc = json::parse(read_file(out));
    const auto& samples = doc["samples"].as_array();
    ASSERT_EQ(samples.size(), 2u);
    EXPECT_EQ(samples[0]["description"].as_string(), "added");
    EXPECT_EQ(samples[0]["values"][total("count/cumulative")]["value"].as_number(), 3);
    EXPECT_EQ(samples[1]["description"].as_string(), "at exit");
}

// ---------------------------------------------------------------------------------
// Destinations that cannot be written.

TEST_F(output_test, an_unwritable_destination_fails_the_start) {
    weft::runtime_config cfg = config("single", 1);
    cfg.print_counters = {"/threads/count/cumulative"};
    cfg.print_counter_destination = "/nonexistent-weft-dir/sub/counters.txt";
    try {
        weft::runtime rt(cfg);
        ADD_FAILURE() << "the runtime started";
    } catch (const weft::bad_counter_name& e) {
        ADD_FAILURE() << "a file error is not a counter-name error: " << e.what();
    } catch (const weft::bad_option& e) {
        EXPECT_TRUE(contains(e.what(), "/nonexistent-weft-dir/sub/counters.txt")) << e.what();
    }
    EXPECT_THROW(wc::query("/threads/idle-rate"), weft::runtime_state_error);  // nothing runs
    weft::runtime rt(config("single", 1));
    EXPECT_EQ(weft::async([] { return 1; }).get(), 1);
}

TEST_F(output_test, an_unwritable_trace_fails_the_start) {
    weft::runtime_config cfg = config("single", 1);
    cfg.trace_file = "/nonexistent-weft-dir/trace.json";
    EXPECT_THROW(weft::runtime rt(cfg), weft::bad_option);
    EXPECT_THROW(wc::query("/threads/idle-rate"), weft::runtime_state_error);
    weft::runtime rt(config("single", 1));
    EXPECT_EQ(weft::async([] { return 1; }).get(), 1);
}

// A start that fails after the destination was opened (here: the trace cannot be
// written) must leave nothing behind that breaks the next runtime's counters.
TEST_F(output_test, a_failed_start_does_not_break_the_next_destination) {
    const fs::path first = temp("first.json");
    const fs::path second = temp("second.json");
    weft::runtime_config cfg = config("single", 1);
    cfg.print_counters = {"/threads/count/cumulative"};
    cfg.print_counter_format = "json";
    cfg.print_counter_destination = first.string();
    cfg.trace_file = "/nonexistent-weft-dir/trace.json";
    EXPECT_THROW(weft::runtime rt(cfg), weft::bad_option);

    cfg.print_counter_destination = second.string();
    cfg.trace_file.clear();
    try {
        weft::runtime rt(cfg);
        weft::post([] {});
    } catch (const std::exception& e) {
        ADD_FAILURE() << "library bug: the next runtime with a valid destination failed to start: " << e.what();
    }
    const std::string s = read_file(second);
    ASSERT_FALSE(s.empty()) << "nothing was written to the second destination";
    const json::value doc = json::parse(s);
    ASSERT_EQ(doc["samples"].size(), 1u);
    EXPECT_EQ(doc["samples"][0]["values"][total("count/cumulative")]["value"].as_number(), 1);
}

// ---------------------------------------------------------------------------------
// The trace.

struct trace_stats {
    std::size_t task_begins = 0, resumed_begins = 0, suspended_ends = 0, finished_ends = 0, idle_begins = 0;
    std::size_t counters = 0, steals = 0;
    std::map<std::string, std::size_t> begins_by_name;
};

// Checks the structure of a trace and counts what it holds.
trace_stats check_trace(const json::value& doc, unsigned workers) {
    trace_stats st;
    EXPECT_TRUE(doc.is_object());
    const auto& other = doc["otherData"];
    EXPECT_EQ(other["workers"].as_number(), workers);
    EXPECT_EQ(other["dropped_events"].as_number(), 0);
    const auto& events = doc["traceEvents"].as_array();
    std::set<double> named_threads;
    bool process_named = false;
    struct open_event {
        bool task;
    };
    std::map<double, std::vector<open_event>> stacks;
    std::map<double, double> last_ts;
    for (const auto& e : events) {
        const std::string& ph = e["ph"].as_string();
        EXPECT_EQ(e["pid"].as_number(), 0);
        if (ph == "M") {
            const std::string& what = e["name"].as_string();
            if (what == "process_name") process_named = true;
            if (what == "thread_name") {
                const double tid = e["tid"].as_number();
                EXPECT_EQ(e["args"]["name"].as_string(), "worker-thread#" + std::to_string(static_cast<int>(tid)));
                named_threads.insert(tid);
            }
            continue;
        }
        const double ts = e["ts"].as_number();
        EXPECT_GE(ts, 0.0);
        if (ph == "C") {
            ++st.counters;
            EXPECT_TRUE(e["args"]["value"].is_number());
            EXPECT_TRUE(e["name"].as_string().starts_with("/threads{locality#0/")) << e["name"].as_string();
            continue;
        }
        const double tid = e["tid"].as_number();
        EXPECT_GE(tid, 0);
        EXPECT_LT(tid, workers);
        auto [it, fresh] = last_ts.emplace(tid, ts);
        if (!fresh) {
            EXPECT_GE(ts, it->second) << "time went back on tid " << tid;
            it->second = ts;
        }
        auto& stack = stacks[tid];
        if (ph == "B") {
            const std::string& cat = e["cat"].as_string();
            if (cat == "task") {
                ++st.task_begins;
                EXPECT_TRUE(e["args"]["id"].is_number());
                if (e["args"]["resumed"].as_bool()) ++st.resumed_begins;
                ++st.begins_by_name[e["name"].as_string()];
                stack.push_back({true});
            } else {
                EXPECT_EQ(cat, "idle");
                ++st.idle_begins;
                stack.push_back({false});
            }
        } else if (ph == "E") {
            if (stack.empty()) {
                ADD_FAILURE() << "an E without an open B on tid " << tid;
                continue;
            }
            const open_event b = stack.back();
            stack.pop_back();
            if (e.contains("args")) {
                const std::string& end = e["args"]["end"].as_string();
                EXPECT_TRUE(b.task) << "a task end closes an idle span";
                if (end == "suspended") ++st.suspended_ends;
                else if (end == "finished") ++st.finished_ends;
                else ADD_FAILURE() << "end " << end;
            }
        } else if (ph == "i") {
            ++st.steals;
            EXPECT_EQ(e["cat"].as_string(), "steal");
            EXPECT_TRUE(e["args"]["victim"].as_string().starts_with("worker-thread#"));
        } else {
            ADD_FAILURE() << "unexpected phase " << ph;
        }
    }
    EXPECT_TRUE(process_named);
    for (unsigned i = 0; i < workers; ++i) EXPECT_EQ(named_threads.count(i), 1u) << "no thread_name for " << i;
    for (const auto& [tid, stack] : stacks) EXPECT_TRUE(stack.empty()) << stack.size() << " B left open on tid " << tid;
    return st;
}

TEST_F(output_test, trace_is_json_with_nested_phases_per_worker) {
    const fs::path out = temp("trace.json");
    weft::runtime_config cfg = config("local-priority", 2);
    cfg.trace_file = out.string();
    cfg.counter_timing = false;  // a trace turns timing on
    constexpr int waiters = 8, posts = 300, links = 20;
    static const char weird[] = "we\"ird\\name\n\x01";
    {
        weft::runtime rt(cfg);
        EXPECT_TRUE(wc::timing_enabled());
        wc::counter_set suspended = wc::query("/threads/count/instantaneous/suspended");
        std::vector<weft::promise<int>> ps(waiters);
        std::vector<weft::future<int>> fs_;
        for (int i = 0; i < waiters; ++i)
            fs_.push_back(weft::async(weft::task_attributes{weft::task_priority::normal, "waiter"},
                                      [f = ps[i].get_future()]() mutable { return f.get(); }));
        wait_until([&] { return suspended.evaluate()[0].value == waiters; }, "every waiter to suspend");
        for (int i = 0; i < waiters; ++i) ps[i].set_value(i);
        for (int i = 0; i < posts; ++i) weft::post([] { spin_for(5us); });
        auto tree = weft::async(fork_tree, 6);
        auto named = weft::async(weft::task_attributes{weft::task_priority::normal, weird}, [] { return 1; });
        // A continuation chain whose links run from the bypass slot: with a trace, each
        // link still has a phase of its own.
        weft::promise<void> gate;
        weft::future<void> chain = gate.get_future();
        for (int i = 0; i < links; ++i)
            chain = chain.then(weft::launch::async(weft::task_attributes{weft::task_priority::normal, "link"}),
                               [](weft::future<void>&& f) {
                f.get();
                spin_for(2us);
            });
        gate.set_value();
        chain.get();
        for (int i = 0; i < waiters; ++i) EXPECT_EQ(fs_[i].get(), i);
        EXPECT_EQ(tree.get(), 64);
        EXPECT_EQ(named.get(), 1);
    }
    const json::value doc = json::parse(read_file(out));
    EXPECT_EQ(doc["otherData"]["scheduler"].as_string(), "local-priority");
    EXPECT_EQ(doc["displayTimeUnit"].as_string(), "ns");
    trace_stats st = check_trace(doc, 2);
    EXPECT_GE(st.resumed_begins, static_cast<std::size_t>(waiters));
    EXPECT_GE(st.suspended_ends, static_cast<std::size_t>(waiters));
    EXPECT_EQ(st.resumed_begins, st.suspended_ends) << "every suspension is followed by one resumption";
    EXPECT_EQ(st.begins_by_name["waiter"], 2u * waiters) << "a waiter runs in two phases";
    EXPECT_EQ(st.begins_by_name[weird], 1u);
    EXPECT_EQ(st.begins_by_name["link"], static_cast<std::size_t>(links));
    // Tasks posted from outside never run inline: each has its own phase.
    EXPECT_GE(st.task_begins - st.resumed_begins, static_cast<std::size_t>(waiters + posts + links + 2));
    EXPECT_EQ(st.finished_ends + st.suspended_ends, st.task_begins);
    EXPECT_GE(st.counters, 1u);  // the counter tracks are sampled at least at exit
}

// The trace is written when the runtime stops, long after most tasks ended; it must show
// each task's name as it was while the task lived (task_attributes::name need only
// outlive its task).
}  // namespace
