// INNCABS Round (seed 000 Table 7: co-dependent, two mutexes per task, coarse: ~9.7 ms
// per task): the dining philosophers. n philosophers sit round a table with a fork (a
// mutex) between each two; each is one async task that eats until it has eaten `full`
// milliseconds: a bite is 1 to `bite` ms (uniform), taken with both forks held, picked up
// in an order a coin decides and locked together by std::lock (deadlock-free whatever
// the order); a bite is work done while holding them. Neighbours exclude each other, so
// at most n/2 eat at once; the tasks are co-dependent through the forks they share.
// Sizes: --n=N philosophers (default 512), --full=MS (default 10), --bite=MS (default 10):
// the suite's standard input, "512 10" (Table 3: 512 tasks). --work=spin|compute: a
// bite polls the steady clock until its time is up (spin, the default: the original's,
// in which a preempted OS thread keeps eating in wall-clock time) or runs a calibrated
// arithmetic loop of that length (compute: CPU work, which a preempted thread does not
// do). Checks, for every philosopher, that he ate exactly `full` ms in the bites his
// generator dictates, and that no fork was ever held by two philosophers eating at once.
// Small input: --n=8 (8 tasks, 80 ms of eating in all).
//
// Deviation: each philosopher's generator (std::mt19937_64, as the original) is seeded
// with his seat number instead of std::random_device, so that every run eats the same
// bites and the check knows them.
#include "inncabs/inncabs.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;
using milliseconds = std::chrono::milliseconds;

enum class work_kind { spin, compute };

/// Iterations of compute_loop per millisecond, measured once before the runs.
std::uint64_t loop_per_ms = 0;

/// A dependent chain of multiply-adds: `iterations` of them, not optimised away.
[[gnu::noinline]] std::uint64_t compute_loop(std::uint64_t iterations) noexcept {
    std::uint64_t x = iterations;
    for (std::uint64_t i = 0; i < iterations; ++i) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        asm volatile("" : "+r"(x));
    }
    return x;
}

/// The fastest of a few ~5 ms timings of compute_loop, as iterations per ms.
std::uint64_t calibrate() {
    constexpr std::uint64_t probe = 1 << 20;
    double best = 1e30;
    for (int i = 0; i < 7; ++i) {
        const auto t0 = clock_type::now();
        (void)compute_loop(probe);
        best = std::min(best, std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
    }
    return static_cast<std::uint64_t>(static_cast<double>(probe) / best);
}

/// A fork: its mutex, and who is eating with it (-1: nobody), for the check.
struct table_fork {
    inncabs::mutex m;
    std::atomic<int> eater{-1};
};

class philosopher {
public:
    philosopher(int seat, table_fork& left, table_fork& right, milliseconds full, int bite, work_kind work)
        : rng_(static_cast<std::uint64_t>(seat)), seat_(seat), left_(left), right_(right), full_(full),
          bite_(bite), work_(work) {}

    void dine() {
        while (eaten_ < full_) eat();
    }

    milliseconds eaten() const noexcept { return eaten_; }
    int bites() const noexcept { return bites_; }
    bool clashed() const noexcept { return clashed_; }

    /// The bites a philosopher in `seat` takes: what his generator dictates.
    static int expected_bites(int seat, milliseconds full, int bite) {
        std::mt19937_64 rng(static_cast<std::uint64_t>(seat));
        milliseconds eaten{0};
        int bites = 0;
        while (eaten < full) {
            (void)flip_coin(rng);
            eaten += bite_length(rng, full - eaten, bite);
            ++bites;
        }
        return bites;
    }

private:
    static bool flip_coin(std::mt19937_64& rng) { return std::bernoulli_distribution{}(rng); }
    static milliseconds bite_length(std::mt19937_64& rng, milliseconds left, int bite) {
        return std::min(milliseconds(std::uniform_int_distribution<int>(1, bite)(rng)), left);
    }

    void eat() {
        using lock = std::unique_lock<inncabs::mutex>;
        lock first, second;
        if (flip_coin(rng_)) {
            first = lock(left_.m, std::defer_lock);
            second = lock(right_.m, std::defer_lock);
        } else {
            first = lock(right_.m, std::defer_lock);
            second = lock(left_.m, std::defer_lock);
        }
        const milliseconds d = bite_length(rng_, full_ - eaten_, bite_);
        std::lock(first, second);
        // relaxed: the forks' mutexes order these; the exchange only detects a second eater.
        if (left_.eater.exchange(seat_, std::memory_order_relaxed) != -1) clashed_ = true;
        if (right_.eater.exchange(seat_, std::memory_order_relaxed) != -1) clashed_ = true;
        if (work_ == work_kind::spin) {
            const auto end = clock_type::now() + d;
            while (clock_type::now() < end) {
            }
        } else {
            sink_ += compute_loop(static_cast<std::uint64_t>(d.count()) * loop_per_ms);
        }
        // relaxed: as above; the unlocks that follow publish them.
        left_.eater.store(-1, std::memory_order_relaxed);
        right_.eater.store(-1, std::memory_order_relaxed);
        eaten_ += d;
        ++bites_;
    }

    std::mt19937_64 rng_;
    int seat_;
    table_fork& left_;
    table_fork& right_;
    milliseconds full_;
    int bite_;
    work_kind work_;
    milliseconds eaten_{0};
    int bites_ = 0;
    bool clashed_ = false;
    std::uint64_t sink_ = 0;
};

struct outcome {
    bool ok;
    std::string why;
    std::uint64_t bites;
};

}  // namespace

int main(int argc, char** argv) {
    int n = 512, full = 10, bite = 10;
    work_kind work = work_kind::spin;
    const inncabs::common_options o = inncabs::parse(
        argc, argv, "inncabs round: the dining philosophers, an async per philosopher",
        {{"n", "philosophers, 2 to 100000 (default 512)",
          [&n](std::string_view v) { return inncabs::parse_number(v, n, 2, 100000); }},
         {"full", "milliseconds each eats in all, 1 to 100000 (default 10)",
          [&full](std::string_view v) { return inncabs::parse_number(v, full, 1, 100000); }},
         {"bite", "longest bite in milliseconds, 1 to 100000 (default 10)",
          [&bite](std::string_view v) { return inncabs::parse_number(v, bite, 1, 100000); }},
         {"work", "spin (poll the clock, default) or compute (a calibrated loop)", [&work](std::string_view v) {
              if (v == "spin") work = work_kind::spin;
              else if (v == "compute") work = work_kind::compute;
              else return false;
              return true;
          }}});
    if (work == work_kind::compute) loop_per_ms = calibrate();

    std::vector<int> expected(static_cast<std::size_t>(n));
    std::uint64_t expected_total = 0;
    for (int i = 0; i < n; ++i) {
        expected[static_cast<std::size_t>(i)] = philosopher::expected_bites(i, milliseconds(full), bite);
        expected_total += static_cast<std::uint64_t>(expected[static_cast<std::size_t>(i)]);
    }

    return inncabs::run(
        "round", o, std::to_string(n) + "x" + std::to_string(full) + "ms", static_cast<std::uint64_t>(n),
        [&] {
            const auto table = std::make_unique<table_fork[]>(static_cast<std::size_t>(n));
            std::vector<philosopher> diners;
            diners.reserve(static_cast<std::size_t>(n));
            for (int i = 0; i < n; ++i) {
                diners.emplace_back(i, table[static_cast<std::size_t>(i)], table[static_cast<std::size_t>((i + 1) % n)],
                                    milliseconds(full), bite, work);
            }
            std::vector<inncabs::future<void>> dining;
            dining.reserve(diners.size());
            for (philosopher& d : diners) dining.push_back(inncabs::async(o.policy, &philosopher::dine, &d));
            for (inncabs::future<void>& f : dining) f.get();
            outcome r{true, {}, 0};
            for (int i = 0; i < n; ++i) {
                const philosopher& d = diners[static_cast<std::size_t>(i)];
                r.bites += static_cast<std::uint64_t>(d.bites());
                if (r.ok && (d.clashed() || d.eaten() != milliseconds(full) || d.bites() != expected[static_cast<std::size_t>(i)])) {
                    r.ok = false;
                    r.why = "philosopher " + std::to_string(i) + (d.clashed() ? " shared a fork with a neighbour eating" : "") +
                            " ate " + std::to_string(d.eaten().count()) + " ms in " + std::to_string(d.bites()) +
                            " bites, not " + std::to_string(full) + " ms in " +
                            std::to_string(expected[static_cast<std::size_t>(i)]);
                }
            }
            return r;
        },
        [expected_total](const outcome& r) {
            if (!r.ok) return inncabs::verdict{false, r.why};
            return inncabs::verdict{r.bites == expected_total, std::to_string(r.bites)};
        });
}
