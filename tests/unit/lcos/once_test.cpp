// weft::once_flag and weft::call_once: exactly once, waiters suspend, exceptions leave
// the flag unset, arguments, plain threads, stress — on every policy.
#include "lcos_test_util.hpp"

#include <weft/lcos/once.hpp>

#include <atomic>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

using weft::test::policy_test;

class once_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(once_test);

TEST_P(once_test, runs_once_while_the_others_suspend) {
    in_task([] {
        weft::once_flag flag;
        std::atomic<int> calls{0};
        weft::task_group g;
        for (int i = 0; i < 8; ++i)
            g.run([&] {
                weft::call_once(flag, [&] {
                    weft::this_task::yield();  // the others suspend meanwhile
                    ++calls;
                });
                EXPECT_EQ(calls.load(), 1);  // it has completed for everyone who returns
            });
        g.wait();
        EXPECT_EQ(calls.load(), 1);
    });
}

TEST_P(once_test, forwards_arguments) {
    weft::once_flag flag;
    int sum = 0;
    auto add = [](int& to, int a, std::unique_ptr<int> b) { to += a + *b; };
    weft::call_once(flag, add, std::ref(sum), 2, std::make_unique<int>(3));
    weft::call_once(flag, add, std::ref(sum), 100, std::make_unique<int>(100));
    EXPECT_EQ(sum, 5);
}

TEST_P(once_test, an_exception_leaves_the_flag_unset) {
    weft::once_flag flag;
    int attempts = 0;
    EXPECT_THROW(weft::call_once(flag, [&] {
                     ++attempts;
                     throw std::runtime_error("first try fails");
                 }),
                 std::runtime_error);
    weft::call_once(flag, [&] { ++attempts; });
    weft::call_once(flag, [&] { ++attempts; });
    EXPECT_EQ(attempts, 2);
}

TEST_P(once_test, a_waiter_takes_over_when_the_running_call_throws) {
    in_task([] {
        weft::once_flag flag;
        std::atomic<int> attempts{0}, successes{0};
        std::atomic<int> threw{0};
        weft::task_group g;
        for (int i = 0; i < 6; ++i)
            g.run([&] {
                try {
                    weft::call_once(flag, [&] {
                        weft::this_task::yield();  // let the others queue up
                        if (++attempts <= 2) throw std::runtime_error("not yet");
                        ++successes;
                    });
                } catch (const std::runtime_error&) {
                    ++threw;
                }
            });
        g.wait();
        EXPECT_EQ(attempts.load(), 3);
        EXPECT_EQ(successes.load(), 1);
        EXPECT_EQ(threw.load(), 2);
    });
}

TEST_P(once_test, plain_threads_and_tasks_race) {
    weft::once_flag flag;
    std::atomic<int> calls{0};
    auto once = [&] {
        weft::call_once(flag, [&] {
            weft::this_task::yield();
            ++calls;
        });
        EXPECT_EQ(calls.load(), 1);
    };
    std::thread a(once), b(once);
    in_task([&] {
        weft::task_group g;
        for (int i = 0; i < 4; ++i) g.run(once);
        g.wait();
    });
    a.join();
    b.join();
    EXPECT_EQ(calls.load(), 1);
}

TEST_P(once_test, stress_many_flags) {
    const int flags = weft::test::scaled(15000), tasks = 8;
    in_task([&] {
        std::vector<weft::once_flag> f(static_cast<std::size_t>(flags));
        std::vector<std::atomic<int>> calls(static_cast<std::size_t>(flags));
        std::atomic<long> failures{0};
        weft::task_group g;
        for (unsigned id = 0; id < tasks; ++id)
            g.run([&, id] {
                weft::test::random_yield yield(id);
                for (std::size_t k = 0; k < f.size(); ++k) {
                    try {
                        weft::call_once(f[k], [&] {
                            yield(2);
                            if (yield.next(4) == 0) throw std::runtime_error("retry");
                            ++calls[k];
                        });
                    } catch (const std::runtime_error&) {
                        ++failures;
                        // Retried inside the handler: this may suspend here and resume on
                        // another worker (the exception state travels with the task).
                        weft::call_once(f[k], [&] { ++calls[k]; });
                    }
                    EXPECT_EQ(calls[k].load(), 1);
                }
            });
        g.wait();
        for (auto& c : calls) EXPECT_EQ(c.load(), 1);
    });
}

}  // namespace
