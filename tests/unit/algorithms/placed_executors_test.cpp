// Pinned tasks (task_attributes::worker), the executors that place work
// (thread_pool_executor, numa_executor, fork_join_executor), limiting_executor, the
// NUMA allocator on a synthetic two-domain topology, and then/dataflow/async taking an
// executor; on every scheduler policy.
#include "support/policy_test.hpp"

#include <weft/algorithms.hpp>
#include <weft/execution/limiting_executor.hpp>
#include <weft/execution/numa_allocator.hpp>
#include <weft/execution/placed_executors.hpp>
#include <weft/lcos/latch.hpp>
#include <weft/platform/topology.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace ex = weft::execution;
using namespace std::chrono_literals;
using weft::test::policy_test;
class placed_executors_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(placed_executors_test);

static_assert(ex::executor<ex::thread_pool_executor> && ex::executor<ex::numa_executor> &&
              ex::executor<ex::fork_join_executor> && ex::executor<ex::limiting_executor<ex::parallel_executor>>);
static_assert(weft::executor_like<ex::fork_join_executor> && !weft::executor_like<weft::launch::async_policy> &&
              !weft::executor_like<int>);

int here() { return weft::this_task::worker_index(); }

TEST_P(placed_executors_test, a_pinned_task_runs_and_resumes_only_on_its_worker) {
    const unsigned n = weft::num_workers();
    for (unsigned target = 0; target < n; ++target) {
        std::atomic<int> wrong{0};
        std::vector<weft::future<void>> fs;
        for (int i = 0; i < 200; ++i) {
            weft::task_attributes a;
            a.worker = target;
            fs.push_back(weft::async(a, [&wrong, target, i] {
                if (here() != static_cast<int>(target)) ++wrong;
                // Suspend in three ways; each resumption must land on the same worker.
                weft::this_task::yield();
                if (here() != static_cast<int>(target)) ++wrong;
                if (i % 10 == 0) {
                    weft::this_task::sleep_for(100us);
                    if (here() != static_cast<int>(target)) ++wrong;
                }
                weft::async([] { return 1; }).get();
                if (here() != static_cast<int>(target)) ++wrong;
            }));
        }
        for (auto& f : fs) f.get();
        EXPECT_EQ(wrong.load(), 0) << "worker " << target;
    }
    // From a thread that is not a worker, too.
    std::atomic<int> where{-2};
    std::thread([&] {
        weft::task_attributes a;
        a.worker = n - 1;
        weft::async(a, [&] { where = here(); }).get();
    }).join();
    EXPECT_EQ(where.load(), static_cast<int>(n - 1));
}

TEST_P(placed_executors_test, pinning_to_a_worker_that_does_not_exist_throws_and_loses_nothing) {
    weft::task_attributes a;
    a.worker = weft::num_workers();
    try {
        weft::post(a, [] {});
        FAIL() << "expected weft::error";
    } catch (const weft::error& e) {
        EXPECT_NE(std::string(e.what()).find("pinned to worker"), std::string::npos) << e.what();
    }
    EXPECT_THROW((void)weft::async(a, [] { return 1; }), weft::error);
    // The runtime still runs and stops cleanly (TearDown waits for quiescence).
    EXPECT_EQ(weft::async([] { return 7; }).get(), 7);
}

TEST_P(placed_executors_test, thread_pool_executor_runs_on_its_subset_only) {
    const unsigned n = weft::num_workers();
    const unsigned first = n > 1 ? 1 : 0;
    ex::thread_pool_executor pool(first, n - first);
    std::set<int> seen;
    std::mutex m;
    std::vector<weft::future<int>> fs;
    for (int i = 0; i < 100; ++i) fs.push_back(ex::async_execute(pool, [&] {
        std::lock_guard lock(m);
        seen.insert(here());
        return 1;
    }));
    int sum = 0;
    for (auto& f : fs) sum += f.get();
    EXPECT_EQ(sum, 100);
    for (int w : seen) EXPECT_GE(w, static_cast<int>(first));
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(n - first)) << "round-robin reaches every worker of the pool";
    // Bulk: agent blocks in order on the pool's workers; results in shape order.
    const auto out = ex::bulk_sync_execute(pool, [](std::size_t i) { return std::make_pair(i, here()); }, 1000);
    ASSERT_EQ(out.size(), 1000u);
    const std::size_t k = pool.workers().size();
    for (std::size_t i = 0; i < out.size(); ++i) {
        std::size_t block = 0;  // block j holds agents [j*1000/k, (j+1)*1000/k)
        while ((block + 1) * 1000 / k <= i) ++block;
        EXPECT_EQ(out[i].first, i);
        EXPECT_EQ(out[i].second, static_cast<int>(pool.workers()[block])) << "agent " << i;
    }
    EXPECT_EQ(ex::processing_units_count(pool), k);
    // Bad subsets.
    EXPECT_THROW(ex::thread_pool_executor(std::vector<unsigned>{}), weft::error);
    EXPECT_THROW(ex::thread_pool_executor(0, n + 1), weft::error);
}

TEST_P(placed_executors_test, fork_join_executor_puts_block_j_on_worker_j_every_time) {
    const unsigned n = weft::num_workers();
    ex::fork_join_executor fj;
    EXPECT_EQ(ex::processing_units_count(fj), n);
    for (int round = 0; round < 20; ++round) {
        std::vector<int> where(n, -1);
        ex::bulk_sync_execute(fj, [&](std::size_t j) { where[j] = here(); }, n);
        for (unsigned j = 0; j < n; ++j) EXPECT_EQ(where[j], static_cast<int>(j)) << "round " << round;
    }
    // Every agent of a bigger shape runs once; element shapes give references.
    std::vector<int> v(10'001, 0);
    ex::bulk_sync_execute(fj, [](int& x) { ++x; }, v);
    EXPECT_EQ(std::count(v.begin(), v.end(), 1), 10'001);
    // Exceptions: every block runs, all errors come back.
    std::atomic<int> ran{0};
    try {
        ex::bulk_sync_execute(fj, [&](std::size_t i) {
            ++ran;
            if (i % 2 == 0) throw std::runtime_error("even");
        }, 2 * n);
        FAIL();
    } catch (const weft::exception_list& e) {
        EXPECT_EQ(e.size(), n);
    } catch (const std::runtime_error&) {
        EXPECT_EQ(n, 1u);
    }
    EXPECT_EQ(ran.load(), static_cast<int>(2 * n));
    // Nested bulk calls from inside blocks, and from a thread that is not a worker.
    std::atomic<int> inner{0};
    ex::bulk_sync_execute(fj, [&](std::size_t) { ex::bulk_sync_execute(fj, [&](std::size_t) { ++inner; }, n); }, n);
    EXPECT_EQ(inner.load(), static_cast<int>(n * n));
    std::thread([&] { ex::bulk_sync_execute(fj, [&](std::size_t) { ++inner; }, 5); }).join();
    EXPECT_EQ(inner.load(), static_cast<int>(n * n + 5));
}

TEST_P(placed_executors_test, algorithms_run_on_the_placed_executors) {
    const unsigned n = weft::num_workers();
    std::vector<std::int64_t> v(100'003);
    std::iota(v.begin(), v.end(), 0);
    const std::int64_t expect = std::accumulate(v.begin(), v.end(), std::int64_t{0});
    ex::fork_join_executor fj;
    ex::thread_pool_executor pool(0, n);
    EXPECT_EQ(weft::reduce(ex::par.on(fj), v.begin(), v.end()), expect);
    EXPECT_EQ(weft::reduce(ex::par.on(pool).with(ex::static_chunk_size()), v.begin(), v.end()), expect);
    EXPECT_EQ(weft::reduce(ex::par(ex::task).on(fj).with(ex::dynamic_chunk_size(100)), v.begin(), v.end()).get(), expect);
    std::vector<int> where(v.size(), -1);
    weft::for_each(ex::par.on(fj).with(ex::static_chunk_size()), v.begin(), v.end(),
                   [&](std::int64_t i) { where[static_cast<std::size_t>(i)] = here(); });
    // Static chunks on the fork-join executor: chunk j is on worker j.
    for (std::size_t i = 0; i < where.size(); i += 997) {
        const std::size_t chunk = (where.size() + n - 1) / n;
        EXPECT_EQ(where[i], static_cast<int>(i / chunk)) << i;
    }
}

TEST_P(placed_executors_test, limiting_executor_caps_the_tasks_in_flight) {
    ex::limiting_executor<ex::parallel_executor> lim(ex::parallel_executor{}, 3);
    EXPECT_EQ(lim.max_in_flight(), 3u);
    std::atomic<int> inside{0}, most{0};
    std::vector<weft::future<int>> fs;
    for (int i = 0; i < 60; ++i) {
        fs.push_back(ex::async_execute(lim, [&] {
            const int now = ++inside;
            int seen = most.load();
            while (now > seen && !most.compare_exchange_weak(seen, now)) {
            }
            weft::this_task::yield();
            --inside;
            return 1;
        }));
    }
    int sum = 0;
    for (auto& f : fs) sum += f.get();
    EXPECT_EQ(sum, 60);
    EXPECT_LE(most.load(), 3);
    EXPECT_GE(most.load(), 1);
    // A throwing agent gives its permit back.
    for (int i = 0; i < 10; ++i)
        EXPECT_THROW(ex::async_execute(lim, [] { throw std::runtime_error("x"); }).get(), std::runtime_error);
    // Bulk agents are capped too (built from async_execute).
    const auto r = ex::bulk_sync_execute(lim, [](std::size_t i) { return i * 2; }, 50);
    EXPECT_EQ(r[49], 98u);
    for (int i = 0; i < 1000 && lim.in_flight() != 0; ++i) std::this_thread::sleep_for(1ms);
    EXPECT_EQ(lim.in_flight(), 0u);
    EXPECT_THROW(ex::limiting_executor<ex::parallel_executor>(ex::parallel_executor{}, 0), weft::error);
}

TEST_P(placed_executors_test, then_dataflow_and_async_take_an_executor) {
    const unsigned n = weft::num_workers();
    ex::thread_pool_executor last(n - 1, 1);
    auto f = weft::async(last, [] { return here(); });
    EXPECT_EQ(f.get(), static_cast<int>(n - 1));
    auto g = weft::make_ready_future(20).then(last, [](weft::future<int> r) { return std::make_pair(r.get() + 1, here()); });
    const auto [value, where] = g.get();
    EXPECT_EQ(value, 21);
    EXPECT_EQ(where, static_cast<int>(n - 1));
    weft::shared_future<int> s = weft::make_ready_future(5).share();
    EXPECT_EQ(s.then(last, [](weft::shared_future<int> r) { return r.get() * 2; }).get(), 10);
    auto a = weft::async([] { return 1; });
    auto b = weft::async([] { return 2; });
    auto d = weft::dataflow(last, [](weft::future<int> x, weft::future<int> y) { return std::make_pair(x.get() + y.get(), here()); },
                            std::move(a), std::move(b));
    const auto [sum, at] = d.get();
    EXPECT_EQ(sum, 3);
    EXPECT_EQ(at, static_cast<int>(n - 1));
    // An exception from the executor-run continuation reaches the result.
    auto e = weft::make_ready_future(1).then(ex::parallel_executor{}, [](weft::future<int>) -> int { throw std::logic_error("c"); });
    EXPECT_THROW(e.get(), std::logic_error);
    // A limiting executor in place of a launch policy.
    ex::limiting_executor<ex::parallel_executor> lim(ex::parallel_executor{}, 1);
    EXPECT_EQ(weft::async(lim, [](int x) { return x + 1; }, 41).get(), 42);
}

TEST_P(placed_executors_test, numa_allocator_is_a_plain_allocator_on_one_domain) {
    if (weft::num_numa_domains() != 1) GTEST_SKIP() << "this machine has several NUMA domains";
    ex::numa_allocator<double> alloc;
    EXPECT_EQ(alloc.parts(), 1u);
    std::vector<double, ex::numa_allocator<double>> v(1'000'000, 1.5, alloc);
    EXPECT_EQ(weft::reduce(ex::par, v.begin(), v.end()), 1.5e6);
    std::vector<double, ex::numa_allocator<double>> small(3, 2.0, alloc);  // below a page
    EXPECT_EQ(small[2], 2.0);
    EXPECT_EQ(alloc.part(0, 77), std::make_pair(std::size_t{0}, std::size_t{77}));
}

// A two-domain machine faked with a synthetic topology: 2 domains x 2 cores, 4 workers.
class numa_test : public ::testing::Test {
protected:
    void SetUp() override {
        weft::runtime_config cfg;
        cfg.threads = 4;
        cfg.topology = std::make_shared<const weft::topology>(weft::topology::synthetic(1, 2, 2));
        rt_ = std::make_unique<weft::runtime>(cfg);
    }
    void TearDown() override { rt_.reset(); }
    std::unique_ptr<weft::runtime> rt_;
};

/// Wraps an executor and records, for each agent of a bulk call, the NUMA domain of the
/// worker it ran on.
struct recording_executor {
    ex::numa_executor inner;
    std::shared_ptr<std::mutex> m = std::make_shared<std::mutex>();
    std::shared_ptr<std::vector<unsigned>> domains = std::make_shared<std::vector<unsigned>>();
    template <class F, class... Args>
    auto async_execute(F&& f, Args&&... args) const {
        return inner.async_execute(std::forward<F>(f), std::forward<Args>(args)...);
    }
    template <class F, class S>
    void bulk_sync_execute(F&& f, S&& s) const {
        inner.bulk_sync_execute([&](std::size_t a) {
            f(a);
            std::lock_guard lock(*m);
            domains->push_back(weft::worker_numa_domain(static_cast<unsigned>(here())));
        }, s);
    }
    std::size_t processing_units_count() const noexcept { return inner.processing_units_count(); }
    bool operator==(const recording_executor& o) const noexcept { return inner == o.inner; }
};

TEST_F(numa_test, a_synthetic_topology_gives_two_domains_and_their_executors) {
    EXPECT_EQ(weft::num_numa_domains(), 2u);
    EXPECT_EQ(weft::worker_numa_domain(0), 0u);
    EXPECT_EQ(weft::worker_numa_domain(1), 0u);
    EXPECT_EQ(weft::worker_numa_domain(2), 1u);
    EXPECT_EQ(weft::worker_numa_domain(3), 1u);
    EXPECT_THROW((void)weft::worker_numa_domain(4), weft::error);
    const auto execs = ex::numa_executors();
    ASSERT_EQ(execs.size(), 2u);
    EXPECT_EQ(execs[1].workers(), (std::vector<unsigned>{2, 3}));
    EXPECT_THROW(ex::numa_executor(2), weft::error);
    for (unsigned d = 0; d < 2; ++d) {
        const auto doms = ex::bulk_sync_execute(execs[d], [](std::size_t) { return weft::worker_numa_domain(here()); }, 64);
        EXPECT_TRUE(std::all_of(doms.begin(), doms.end(), [d](unsigned x) { return x == d; })) << d;
    }
}

TEST_F(numa_test, the_allocator_first_touches_each_part_on_its_domain) {
    const auto execs = ex::numa_executors();
    std::vector<recording_executor> rec{{execs[0]}, {execs[1]}};
    ex::numa_allocator<double, recording_executor> alloc(rec);
    ASSERT_EQ(alloc.parts(), 2u);
    const std::size_t n = 1'000'000;  // 8 MB: about 1953 pages
    double* p = alloc.allocate(n);
    for (unsigned d = 0; d < 2; ++d) {
        ASSERT_EQ(rec[d].domains->size(), 2u) << "one agent per worker of the domain";
        for (unsigned x : *rec[d].domains) EXPECT_EQ(x, d);
    }
    // The parts cover the allocation, meet at a page boundary and split it evenly.
    const auto [b0, e0] = alloc.part(0, n);
    const auto [b1, e1] = alloc.part(1, n);
    EXPECT_EQ(b0, 0u);
    EXPECT_EQ(e0, b1);
    EXPECT_EQ(e1, n);
    EXPECT_EQ((e0 * sizeof(double)) % 4096, 0u);
    EXPECT_NEAR(static_cast<double>(e0), n / 2.0, 512.0);
    // Compute on each part with its domain's executor: every element there.
    for (unsigned d = 0; d < 2; ++d) {
        const auto [b, e] = alloc.part(d, n);
        weft::for_each(ex::par.on(execs[d]), p + b, p + e, [d](double& x) {
            x = weft::worker_numa_domain(here()) == d ? 1.0 : -1.0;
        });
    }
    EXPECT_EQ(std::count(p, p + n, 1.0), static_cast<std::ptrdiff_t>(n));
    alloc.deallocate(p, n);
    // As a container's allocator (rebinding and copying share the executors).
    std::vector<double, ex::numa_allocator<double>> v(300'000, 2.0, ex::numa_allocator<double>());
    EXPECT_EQ(v.get_allocator().parts(), 2u);
    EXPECT_EQ(weft::reduce(ex::par, v.begin(), v.end()), 600'000.0);
    EXPECT_THROW(ex::numa_allocator<double>(std::vector<ex::numa_executor>{}), weft::error);
}

}  // namespace
