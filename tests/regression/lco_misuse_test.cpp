// Regression (issue #20 item 7): misuse of a local control object that std leaves
// undefined aborted with "weft: internal assertion ... at <build path>" (a latch counted
// past zero, a barrier arrived at too often, a semaphore released past max()), passed
// silently (unlocking a mutex or recursive_mutex the caller does not hold: a
// recursive_mutex was released for its owner) or deadlocked without a word (lock() while
// holding lock_shared()). Each now throws weft::lco_error naming the misuse, from a task
// and from a plain thread; destroying a locked mutex prints which task holds it and aborts.
#include "support/policy_test.hpp"

#include <weft/lcos/lcos.hpp>
#include <weft/weft.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <exception>
#include <string>
#include <system_error>
#include <thread>

namespace {

using namespace std::chrono_literals;

class lco_misuse_test : public weft::test::policy_test {};

/// Runs `f`, which must throw weft::lco_error with `code` and a message containing
/// every one of `needles`.
template <class F, class... Needles>
void expect_lco_error(F&& f, std::errc code, const Needles&... needles) {
    try {
        f();
        ADD_FAILURE() << "no weft::lco_error";
    } catch (const weft::lco_error& e) {
        EXPECT_EQ(e.code(), std::make_error_code(code)) << e.what();
        const std::string what = e.what();
        for (const std::string& n : {std::string(needles)...})
            EXPECT_NE(what.find(n), std::string::npos) << "'" << what << "' does not say '" << n << "'";
    }
}

/// Runs `f` on an agent other than the caller: a plain thread when the caller is a task,
/// a task when it is a plain thread. Rethrows what `f` threw.
template <class F>
void on_another_agent(F f) {
    if (weft::this_task::get_id() == weft::task_id{}) {
        weft::async(std::move(f)).get();
        return;
    }
    std::exception_ptr error;
    std::thread t([&] {
        try {
            f();
        } catch (...) {
            error = std::current_exception();
        }
    });
    t.join();
    if (error) std::rethrow_exception(error);
}

}  // namespace

TEST_P(lco_misuse_test, latch_counted_past_zero_throws_and_keeps_its_count) {
    const auto body = [] {
        weft::latch l(2);
        expect_lco_error([&] { l.count_down(3); }, std::errc::invalid_argument, "weft::latch::count_down",
                         "past zero");
        l.count_down();
        EXPECT_FALSE(l.try_wait());  // the bad call counted nothing
        expect_lco_error([&] { l.count_down(2); }, std::errc::invalid_argument, "past zero");
        expect_lco_error([&] { l.count_down(-1); }, std::errc::invalid_argument, "negative");
        l.count_down();
        EXPECT_TRUE(l.try_wait());
        expect_lco_error([&] { l.count_down(); }, std::errc::invalid_argument, "past zero");
        expect_lco_error([] { weft::latch bad(-1); }, std::errc::invalid_argument, "weft::latch", "-1");
    };
    body();
    in_task(body);
}

TEST_P(lco_misuse_test, barrier_arrived_at_too_often_throws_and_counts_nothing) {
    const auto body = [] {
        int phases = 0;
        weft::barrier b(2, [&phases]() noexcept { ++phases; });
        (void)b.arrive();
        expect_lco_error([&] { (void)b.arrive(2); }, std::errc::invalid_argument, "weft::barrier::arrive",
                         "more often than expected");
        expect_lco_error([&] { (void)b.arrive(0); }, std::errc::invalid_argument, "at least 1");
        EXPECT_EQ(phases, 0);
        b.wait(b.arrive());  // the phase's second arrival: it completes
        EXPECT_EQ(phases, 1);
        weft::barrier one(1);
        one.arrive_and_drop();  // nobody is expected from now on
        expect_lco_error([&] { (void)one.arrive(); }, std::errc::invalid_argument, "more often than expected");
        expect_lco_error([] { weft::barrier<> bad(-2); }, std::errc::invalid_argument, "negative");
    };
    body();
    in_task(body);
}

TEST_P(lco_misuse_test, semaphore_released_past_max_throws_and_keeps_its_count) {
    const auto body = [] {
        weft::counting_semaphore<2> s(1);
        s.release();
        expect_lco_error([&] { s.release(); }, std::errc::value_too_large, "weft::counting_semaphore::release",
                         "max() = 2");
        EXPECT_TRUE(s.try_acquire());
        EXPECT_TRUE(s.try_acquire());
        EXPECT_FALSE(s.try_acquire());  // the bad release added nothing
        expect_lco_error([&] { s.release(-1); }, std::errc::invalid_argument, "negative");
        expect_lco_error([&] { s.release(3); }, std::errc::value_too_large, "max() = 2");
        expect_lco_error([] { weft::binary_semaphore bad(2); }, std::errc::invalid_argument, "0..1");
        weft::counting_semaphore<> big(weft::counting_semaphore<>::max());
        expect_lco_error([&] { big.release(); }, std::errc::value_too_large, "max()");
    };
    body();
    in_task(body);
}

TEST_P(lco_misuse_test, unlocking_a_mutex_the_caller_does_not_hold_throws) {
    const auto body = [] {
        weft::mutex m;
        expect_lco_error([&] { m.unlock(); }, std::errc::operation_not_permitted, "weft::mutex::unlock",
                         "does not hold", "nobody does");
        m.lock();
        expect_lco_error([&] { on_another_agent([&] { m.unlock(); }); }, std::errc::operation_not_permitted,
                         "does not hold this mutex");
        on_another_agent([&] { EXPECT_FALSE(m.try_lock()); });  // still ours
        m.unlock();
        on_another_agent([&] {
            m.lock();
            m.unlock();
        });
    };
    body();
    in_task(body);
}

TEST_P(lco_misuse_test, locking_a_mutex_the_caller_holds_throws) {
    const auto body = [] {
        weft::mutex m;
        std::lock_guard g(m);
        expect_lco_error([&] { m.lock(); }, std::errc::resource_deadlock_would_occur, "weft::mutex::lock",
                         "already holds");
        // A "timed" lock with no deadline would wait forever as well.
        expect_lco_error([&] { (void)m.try_lock_for(std::chrono::hours::max()); },
                         std::errc::resource_deadlock_would_occur, "already holds");
        EXPECT_FALSE(m.try_lock());
        EXPECT_FALSE(m.try_lock_for(1ms));  // a deadline: it just times out
    };
    body();
    in_task(body);
}

TEST_P(lco_misuse_test, unlocking_a_recursive_mutex_the_caller_does_not_hold_throws) {
    const auto body = [] {
        weft::recursive_mutex m;
        expect_lco_error([&] { m.unlock(); }, std::errc::operation_not_permitted, "weft::recursive_mutex::unlock");
        m.lock();
        m.lock();
        expect_lco_error([&] { on_another_agent([&] { m.unlock(); }); }, std::errc::operation_not_permitted,
                         "does not hold");
        on_another_agent([&] { EXPECT_FALSE(m.try_lock()); });  // still held, twice
        m.unlock();
        on_another_agent([&] { EXPECT_FALSE(m.try_lock()); });
        m.unlock();
        expect_lco_error([&] { m.unlock(); }, std::errc::operation_not_permitted, "nobody does");
        on_another_agent([&] {
            EXPECT_TRUE(m.try_lock());
            m.unlock();
        });
    };
    body();
    in_task(body);
}

TEST_P(lco_misuse_test, shared_mutex_lock_while_holding_it_throws) {
    const auto body = [] {
        weft::shared_mutex m;
        m.lock_shared();
        expect_lco_error([&] { m.lock(); }, std::errc::resource_deadlock_would_occur, "weft::shared_mutex::lock",
                         "lock_shared()");
        EXPECT_FALSE(m.try_lock());
        EXPECT_FALSE(m.try_lock_for(1ms));  // a deadline: it just times out
        m.lock_shared();                    // again, while no writer waits: allowed
        m.unlock_shared();
        m.unlock_shared();
        m.lock();
        expect_lco_error([&] { m.lock(); }, std::errc::resource_deadlock_would_occur, "exclusively");
        expect_lco_error([&] { m.lock_shared(); }, std::errc::resource_deadlock_would_occur,
                         "weft::shared_mutex::lock_shared", "exclusively");
        EXPECT_FALSE(m.try_lock_shared());
        m.unlock();
    };
    body();
    in_task(body);
}

TEST_P(lco_misuse_test, shared_mutex_lock_shared_again_behind_a_waiting_writer_throws) {
    const auto body = [] {
        weft::shared_mutex m;
        m.lock_shared();
        auto writer = weft::async([&] {
            m.lock();  // queues: we read
            m.unlock();
        });
        // try_lock_shared() fails once the writer queues (it would overtake it).
        while (m.try_lock_shared()) {
            m.unlock_shared();
            weft::this_task::yield();
        }
        expect_lco_error([&] { m.lock_shared(); }, std::errc::resource_deadlock_would_occur, "a writer waits");
        m.unlock_shared();
        writer.get();
    };
    body();
    in_task(body);
}

TEST_P(lco_misuse_test, shared_mutex_unlock_without_holding_throws) {
    const auto body = [] {
        weft::shared_mutex m;
        expect_lco_error([&] { m.unlock(); }, std::errc::operation_not_permitted, "weft::shared_mutex::unlock",
                         "exclusively");
        expect_lco_error([&] { m.unlock_shared(); }, std::errc::operation_not_permitted,
                         "weft::shared_mutex::unlock_shared", "no reader does");
        m.lock_shared();
        expect_lco_error([&] { m.unlock(); }, std::errc::operation_not_permitted, "exclusively");
        expect_lco_error([&] { on_another_agent([&] { m.unlock_shared(); }); }, std::errc::operation_not_permitted,
                         "does not hold this shared_mutex shared");
        m.unlock_shared();
        m.lock();
        expect_lco_error([&] { on_another_agent([&] { m.unlock(); }); }, std::errc::operation_not_permitted,
                         "does not hold this shared_mutex exclusively");
        expect_lco_error([&] { m.unlock_shared(); }, std::errc::operation_not_permitted, "shared");
        m.unlock();
        EXPECT_TRUE(m.try_lock());  // the bad calls changed nothing
        m.unlock();
    };
    body();
    in_task(body);
}

WEFT_INSTANTIATE_FOR_ALL_POLICIES(lco_misuse_test);

// Destroying a locked mutex cannot throw (a destructor): it names the misuse and the
// owner, then aborts, instead of "internal assertion ... at <build path>".
class lco_misuse_death_test : public ::testing::Test {
protected:
    void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }

    static weft::runtime_config one_worker() {
        weft::runtime_config cfg;
        cfg.threads = 1;
        cfg.bind = false;
        return cfg;
    }
};

TEST_F(lco_misuse_death_test, destroying_a_locked_mutex_names_the_owning_task) {
    EXPECT_DEATH(
        {
            weft::runtime rt(one_worker());
            weft::async(weft::task_attributes{weft::task_priority::normal, "locker"}, [] {
                weft::mutex m;
                m.lock();
            }).get();
        },
        "weft: a weft::mutex was destroyed while locked by task 'locker'");
}

TEST_F(lco_misuse_death_test, destroying_a_locked_mutex_names_a_thread_owner) {
    EXPECT_DEATH(
        {
            weft::mutex m;
            m.lock();
        },
        "weft: a weft::mutex was destroyed while locked by a thread outside weft");
}

TEST_F(lco_misuse_death_test, destroying_a_locked_recursive_or_shared_mutex_says_so) {
    EXPECT_DEATH(
        {
            weft::recursive_mutex m;
            m.lock();
            m.lock();
        },
        "weft: a weft::recursive_mutex was destroyed while locked by a thread outside weft");
    EXPECT_DEATH(
        {
            weft::shared_mutex m;
            m.lock_shared();
        },
        "weft: a weft::shared_mutex was destroyed while locked shared by a thread outside weft");
    EXPECT_DEATH(
        {
            weft::shared_mutex m;
            m.lock();
        },
        "weft: a weft::shared_mutex was destroyed while locked by a thread outside weft");
}
