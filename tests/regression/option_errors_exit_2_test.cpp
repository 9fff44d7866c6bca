// Regression (issue #20, item 6): option errors that aborted instead of exiting with
// code 2. With the default constructor a bad WEFT_PRINT_COUNTER, WEFT_TRACE or counter
// destination ended in std::terminate (134) and validate() was skipped (a
// WEFT_QUEUE_PUBLIC larger than the bound was accepted); --weft:adapt-log=/nonexistent/x
// aborted in every constructor, --weft:adapt-history to an unwritable path was accepted,
// --weft:topology=cores:600 started 600 workers past the cap, WEFT_THREADS=abc was fatal
// even with --weft:threads=2, and counters or a trace that could not be written were lost
// without a non-zero exit. Now every bad option or variable exits with code 2 and a line
// naming it from runtime(), runtime(argc, argv) and weft::run; runtime(cfg) throws
// weft::bad_option; a failed write makes stop() throw and run() return 1.
#include <weft/weft.hpp>

#include "support/args.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <string>
#include <vector>

namespace {

using weft::test::args;

/// One bad value, given as --weft:<option>=<value>, as <variable>=<value> and in code.
struct bad_value {
    const char* option;    // after --weft:
    const char* variable;  // WEFT_*
    const char* value;
    const char* says;      // a regex for the rest of the message: what went wrong or is accepted
    void (*in_code)(weft::runtime_config&);
};

void PrintTo(const bad_value& b, std::ostream* os) { *os << "--weft:" << b.option << "=" << b.value; }

const bad_value bad_values[] = {
    {"threads", "WEFT_THREADS", "abc", "whole number from 1 to",
     [](weft::runtime_config& c) { c.threads = 1u << 20; }},
    {"print-counter", "WEFT_PRINT_COUNTER", "/threads/idle-rat", "no such counter.*/threads\\{locality#0/total\\}/idle-rate",
     [](weft::runtime_config& c) { c.print_counters = {"/threads/idle-rat"}; }},
    {"trace", "WEFT_TRACE", "/nonexistent/trace.json", "cannot write.*No such file or directory",
     [](weft::runtime_config& c) { c.trace_file = "/nonexistent/trace.json"; }},
    {"print-counter-destination", "WEFT_PRINT_COUNTER_DESTINATION", "/nonexistent/counters.txt",
     "cannot write.*No such file or directory",
     [](weft::runtime_config& c) { c.print_counter_destination = "/nonexistent/counters.txt"; }},
    {"queue-public", "WEFT_QUEUE_PUBLIC", "50", "at most the queue bound",
     [](weft::runtime_config& c) { c.queue_public = 50; }},
    {"adapt-log", "WEFT_ADAPT_LOG", "/nonexistent/adapt.log", "cannot write.*No such file or directory",
     [](weft::runtime_config& c) { c.adapt_log = "/nonexistent/adapt.log"; }},
    {"adapt-history", "WEFT_ADAPT_HISTORY", "/nonexistent/history", "cannot read and append.*No such file or directory",
     [](weft::runtime_config& c) { c.adapt_history = "/nonexistent/history"; }},
    {"adapt-history", "WEFT_ADAPT_HISTORY", "/", "cannot read and append.*Is a directory",
     [](weft::runtime_config& c) { c.adapt_history = "/"; }},
    {"topology", "WEFT_TOPOLOGY", "cores:600", "at most [0-9]+ workers",
     [](weft::runtime_config& c) {
         c.threads = 0;
         c.synthetic_topology = "cores:600";
     }},
    {"on-deadlock", "WEFT_ON_DEADLOCK", "later", "auto, wait or exit",
     [](weft::runtime_config& c) { c.on_deadlock = "later"; }},
};

int run_nothing(int, char**) { return 0; }

class option_errors : public ::testing::TestWithParam<bad_value> {};

TEST_P(option_errors, exit_with_code_2_from_every_program_constructor) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    const bad_value& b = GetParam();
    const std::string option = std::string("--weft:") + b.option;
    const std::string given = option + "=" + b.value;
    const std::string says = b.says;
    EXPECT_EXIT(
        {
            ::setenv(b.variable, b.value, 1);
            weft::runtime rt;
        },
        ::testing::ExitedWithCode(2), std::string(b.variable) + ".*" + says)
        << "weft::runtime() with " << b.variable << "=" << b.value;
    EXPECT_EXIT(
        {
            ::setenv(b.variable, b.value, 1);
            args a({"prog"});
            weft::runtime rt(a.argc, a.ptrs.data());
        },
        ::testing::ExitedWithCode(2), std::string(b.variable) + ".*" + says)
        << "weft::runtime(argc, argv) with " << b.variable << "=" << b.value;
    EXPECT_EXIT(
        {
            args a({"prog", given});
            weft::runtime rt(a.argc, a.ptrs.data());
        },
        ::testing::ExitedWithCode(2), option + ".*" + says)
        << "weft::runtime(argc, argv) with " << given;
    EXPECT_EXIT(
        {
            args a({"prog", given});
            (void)weft::run(a.argc, a.ptrs.data(), run_nothing);
        },
        ::testing::ExitedWithCode(2), option + ".*" + says)
        << "weft::run with " << given;
}

TEST_P(option_errors, throw_bad_option_from_a_configuration) {
    const bad_value& b = GetParam();
    weft::runtime_config cfg;
    cfg.threads = 2;
    cfg.bind = false;
    b.in_code(cfg);
    EXPECT_THROW(weft::runtime{cfg}, weft::bad_option) << b.option << "=" << b.value;
    // Nothing is left half started: the next runtime starts and runs.
    weft::runtime_config ok;
    ok.threads = 2;
    ok.bind = false;
    weft::runtime rt(ok);
    EXPECT_EQ(weft::async([] { return 5; }).get(), 5);
}

INSTANTIATE_TEST_SUITE_P(regression, option_errors, ::testing::ValuesIn(bad_values),
                         [](const ::testing::TestParamInfo<bad_value>& i) {
                             std::string n = std::string(i.param.option) + "_" + std::to_string(i.index);
                             for (char& ch : n)
                                 if (ch == '-') ch = '_';
                             return n;
                         });

TEST(option_errors_death, a_scheduler_that_cannot_take_the_threads_exits_with_code_2) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            ::setenv("WEFT_SCHEDULER", "single", 1);
            ::setenv("WEFT_THREADS", "2", 1);
            weft::runtime rt;
        },
        ::testing::ExitedWithCode(2), "scheduler 'single' supports at most 1 worker");
}

TEST(option_errors_death, the_command_line_wins_without_parsing_the_variable) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            ::setenv("WEFT_THREADS", "abc", 1);
            ::setenv("WEFT_TRACE", "/nonexistent/trace.json", 1);
            args a({"prog", "--weft:threads=2", "--weft:bind=none", "--weft:trace=/dev/null"});
            weft::runtime rt(a.argc, a.ptrs.data());
            const bool two = rt.num_workers() == 2 && rt.config().trace_file == "/dev/null";
            rt.stop();
            std::exit(two ? 0 : 5);
        },
        ::testing::ExitedWithCode(0), "");
}

// ---------------------------------------------------------------------------------
// Output that cannot be written once the program runs (/dev/full: every write fails).

TEST(option_errors_death, counters_that_cannot_be_written_make_run_return_1) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            args a({"prog", "--weft:threads=1", "--weft:print-counter=/threads/idle-rate",
                    "--weft:print-counter-destination=/dev/full"});
            std::exit(weft::run(a.argc, a.ptrs.data(), run_nothing));
        },
        ::testing::ExitedWithCode(1), "weft: could not write counters to /dev/full: No space left on device");
}

TEST(option_errors_death, a_trace_that_cannot_be_written_makes_run_return_1) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            args a({"prog", "--weft:threads=1", "--weft:trace=/dev/full"});
            std::exit(weft::run(a.argc, a.ptrs.data(), run_nothing));
        },
        ::testing::ExitedWithCode(1), "weft: could not write the trace to /dev/full: No space left on device");
}

TEST(option_errors_death, run_keeps_a_non_zero_result_of_its_own) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            args a({"prog", "--weft:threads=1", "--weft:trace=/dev/full"});
            std::exit(weft::run(a.argc, a.ptrs.data(), [](int, char**) { return 7; }));
        },
        ::testing::ExitedWithCode(7), "could not write the trace");
}

std::string stop_error(const weft::runtime_config& cfg) {
    weft::runtime rt(cfg);
    try {
        rt.stop();
    } catch (const weft::error& e) {
        return e.what();
    }
    return "";
}

TEST(option_errors, stop_throws_once_stopped_when_output_could_not_be_written) {
    weft::runtime_config cfg;
    cfg.threads = 1;
    cfg.bind = false;
    cfg.print_counters = {"/threads/idle-rate"};
    cfg.print_counter_destination = "/dev/full";
    EXPECT_EQ(stop_error(cfg), "weft: could not write counters to /dev/full: No space left on device");
    cfg.print_counters.clear();
    cfg.print_counter_destination.clear();
    cfg.trace_file = "/dev/full";
    EXPECT_EQ(stop_error(cfg), "weft: could not write the trace to /dev/full: No space left on device");
    // A write error belongs to the runtime that had it.
    cfg.trace_file.clear();
    EXPECT_EQ(stop_error(cfg), "");
}

}  // namespace
