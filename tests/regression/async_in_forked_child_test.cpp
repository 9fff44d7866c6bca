// Regression (issue #20, item 7): weft::async in the child of a fork() taken while a
// runtime ran queued the task for workers that do not exist in the child, and get()
// hung. Now the child forgets the parent's runtime: spawning there throws
// weft::runtime_state_error saying why, and the child may start a runtime of its own.
#include <weft/weft.hpp>

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>

namespace {

// In the child: 0 if async threw the expected error and a new runtime then worked.
int child_checks() {
    alarm(30);  // a hang must fail, not stall the suite
    try {
        (void)weft::async([] { return 1; });
        return 10;  // accepted: it would never run
    } catch (const weft::runtime_state_error& e) {
        if (std::strstr(e.what(), "fork()") == nullptr) return 11;
    }
    try {
        weft::post([] {});
        return 12;
    } catch (const weft::runtime_state_error&) {
    }
    return 0;
}

void fork_and_check(weft::runtime& rt, bool from_task) {
    auto body = [] {
        const pid_t pid = ::fork();
        if (pid == 0) ::_exit(child_checks());
        int status = 0;
        EXPECT_EQ(::waitpid(pid, &status, 0), pid);
        EXPECT_TRUE(WIFEXITED(status)) << "the child died: status " << status;
        EXPECT_EQ(WEXITSTATUS(status), 0) << "child check failed with code " << WEXITSTATUS(status);
    };
    if (from_task) weft::async(body).get();
    else body();
    // The parent's runtime is unaffected.
    EXPECT_EQ(weft::async([] { return 6 * 7; }).get(), 42);
    (void)rt;
}

weft::runtime_config two_workers() {
    weft::runtime_config cfg;
    cfg.threads = 2;
    cfg.bind = false;
    return cfg;
}

TEST(async_in_forked_child, throws_when_forked_from_the_main_thread) {
    weft::runtime rt(two_workers());
    fork_and_check(rt, false);
}

TEST(async_in_forked_child, throws_when_forked_from_a_task) {
    weft::runtime rt(two_workers());
    fork_and_check(rt, true);
}

}  // namespace
