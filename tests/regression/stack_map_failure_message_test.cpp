// Regression (issue #20, item 7): when the kernel refused a task stack, the message always
// blamed vm.max_map_count and advised the value already in force (262144), even when an
// address-space limit (ulimit -v) was the real cause. Now it names the limit that was hit.
#include <weft/config/config.hpp>
#include <weft/platform/stack.hpp>

#include <gtest/gtest.h>

#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <system_error>
#include <vector>

namespace {

#if !WEFT_HAVE_ASAN && !WEFT_HAVE_TSAN  // the sanitizers reserve terabytes: no RLIMIT_AS under them
[[noreturn]] void exhaust_address_space() {
    const rlim_t bytes = rlim_t{512} << 20;  // 512 MiB of address space
    rlimit lim{bytes, bytes};
    if (::setrlimit(RLIMIT_AS, &lim) != 0) std::_Exit(10);
    std::vector<weft::detail::stack> stacks;
    try {
        for (int i = 0; i < 100000; ++i) stacks.push_back(weft::detail::allocate_stack(1 << 20));
    } catch (const std::system_error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        std::_Exit(0);
    }
    std::_Exit(11);
}

TEST(stack_map_failure_death_test, an_address_space_limit_is_named_instead_of_max_map_count) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(exhaust_address_space(), ::testing::ExitedWithCode(0),
                "cannot map a task stack of 1048576 bytes \\(the address-space limit \\(ulimit -v\\) of 524288 KiB "
                "is reached");
}
#endif

TEST(stack_map_failure, a_stack_maps_and_unmaps) {
    weft::detail::stack s = weft::detail::allocate_stack(64 * 1024);
    ASSERT_TRUE(s.valid());
    static_cast<char*>(s.bottom)[0] = 1;  // usable
    EXPECT_TRUE(s.guard_contains(static_cast<char*>(s.bottom) - 1));
    EXPECT_TRUE(s.guard_contains(static_cast<char*>(s.bottom) - weft::detail::stack_guard_size));
    weft::detail::deallocate_stack(s);
}

}  // namespace
