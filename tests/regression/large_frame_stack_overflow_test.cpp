// Regression (issue #20, item 4): a task that placed a frame of about 140 KB or more on
// the default 128 KiB stack (a local array of 20,000 doubles, an alloca) jumped the
// single 4 KiB guard page: it either wrote silently into another mapping or died with a
// bare SIGSEGV. Now the guard region is 256 KiB of address space, weft::weft exports
// -fstack-clash-protection (large frames are probed page by page, so they meet the
// guard), faults anywhere in the region (or with the stack pointer below the stack) are
// reported as an overflow naming the task, and any other SIGSEGV inside a task names it.
#include <weft/weft.hpp>

#include <gtest/gtest.h>

#include <alloca.h>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace {

weft::runtime_config small_stacks() {
    weft::runtime_config cfg;
    cfg.threads = 1;
    cfg.bind = false;
    cfg.stack_size = 128 * 1024;  // the release default, also under the sanitizers
    return cfg;
}

// A frame of 20,000 doubles (160,000 bytes): more than the whole stack.
[[gnu::noinline]] double big_local_array(int seed) {
    volatile double a[20000];
    for (int i = 0; i < 20000; ++i) a[i] = seed + i;  // the lowest element first
    return a[seed % 20000];
}

[[gnu::noinline]] double big_alloca(std::size_t bytes) {
    auto* p = static_cast<volatile char*>(alloca(bytes));
    for (std::size_t i = 0; i < bytes; i += 512) p[i] = static_cast<char>(i);
    return p[bytes / 2];
}

// Runs f as a task named `name` on a runtime with 128 KiB stacks and waits for it.
template <class F>
void run_named(const char* name, F f, std::size_t own_stack = 0) {
    weft::runtime rt(small_stacks());
    weft::task_attributes a;
    a.name = name;
    a.stack_size = own_stack;
    (void)weft::async(a, f).get();
}

TEST(large_frame_death_test, a_local_array_larger_than_the_stack_is_reported_as_an_overflow) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        run_named("big-frame", [] { return big_local_array(3); }),
        "weft: stack overflow in task 'big-frame' \\(stack size 131072 bytes\\); raise --weft:stack-size");
}

TEST(large_frame_death_test, an_alloca_larger_than_the_stack_is_reported_as_an_overflow) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    const std::size_t sizes[] = {std::size_t{150} * 1024, std::size_t{300} * 1024, std::size_t{2} << 20};
    for (const std::size_t bytes : sizes) {
        EXPECT_DEATH(run_named("alloca", [bytes] { return big_alloca(bytes); }),
            "weft: stack overflow in task 'alloca' \\(stack size 131072 bytes\\)")
            << bytes << " bytes";
    }
}

TEST(large_frame_death_test, a_task_with_its_own_stack_is_told_to_raise_its_attribute) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        run_named("own-stack", [] { return big_alloca(400 * 1024); }, 144 * 1024),
        "weft: stack overflow in task 'own-stack' .*raise its task_attributes::stack_size");
}

#if !WEFT_HAVE_ASAN && !WEFT_HAVE_TSAN
// An address the compiler cannot see through (no -Warray-bounds on a literal pointer).
volatile std::uintptr_t g_bad_address = 16;
volatile int* bad_pointer() { return reinterpret_cast<volatile int*>(g_bad_address); }

// Under the sanitizers their own SEGV report comes first and ends the process.
TEST(large_frame_death_test, any_other_segfault_inside_a_task_names_the_task) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        run_named("bad-pointer", [] { return *bad_pointer(); }),
        "weft: SIGSEGV \\(invalid memory access at 0x10\\) in task 'bad-pointer'");
}
#endif

TEST(large_frame, a_large_frame_within_a_large_enough_stack_runs) {
    weft::runtime_config cfg = small_stacks();
    cfg.stack_size = 512 * 1024;
    weft::runtime rt(cfg);
    EXPECT_EQ(weft::async([] { return big_local_array(5); }).get(), 5.0 + 5.0);
}

}  // namespace
