// --weft:* options and WEFT_* variables: parsing, precedence, removal from argv, and a
// clear error for everything malformed or unknown.
#include <weft/weft.hpp>

#include "support/args.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

using weft::test::args;

weft::env_lookup env(std::map<std::string, std::string> vars) {
    return [vars = std::move(vars)](const char* name) -> const char* {
        auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
    };
}

weft::runtime_config parse(std::vector<std::string> a, std::map<std::string, std::string> vars = {}) {
    args x(std::move(a));
    return weft::parse_runtime_options(x.argc, x.ptrs.data(), env(std::move(vars)));
}

std::string error_of(std::vector<std::string> a, std::map<std::string, std::string> vars = {}) {
    try {
        parse(std::move(a), std::move(vars));
    } catch (const weft::bad_option& e) {
        return e.what();
    }
    return "";
}

TEST(options, defaults) {
    const auto c = parse({"prog"});
    EXPECT_EQ(c.threads, 0u);
    EXPECT_EQ(c.scheduler, "local-priority");
    EXPECT_TRUE(c.bind);
    EXPECT_EQ(c.stack_size, 0u);
    EXPECT_FALSE(c.print_topology);
    EXPECT_FALSE(c.help);
}

TEST(options, command_line_values_are_read_and_removed) {
    args a({"prog", "in.txt", "--weft:threads=2", "-v", "--weft:scheduler=static", "--weft:bind=none",
            "--weft:stack-size=256K", "--weft:print-topology", "--weft:deadlock-timeout=0", "--",
            "--weft:threads=9"});
    const auto c = weft::parse_runtime_options(a.argc, a.ptrs.data(), env({}));
    EXPECT_EQ(c.threads, 2u);
    EXPECT_EQ(c.scheduler, "static");
    EXPECT_FALSE(c.bind);
    EXPECT_EQ(c.stack_size, 256u * 1024);
    EXPECT_TRUE(c.print_topology);
    EXPECT_EQ(c.deadlock_timeout_ms, 0u);
    EXPECT_EQ(a.left(), (std::vector<std::string>{"prog", "in.txt", "-v", "--", "--weft:threads=9"}));
    EXPECT_EQ(a.ptrs[static_cast<std::size_t>(a.argc)], nullptr);
}

TEST(options, environment_is_read_and_the_command_line_wins) {
    const auto from_env = parse({"prog"}, {{"WEFT_THREADS", "3"}, {"WEFT_SCHEDULER", "single"},
                                           {"WEFT_STACK_SIZE", "1MiB"}, {"WEFT_BIND", "none"},
                                           {"WEFT_PRINT_TOPOLOGY", "1"}});
    EXPECT_EQ(from_env.threads, 3u);
    EXPECT_EQ(from_env.scheduler, "single");
    EXPECT_EQ(from_env.stack_size, 1024u * 1024);
    EXPECT_FALSE(from_env.bind);
    EXPECT_TRUE(from_env.print_topology);
    const auto both = parse({"prog", "--weft:threads=1"}, {{"WEFT_THREADS", "3"}});
    EXPECT_EQ(both.threads, 1u);
    EXPECT_EQ(parse({"prog", "--weft:threads=all"}).threads, 0u);
    EXPECT_TRUE(parse({"prog", "--weft:help"}).help);
}

TEST(options, a_variable_whose_option_is_given_is_not_parsed) {
    // The command line wins: a bad variable does not matter when its option is given.
    EXPECT_EQ(parse({"prog", "--weft:threads=2"}, {{"WEFT_THREADS", "abc"}}).threads, 2u);
    EXPECT_EQ(parse({"prog", "--weft:stack-size=64K"}, {{"WEFT_STACK_SIZE", "huge"}}).stack_size, 64u * 1024);
    EXPECT_EQ(parse({"prog", "--weft:on-deadlock=wait"}, {{"WEFT_ON_DEADLOCK", "never"}}).on_deadlock, "wait");
    // Only the given option's variable: the others are still read, and still checked.
    const auto c = parse({"prog", "--weft:threads=2"}, {{"WEFT_THREADS", "abc"}, {"WEFT_BIND", "none"}});
    EXPECT_FALSE(c.bind);
    EXPECT_NE(error_of({"prog", "--weft:threads=2"}, {{"WEFT_BIND", "scatter"}}).find("WEFT_BIND"), std::string::npos);
    // After a lone "--", nothing is an option, so the variable is read.
    EXPECT_NE(error_of({"prog", "--", "--weft:threads=2"}, {{"WEFT_THREADS", "abc"}}).find("WEFT_THREADS"),
              std::string::npos);
    EXPECT_EQ(parse({"prog", "--", "--weft:threads=2"}, {{"WEFT_THREADS", "3"}}).threads, 3u);
    // A repeatable option: the command line's values replace the variable's.
    EXPECT_EQ(parse({"prog", "--weft:print-counter=/a/b", "--weft:print-counter=/c/d"},
                    {{"WEFT_PRINT_COUNTER", "/e/f"}})
                  .print_counters,
              (std::vector<std::string>{"/a/b", "/c/d"}));
}

TEST(options, on_deadlock_is_auto_wait_or_exit) {
    EXPECT_EQ(parse({"prog"}).on_deadlock, "auto");
    EXPECT_EQ(parse({"prog", "--weft:on-deadlock=wait"}).on_deadlock, "wait");
    EXPECT_EQ(parse({"prog", "--weft:on-deadlock=exit"}).on_deadlock, "exit");
    EXPECT_EQ(parse({"prog"}, {{"WEFT_ON_DEADLOCK", "exit"}}).on_deadlock, "exit");
    for (const char* bad : {"--weft:on-deadlock=", "--weft:on-deadlock=never", "--weft:on-deadlock=AUTO"}) {
        const std::string e = error_of({"prog", bad});
        EXPECT_NE(e.find("for --weft:on-deadlock: expected auto, wait or exit"), std::string::npos) << bad << ": " << e;
    }
    EXPECT_NE(error_of({"prog"}, {{"WEFT_ON_DEADLOCK", "1"}}).find("WEFT_ON_DEADLOCK"), std::string::npos);
    EXPECT_NE(error_of({"prog", "--weft:on-deadlock"}).find("needs a value"), std::string::npos);
    weft::runtime_config c;
    c.on_deadlock = "sometimes";
    EXPECT_THROW(weft::validate(c), weft::bad_option);
    c.on_deadlock = "wait";
    EXPECT_NO_THROW(weft::validate(c));
}

TEST(options, the_public_queue_part_fits_in_the_bound) {
    EXPECT_EQ(parse({"prog", "--weft:queue-bound=8", "--weft:queue-public=8"}).queue_public, 8u);
    std::string e = error_of({"prog"}, {{"WEFT_QUEUE_PUBLIC", "50"}});
    EXPECT_NE(e.find("bad value '50' for WEFT_QUEUE_PUBLIC: expected at most the queue bound (40, the default)"),
              std::string::npos) << e;
    e = error_of({"prog", "--weft:queue-bound=10", "--weft:queue-public=11"});
    EXPECT_NE(e.find("for --weft:queue-public: expected at most the queue bound (10, from --weft:queue-bound)"),
              std::string::npos) << e;
    e = error_of({"prog", "--weft:queue-bound=10"});  // the default public part, 20, does not fit
    EXPECT_NE(e.find("bad value '10' for --weft:queue-bound: expected at least the queue's public part (20"),
              std::string::npos) << e;
}

TEST(options, a_pretended_machine_without_a_thread_count_stays_under_the_thread_bound) {
    EXPECT_EQ(parse({"prog", "--weft:topology=sockets:2,cores:4"}).synthetic_topology, "sockets:2,cores:4");
    std::string e = error_of({"prog", "--weft:topology=cores:600"});
    EXPECT_NE(e.find("bad value 'cores:600' for --weft:topology: expected a machine of at most"), std::string::npos) << e;
    e = error_of({"prog"}, {{"WEFT_TOPOLOGY", "sockets:100,cores:100"}});
    EXPECT_NE(e.find("WEFT_TOPOLOGY"), std::string::npos) << e;
    // With a thread count the machine only shapes the hierarchy.
    EXPECT_EQ(parse({"prog", "--weft:topology=cores:600", "--weft:threads=2"}).threads, 2u);
    weft::runtime_config c;
    c.synthetic_topology = "cores:600";
    EXPECT_THROW(weft::validate(c), weft::bad_option);
    c.threads = 2;
    EXPECT_NO_THROW(weft::validate(c));
}

TEST(options, malformed_values_name_the_option_and_what_it_accepts) {
    for (const char* bad : {"--weft:threads=-3", "--weft:threads=abc", "--weft:threads=0", "--weft:threads=",
                            "--weft:threads=100000", "--weft:threads=2x"}) {
        const std::string e = error_of({"prog", bad});
        EXPECT_NE(e.find("--weft:threads"), std::string::npos) << bad << ": " << e;
        EXPECT_NE(e.find("whole number from 1 to"), std::string::npos) << bad << ": " << e;
    }
    EXPECT_NE(error_of({"prog", "--weft:scheduler=fastest"}).find("one of: local-priority, static, single"),
              std::string::npos);
    EXPECT_NE(error_of({"prog", "--weft:bind=scatter"}).find("'compact'"), std::string::npos);
    EXPECT_NE(error_of({"prog", "--weft:stack-size=12"}).find("--weft:stack-size"), std::string::npos);
    EXPECT_NE(error_of({"prog", "--weft:stack-size=4G"}).find("byte count"), std::string::npos);
    EXPECT_NE(error_of({"prog", "--weft:threads"}).find("needs a value"), std::string::npos);
    EXPECT_NE(error_of({"prog", "--weft:deadlock-timeout=soon"}).find("milliseconds"), std::string::npos);
    EXPECT_NE(error_of({"prog", "--weft:print-topology=yes"}).find("takes no value"), std::string::npos);
    EXPECT_NE(error_of({"prog"}, {{"WEFT_THREADS", "many"}}).find("WEFT_THREADS"), std::string::npos);
}

TEST(options, xqueue_domains_are_numa_mesh_or_a_group_size) {
    EXPECT_EQ(parse({"prog"}).xqueue_domains, "numa");
    EXPECT_EQ(parse({"prog", "--weft:xqueue-domains=mesh"}).xqueue_domains, "mesh");
    EXPECT_EQ(parse({"prog", "--weft:xqueue-domains=3"}).xqueue_domains, "3");
    EXPECT_EQ(parse({"prog"}, {{"WEFT_XQUEUE_DOMAINS", "numa"}}).xqueue_domains, "numa");
    for (const char* bad : {"--weft:xqueue-domains=0", "--weft:xqueue-domains=ring", "--weft:xqueue-domains=",
                            "--weft:xqueue-domains=2x", "--weft:xqueue-domains=2000000"}) {
        const std::string e = error_of({"prog", bad});
        EXPECT_NE(e.find("--weft:xqueue-domains"), std::string::npos) << bad << ": " << e;
        EXPECT_NE(e.find("'mesh'"), std::string::npos) << bad << ": " << e;
    }
    weft::runtime_config c;
    c.xqueue_domains = "everywhere";
    EXPECT_THROW(weft::validate(c), weft::bad_option);
}

TEST(options, stack_trim_is_a_period_in_milliseconds_or_zero) {
    EXPECT_EQ(parse({"prog"}).stack_trim_ms, 1000u);
    EXPECT_EQ(parse({"prog", "--weft:stack-trim=0"}).stack_trim_ms, 0u);
    EXPECT_EQ(parse({"prog", "--weft:stack-trim=250"}).stack_trim_ms, 250u);
    EXPECT_EQ(parse({"prog"}, {{"WEFT_STACK_TRIM", "20"}}).stack_trim_ms, 20u);
    for (const char* bad : {"--weft:stack-trim=-1", "--weft:stack-trim=1s", "--weft:stack-trim=",
                            "--weft:stack-trim=3600001"}) {
        const std::string e = error_of({"prog", bad});
        EXPECT_NE(e.find("--weft:stack-trim"), std::string::npos) << bad << ": " << e;
        EXPECT_NE(e.find("milliseconds from 0"), std::string::npos) << bad << ": " << e;
    }
    EXPECT_NE(error_of({"prog"}, {{"WEFT_STACK_TRIM", "often"}}).find("WEFT_STACK_TRIM"), std::string::npos);
    weft::runtime_config c;
    c.stack_trim_ms = 4'000'000;
    EXPECT_THROW(weft::validate(c), weft::bad_option);
}

TEST(options, main_stack_size_defaults_to_an_os_main_threads) {
    EXPECT_EQ(parse({"prog"}).main_stack_size, std::size_t{8} << 20);
    EXPECT_EQ(parse({"prog", "--weft:main-stack-size=1M"}).main_stack_size, std::size_t{1} << 20);
    EXPECT_EQ(parse({"prog"}, {{"WEFT_MAIN_STACK_SIZE", "65536"}}).main_stack_size, 65536u);
    for (const char* bad : {"--weft:main-stack-size=12", "--weft:main-stack-size=8X", "--weft:main-stack-size=",
                            "--weft:main-stack-size=2G"}) {
        const std::string e = error_of({"prog", bad});
        EXPECT_NE(e.find("--weft:main-stack-size"), std::string::npos) << bad << ": " << e;
        EXPECT_NE(e.find("16384 to 1073741824"), std::string::npos) << bad << ": " << e;
    }
    weft::runtime_config c;
    c.main_stack_size = 100;
    EXPECT_THROW(weft::validate(c), weft::bad_option);
}

TEST(options, unknown_options_are_errors_listing_the_known_ones) {
    const std::string e = error_of({"prog", "--weft:thread=2"});
    EXPECT_NE(e.find("unknown option '--weft:thread=2'"), std::string::npos) << e;
    EXPECT_NE(e.find("--weft:threads"), std::string::npos) << e;
}

TEST(options, validate_checks_configurations_made_in_code) {
    weft::runtime_config c;
    c.scheduler = "nope";
    EXPECT_THROW(weft::validate(c), weft::bad_option);
    c.scheduler = "static";
    c.threads = 1u << 20;
    EXPECT_THROW(weft::validate(c), weft::bad_option);
    c.threads = 2;
    c.stack_size = 100;
    EXPECT_THROW(weft::validate(c), weft::bad_option);
    c.stack_size = 0;
    EXPECT_NO_THROW(weft::validate(c));
}

TEST(options, help_lists_every_option_and_policy) {
    std::ostringstream os;
    weft::print_runtime_help(os);
    for (const char* s : {"--weft:threads", "--weft:scheduler", "--weft:bind", "--weft:stack-size",
                          "--weft:stack-trim", "--weft:print-topology", "--weft:deadlock-timeout",
                          "--weft:on-deadlock=auto|wait|exit", "WEFT_ON_DEADLOCK", "--weft:help", "WEFT_THREADS",
                          "local-priority", "single"})
        EXPECT_NE(os.str().find(s), std::string::npos) << s;
}

// Each "--weft:NAME" and "WEFT_VAR" in `text`.
std::set<std::string> names_in(const std::string& text) {
    std::set<std::string> names;
    for (const char* pattern : {"--weft:[a-z-]+[a-z]", "WEFT_[A-Z_]+[A-Z]"}) {
        const std::regex re(pattern);
        for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
            names.insert(it->str());
    }
    return names;
}

TEST(options, the_readme_table_lists_what_help_prints) {
    // This file is tests/unit/runtime/options_test.cpp; the README is at the top.
    const std::string here = __FILE__;
    std::ifstream readme(here.substr(0, here.rfind("tests/unit/runtime/")) + "README.md");
    if (!readme) GTEST_SKIP() << "no README.md next to " << here;
    std::string table;
    bool in_section = false;
    for (std::string line; std::getline(readme, line);) {
        if (line.starts_with("## ")) in_section = line == "## Runtime options";
        else if (in_section && line.starts_with("| `--weft:"))
            table += line.substr(0, line.find(" | ", line.find(" | ") + 3)) + '\n';  // option and variable columns
    }
    // From each help line, the option (up to its '=' or first space) and the [WEFT_*].
    std::ostringstream help;
    weft::print_runtime_help(help);
    std::string help_lines;
    std::istringstream in(help.str());
    for (std::string line; std::getline(in, line);) {
        if (!line.starts_with("  --weft:")) continue;
        help_lines += line.substr(0, line.find_first_of("= ", 2));
        if (line.ends_with("]")) help_lines += " " + line.substr(line.rfind('['));
        help_lines += '\n';
    }
    EXPECT_EQ(names_in(table), names_in(help_lines)) << "README table:\n" << table << "--weft:help:\n" << help_lines;
}

// ---------------------------------------------------------------------------------
// Counter and trace options (include/weft/counters/counters.hpp).

TEST(options, counter_options_default_to_off) {
    const auto c = parse({"prog"});
    EXPECT_TRUE(c.print_counters.empty());
    EXPECT_EQ(c.print_counter_interval_ms, 0u);
    EXPECT_EQ(c.print_counter_format, "text");
    EXPECT_EQ(c.print_counter_destination, "");
    EXPECT_FALSE(c.reset_counters);
    EXPECT_FALSE(c.list_counters);
    EXPECT_TRUE(c.counter_timing);
    EXPECT_EQ(c.trace_file, "");
}

TEST(options, counter_and_trace_options_are_read_and_removed) {
    args a({"prog", "--weft:print-counter=/threads/idle-rate", "x",
            "--weft:print-counter=/threads{locality#0/worker-thread#*}/count/cumulative",
            "--weft:print-counter=/arithmetics/divide@/threads/time/cumulative,/threads/count/cumulative",
            "--weft:print-counter-interval=250", "--weft:print-counter-format=json",
            "--weft:print-counter-destination=out dir/counters.json", "--weft:reset-counters", "--weft:list-counters",
            "--weft:counter-timing=off", "--weft:trace=trace.json"});
    const auto c = weft::parse_runtime_options(a.argc, a.ptrs.data(), env({}));
    EXPECT_EQ(c.print_counters, (std::vector<std::string>{
                                    "/threads/idle-rate", "/threads{locality#0/worker-thread#*}/count/cumulative",
                                    "/arithmetics/divide@/threads/time/cumulative,/threads/count/cumulative"}));
    EXPECT_EQ(c.print_counter_interval_ms, 250u);
    EXPECT_EQ(c.print_counter_format, "json");
    EXPECT_EQ(c.print_counter_destination, "out dir/counters.json");
    EXPECT_TRUE(c.reset_counters);
    EXPECT_TRUE(c.list_counters);
    EXPECT_FALSE(c.counter_timing);
    EXPECT_EQ(c.trace_file, "trace.json");
    EXPECT_EQ(a.left(), (std::vector<std::string>{"prog", "x"}));

    EXPECT_EQ(parse({"prog", "--weft:print-counter-format=csv"}).print_counter_format, "csv");
    EXPECT_EQ(parse({"prog", "--weft:print-counter-format=text"}).print_counter_format, "text");
    EXPECT_EQ(parse({"prog", "--weft:print-counter-interval=0"}).print_counter_interval_ms, 0u);
    EXPECT_EQ(parse({"prog", "--weft:print-counter-interval=3600000"}).print_counter_interval_ms, 3600000u);
    EXPECT_TRUE(parse({"prog"}).keep_large_buffers);  // on by default
    EXPECT_FALSE(parse({"prog", "--weft:keep-large-buffers=off"}).keep_large_buffers);
    EXPECT_FALSE(parse({"prog"}, {{"WEFT_KEEP_LARGE_BUFFERS", "off"}}).keep_large_buffers);
    EXPECT_TRUE(parse({"prog"}).hand_off);  // on by default
    EXPECT_FALSE(parse({"prog", "--weft:hand-off=off"}).hand_off);
    EXPECT_TRUE(parse({"prog", "--weft:hand-off=off", "--weft:hand-off=on"}).hand_off);
    EXPECT_FALSE(parse({"prog"}, {{"WEFT_HAND_OFF", "0"}}).hand_off);
    EXPECT_TRUE(parse({"prog", "--weft:counter-timing=on"}).counter_timing);
    EXPECT_FALSE(parse({"prog", "--weft:counter-timing=0"}).counter_timing);
    EXPECT_TRUE(parse({"prog", "--weft:counter-timing=off", "--weft:counter-timing=yes"}).counter_timing);  // last wins
}

TEST(options, counter_options_from_the_environment) {
    const auto c = parse({"prog"}, {{"WEFT_PRINT_COUNTER", "/threads/idle-rate"},
                                    {"WEFT_PRINT_COUNTER_INTERVAL", "100"},
                                    {"WEFT_PRINT_COUNTER_FORMAT", "csv"},
                                    {"WEFT_PRINT_COUNTER_DESTINATION", "c.csv"},
                                    {"WEFT_RESET_COUNTERS", "1"},
                                    {"WEFT_COUNTER_TIMING", "off"},
                                    {"WEFT_TRACE", "t.json"}});
    EXPECT_EQ(c.print_counters, std::vector<std::string>{"/threads/idle-rate"});
    EXPECT_EQ(c.print_counter_interval_ms, 100u);
    EXPECT_EQ(c.print_counter_format, "csv");
    EXPECT_EQ(c.print_counter_destination, "c.csv");
    EXPECT_TRUE(c.reset_counters);
    EXPECT_FALSE(c.counter_timing);
    EXPECT_EQ(c.trace_file, "t.json");
    // The command line wins over the environment for single-valued options.
    const auto both = parse({"prog", "--weft:print-counter-format=json", "--weft:trace=cli.json"},
                            {{"WEFT_PRINT_COUNTER_FORMAT", "csv"}, {"WEFT_TRACE", "env.json"}});
    EXPECT_EQ(both.print_counter_format, "json");
    EXPECT_EQ(both.trace_file, "cli.json");
}

TEST(options, bad_counter_option_values_name_the_option) {
    const auto expect_error = [](std::vector<std::string> a, const std::string& option, const std::string& accepts) {
        const std::string e = error_of(a);
        EXPECT_NE(e.find(option), std::string::npos) << a.back() << ": " << e;
        EXPECT_NE(e.find(accepts), std::string::npos) << a.back() << ": " << e;
    };
    expect_error({"prog", "--weft:print-counter-format=xml"}, "--weft:print-counter-format", "text, csv or json");
    expect_error({"prog", "--weft:print-counter-format="}, "--weft:print-counter-format", "text, csv or json");
    expect_error({"prog", "--weft:print-counter-format=JSON"}, "--weft:print-counter-format", "text, csv or json");
    for (const char* bad : {"-1", "abc", "", "1.5", "3600001", "10ms"})
        expect_error({"prog", std::string("--weft:print-counter-interval=") + bad}, "--weft:print-counter-interval",
                     "milliseconds");
    expect_error({"prog", "--weft:print-counter="}, "--weft:print-counter", "counter name");
    expect_error({"prog", "--weft:print-counter-destination="}, "--weft:print-counter-destination", "file name");
    expect_error({"prog", "--weft:trace="}, "--weft:trace", "file name");
    expect_error({"prog", "--weft:counter-timing=maybe"}, "--weft:counter-timing", "on/off");
    expect_error({"prog", "--weft:hand-off=sometimes"}, "--weft:hand-off", "on/off");
    expect_error({"prog", "--weft:keep-large-buffers=maybe"}, "--weft:keep-large-buffers", "on/off");
    expect_error({"prog", "--weft:print-counter"}, "--weft:print-counter", "needs a value");
    expect_error({"prog", "--weft:trace"}, "--weft:trace", "needs a value");
    expect_error({"prog", "--weft:reset-counters=1"}, "--weft:reset-counters", "takes no value");
    expect_error({"prog", "--weft:list-counters=yes"}, "--weft:list-counters", "takes no value");
    EXPECT_NE(error_of({"prog"}, {{"WEFT_PRINT_COUNTER_FORMAT", "xml"}}).find("WEFT_PRINT_COUNTER_FORMAT"),
              std::string::npos);
    EXPECT_NE(error_of({"prog"}, {{"WEFT_PRINT_COUNTER_INTERVAL", "-5"}}).find("WEFT_PRINT_COUNTER_INTERVAL"),
              std::string::npos);
    EXPECT_NE(error_of({"prog", "--weft:print-counters=/threads/idle-rate"}).find("unknown option"), std::string::npos);
}

TEST(options, validate_checks_counter_fields) {
    weft::runtime_config c;
    c.print_counter_format = "xml";
    EXPECT_THROW(weft::validate(c), weft::bad_option);
    c.print_counter_format = "csv";
    EXPECT_NO_THROW(weft::validate(c));
    c.print_counter_interval_ms = 3'600'001;
    try {
        weft::validate(c);
        ADD_FAILURE() << "accepted";
    } catch (const weft::bad_option& e) {
        EXPECT_NE(std::string(e.what()).find("print_counter_interval_ms"), std::string::npos) << e.what();
    }
}

TEST(options, help_lists_the_counter_options) {
    std::ostringstream os;
    weft::print_runtime_help(os);
    for (const char* s : {"--weft:print-counter=", "--weft:print-counter-interval=", "--weft:print-counter-format=",
                          "--weft:print-counter-destination=", "--weft:reset-counters", "--weft:list-counters",
                          "--weft:counter-timing=", "--weft:trace=", "WEFT_PRINT_COUNTER", "WEFT_TRACE"})
        EXPECT_NE(os.str().find(s), std::string::npos) << s;
}

TEST(options_death_test, counter_options_on_the_command_line) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    // A counter name that does not exist is an option error: exit code 2, with a suggestion.
    EXPECT_EXIT(
        {
            args a({"prog", "--weft:threads=1", "--weft:print-counter=/threads/idle-rat"});
            weft::runtime rt(a.argc, a.ptrs.data());
        },
        ::testing::ExitedWithCode(2), "no such counter.*/threads\\{locality#0/total\\}/idle-rate");
    // --weft:list-counters prints the list and exits 0 without running the program.
    EXPECT_EXIT(
        {
            if (std::freopen("/dev/null", "w", stdout) == nullptr) std::exit(4);  // the list is long
            args a({"prog", "--weft:threads=1", "--weft:list-counters"});
            weft::runtime rt(a.argc, a.ptrs.data());
            std::fprintf(stderr, "the program ran\n");
            std::exit(5);
        },
        ::testing::ExitedWithCode(0), "");
}

TEST(options_death_test, a_bad_option_exits_with_code_2_and_a_message) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            args a({"prog", "--weft:threads=-3"});
            weft::runtime rt(a.argc, a.ptrs.data());
        },
        ::testing::ExitedWithCode(2), "bad value '-3' for --weft:threads: expected a whole number");
    EXPECT_EXIT(
        {
            args a({"prog", "--weft:frobnicate"});
            weft::run(a.argc, a.ptrs.data(), [](int, char**) { return 0; });
        },
        ::testing::ExitedWithCode(2), "unknown option '--weft:frobnicate'");
}

TEST(run, returns_the_result_after_all_tasks_and_strips_options) {
    args a({"prog", "--weft:threads=2", "--weft:bind=none", "x"});
    std::atomic<int> spawned_done{0};
    const int r = weft::run(a.argc, a.ptrs.data(), [&](int argc, char** argv) {
        EXPECT_EQ(argc, 2);
        EXPECT_STREQ(argv[1], "x");
        EXPECT_EQ(argv[2], nullptr);
        for (int i = 0; i < 100; ++i)
            weft::post([&spawned_done] {
                weft::this_task::sleep_for(std::chrono::milliseconds(1));
                spawned_done.fetch_add(1);
            });
        return 7;
    });
    EXPECT_EQ(r, 7);
    EXPECT_EQ(spawned_done.load(), 100);  // every task fn spawned finished before run returned
}

TEST(run, rethrows_what_fn_throws_and_accepts_void) {
    args a({"prog", "--weft:threads=1"});
    EXPECT_THROW(weft::run(a.argc, a.ptrs.data(), [](int, char**) -> int { throw std::domain_error("fn"); }),
                 std::domain_error);
    args b({"prog"});
    EXPECT_EQ(weft::run(b.argc, b.ptrs.data(), [](int, char**) {}), 0);
}

}  // namespace
