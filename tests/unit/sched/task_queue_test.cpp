// weft::task_queue (seed 002 §2.1, HotSLAW's task library) on every policy: Figure 2's
// fib, nesting, the implicit end-of-task wait, exceptions, fences, the shared root frame,
// empty(), argument copies and the destructor.
#include "support/policy_test.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using weft::test::policy_test;

class task_queue_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(task_queue_test);

constexpr bool instrumented = WEFT_HAVE_TSAN || WEFT_HAVE_ASAN;

// Seed 002 Figure 2, as README.md shows it.
weft::task_queue fig2_queue;
int fig2_cutoff = 2;

long fib_serial(int n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

void fib(int n, long* out) {
    if (n < fig2_cutoff) {
        *out = fib_serial(n);
        return;
    }
    long x = 0;
    long y = 0;
    fig2_queue.put(fib, n - 1, &x);
    fig2_queue.put(fib, n - 2, &y);
    fig2_queue.wait();
    *out = x + y;
}

// fib(18) under ASan, fib(16) under TSan (8k and 3k tasks instead of 93k at fib(23)):
// under TSan the round-robin policies spent seconds on fib(18) and checked nothing more.
TEST_P(task_queue_test, figure_2_fib_is_exact) {
    const int top = WEFT_HAVE_TSAN ? 16 : WEFT_HAVE_ASAN ? 18 : 23;
    for (int cutoff : {2, 8}) {
        fig2_cutoff = cutoff;
        for (int n : {0, 1, 2, 3, 10, top}) {
            const long r = in_task([n] {
                long out = -1;
                fib(n, &out);
                return out;
            });
            EXPECT_EQ(r, fib_serial(n)) << "n=" << n << " cutoff=" << cutoff;
        }
        // Also from the root frame: the main task puts the first call and waits.
        const long r = in_task([top] {
            long out = -1;
            fig2_queue.put(fib, top, &out);
            fig2_queue.wait();
            return out;
        });
        EXPECT_EQ(r, fib_serial(top));
    }
    EXPECT_TRUE(fig2_queue.empty());
}

TEST_P(task_queue_test, fib_with_lambdas_capturing_by_reference) {
    weft::task_queue q;
    struct rec {
        weft::task_queue& q;
        long operator()(int n) const {
            if (n < 2) return n;
            long x = 0;
            long y = 0;
            q.put([&] { x = (*this)(n - 1); });
            q.put([&] { y = (*this)(n - 2); });
            q.wait();
            return x + y;
        }
    };
    const int n = instrumented ? 15 : 20;
    EXPECT_EQ(in_task([&] { return rec{q}(n); }), fib_serial(n));
}

TEST_P(task_queue_test, nested_puts_and_waits) {
    weft::task_queue q;
    std::atomic<long> leaves{0};
    const int width = instrumented ? 4 : 8;
    in_task([&] {
        for (int i = 0; i < width; ++i)
            q.put([&] {
                std::atomic<int> mine{0};
                for (int j = 0; j < width; ++j)
                    q.put([&] {
                        for (int k = 0; k < width; ++k)
                            q.put([&] {
                                mine.fetch_add(1);
                                leaves.fetch_add(1);
                            });
                        q.wait();  // its own children only
                    });
                q.wait();
                EXPECT_EQ(mine.load(), width * width);  // the whole subtree finished
                // Reused after a wait.
                q.put([&] { mine.fetch_add(1); });
                q.wait();
                EXPECT_EQ(mine.load(), width * width + 1);
            });
        q.wait();
    });
    EXPECT_EQ(leaves.load(), long{width} * width * width);
    EXPECT_TRUE(q.empty());
}

TEST_P(task_queue_test, wait_with_nothing_put_returns) {
    weft::task_queue q;
    q.wait();  // the root frame, from the test's thread
    in_task([&] {
        q.wait();
        q.wait();
        int ran = 0;
        q.put([&] {
            q.wait();  // a task's frame with no children
            ++ran;
        });
        q.wait();
        EXPECT_EQ(ran, 1);
    });
    EXPECT_TRUE(q.empty());
}

// A task that puts and returns without waiting still finishes only after its subtree.
TEST_P(task_queue_test, a_task_ends_with_an_implicit_wait_for_its_subtree) {
    weft::task_queue q;
    std::atomic<long> done{0};
    const int depth = instrumented ? 6 : 9;
    struct spread {
        weft::task_queue& q;
        std::atomic<long>& done;
        void operator()(int d) const {
            if (d == 0) {
                weft::this_task::yield();
                done.fetch_add(1);
                return;
            }
            q.put(*this, d - 1);
            q.put(*this, d - 1);
            // no wait: the implicit one covers both subtrees
        }
    };
    std::atomic<long> finished_parents{0};
    in_task([&] {
        for (int i = 0; i < 4; ++i)
            q.put([&] {
                q.put(spread{q, done}, depth);
                finished_parents.fetch_add(1);  // before the implicit wait
            });
        q.wait();
        EXPECT_EQ(done.load(), 4L << depth);
        EXPECT_EQ(finished_parents.load(), 4);
    });
}

struct deep_thrower {
    weft::task_queue& q;
    void operator()(int d, bool wait_explicitly) const {
        if (d == 0) throw std::out_of_range("leaf");
        q.put(*this, d - 1, !wait_explicitly);
        if (wait_explicitly) q.wait();  // rethrows here; nothing below runs
    }
};

TEST_P(task_queue_test, an_exception_from_a_deep_child_reaches_the_root_wait) {
    weft::task_queue q;
    in_task([&] {
        q.put(deep_thrower{q}, 12, true);  // alternately explicit and implicit waits
        EXPECT_THROW(q.wait(), std::out_of_range);
        q.wait();  // nothing pending: no rethrow
        int ran = 0;
        q.put([&] { ++ran; });
        q.wait();
        EXPECT_EQ(ran, 1);
        // A task's own wait catches its child's exception.
        bool caught = false;
        q.put([&] {
            q.put(deep_thrower{q}, 5, false);
            try {
                q.wait();
            } catch (const std::out_of_range&) {
                caught = true;
            }
        });
        q.wait();
        EXPECT_TRUE(caught);
    });
    EXPECT_TRUE(q.empty());
}

TEST_P(task_queue_test, several_exceptions_come_back_together) {
    weft::task_queue q;
    in_task([&] {
        std::atomic<int> ran{0};
        for (int i = 0; i < 6; ++i)
            q.put([&ran, i] {
                ran.fetch_add(1);
                if (i % 2 == 0) throw std::runtime_error("child " + std::to_string(i));
            });
        try {
            q.wait();
            ADD_FAILURE() << "no exception";
        } catch (const weft::exception_list& e) {
            EXPECT_EQ(e.size(), 3u);
        }
        EXPECT_EQ(ran.load(), 6);
        // A body that throws after putting a child that throws: both reach the root.
        q.put([&] {
            q.put([] { throw std::length_error("child"); });
            throw std::domain_error("parent");
        });
        try {
            q.wait();
            ADD_FAILURE() << "no exception";
        } catch (const weft::exception_list& e) {
            EXPECT_EQ(e.size(), 2u);
        }
        q.wait();
    });
}

// Fences: every task put before a fence (its subtree included) finishes before any task
// put after it starts. Indices come from one atomic sequence.
struct epoch_log {
    std::atomic<long> seq{0};
    std::vector<std::atomic<long>> last_end;    // per epoch: the largest end index
    std::vector<std::atomic<long>> first_start; // per epoch: the smallest start index
    std::atomic<long> tasks{0};

    explicit epoch_log(int epochs) : last_end(epochs), first_start(epochs) {
        for (auto& s : first_start) s.store(std::numeric_limits<long>::max());
    }
    void start(int e) {
        const long i = seq.fetch_add(1);
        long cur = first_start[e].load();
        while (i < cur && !first_start[e].compare_exchange_weak(cur, i)) {
        }
    }
    void end(int e) {
        const long i = seq.fetch_add(1);
        long cur = last_end[e].load();
        while (i > cur && !last_end[e].compare_exchange_weak(cur, i)) {
        }
        tasks.fetch_add(1);
    }
    void expect_ordered() const {
        for (std::size_t e = 0; e + 1 < last_end.size(); ++e)
            EXPECT_LT(last_end[e].load(), first_start[e + 1].load()) << "epoch " << e;
    }
};

/// Puts `n` tasks of epoch `e`, each with two children that yield (so the fence must
/// cover subtrees, through the implicit wait).
void put_epoch(weft::task_queue& q, epoch_log& log, int e, int n) {
    for (int i = 0; i < n; ++i)
        q.put(
            [&q, &log](int ep) {
                log.start(ep);
                for (int c = 0; c < 2; ++c)
                    q.put([&log, ep] {
                        log.start(ep);
                        weft::this_task::yield();
                        log.end(ep);
                    });
                log.end(ep);
            },
            e);
}

TEST_P(task_queue_test, fences_order_epochs_inside_a_task) {
    weft::task_queue q;
    const int n = instrumented ? 8 : 40;
    const int epochs = 4;
    epoch_log log(epochs);
    in_task([&] {
        q.put([&] {
            for (int e = 0; e < epochs; ++e) {
                put_epoch(q, log, e, n);
                q.fence();
                if (e == 1) q.fence();  // two fences in a row: one boundary
            }
            // no wait: the implicit one covers the deferred epochs too
        });
        q.wait();
    });
    EXPECT_EQ(log.tasks.load(), long{epochs} * n * 3);
    log.expect_ordered();
    EXPECT_TRUE(q.empty());
}

TEST_P(task_queue_test, fences_order_epochs_on_the_root_frame) {
    weft::task_queue q;
    const int n = instrumented ? 8 : 40;
    const int epochs = 3;
    epoch_log log(epochs);
    in_task([&] {
        for (int e = 0; e < epochs; ++e) {
            put_epoch(q, log, e, n);
            q.fence();
        }
        q.wait();
    });
    EXPECT_EQ(log.tasks.load(), long{epochs} * n * 3);
    log.expect_ordered();
    // Then the frame is back to unordered puts: a wait with nothing pending, reuse.
    epoch_log again(2);
    in_task([&] {
        put_epoch(q, again, 0, n);
        q.fence();
        put_epoch(q, again, 1, n);
        q.wait();
    });
    again.expect_ordered();
    EXPECT_EQ(again.tasks.load(), 2L * n * 3);
}

TEST_P(task_queue_test, a_fence_with_nothing_before_it_delays_nothing) {
    weft::task_queue q;
    in_task([&] {
        int ran = 0;
        q.fence();
        q.put([&] { ++ran; });
        q.wait();
        EXPECT_EQ(ran, 1);
        q.put([&] {
            q.fence();
            q.fence();
            q.put([&] { ++ran; });
        });
        q.wait();
        EXPECT_EQ(ran, 2);
    });
}

// A fence after a wait in a task's frame: the waited tasks are done, so only the tasks
// put after the wait are "before" the fence.
TEST_P(task_queue_test, a_fence_after_a_wait_in_a_task) {
    weft::task_queue q;
    const int n = instrumented ? 6 : 20;
    epoch_log log(3);
    in_task([&] {
        q.put([&] {
            put_epoch(q, log, 0, n);
            q.wait();
            put_epoch(q, log, 1, n);
            q.fence();
            put_epoch(q, log, 2, n);
            q.wait();
        });
        q.wait();
    });
    log.expect_ordered();
    EXPECT_EQ(log.tasks.load(), 3L * n * 3);
}

TEST_P(task_queue_test, concurrent_puts_from_non_queue_tasks_onto_the_root_frame) {
    weft::task_queue q;
    const int putters = 4;
    constexpr int per = instrumented ? 50 : 500;
    std::atomic<long> total{0};
    in_task([&] {
        std::vector<weft::future<bool>> fs;
        for (int p = 0; p < putters; ++p)
            fs.push_back(weft::async([&q, &total] {
                std::atomic<int> mine{0};
                for (int i = 0; i < per; ++i)
                    q.put([&] {
                        q.put([&] {
                            mine.fetch_add(1);
                            total.fetch_add(1);
                        });
                    });
                q.wait();  // covers at least this putter's tasks
                return mine.load() == per;
            }));
        for (auto& f : fs) EXPECT_TRUE(f.get());
        q.wait();
    });
    EXPECT_EQ(total.load(), long{putters} * per);
    EXPECT_TRUE(q.empty());
}

TEST_P(task_queue_test, works_from_a_plain_thread) {
    weft::task_queue q;
    std::atomic<int> n{0};
    for (int i = 0; i < 200; ++i)
        q.put([&] {
            q.put([&] { n.fetch_add(1); });
            n.fetch_add(1);
        });
    q.fence();
    int after = -1;
    q.put([&] { after = n.load(); });
    q.wait();
    EXPECT_EQ(n.load(), 400);
    EXPECT_EQ(after, 400);
}

TEST_P(task_queue_test, empty_says_whether_tasks_are_outstanding) {
    weft::task_queue q;
    EXPECT_TRUE(q.empty());
    weft::event release;
    weft::event started;
    in_task([&] {
        q.put([&] {
            q.put([&] {
                started.set();
                release.wait();
            });
        });
        started.wait();
        EXPECT_FALSE(q.empty());
        release.set();
        q.wait();
        EXPECT_TRUE(q.empty());
    });
}

TEST_P(task_queue_test, arguments_are_decay_copied_and_may_be_move_only) {
    weft::task_queue q;
    in_task([&] {
        int out = 0;
        q.put([](std::unique_ptr<int> p, int* o) { *o = *p; }, std::make_unique<int>(7), &out);
        std::string s = "before";
        std::string seen;
        q.put([&seen](const std::string& copy) { seen = copy; }, s);
        s = "after";  // the task has its own copy
        const int arr[3] = {1, 2, 3};
        int sum = 0;
        q.put([&sum](const int* a) { sum = a[0] + a[1] + a[2]; }, arr);  // decays to a pointer
        q.wait();
        EXPECT_EQ(out, 7);
        EXPECT_EQ(seen, "before");
        EXPECT_EQ(sum, 6);
    });
}

TEST_P(task_queue_test, a_put_from_another_queues_task_goes_to_the_root_frame) {
    weft::task_queue a;
    weft::task_queue b;
    std::atomic<int> n{0};
    in_task([&] {
        a.put([&] {
            for (int i = 0; i < 10; ++i) b.put([&] { n.fetch_add(1); });
            // a's task does not wait for b's root tasks (they are not its children)
        });
        a.wait();
        b.wait();
        EXPECT_EQ(n.load(), 10);
        // And a task_group child inside a queue task puts on the root frame too.
        a.put([&] {
            weft::task_group g;
            g.run([&] { a.put([&] { n.fetch_add(1); }); });
            g.wait();
        });
        a.wait();
        EXPECT_EQ(n.load(), 11);
    });
}

TEST_P(task_queue_test, destructor_waits_for_outstanding_tasks) {
    std::atomic<int> n{0};
    in_task([&n] {
        weft::task_queue q;
        for (int i = 0; i < 100; ++i)
            q.put([&] {
                weft::this_task::yield();
                q.put([&n] { n.fetch_add(1); });
                n.fetch_add(1);
            });
    });
    EXPECT_EQ(n.load(), 200);
}

}  // namespace

namespace {

TEST(task_queue, put_without_a_runtime_throws_runtime_state_error) {
    weft::task_queue q;
    EXPECT_THROW(q.put([] {}), weft::runtime_state_error);
    EXPECT_TRUE(q.empty());
    q.wait();
}

TEST(task_queue_death_test, an_exception_never_waited_for_terminates_naming_it) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        {
            weft::runtime_config cfg;
            cfg.threads = 2;
            cfg.bind = false;
            weft::runtime rt(cfg);
            weft::async([] {
                weft::task_queue q;
                q.put([] { throw std::length_error("never waited"); });
            }).get();
        },
        "unhandled exception in task .*length_error: never waited");
}

}  // namespace
