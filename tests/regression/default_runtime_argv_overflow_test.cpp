// Regression (issue #20, item 3): every default-constructed weft::runtime, and any
// hand-made argv without a trailing nullptr, made parse_runtime_options write one pointer
// past the argv array (ASan: stack-buffer-overflow in parse_runtime_options). No test
// constructed weft::runtime with the default constructor. The parser now writes
// argv[argc] only when it removed options (then that slot is inside the array).
#include <weft/weft.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>

namespace {

const char* no_env(const char*) { return nullptr; }

TEST(regression, a_default_constructed_runtime_runs_tasks) {
    weft::runtime rt;
    EXPECT_GE(rt.num_workers(), 1u);
    auto f = weft::async([] { return 6 * 7; });
    EXPECT_EQ(f.get(), 42);
    rt.stop();
}

TEST(regression, a_default_constructed_runtime_stops_in_its_destructor) {
    std::atomic<int> ran{0};
    {
        weft::runtime rt;
        for (int i = 0; i < 10; ++i) weft::post([&ran] { ran.fetch_add(1); });
    }
    EXPECT_EQ(ran.load(), 10);
}

// The default constructor's argv: no arguments at all. The slot after it is not argv's.
TEST(regression, an_empty_argv_is_not_written_past) {
    char sentinel[] = "not argv";
    char* slots[] = {nullptr, sentinel};
    int argc = 0;
    (void)weft::parse_runtime_options(argc, slots, no_env);
    EXPECT_EQ(argc, 0);
    EXPECT_EQ(slots[0], nullptr);
    EXPECT_EQ(slots[1], sentinel);
}

TEST(regression, an_argv_without_a_trailing_null_is_not_written_past) {
    std::string prog = "prog", x = "x";
    char sentinel[] = "not argv";
    char* slots[] = {prog.data(), x.data(), sentinel};
    int argc = 2;
    (void)weft::parse_runtime_options(argc, slots, no_env);
    EXPECT_EQ(argc, 2);
    EXPECT_EQ(slots[1], x.data());
    EXPECT_EQ(slots[2], sentinel);

    // Exactly argc pointers on the heap: ASan reports any write past them.
    auto heap = std::make_unique<char*[]>(2);
    heap[0] = prog.data();
    heap[1] = x.data();
    argc = 2;
    (void)weft::parse_runtime_options(argc, heap.get(), no_env);
    EXPECT_EQ(argc, 2);
}

TEST(regression, removed_options_leave_a_null_after_the_rest) {
    std::string prog = "prog", opt = "--weft:threads=1", x = "x";
    char* slots[] = {prog.data(), opt.data(), x.data()};  // no trailing nullptr
    int argc = 3;
    const auto cfg = weft::parse_runtime_options(argc, slots, no_env);
    EXPECT_EQ(cfg.threads, 1u);
    ASSERT_EQ(argc, 2);
    EXPECT_EQ(slots[1], x.data());
    EXPECT_EQ(slots[2], nullptr);  // inside the array: it held the option
}

TEST(regression, a_runtime_from_an_argv_without_a_trailing_null) {
    std::string prog = "prog", opt = "--weft:threads=2", bind = "--weft:bind=none";
    auto heap = std::make_unique<char*[]>(1);
    heap[0] = prog.data();
    int argc = 1;
    {
        weft::runtime rt(argc, heap.get());
        EXPECT_EQ(weft::async([] { return 1; }).get(), 1);
    }
    EXPECT_EQ(argc, 1);
    auto with_options = std::make_unique<char*[]>(3);
    with_options[0] = prog.data();
    with_options[1] = opt.data();
    with_options[2] = bind.data();
    argc = 3;
    weft::runtime rt(argc, with_options.get());
    EXPECT_EQ(rt.num_workers(), 2u);
    EXPECT_EQ(argc, 1);
    EXPECT_EQ(with_options[1], nullptr);
}

}  // namespace
