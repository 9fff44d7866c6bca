// weft::channel: bounded and unbounded, blocking, try_ and async_ operations, close and
// drain, range-for, move-only values, plain threads, and a producer/consumer stress —
// on every policy.
#include "lcos_test_util.hpp"

#include <weft/lcos/channel.hpp>
#include <weft/lcos/latch.hpp>

#include <atomic>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using weft::test::policy_test;

class channel_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(channel_test);

TEST_P(channel_test, a_bounded_channel_carries_a_stream_through_range_for) {
    in_task([] {
        weft::channel<int> ch(2);  // bounded: at most 2 values in flight
        auto producer = weft::async([&] {
            for (int i = 1; i <= 10; ++i) ch.send(i);  // suspends while the channel is full
            ch.close();
        });
        int sum = 0;
        for (int v : ch) sum += v;  // ends once closed and drained
        producer.get();
        EXPECT_EQ(sum, 55);
    });
}

TEST_P(channel_test, values_arrive_in_fifo_order) {
    weft::channel<std::string> ch;  // unbounded: send never waits
    for (int i = 0; i < 100; ++i) ch.send(std::to_string(i));
    const std::string copy = "copied";
    ch.send(copy);
    for (int i = 0; i < 100; ++i) EXPECT_EQ(ch.receive(), std::to_string(i));
    EXPECT_EQ(ch.receive(), "copied");
    EXPECT_EQ(ch.try_receive(), std::nullopt);
}

TEST_P(channel_test, try_send_and_try_receive_never_wait) {
    weft::channel<int> ch(2);
    EXPECT_TRUE(ch.try_send(1));
    const int two = 2;
    EXPECT_TRUE(ch.try_send(two));
    int three = 3;
    EXPECT_FALSE(ch.try_send(std::move(three)));  // full
    EXPECT_EQ(three, 3);
    EXPECT_EQ(ch.try_receive(), 1);
    EXPECT_TRUE(ch.try_send(3));
    EXPECT_EQ(ch.try_receive(), 2);
    EXPECT_EQ(ch.try_receive(), 3);
    EXPECT_EQ(ch.try_receive(), std::nullopt);
    EXPECT_THROW(weft::channel<int>(0), std::invalid_argument);
}

TEST_P(channel_test, a_full_channel_suspends_the_sender_and_the_worker_runs_the_receiver) {
    in_task([] {
        weft::channel<int> ch(1);
        std::atomic<int> sent{0};
        auto sender = weft::async([&] {
            for (int i = 0; i < 3; ++i) {
                ch.send(i);
                ++sent;
            }
        });
        weft::test::yield_until([&] { return sent.load() == 1; });
        for (int i = 0; i < 5; ++i) weft::this_task::yield();
        EXPECT_EQ(sent.load(), 1);  // the second send waits for room
        EXPECT_EQ(ch.receive(), 0);
        EXPECT_EQ(ch.receive(), 1);
        EXPECT_EQ(ch.receive(), 2);
        sender.get();
        EXPECT_EQ(sent.load(), 3);
    });
}

TEST_P(channel_test, close_drains_then_reports_closed) {
    weft::channel<int> ch;
    ch.send(1);
    ch.send(2);
    EXPECT_FALSE(ch.is_closed());
    ch.close();
    ch.close();  // idempotent
    EXPECT_TRUE(ch.is_closed());
    EXPECT_THROW(ch.send(3), weft::channel_closed);
    EXPECT_THROW((void)ch.try_send(3), weft::channel_closed);
    EXPECT_EQ(ch.receive(), 1);
    EXPECT_EQ(ch.try_receive(), 2);
    EXPECT_THROW((void)ch.receive(), weft::channel_closed);
    EXPECT_EQ(ch.try_receive(), std::nullopt);
    auto f = ch.async_receive();
    EXPECT_THROW(f.get(), weft::channel_closed);
    auto s = ch.async_send(4);
    EXPECT_THROW(s.get(), weft::channel_closed);
    try {
        (void)ch.receive();
    } catch (const weft::error& e) {  // channel_closed is a weft::error
        EXPECT_NE(std::string(e.what()).find("closed"), std::string::npos);
    }
}

TEST_P(channel_test, close_wakes_waiting_receivers_and_senders) {
    in_task([] {
        weft::channel<int> empty;
        weft::channel<int> full(1);
        full.send(0);
        std::atomic<int> waiting{0};
        auto receiver = weft::async([&] {
            ++waiting;
            try {
                (void)empty.receive();
            } catch (const weft::channel_closed&) {
                return true;
            }
            return false;
        });
        auto sender = weft::async([&] {
            ++waiting;
            try {
                full.send(1);
            } catch (const weft::channel_closed&) {
                return true;
            }
            return false;
        });
        auto pending_receive = empty.async_receive();
        auto pending_send = full.async_send(2);
        weft::test::yield_until([&] { return waiting.load() == 2; });
        for (int i = 0; i < 5; ++i) weft::this_task::yield();
        EXPECT_FALSE(pending_receive.is_ready());
        EXPECT_FALSE(pending_send.is_ready());
        empty.close();
        full.close();
        EXPECT_TRUE(receiver.get());
        EXPECT_TRUE(sender.get());
        EXPECT_THROW(pending_receive.get(), weft::channel_closed);
        EXPECT_THROW(pending_send.get(), weft::channel_closed);
        EXPECT_EQ(full.receive(), 0);  // what was accepted before close is still delivered
        EXPECT_THROW((void)full.receive(), weft::channel_closed);
    });
}

TEST_P(channel_test, async_operations_complete_through_futures) {
    in_task([] {
        weft::channel<int> ch(1);
        auto r1 = ch.async_receive();
        auto r2 = ch.async_receive();
        EXPECT_FALSE(r1.is_ready());
        ch.send(10);  // goes straight to the first pending receiver
        EXPECT_EQ(r1.get(), 10);
        auto s1 = ch.async_send(20);  // to r2
        s1.get();
        EXPECT_EQ(r2.get(), 20);
        auto s2 = ch.async_send(30);  // buffered
        auto s3 = ch.async_send(40);  // waits for room
        s2.get();
        EXPECT_FALSE(s3.is_ready());
        EXPECT_EQ(ch.receive(), 30);  // makes room: 40 moves into the buffer
        s3.get();
        EXPECT_EQ(ch.async_receive().get(), 40);
    });
}

TEST_P(channel_test, destroying_a_channel_completes_pending_futures) {
    weft::future<int> r;
    weft::future<void> s;
    {
        weft::channel<int> ch(1);
        r = ch.async_receive();
    }
    EXPECT_THROW(r.get(), weft::channel_closed);
    {
        weft::channel<int> ch(1);
        ch.send(1);
        s = ch.async_send(2);
    }
    EXPECT_THROW(s.get(), weft::channel_closed);
}

TEST_P(channel_test, move_only_values) {
    in_task([] {
        weft::channel<std::unique_ptr<int>> ch(1);
        auto producer = weft::async([&] {
            for (int i = 0; i < 5; ++i) ch.send(std::make_unique<int>(i));
            ch.close();
        });
        int expect = 0;
        for (auto& p : ch) EXPECT_EQ(*p, expect++);
        producer.get();
        EXPECT_EQ(expect, 5);
        auto pending = ch.async_receive();
        EXPECT_THROW(pending.get(), weft::channel_closed);
    });
}

TEST_P(channel_test, plain_threads_produce_and_consume) {
    weft::channel<int> ch(4);
    const int n = weft::test::scaled(3000);
    std::thread producer([&] {
        for (int i = 1; i <= n; ++i) ch.send(i);
        ch.close();
    });
    long sum = 0;
    in_task([&] {
        for (int v : ch) sum += v;
    });
    producer.join();
    EXPECT_EQ(sum, long{n} * (n + 1) / 2);

    weft::channel<int> back;
    auto task = weft::async([&] {
        for (int i = 0; i < 10; ++i) back.send(i);
    });
    int total = 0;
    for (int i = 0; i < 10; ++i) total += back.receive();  // this (plain) thread blocks
    task.get();
    EXPECT_EQ(total, 45);
}

TEST_P(channel_test, stress_producers_and_consumers) {
    // Producers (tasks and a plain thread) send with send/try_send/async_send, consumers
    // receive with receive/try_receive/async_receive/range-for, all yielding at random,
    // over a small bounded channel. Every value arrives exactly once; close after the
    // producers ends the consumers (a lost wake-up would hang the test).
    const int producers = 4, consumers = 4, per_producer = weft::test::scaled(20000);
    weft::channel<long> ch(3);
    std::atomic<long> received{0}, sum{0};
    // The plain thread sends fewer values: each time it blocks, waking it costs an OS
    // context switch, which on a loaded machine would dominate the test's run time.
    const int per_plain = per_producer / 10;
    auto produce = [&](unsigned id, int count) {
        weft::test::random_yield yield(id);
        std::vector<weft::future<void>> pending;
        for (long i = 1; i <= count; ++i) {
            switch (yield.next(4)) {
                case 0:
                    if (!ch.try_send(i)) ch.send(i);  // full: wait (spinning would starve others)
                    break;
                case 1: pending.push_back(ch.async_send(i)); break;
                default: ch.send(i); break;
            }
            yield();
        }
        for (auto& f : pending) f.get();
    };
    auto take = [&](long v) {
        ++received;
        sum += v;
    };
    auto consume = [&](unsigned id) {
        weft::test::random_yield yield(id);
        if (id % 4 == 3) {
            for (long v : ch) {
                take(v);
                yield();
            }
            return;
        }
        for (;;) {
            try {
                switch (yield.next(3)) {
                    case 0:
                        if (auto v = ch.try_receive()) {
                            take(*v);
                        } else {
                            take(ch.receive());  // waits, or throws once closed and drained
                        }
                        break;
                    case 1: take(ch.async_receive().get()); break;
                    default: take(ch.receive()); break;
                }
            } catch (const weft::channel_closed&) {
                return;
            }
            yield();
        }
    };
    weft::latch plain_done(1);  // joining the thread from a task would block a worker
    std::thread plain([&] {
        produce(1000u, per_plain);
        plain_done.count_down();
    });
    in_task([&] {
        weft::task_group c;
        for (unsigned id = 0; id < consumers; ++id) c.run([&consume, id] { consume(id); });
        weft::task_group p;
        for (unsigned id = 0; id < producers; ++id) p.run([&, id] { produce(100 + id, per_producer); });
        p.wait();
        plain_done.wait();
        ch.close();
        c.wait();
    });
    plain.join();
    EXPECT_EQ(received.load(), long{producers} * per_producer + per_plain);
    EXPECT_EQ(sum.load(), long{producers} * per_producer * (per_producer + 1) / 2 + long{per_plain} * (per_plain + 1) / 2);
}

}  // namespace
