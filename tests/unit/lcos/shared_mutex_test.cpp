// weft::shared_mutex: shared and exclusive ownership, FIFO admission (no writer
// starvation), timed variants, std lock adapters, plain threads — on every policy.
#include "lcos_test_util.hpp"

#include <weft/lcos/shared_mutex.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <shared_mutex>
#include <thread>

namespace {

using namespace std::chrono_literals;
using weft::test::policy_test;

class shared_mutex_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(shared_mutex_test);

TEST_P(shared_mutex_test, readers_share_and_writers_exclude) {
    in_task([] {
        weft::shared_mutex m;
        {
            std::shared_lock r1(m);
            std::shared_lock r2(m);  // readers share
            EXPECT_FALSE(m.try_lock());
        }
        std::unique_lock w(m);
        EXPECT_FALSE(m.try_lock_shared());
    });
}

TEST_P(shared_mutex_test, two_readers_are_inside_at_the_same_time) {
    // Each reader waits, holding the lock, until the other is inside too: on one worker
    // this needs the first reader to suspend (yield) while the second enters.
    in_task([] {
        weft::shared_mutex m;
        std::atomic<int> inside{0};
        auto reader = [&] {
            std::shared_lock lock(m);
            ++inside;
            weft::test::yield_until([&] { return inside.load() == 2; });
        };
        auto a = weft::async(reader);
        auto b = weft::async(reader);
        a.get();
        b.get();
    });
}

TEST_P(shared_mutex_test, a_waiting_writer_is_not_starved_by_a_stream_of_readers) {
    in_task([] {
        weft::shared_mutex m;
        std::atomic<bool> writer_done{false}, writer_waiting{false};
        std::atomic<long> reads{0};
        weft::task_group readers;
        for (int i = 0; i < 4; ++i)
            readers.run([&] {
                // Readers overlap continuously; without FIFO admission the writer would
                // never find the lock free and this loop would never end.
                while (!writer_done.load()) {
                    std::shared_lock lock(m);
                    ++reads;
                    weft::this_task::yield();
                }
            });
        weft::test::yield_until([&] { return reads.load() > 10; });
        auto writer = weft::async([&] {
            writer_waiting = true;
            std::unique_lock lock(m);
            writer_done = true;
        });
        writer.get();
        readers.wait();
        EXPECT_TRUE(writer_waiting.load());
    });
}

TEST_P(shared_mutex_test, a_new_reader_queues_behind_a_waiting_writer) {
    if (!single_worker()) GTEST_SKIP() << "the queue order is deterministic on one worker only";
    in_task([] {
        weft::shared_mutex m;
        std::atomic<int> step{0};
        m.lock_shared();
        auto writer = weft::async([&] {
            step = 1;
            std::unique_lock lock(m);
            return step.exchange(2);
        });
        weft::test::yield_until([&] { return step.load() == 1; });  // it is queued now
        EXPECT_FALSE(m.try_lock_shared());  // would overtake the writer
        auto reader = weft::async([&] {
            std::shared_lock lock(m);
            return step.load();
        });
        weft::this_task::yield();
        m.unlock_shared();
        EXPECT_EQ(writer.get(), 1);  // the writer went first...
        EXPECT_EQ(reader.get(), 2);  // ...then the reader that queued behind it
    });
}

TEST_P(shared_mutex_test, a_writer_that_times_out_lets_the_readers_behind_it_in) {
    if (!single_worker()) GTEST_SKIP() << "the queue order is deterministic on one worker only";
    in_task([] {
        weft::shared_mutex m;
        std::atomic<bool> writer_queued{false}, reader_in{false};
        m.lock_shared();  // held throughout
        auto writer = weft::async([&] {
            writer_queued = true;
            return m.try_lock_for(20ms);
        });
        weft::test::yield_until([&] { return writer_queued.load(); });
        auto reader = weft::async([&] {
            std::shared_lock lock(m);  // queued behind the writer
            reader_in = true;
        });
        EXPECT_FALSE(writer.get());  // timed out, with us still reading
        weft::test::yield_until([&] { return reader_in.load(); });  // admitted while we read
        reader.get();
        m.unlock_shared();
        EXPECT_TRUE(m.try_lock());
        m.unlock();
    });
}

TEST_P(shared_mutex_test, timed_variants_and_adapters) {
    in_task([] {
        weft::shared_mutex m;
        EXPECT_TRUE(m.try_lock_for(1ms));
        EXPECT_FALSE(weft::async([&] { return m.try_lock_shared_for(2ms); }).get());
        EXPECT_FALSE(weft::async([&] { return m.try_lock_until(std::chrono::system_clock::now() + 1ms); }).get());
        EXPECT_FALSE(weft::async([&] { return m.try_lock_shared_until(std::chrono::steady_clock::now() - 1s); }).get());
        m.unlock();
        EXPECT_TRUE(m.try_lock_shared_until(std::chrono::steady_clock::now() + 1h));
        EXPECT_TRUE(m.try_lock_shared_for(0s));
        EXPECT_FALSE(m.try_lock_for(-1s));
        m.unlock_shared();
        m.unlock_shared();
        {
            std::shared_lock r(m, 1ms);  // timed constructor: try_lock_shared_for
            EXPECT_TRUE(r.owns_lock());
        }
        weft::mutex other;
        std::scoped_lock both(m, other);
        EXPECT_FALSE(weft::async([&] { return m.try_lock_shared(); }).get());
    });
}

TEST_P(shared_mutex_test, plain_threads_take_part) {
    weft::shared_mutex m;
    long value = 0;
    const int n = weft::test::scaled(2000);
    std::thread writer([&] {
        for (int i = 0; i < n; ++i) {
            std::unique_lock lock(m);
            ++value;
        }
    });
    std::thread reader([&] {
        for (int i = 0; i < n; ++i) {
            std::shared_lock lock(m);
            EXPECT_GE(value, 0);
        }
    });
    in_task([&] {
        for (int i = 0; i < n; ++i) {
            std::unique_lock lock(m);
            ++value;
            if (i % 64 == 0) weft::this_task::yield();
        }
    });
    writer.join();
    reader.join();
    EXPECT_EQ(value, 2L * n);
}

TEST_P(shared_mutex_test, stress_readers_never_see_a_half_done_write) {
    // Writers update two counters with a yield in between; readers check they agree.
    // Some acquisitions are timed with tiny deadlines. Counts add up and the test ends.
    const int tasks = 10, rounds = weft::test::scaled(18000);
    weft::shared_mutex m;
    long a = 0, b = 0;
    std::atomic<long> writes{0}, reads{0}, torn{0};
    auto body = [&](unsigned id) {
        weft::test::random_yield yield(id);
        for (int r = 0; r < rounds; ++r) {
            const unsigned what = yield.next(8);
            if (what < 2) {
                const bool got = what == 0 ? (m.lock(), true) : m.try_lock_for(std::chrono::microseconds(yield.next(100)));
                if (!got) continue;
                ++a;
                yield(2);
                ++b;
                ++writes;
                m.unlock();
            } else {
                const bool got =
                    what < 6 ? (m.lock_shared(), true) : m.try_lock_shared_for(std::chrono::microseconds(yield.next(100)));
                if (!got) continue;
                if (a != b) ++torn;
                yield(3);
                if (a != b) ++torn;
                ++reads;
                m.unlock_shared();
            }
            yield();
        }
    };
    weft::test::run_tasks_and_a_thread(tasks, body);
    EXPECT_EQ(torn.load(), 0);
    EXPECT_EQ(a, writes.load());
    EXPECT_EQ(b, writes.load());
    EXPECT_GT(reads.load(), 0);
    EXPECT_TRUE(m.try_lock());
    m.unlock();
}

}  // namespace
