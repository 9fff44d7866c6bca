// The counters layer on one locality of a distributed run (include/weft/counters/detail/
// service.hpp): names carry locality#here, another locality's names are valid but denote
// nothing here, names beyond the run are refused; the network counters read the source
// the distributed layer sets; the print at exit goes through gather_at_exit; a locality
// that does not write (service_config::write = false) writes nothing.
//
// Each test pretends to be locality 2 of 4, set once its runtime has started (the runtime
// sets this process's own locality, and its network source, when it starts), and puts back
// locality 0 of 1 and no network source when it ends.
#include "support/json.hpp"

#include <weft/counters/counters.hpp>
#include <weft/counters/detail/service.hpp>
#include <weft/weft.hpp>

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace wc = weft::counters;
namespace wcd = weft::counters::detail;
namespace json = weft::test::json;
namespace fs = std::filesystem;

weft::runtime_config config(unsigned threads) {
    weft::runtime_config cfg;
    cfg.threads = threads;
    cfg.scheduler = "local-priority";
    cfg.bind = false;
    return cfg;
}

std::string on(unsigned locality, std::string_view object, std::string_view instance, std::string_view path) {
    return "/" + std::string(object) + "{locality#" + std::to_string(locality) + "/" + std::string(instance) + "}/" +
           std::string(path);
}
std::string here_total(std::string_view object, std::string_view path) { return on(2, object, "total", path); }

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// This locality's part of a query.
wc::counter_set here(const std::vector<std::string>& patterns) { return wcd::query_here(patterns).set; }
wc::counter_set here(const std::string& pattern) { return here(std::vector<std::string>{pattern}); }

std::string error_of(const std::string& name) {
    try {
        (void)wc::query(name);
    } catch (const weft::bad_counter_name& e) {
        return e.what();
    }
    ADD_FAILURE() << "no weft::bad_counter_name for " << name;
    return "";
}

std::string read_file(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// What the fake network source reports; only the test's thread changes it, between
// evaluations (no printer thread reads it).
wcd::network_stats fake_network;
wcd::network_stats read_fake_network() noexcept { return fake_network; }

class locality_test : public ::testing::Test {
protected:
    void SetUp() override { fake_network = {}; }
    // After the runtime started: this process is locality 2 of 4.
    static void pretend() { wcd::set_locality(2, 4); }
    void TearDown() override {
        wcd::set_locality(0, 1);
        wcd::set_network_source(nullptr);
        for (const auto& p : paths_) {
            std::error_code ec;
            fs::remove(p, ec);
        }
    }
    // A fresh path in the temp directory, removed when the test ends.
    fs::path temp(const std::string& name) {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        const fs::path p = fs::temp_directory_path() / ("weft_locality_" + std::string(info->name()) + "_" +
                                                        std::to_string(::getpid()) + "_" + name);
        fs::remove(p);
        paths_.push_back(p);
        return p;
    }

private:
    std::vector<fs::path> paths_;
};

TEST_F(locality_test, names_carry_this_locality) {
    weft::runtime rt(config(2));
    pretend();
    EXPECT_EQ(wcd::locality_here(), 2u);
    EXPECT_EQ(wcd::locality_count(), 4u);
    EXPECT_EQ(wc::query("/threads/count/cumulative").names(),
              std::vector<std::string>{here_total("threads", "count/cumulative")});
    EXPECT_EQ(wc::query(on(2, "threads", "worker-thread#1", "idle-rate")).names(),
              std::vector<std::string>{on(2, "threads", "worker-thread#1", "idle-rate")});
    EXPECT_EQ(wc::query("/runtime/uptime").names(), std::vector<std::string>{here_total("runtime", "uptime")});
    const auto all = wc::list();
    ASSERT_FALSE(all.empty());
    for (const auto& i : all) EXPECT_TRUE(contains(i.name, "{locality#2/")) << i.name;
    std::ostringstream os;
    wc::print_list(os);
    EXPECT_TRUE(contains(os.str(), here_total("parcels", "count/sent")));
    EXPECT_FALSE(contains(os.str(), "locality#0")) << os.str().substr(0, 300);
}

// query_here() (the active counters', the trace's and a remote query's part on each locality):
// another locality's names are its to evaluate. query() asks it (remote_test.cpp).
TEST_F(locality_test, another_localitys_names_resolve_to_nothing_here) {
    weft::runtime rt(config(2));
    pretend();
    EXPECT_TRUE(here(on(3, "threads", "total", "count/cumulative")).empty());
    EXPECT_TRUE(here(on(0, "threads", "total", "idle-rate")).empty());
    // Another locality may have more workers than this one's two.
    EXPECT_TRUE(here(on(1, "threads", "worker-thread#7", "idle-rate")).empty());
    EXPECT_TRUE(here(on(3, "threads", "total", "count/*")).empty());
    EXPECT_TRUE(here("/arithmetics/divide@" + on(3, "parcels", "total", "count/sent") + "," +
                          on(3, "messages", "total", "count/sent"))
                    .empty());
    // Mixed with this locality's: only those.
    const wc::counter_set mixed =
        here({on(3, "threads", "total", "count/cumulative"), "/threads/count/cumulative"});
    EXPECT_EQ(mixed.names(), std::vector<std::string>{here_total("threads", "count/cumulative")});
    EXPECT_EQ(mixed.size(), 1u);

    // A name that is no counter on any locality is still an error.
    std::string e = error_of(on(3, "threads", "total", "count/cumulativ"));
    EXPECT_TRUE(contains(e, "no such counter")) << e;
    e = error_of(on(3, "threads", "total", "nope*"));
    EXPECT_TRUE(contains(e, "matches no counter")) << e;
    e = error_of(on(3, "threads", "worker-thread#0", "count/instantaneous/all"));  // total only
    EXPECT_TRUE(contains(e, "no such counter")) << e;
    e = error_of(on(3, "threads", "worker-thread#x", "idle-rate"));
    EXPECT_TRUE(contains(e, "worker-thread#N")) << e;
    e = error_of("/arithmetics/add@/threads/count/cumulative," + on(3, "threads", "total", "count/cumulative"));
    EXPECT_TRUE(contains(e, "one locality")) << e;
    // This locality's worker numbers are still checked.
    e = error_of(on(2, "threads", "worker-thread#2", "idle-rate"));
    EXPECT_TRUE(contains(e, "2 worker")) << e;
}

TEST_F(locality_test, a_locality_beyond_the_run_is_refused) {
    weft::runtime rt(config(1));
    pretend();
    std::string e = error_of(on(4, "threads", "total", "count/cumulative"));
    EXPECT_TRUE(contains(e, "4 localities")) << e;
    EXPECT_TRUE(contains(e, "locality#0 to locality#3")) << e;
    EXPECT_TRUE(contains(e, "locality#4")) << e;
    e = error_of("/threads{locality#x/total}/count/cumulative");
    EXPECT_TRUE(contains(e, "locality#L with a number L")) << e;
    EXPECT_THROW((void)here("/threads{locality#02/total}/count/cumulative"), weft::bad_counter_name);
    // A pattern over localities that do not exist.
    e = error_of("/threads{locality#9*/total}/count/cumulative");
    EXPECT_TRUE(contains(e, "matches no counter")) << e;
}

TEST_F(locality_test, a_wildcard_locality_gives_this_localitys_instances) {
    weft::runtime rt(config(2));
    pretend();
    EXPECT_EQ(here("/threads{locality#*/total}/count/cumulative").names(),
              std::vector<std::string>{here_total("threads", "count/cumulative")});
    EXPECT_EQ(here("/threads{locality#?/worker-thread#*}/idle-rate").names(),
              (std::vector<std::string>{on(2, "threads", "worker-thread#0", "idle-rate"),
                                        on(2, "threads", "worker-thread#1", "idle-rate")}));
    EXPECT_TRUE(here("/threads{locality#*/worker-thread#9}/idle-rate").empty())
        << "worker-thread#9 may exist on another locality";
    const std::string e = error_of("/threads{locality#*/total}/nope");
    EXPECT_TRUE(contains(e, "matches no counter")) << e;
    EXPECT_TRUE(contains(e, "locality#2")) << "suggests this locality's names: " << e;
}

TEST_F(locality_test, network_counters_read_the_source_and_reset_subtracts) {
    weft::runtime rt(config(1));
    pretend();
    wcd::set_network_source(nullptr);
    const std::vector<std::string> names = {
        here_total("parcels", "count/sent"),  here_total("parcels", "count/received"),
        here_total("parcels", "count/rejected"), here_total("data", "count/sent"),
        here_total("data", "count/received"), here_total("messages", "count/sent"),
        here_total("messages", "count/received")};
    const std::string per_message = "/arithmetics/divide@/parcels/count/sent,/messages/count/sent";
    std::vector<std::string> patterns = names;
    patterns.push_back(per_message);
    wc::counter_set set = wc::query(patterns);  // no source yet: the interval starts at zero
    for (const auto& v : set.evaluate()) {
        if (v.name.starts_with("/arithmetics/")) continue;
        EXPECT_TRUE(v.available) << v.name;
        EXPECT_EQ(v.value, 0) << "no source: zero " << v.name;
    }

    fake_network = {40, 30, 2, 8192, 4096, 10, 6};
    wcd::set_network_source(&read_fake_network);
    const std::vector<double> want = {40, 30, 2, 8192, 4096, 10, 6};
    auto v = set.evaluate(true);
    ASSERT_EQ(v.size(), names.size() + 1);
    for (std::size_t i = 0; i < names.size(); ++i) {
        EXPECT_EQ(v[i].name, names[i]);
        EXPECT_TRUE(v[i].available) << names[i] << ": " << v[i].reason;
        EXPECT_EQ(v[i].value, want[i]) << names[i];
    }
    EXPECT_EQ(v[0].unit, "parcels");
    EXPECT_EQ(v[3].unit, "bytes");
    EXPECT_EQ(v[5].unit, "messages");
    // Printed beside other localities' values, a derived counter names its operands' locality.
    EXPECT_EQ(v[7].name, "/arithmetics/divide@" + here_total("parcels", "count/sent") + "," +
                             here_total("messages", "count/sent"));
    EXPECT_DOUBLE_EQ(v[7].value, 4.0) << "parcels per message";
    EXPECT_EQ(v[7].unit, "parcels/messages");

    // After the reset, only what came since.
    fake_network.parcels_sent += 5;
    fake_network.bytes_received += 100;
    fake_network.messages_sent += 1;
    v = set.evaluate();
    EXPECT_EQ(v[0].value, 5);
    EXPECT_EQ(v[1].value, 0);
    EXPECT_EQ(v[4].value, 100);
    EXPECT_EQ(v[5].value, 1);
    EXPECT_DOUBLE_EQ(v[7].value, 5.0);

    // A new set starts its interval at the source's present values.
    EXPECT_EQ(wc::query(names[0]).evaluate()[0].value, 0);

    for (const auto& i : wc::list()) {
        if (contains(i.name, "/count/rejected")) {
            EXPECT_TRUE(contains(i.help, "malformed")) << i.help;
        }
    }
}

TEST_F(locality_test, gather_at_exit_receives_the_local_values_and_its_result_is_printed) {
    const fs::path out = temp("gathered.txt");
    weft::runtime rt(config(1));
    pretend();
    fake_network = {7, 0, 0, 0, 0, 0, 0};
    wcd::set_network_source(&read_fake_network);
    wcd::stop_service();  // the runtime's own, with nothing to print

    std::vector<std::vector<wc::counter_value>> calls;
    wcd::service_config cfg;
    cfg.print = {"/threads/count/cumulative", "/parcels/count/sent", on(3, "threads", "total", "count/cumulative")};
    cfg.destination = out.string();
    cfg.gather_at_exit = [&calls](std::vector<wc::counter_value> local) {
        calls.push_back(local);
        wc::counter_value remote;
        remote.name = on(3, "threads", "total", "count/cumulative");
        remote.unit = "tasks";
        remote.value = 12345;
        local.push_back(remote);
        return local;
    };
    wcd::start_service(cfg);
    constexpr int n = 5;
    for (int i = 0; i < n; ++i) weft::post([] {});
    rt.wait();
    EXPECT_TRUE(calls.empty()) << "called only at exit";
    wcd::stop_service();

    ASSERT_EQ(calls.size(), 1u);
    ASSERT_EQ(calls[0].size(), 2u) << "this locality's values only";
    EXPECT_EQ(calls[0][0].name, here_total("threads", "count/cumulative"));
    EXPECT_EQ(calls[0][0].value, n);
    EXPECT_EQ(calls[0][1].name, here_total("parcels", "count/sent"));
    EXPECT_EQ(calls[0][1].value, 0) << "the interval started with the source at 7";

    const std::string text = read_file(out);
    std::vector<std::string> lines;
    std::istringstream is(text);
    for (std::string l; std::getline(is, l);) lines.push_back(l);
    ASSERT_EQ(lines.size(), 3u) << text;
    EXPECT_TRUE(lines[0].starts_with(here_total("threads", "count/cumulative") + ",1,")) << lines[0];
    EXPECT_TRUE(lines[0].ends_with("," + std::to_string(n) + "[tasks],at exit")) << lines[0];
    EXPECT_TRUE(lines[1].starts_with(here_total("parcels", "count/sent") + ",1,")) << lines[1];
    EXPECT_TRUE(lines[2].starts_with(on(3, "threads", "total", "count/cumulative") + ",1,")) << lines[2];
    EXPECT_TRUE(lines[2].ends_with(",12345[tasks],at exit")) << lines[2];
}

// A locality none of whose printed counters is its own still takes part in the gather
// (it may be a collective), and a gather that throws prints nothing and breaks nothing.
TEST_F(locality_test, gather_at_exit_is_called_without_local_values_and_may_fail) {
    const fs::path out = temp("none_here.txt");
    weft::runtime rt(config(1));
    pretend();
    wcd::stop_service();
    int called = 0;
    wcd::service_config cfg;
    cfg.print = {on(0, "threads", "total", "count/cumulative")};
    cfg.destination = out.string();
    cfg.gather_at_exit = [&called](std::vector<wc::counter_value> local) {
        ++called;
        EXPECT_TRUE(local.empty());
        return std::vector<wc::counter_value>{{on(0, "threads", "total", "count/cumulative"), "tasks", 3, true, "", 0}};
    };
    wcd::start_service(cfg);
    wcd::stop_service();
    EXPECT_EQ(called, 1);
    EXPECT_TRUE(read_file(out).starts_with(on(0, "threads", "total", "count/cumulative") + ",1,")) << read_file(out);

    const fs::path failed = temp("failed.txt");
    cfg.destination = failed.string();
    cfg.gather_at_exit = [](std::vector<wc::counter_value>) -> std::vector<wc::counter_value> {
        throw std::runtime_error("the other localities are gone");
    };
    wcd::start_service(cfg);
    wcd::stop_service();
    EXPECT_EQ(read_file(failed), "");
    EXPECT_EQ(wcd::take_write_error(), "");
    EXPECT_EQ(weft::async([] { return 1; }).get(), 1);
}

// In CSV, the gathered row has more columns than the rows before it: it gets its own header.
TEST_F(locality_test, a_gathered_csv_row_gets_its_own_header) {
    const fs::path out = temp("gathered.csv");
    weft::runtime rt(config(1));
    pretend();
    wcd::stop_service();
    wcd::service_config cfg;
    cfg.print = {"/threads/count/cumulative"};
    cfg.fmt = wc::format::csv;
    cfg.destination = out.string();
    cfg.gather_at_exit = [](std::vector<wc::counter_value> local) {
        local.push_back({on(3, "threads", "total", "count/cumulative"), "tasks", 9, true, "", 0});
        return local;
    };
    wcd::start_service(cfg);
    wc::evaluate_active(false, "local");
    wcd::stop_service();
    std::vector<std::string> lines;
    std::istringstream is(read_file(out));
    for (std::string l; std::getline(is, l);) lines.push_back(l);
    ASSERT_EQ(lines.size(), 4u) << read_file(out);
    EXPECT_EQ(lines[0], "sample,time_s,description," + here_total("threads", "count/cumulative") + " [tasks]");
    EXPECT_TRUE(lines[1].starts_with("1,")) << lines[1];
    EXPECT_EQ(lines[2], "sample,time_s,description," + here_total("threads", "count/cumulative") + " [tasks]," +
                            on(3, "threads", "total", "count/cumulative") + " [tasks]");
    EXPECT_TRUE(lines[3].starts_with("2,")) << lines[3];
    EXPECT_TRUE(lines[3].ends_with(",at exit,0,9")) << lines[3];
}

TEST_F(locality_test, a_locality_that_does_not_write_writes_nothing) {
    weft::runtime rt(config(1));
    pretend();
    wcd::stop_service();
    const fs::path out = temp("never.json");
    std::vector<wc::counter_value> gathered;
    wcd::service_config cfg;
    cfg.print = {"/threads/count/cumulative"};
    cfg.fmt = wc::format::json;
    cfg.interval_ms = 1;
    cfg.destination = out.string();
    cfg.write = false;
    cfg.gather_at_exit = [&gathered](std::vector<wc::counter_value> local) {
        gathered = std::move(local);
        return std::vector<wc::counter_value>{};  // locality 0 prints them
    };
    std::ostringstream os;
    auto* old = std::cout.rdbuf(os.rdbuf());
    wcd::start_service(cfg);
    EXPECT_FALSE(fs::exists(out)) << "no destination is opened";
    for (int i = 0; i < 3; ++i) weft::post([] {});
    rt.wait();
    wc::evaluate_active(false, "not written");
    wcd::stop_service();

    // Without a destination (stdout) and without a gather: nothing either.
    cfg.destination.clear();
    cfg.gather_at_exit = nullptr;
    wcd::start_service(cfg);
    wc::add_active("/runtime/uptime");
    wc::evaluate_active(true, "not written");
    wcd::stop_service();
    std::cout.rdbuf(old);

    EXPECT_FALSE(fs::exists(out));
    EXPECT_EQ(os.str(), "");
    ASSERT_EQ(gathered.size(), 1u) << "the values are still evaluated for the gather";
    EXPECT_EQ(gathered[0].name, here_total("threads", "count/cumulative"));
    EXPECT_EQ(gathered[0].value, 3);
}

TEST_F(locality_test, the_trace_names_this_locality) {
    const fs::path out = temp("trace.json");
    {
        weft::runtime rt(config(1));
        pretend();
        wcd::stop_service();
        wcd::service_config cfg;
        cfg.trace_file = out.string();
        wcd::start_service(cfg);  // the runtime writes the trace when it stops
        weft::post([] {});
    }
    const json::value doc = json::parse(read_file(out));
    bool named = false;
    std::set<std::string> tracks;
    for (const auto& e : doc["traceEvents"].as_array()) {
        if (e["ph"].as_string() == "M" && e["name"].as_string() == "process_name")
            named = e["args"]["name"].as_string() == "weft locality#2";
        if (e["ph"].as_string() == "C") tracks.insert(e["name"].as_string());
    }
    EXPECT_TRUE(named);
    ASSERT_FALSE(tracks.empty());
    for (const auto& t : tracks) EXPECT_TRUE(contains(t, "{locality#2/")) << t;
}

}  // namespace
