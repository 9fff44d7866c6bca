// Regression (issue #20, item 6): a worker thread that failed to start (ulimit -v, too
// many threads) ended the program in an uncaught std::system_error from
// scheduler::start(), with the workers already started left running. Now the scheduler
// stops those and throws weft::error ("weft: cannot start worker thread N of M: ...");
// runtime(cfg) throws it, runtime(argc, argv) and weft::run print it and exit with code 1.
//
// Thread creation is made to fail deterministically: this program defines
// pthread_create, which fails with EAGAIN on a chosen call and otherwise forwards to the
// real one (ASan's interceptor when there is one). RLIMIT_AS or RLIMIT_NPROC would not be
// deterministic: the first also starves the threads that did start (and ASan), the second
// counts every process of the user and does not apply to root.
#include <weft/weft.hpp>

#include "support/args.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <dlfcn.h>
#include <pthread.h>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace {

// The call (1 = the next) of pthread_create that fails; 0: none.
std::atomic<int> fail_countdown{0};

using pthread_create_fn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

}  // namespace

// ASan's interceptor, when this program is linked with the ASan runtime statically
// (clang); with a shared runtime (g++) dlsym(RTLD_NEXT) finds the interceptor itself.
extern "C" int __interceptor_pthread_create(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*)
    __attribute__((weak));

extern "C" int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*),
                              void* arg) noexcept {
    if (fail_countdown.load() > 0 && fail_countdown.fetch_sub(1) == 1) return EAGAIN;
    static const pthread_create_fn real =
        &__interceptor_pthread_create != nullptr
            ? &__interceptor_pthread_create
            : reinterpret_cast<pthread_create_fn>(::dlsym(RTLD_NEXT, "pthread_create"));
    return real(thread, attr, start, arg);
}

namespace {

using weft::test::args;

weft::runtime_config four_workers() {
    weft::runtime_config cfg;
    cfg.threads = 4;
    cfg.bind = false;
    return cfg;
}

TEST(worker_thread_start_failure, the_interposed_pthread_create_fails_when_asked) {
    fail_countdown = 1;
    std::thread t;
    EXPECT_THROW(t = std::thread([] {}), std::system_error);
    EXPECT_EQ(fail_countdown.load(), 0);
    t = std::thread([] {});
    t.join();
}

TEST(worker_thread_start_failure, runtime_from_a_configuration_throws_and_stops_the_started_workers) {
    // The runtime starts its timer thread, then workers 1 to 4: the third call is worker 2.
    fail_countdown = 3;
    try {
        weft::runtime rt(four_workers());
        ADD_FAILURE() << "started with a worker thread that could not be created";
    } catch (const weft::bad_option& e) {
        ADD_FAILURE() << "not an option error: " << e.what();
    } catch (const weft::error& e) {
        EXPECT_STREQ(e.what(), "weft: cannot start worker thread 2 of 4: Resource temporarily unavailable");
    }
    EXPECT_EQ(fail_countdown.load(), 0);
    // The started worker was stopped and the runtime slot released: a new one runs.
    weft::runtime rt(four_workers());
    EXPECT_EQ(weft::async([] { return 3; }).get(), 3);
}

TEST(worker_thread_start_failure, the_last_worker_and_the_timer_thread_too) {
    fail_countdown = 5;
    EXPECT_THROW(weft::runtime{four_workers()}, weft::error);
    fail_countdown = 1;
    try {
        weft::runtime rt(four_workers());
        ADD_FAILURE() << "started without a timer thread";
    } catch (const weft::error& e) {
        EXPECT_NE(std::string(e.what()).find("weft: cannot start"), std::string::npos) << e.what();
    }
    fail_countdown = 0;
    weft::runtime rt(four_workers());
    EXPECT_EQ(weft::async([] { return 4; }).get(), 4);
}

TEST(worker_thread_start_failure_death, program_constructors_exit_with_code_1) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            args a({"prog", "--weft:threads=4", "--weft:bind=none"});
            fail_countdown = 3;
            weft::runtime rt(a.argc, a.ptrs.data());
        },
        ::testing::ExitedWithCode(1), "weft: cannot start worker thread 2 of 4: Resource temporarily unavailable");
    EXPECT_EXIT(
        {
            args a({"prog", "--weft:threads=4", "--weft:bind=none"});
            fail_countdown = 3;
            (void)weft::run(a.argc, a.ptrs.data(), [](int, char**) { return 0; });
        },
        ::testing::ExitedWithCode(1), "weft: cannot start worker thread 2 of 4");
    EXPECT_EXIT(
        {
            ::setenv("WEFT_THREADS", "4", 1);
            fail_countdown = 3;
            weft::runtime rt;
        },
        ::testing::ExitedWithCode(1), "weft: cannot start worker thread 2 of 4");
}

}  // namespace
