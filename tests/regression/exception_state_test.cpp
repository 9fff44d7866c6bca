// Regression: a task that suspended inside a catch block or during stack unwinding (a
// task_group's destructor waiting for a stolen child) and resumed on another worker
// continued with that worker's C++ exception state, corrupting the unwinding (an
// intermittent abort under ASan in task_group_test). The state now travels with the task.
#include <weft/weft.hpp>

#include <gtest/gtest.h>

#include <exception>
#include <stdexcept>

namespace {

weft::runtime_config two_workers() {
    weft::runtime_config cfg;
    cfg.threads = 2;
    cfg.bind = false;
    return cfg;
}

struct yields_while_unwinding {
    ~yields_while_unwinding() {
        const int before = std::uncaught_exceptions();
        for (int k = 0; k < 3; ++k) weft::this_task::yield();  // may resume on the other worker
        EXPECT_EQ(std::uncaught_exceptions(), before);
    }
};

TEST(regression, exception_state_travels_with_a_task_that_suspends) {
    weft::runtime rt(two_workers());
    for (int round = 0; round < 300; ++round) {
        // Suspending inside a catch block: the caught exception is still current after.
        const bool still_current = weft::async([] {
            try {
                throw std::runtime_error("caught");
            } catch (...) {
                for (int k = 0; k < 3; ++k) weft::this_task::yield();
                try {
                    throw;  // rethrows the exception being handled, on whatever worker we are
                } catch (const std::runtime_error& e) {
                    return std::string(e.what()) == "caught";
                }
            }
            return false;
        }).get();
        EXPECT_TRUE(still_current);
        // Suspending during unwinding.
        EXPECT_THROW(weft::async([] {
                         yields_while_unwinding guard;
                         throw std::domain_error("unwinding");
                     }).get(),
                     std::domain_error);
    }
}

}  // namespace
