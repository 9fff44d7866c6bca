// Queue microbenchmarks of seed 001 ch.2-3 (digest 001 §3.3-3.5, §4.9; issue #7): weft's
// SPSC ring and XQueue beside a mutex + std::deque, oneTBB's concurrent_queue,
// Boost.Lockfree's queue and spsc_queue, and weft's Chase-Lev deque, in one process.
//
//   spsc-1t   one thread: push then pop, repeated; time-stamp-counter ticks per operation
//             (the seed's SPSC figure: an enqueue/dequeue pair averaged, 30-70 cycles;
//             B-queue's 20)
//   spsc-2t   a producer thread pushes `ops` items through a 1024-slot queue to a
//             consumer thread: ticks per operation on each side (the larger is shown) and
//             items per second
//   spsc-2t-bulk  the same stream in batches of --batch items (default 16): the producer
//             pushes a batch with one bulk push (its remainder with the next), the
//             consumer pops up to a batch at once; ticks per item. B-queue's ~20 cycles
//             per operation across cores is a batched figure (seed 001 §3.2).
//   mpmc      T threads (1, 2, then oversubscribed), each enqueuing an item and dequeuing
//             one, `ops` times in all; an operation is an enqueue or a dequeue that ran
//             the item (a function pointer, as the seed's "execute the function it points
//             to"). XQueue: round-robin to the other threads' rings (weft-xqueue) or to
//             one's own local ring first (weft-xqueue-local), pop one's own; the
//             Chase-Lev deque: push and pop one's own, steal from a random other when
//             empty; the others: one shared queue. Every item is run exactly once
//             (checked after the timed part, which then drains the queues).
// Lines: weft-queue bench=<b> queue=<q> threads=<T> ops=<n> ticks_per_op=<median>
//        ns_per_op=<median> mops=<median> reps=<r>
// Ticks are the time-stamp counter's (constant rate: on this EPYC, its nominal clock).
#include <weft/concurrency/spsc_ring.hpp>
#include <weft/concurrency/work_stealing_deque.hpp>
#include <weft/concurrency/xqueue.hpp>
#include <weft/platform/cycle_clock.hpp>

#include <boost/lockfree/queue.hpp>
#include <boost/lockfree/spsc_queue.hpp>
#include <tbb/concurrent_queue.h>

#include "bench_common.hpp"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using item = void (*)(std::uint64_t&);
void work(std::uint64_t& n) { ++n; }  // the "NOP function" an item points to
const item the_item = &work;

struct result {
    double ticks_per_op, ns_per_op, mops;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

void report(const char* bench, const char* queue, unsigned threads, std::uint64_t ops, const std::vector<result>& rs) {
    std::vector<double> t, ns, m;
    for (const auto& r : rs) {
        t.push_back(r.ticks_per_op);
        ns.push_back(r.ns_per_op);
        m.push_back(r.mops);
    }
    std::printf("weft-queue bench=%s queue=%s threads=%u ops=%llu ticks_per_op=%.1f ns_per_op=%.2f mops=%.1f reps=%zu\n",
                bench, queue, threads, static_cast<unsigned long long>(ops), median(t), median(ns), median(m),
                rs.size());
    std::fflush(stdout);
}

// --- adapters: try_push / try_pop for each single-queue contender -----------------------

struct mutex_deque {
    std::mutex m;
    std::deque<item> d;
    bool try_push(item v) {
        std::lock_guard lock(m);
        d.push_back(v);
        return true;
    }
    bool try_pop(item& v) {
        std::lock_guard lock(m);
        if (d.empty()) return false;
        v = d.front();
        d.pop_front();
        return true;
    }
};
struct tbb_queue {
    tbb::concurrent_queue<item> q;
    bool try_push(item v) {
        q.push(v);
        return true;
    }
    bool try_pop(item& v) { return q.try_pop(v); }
};
struct boost_queue {
    boost::lockfree::queue<item> q{1024};
    bool try_push(item v) { return q.push(v); }
    bool try_pop(item& v) { return q.pop(v); }
};
struct boost_spsc {
    boost::lockfree::spsc_queue<item> q{1024};
    bool try_push(item v) { return q.push(v); }
    bool try_pop(item& v) { return q.pop(v); }
};
struct weft_spsc {
    weft::ext::spsc_ring<item> q{1024};
    bool try_push(item v) { return q.try_push(v); }
    bool try_pop(item& v) { return q.try_pop(v); }
    std::size_t push_bulk(const item* v, std::size_t n) { return q.try_push_bulk(v, n); }
    std::size_t pop_bulk(item* v, std::size_t n) { return q.try_pop_bulk(v, n); }
};
struct boost_spsc_bulk : boost_spsc {
    std::size_t push_bulk(const item* v, std::size_t n) { return q.push(v, n); }
    std::size_t pop_bulk(item* v, std::size_t n) { return q.pop(v, n); }
};
struct chase_lev_owner {  // owner push + pop (LIFO): its single-thread cost
    weft::ext::work_stealing_deque<std::uint64_t> q{1024};
    std::uint64_t slot = 0;
    bool try_push(item) {
        q.push(&slot);
        return true;
    }
    bool try_pop(item& v) {
        if (q.pop() == nullptr) return false;
        v = the_item;
        return true;
    }
};

template <class Q>
result spsc_one_thread(std::uint64_t ops) {
    auto q = std::make_unique<Q>();
    std::uint64_t ran = 0;
    const double ns_per_tick = weft::detail::cycle_clock_ns_per_tick();
    const auto t0 = weft::detail::cycle_clock_now();
    for (std::uint64_t i = 0; i < ops / 2; ++i) {
        q->try_push(the_item);
        item v = nullptr;
        if (q->try_pop(v)) v(ran);
    }
    const auto t1 = weft::detail::cycle_clock_now();
    if (ran != ops / 2) {
        std::fprintf(stderr, "bench_queues: spsc-1t lost items (%llu of %llu)\n", static_cast<unsigned long long>(ran),
                     static_cast<unsigned long long>(ops / 2));
        std::exit(1);
    }
    const double ticks = static_cast<double>(t1 - t0) / static_cast<double>(ops);
    return {ticks, ticks * ns_per_tick, 1e3 / (ticks * ns_per_tick)};
}

template <class Q>
result spsc_two_threads(std::uint64_t ops) {
    auto q = std::make_unique<Q>();
    const double ns_per_tick = weft::detail::cycle_clock_ns_per_tick();
    std::atomic<int> ready{0};
    std::uint64_t producer_ticks = 0;
    std::thread producer([&] {
        ready.fetch_add(1);
        while (ready.load() < 2) {
        }
        const auto t0 = weft::detail::cycle_clock_now();
        for (std::uint64_t i = 0; i < ops; ++i)
            while (!q->try_push(the_item)) {
            }
        producer_ticks = weft::detail::cycle_clock_now() - t0;
    });
    ready.fetch_add(1);
    while (ready.load() < 2) {
    }
    std::uint64_t ran = 0;
    const auto t0 = weft::detail::cycle_clock_now();
    while (ran < ops) {
        item v = nullptr;
        if (q->try_pop(v)) v(ran);
    }
    const auto consumer_ticks = weft::detail::cycle_clock_now() - t0;
    producer.join();
    const double ticks = static_cast<double>(std::max(producer_ticks, consumer_ticks)) / static_cast<double>(ops);
    return {ticks, ticks * ns_per_tick, 1e3 / (ticks * ns_per_tick)};
}

template <class Q>
result spsc_two_threads_bulk(std::uint64_t ops, std::size_t batch) {
    auto q = std::make_unique<Q>();
    const double ns_per_tick = weft::detail::cycle_clock_ns_per_tick();
    std::atomic<int> ready{0};
    std::uint64_t producer_ticks = 0;
    std::thread producer([&] {
        std::vector<item> out(batch, the_item);
        ready.fetch_add(1);
        while (ready.load() < 2) {
        }
        const auto t0 = weft::detail::cycle_clock_now();
        for (std::uint64_t sent = 0; sent < ops;) {
            const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(batch, ops - sent));
            sent += q->push_bulk(out.data(), want);
        }
        producer_ticks = weft::detail::cycle_clock_now() - t0;
    });
    std::vector<item> in(batch);
    ready.fetch_add(1);
    while (ready.load() < 2) {
    }
    std::uint64_t ran = 0;
    const auto t0 = weft::detail::cycle_clock_now();
    while (ran < ops) {
        const std::size_t got = q->pop_bulk(in.data(), batch);
        for (std::size_t i = 0; i < got; ++i) in[i](ran);
    }
    const auto consumer_ticks = weft::detail::cycle_clock_now() - t0;
    producer.join();
    const double ticks = static_cast<double>(std::max(producer_ticks, consumer_ticks)) / static_cast<double>(ops);
    return {ticks, ticks * ns_per_tick, 1e3 / (ticks * ns_per_tick)};
}

// --- mpmc: T threads, each enqueue + dequeue ---------------------------------------------

/// One run: `body(thread, iterations, ran)` runs each thread's timed loop; `drain(ran)` runs
/// what is left, untimed. Returns the result and checks that every item ran once.
template <class Body, class Drain>
result mpmc_run(unsigned threads, std::uint64_t ops, Body body, Drain drain) {
    const double ns_per_tick = weft::detail::cycle_clock_ns_per_tick();
    const std::uint64_t per_thread = ops / 2 / threads;  // an iteration: one enqueue, one dequeue
    std::vector<std::uint64_t> ran(threads, 0), ticks(threads, 0);
    std::barrier sync(static_cast<std::ptrdiff_t>(threads));
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < threads; ++t) {
        ts.emplace_back([&, t] {
            std::uint64_t mine = 0;
            sync.arrive_and_wait();
            const auto t0 = weft::detail::cycle_clock_now();
            body(t, per_thread, mine);
            ticks[t] = weft::detail::cycle_clock_now() - t0;
            sync.arrive_and_wait();
            ran[t] = mine;
        });
    }
    for (auto& th : ts) th.join();
    std::uint64_t done = 0, timed_ops = 0;
    for (unsigned t = 0; t < threads; ++t) {
        done += ran[t];
        timed_ops += per_thread + ran[t];  // enqueues + dequeues that ran an item
    }
    done += drain();
    if (done != per_thread * threads) {
        std::fprintf(stderr, "bench_queues: mpmc ran %llu items of %llu\n", static_cast<unsigned long long>(done),
                     static_cast<unsigned long long>(per_thread * threads));
        std::exit(1);
    }
    const double wall_ticks = static_cast<double>(*std::max_element(ticks.begin(), ticks.end()));
    // Per operation, per thread: wall ticks over each thread's share of the operations.
    const double per_op = wall_ticks * threads / static_cast<double>(timed_ops);
    return {per_op, per_op * ns_per_tick, static_cast<double>(timed_ops) / (wall_ticks * ns_per_tick) * 1e3};
}

template <class Q>
result mpmc_shared(unsigned threads, std::uint64_t ops) {
    auto q = std::make_unique<Q>();
    return mpmc_run(
        threads, ops,
        [&](unsigned, std::uint64_t n, std::uint64_t& mine) {
            for (std::uint64_t i = 0; i < n; ++i) {
                while (!q->try_push(the_item)) {
                }
                item v = nullptr;
                if (q->try_pop(v)) v(mine);
            }
        },
        [&] {
            std::uint64_t left = 0;
            item v = nullptr;
            while (q->try_pop(v)) v(left);
            return left;
        });
}

result mpmc_xqueue(unsigned threads, std::uint64_t ops, weft::ext::xqueue_placement placement) {
    weft::ext::xqueue<item> q(weft::ext::xqueue_topology::full_mesh(threads), 1024, placement);
    q.attach_all();
    return mpmc_run(
        threads, ops,
        [&](unsigned t, std::uint64_t n, std::uint64_t& mine) {
            for (std::uint64_t i = 0; i < n; ++i) {
                if (q.enqueue(t, the_item) == weft::ext::xqueue<item>::none) the_item(mine);  // all full: inline
                item v = nullptr;
                if (q.pop(t, v)) v(mine);
            }
        },
        [&] {
            std::uint64_t left = 0;
            item v = nullptr;
            for (unsigned t = 0; t < threads; ++t)
                while (q.pop(t, v)) v(left);
            return left;
        });
}

result mpmc_chase_lev(unsigned threads, std::uint64_t ops) {
    std::vector<std::unique_ptr<weft::ext::work_stealing_deque<std::uint64_t>>> dq;
    for (unsigned t = 0; t < threads; ++t) dq.push_back(std::make_unique<weft::ext::work_stealing_deque<std::uint64_t>>(1024));
    std::uint64_t token = 0;  // the deque holds pointers: every item points here
    return mpmc_run(
        threads, ops,
        [&](unsigned t, std::uint64_t n, std::uint64_t& mine) {
            std::uint64_t rng = 0x9e3779b97f4a7c15ULL * (t + 1);
            for (std::uint64_t i = 0; i < n; ++i) {
                dq[t]->push(&token);
                if (dq[t]->pop() != nullptr) {
                    the_item(mine);
                    continue;
                }
                if (threads > 1) {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    std::uint64_t* v = nullptr;
                    const unsigned victim = static_cast<unsigned>((t + 1 + rng % (threads - 1)) % threads);
                    if (dq[victim]->steal(v) == weft::ext::steal_status::success) the_item(mine);
                }
            }
        },
        [&] {
            std::uint64_t left = 0;
            for (auto& d : dq)
                while (d->pop() != nullptr) the_item(left);
            return left;
        });
}

template <class F>
void repeat(const char* bench, const char* queue, unsigned threads, std::uint64_t ops, unsigned reps, F f) {
    f();  // warm-up
    std::vector<result> rs;
    for (unsigned r = 0; r < reps; ++r) rs.push_back(f());
    report(bench, queue, threads, ops, rs);
}

bool parse_list(std::string_view v, std::vector<unsigned>& out) {
    out.clear();
    while (!v.empty()) {
        const auto comma = v.find(',');
        unsigned n = 0;
        if (!weft::bench::detail::parse_number(v.substr(0, comma), n) || n == 0 || n > 256) return false;
        out.push_back(n);
        if (comma == std::string_view::npos) break;
        v.remove_prefix(comma + 1);
    }
    return !out.empty();
}

}  // namespace

int main(int argc, char** argv) {
    std::uint64_t ops = 20'000'000;
    unsigned reps = 5;
    std::size_t batch = 16;
    std::vector<unsigned> threads{1, 2, 4};
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        const auto eq = a.find('=');
        const std::string_view name = a.substr(0, eq), v = eq == std::string_view::npos ? "" : a.substr(eq + 1);
        bool ok = false;
        if (name == "--ops") ok = weft::bench::detail::parse_number(v, ops) && ops >= 1000;
        else if (name == "--reps") ok = weft::bench::detail::parse_number(v, reps) && reps >= 1;
        else if (name == "--threads") ok = parse_list(v, threads);
        else if (name == "--batch") ok = weft::bench::detail::parse_number(v, batch) && batch >= 1 && batch <= 512;
        if (!ok) {
            std::fprintf(stderr,
                         "usage: %s [--ops=N] [--reps=N] [--threads=1,2,4] [--batch=N]\n"
                         "  --ops=N      operations per measurement (default 20000000, at least 1000)\n"
                         "  --reps=N     measurements per figure after a warm-up; the median is shown (default 5)\n"
                         "  --threads=L  thread counts of the mpmc part (default 1,2,4)\n"
                         "  --batch=N    items per bulk operation in spsc-2t-bulk, 1 to 512 (default 16)\n",
                         argv[0]);
            return 2;
        }
    }
    if (!weft::bench::release_build) {
        std::fprintf(stderr, "%s: not an optimised release build; refusing to report (use the bench preset)\n", argv[0]);
        return 2;
    }
    std::printf("# ns per tick: %.4f (%.2f GHz time-stamp counter)\n", weft::detail::cycle_clock_ns_per_tick(),
                1.0 / weft::detail::cycle_clock_ns_per_tick());

    repeat("spsc-1t", "weft-spsc-ring", 1, ops, reps, [&] { return spsc_one_thread<weft_spsc>(ops); });
    repeat("spsc-1t", "boost-spsc-queue", 1, ops, reps, [&] { return spsc_one_thread<boost_spsc>(ops); });
    repeat("spsc-1t", "chase-lev-owner", 1, ops, reps, [&] { return spsc_one_thread<chase_lev_owner>(ops); });
    repeat("spsc-1t", "tbb-concurrent-queue", 1, ops, reps, [&] { return spsc_one_thread<tbb_queue>(ops); });
    repeat("spsc-1t", "boost-lockfree-queue", 1, ops, reps, [&] { return spsc_one_thread<boost_queue>(ops); });
    repeat("spsc-1t", "mutex-deque", 1, ops, reps, [&] { return spsc_one_thread<mutex_deque>(ops); });

    repeat("spsc-2t", "weft-spsc-ring", 2, ops, reps, [&] { return spsc_two_threads<weft_spsc>(ops); });
    repeat("spsc-2t", "boost-spsc-queue", 2, ops, reps, [&] { return spsc_two_threads<boost_spsc>(ops); });
    repeat("spsc-2t", "tbb-concurrent-queue", 2, ops, reps, [&] { return spsc_two_threads<tbb_queue>(ops); });
    repeat("spsc-2t", "boost-lockfree-queue", 2, ops, reps, [&] { return spsc_two_threads<boost_queue>(ops); });
    repeat("spsc-2t", "mutex-deque", 2, ops, reps, [&] { return spsc_two_threads<mutex_deque>(ops); });

    repeat("spsc-2t-bulk", "weft-spsc-ring", 2, ops, reps, [&] { return spsc_two_threads_bulk<weft_spsc>(ops, batch); });
    repeat("spsc-2t-bulk", "boost-spsc-queue", 2, ops, reps,
           [&] { return spsc_two_threads_bulk<boost_spsc_bulk>(ops, batch); });

    for (unsigned t : threads) {
        repeat("mpmc", "weft-xqueue", t, ops, reps,
               [&] { return mpmc_xqueue(t, ops, weft::ext::xqueue_placement::round_robin); });
        repeat("mpmc", "weft-xqueue-local", t, ops, reps,
               [&] { return mpmc_xqueue(t, ops, weft::ext::xqueue_placement::local_first); });
        repeat("mpmc", "chase-lev", t, ops, reps, [&] { return mpmc_chase_lev(t, ops); });
        repeat("mpmc", "tbb-concurrent-queue", t, ops, reps, [&] { return mpmc_shared<tbb_queue>(t, ops); });
        repeat("mpmc", "boost-lockfree-queue", t, ops, reps, [&] { return mpmc_shared<boost_queue>(t, ops); });
        repeat("mpmc", "mutex-deque", t, ops, reps, [&] { return mpmc_shared<mutex_deque>(t, ops); });
    }
    return 0;
}
