// A query that spans other localities (include/weft/counters/detail/service.hpp's remote
// source), without MPI: the test pretends to be locality 2 of 4 and plays the other
// localities with a fake source that records what it is asked. Checked: which patterns go
// to which locality, the order of the names (per pattern: this locality's, then the others'
// in locality order), values put back in that order, reset and close reaching every
// locality, errors from the source, a wildcard that matches nowhere, no source, and a set
// that outlives its runtime. tests/distributed/remote_counters.cpp runs the real thing.
#include <weft/counters/counters.hpp>
#include <weft/counters/detail/service.hpp>
#include <weft/weft.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace {

namespace wc = weft::counters;
namespace wcd = weft::counters::detail;

weft::runtime_config config() {
    weft::runtime_config cfg;
    cfg.threads = 2;
    cfg.scheduler = "local-priority";
    cfg.bind = false;
    return cfg;
}

std::string on(unsigned locality, std::string_view object, std::string_view path) {
    return "/" + std::string(object) + "{locality#" + std::to_string(locality) + "/total}/" + std::string(path);
}

// What the fake localities were asked and answer. Only the test's thread calls the source.
struct fake_state {
    std::vector<wcd::remote_request> opened;
    std::vector<std::uint64_t> evaluated, reset, closed;
    std::vector<bool> reset_flags;
    std::map<std::uint64_t, std::vector<std::string>> sets;  // handle -> names
    std::uint32_t refuse = 99;                                 // this locality throws bad_counter_name
    std::uint64_t next = 1;
} fake;

// A pattern's instances on locality `l`: its locality (a wildcard or a number) replaced by
// l's; none for "worker-thread#9" (no locality has one).
std::vector<std::string> instances(const std::string& pattern, std::uint32_t l) {
    if (pattern.find("worker-thread#9") != std::string::npos) return {};
    const std::size_t at = pattern.find("locality#");
    const std::size_t end = pattern.find('/', at);
    return {pattern.substr(0, at) + "locality#" + std::to_string(l) + pattern.substr(end)};
}

std::vector<wcd::remote_opened> fake_open(const std::vector<wcd::remote_request>& requests) {
    std::vector<wcd::remote_opened> out;
    for (const auto& r : requests) {
        fake.opened.push_back(r);
        if (r.locality == fake.refuse) throw weft::bad_counter_name("weft: counter 'x' on locality#" + std::to_string(r.locality));
        wcd::remote_opened o;
        std::vector<std::string> all;  // as query_here: a name an earlier pattern gave is not repeated
        for (const auto& p : r.patterns) {
            const auto names = instances(p, r.locality);
            o.matched.push_back(names.size());
            o.names.emplace_back();
            for (const auto& n : names)
                if (std::find(all.begin(), all.end(), n) == all.end()) {
                    o.names.back().push_back(n);
                    all.push_back(n);
                }
        }
        o.ref = {r.locality, all.empty() ? 0 : fake.next++};
        if (o.ref.handle != 0) fake.sets[o.ref.handle] = all;
        out.push_back(std::move(o));
    }
    return out;
}

// Values: 1000 * locality + the name's position in its set.
std::vector<std::vector<wc::counter_value>> fake_evaluate(const std::vector<wcd::remote_ref>& sets, bool reset) {
    std::vector<std::vector<wc::counter_value>> out;
    for (const auto& s : sets) {
        fake.evaluated.push_back(s.handle);
        fake.reset_flags.push_back(reset);
        std::vector<wc::counter_value> v;
        const auto& names = fake.sets.at(s.handle);
        for (std::size_t i = 0; i < names.size(); ++i)
            v.push_back({names[i], "tasks", 1000.0 * s.locality + static_cast<double>(i), true, "", 1});
        out.push_back(std::move(v));
    }
    return out;
}

void fake_reset(const std::vector<wcd::remote_ref>& sets) {
    for (const auto& s : sets) fake.reset.push_back(s.handle);
}

void fake_close(const std::vector<wcd::remote_ref>& sets) noexcept {
    for (const auto& s : sets) fake.closed.push_back(s.handle);
}

const wcd::remote_source source{&fake_open, &fake_evaluate, &fake_reset, &fake_close};

class remote_test : public ::testing::Test {
protected:
    void SetUp() override { fake = {}; }
    // After the runtime started: this process is locality 2 of 4, the others reached through the fake.
    static void pretend(bool with_source = true) {
        wcd::set_locality(2, 4);
        if (with_source) wcd::set_remote_source(&source);
    }
    void TearDown() override {
        wcd::set_remote_source(nullptr);
        wcd::set_locality(0, 1);
    }
};

TEST_F(remote_test, names_come_per_pattern_here_first_then_in_locality_order) {
    weft::runtime rt(config());
    pretend();
    const wc::counter_set set =
        wc::query({"/threads{locality#*/total}/count/cumulative", on(0, "runtime", "uptime"), on(2, "runtime", "uptime"),
                   "/runtime{locality#*/total}/uptime"});
    EXPECT_EQ(set.names(), (std::vector<std::string>{
                               on(2, "threads", "count/cumulative"), on(0, "threads", "count/cumulative"),
                               on(1, "threads", "count/cumulative"), on(3, "threads", "count/cumulative"),
                               on(0, "runtime", "uptime"), on(2, "runtime", "uptime"),
                               // the wildcard's: locality#2's and #0's were given already
                               on(1, "runtime", "uptime"), on(3, "runtime", "uptime")}));
    EXPECT_EQ(set.size(), 8u);
    // One request per locality, in locality order, with the patterns that may denote its instances.
    ASSERT_EQ(fake.opened.size(), 3u);
    EXPECT_EQ(fake.opened[0].locality, 0u);
    EXPECT_EQ(fake.opened[0].patterns, (std::vector<std::string>{"/threads{locality#*/total}/count/cumulative",
                                                                 on(0, "runtime", "uptime"),
                                                                 "/runtime{locality#*/total}/uptime"}));
    EXPECT_EQ(fake.opened[1].locality, 1u);
    EXPECT_EQ(fake.opened[1].patterns, (std::vector<std::string>{"/threads{locality#*/total}/count/cumulative",
                                                                 "/runtime{locality#*/total}/uptime"}));
    EXPECT_EQ(fake.opened[2].locality, 3u);
}

TEST_F(remote_test, values_follow_the_names_and_reset_and_close_reach_every_locality) {
    weft::runtime rt(config());
    pretend();
    {
        wc::counter_set set = wc::query({"/threads{locality#*/total}/count/cumulative", on(3, "runtime", "uptime")});
        ASSERT_EQ(set.size(), 5u);
        auto v = set.evaluate(true);
        ASSERT_EQ(v.size(), 5u);
        for (std::size_t i = 0; i < v.size(); ++i) EXPECT_EQ(v[i].name, set.names()[i]);
        EXPECT_TRUE(v[0].available);  // this locality's, computed here
        EXPECT_EQ(v[1].value, 0.0);   // locality#0's first
        EXPECT_EQ(v[2].value, 1000.0);
        EXPECT_EQ(v[3].value, 3000.0);  // locality#3's first ...
        EXPECT_EQ(v[4].value, 3001.0);  // ... and second, given by the second pattern
        EXPECT_EQ(fake.evaluated, (std::vector<std::uint64_t>{1, 2, 3}));
        EXPECT_EQ(fake.reset_flags, (std::vector<bool>{true, true, true}));
        set.reset();
        EXPECT_EQ(fake.reset, (std::vector<std::uint64_t>{1, 2, 3}));
        (void)set.evaluate();
        EXPECT_FALSE(fake.reset_flags.back());
        EXPECT_TRUE(fake.closed.empty());
    }
    EXPECT_EQ(fake.closed, (std::vector<std::uint64_t>{1, 2, 3})) << "a destroyed set closes its remote parts";
    // A set moved from closes nothing; the one moved to closes once.
    {
        wc::counter_set a = wc::query(on(1, "threads", "count/cumulative"));
        wc::counter_set b = std::move(a);
        EXPECT_EQ(b.names(), std::vector<std::string>{on(1, "threads", "count/cumulative")});
    }
    EXPECT_EQ(fake.closed, (std::vector<std::uint64_t>{1, 2, 3, 4}));
}

TEST_F(remote_test, only_the_localities_a_name_can_denote_are_asked) {
    weft::runtime rt(config());
    pretend();
    (void)wc::query({"/threads/count/cumulative", on(2, "threads", "idle-rate"), "/threads{locality#2/worker-thread#*}/idle-rate"});
    EXPECT_TRUE(fake.opened.empty()) << "this locality's names";
    (void)wc::query({"/arithmetics/divide@" + on(3, "parcels", "count/sent") + "," + on(3, "messages", "count/sent")});
    ASSERT_EQ(fake.opened.size(), 1u) << "a derived counter goes where its operands are";
    EXPECT_EQ(fake.opened[0].locality, 3u);
    fake.opened.clear();
    (void)wc::query("/threads{locality#?/total}/count/cumulative");
    EXPECT_EQ(fake.opened.size(), 3u);
}

TEST_F(remote_test, a_localitys_error_reaches_the_query_and_what_others_opened_is_theirs_to_close) {
    weft::runtime rt(config());
    pretend();
    fake.refuse = 3;
    EXPECT_THROW((void)wc::query("/threads{locality#*/total}/count/cumulative"), weft::bad_counter_name);
    // The fake opened 0 and 1 before refusing; the real source closes them (remote_counters.cpp).
    EXPECT_EQ(fake.opened.size(), 3u);
}

TEST_F(remote_test, a_wildcard_that_matches_on_no_locality_is_a_bad_name) {
    weft::runtime rt(config());
    pretend();
    try {
        (void)wc::query("/threads{locality#*/worker-thread#9}/idle-rate");
        FAIL() << "no weft::bad_counter_name";
    } catch (const weft::bad_counter_name& e) {
        EXPECT_NE(std::string(e.what()).find("matches no counter on any locality"), std::string::npos) << e.what();
    }
    EXPECT_EQ(fake.opened.size(), 3u);
    EXPECT_TRUE(fake.closed.empty()) << "no locality kept a set";
}

TEST_F(remote_test, without_a_source_another_localitys_names_cannot_be_reached) {
    weft::runtime rt(config());
    pretend(false);
    try {
        (void)wc::query(on(1, "threads", "count/cumulative"));
        FAIL() << "no weft::runtime_state_error";
    } catch (const weft::runtime_state_error& e) {
        EXPECT_NE(std::string(e.what()).find("locality#1"), std::string::npos) << e.what();
    }
    EXPECT_EQ(wc::query("/threads/count/cumulative").size(), 1u) << "this locality's need none";
}

TEST_F(remote_test, a_set_that_outlives_its_runtime_throws_and_closes_nothing) {
    wc::counter_set set;
    {
        weft::runtime rt(config());
        pretend();
        set = wc::query("/threads{locality#*/total}/count/cumulative");
        EXPECT_EQ(set.size(), 4u);
        wcd::set_locality(0, 1);  // before the runtime stops, as the distributed layer does
    }
    EXPECT_THROW((void)set.evaluate(), weft::runtime_state_error);
    EXPECT_THROW(set.reset(), weft::runtime_state_error);
    set = wc::counter_set{};
    EXPECT_TRUE(fake.closed.empty()) << "the runtime that stopped freed them";
}

}  // namespace
