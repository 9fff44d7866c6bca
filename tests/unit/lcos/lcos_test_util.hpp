// Helpers shared by the lcos tests: stress sizes for sanitizer builds, random yields,
// and waiting for a condition without blocking a worker.
#pragma once

#include "support/policy_test.hpp"

#include <weft/lcos/lcos.hpp>

#include <algorithm>
#include <exception>
#include <random>
#include <thread>

namespace weft::test {

/// `n` iterations in a release build, fewer under a sanitizer: the stress tests must
/// finish in seconds on two cores there (ASan is ~3x slower, TSan 5-10x).
constexpr int scaled(int n) { return WEFT_HAVE_TSAN ? std::max(1, n / 8) : WEFT_HAVE_ASAN ? std::max(1, n / 4) : n; }

/// Yields the calling task (or thread) at random, to shake up interleavings.
class random_yield {
public:
    explicit random_yield(unsigned seed) : rng_(seed + 1) {}
    /// Yields with probability 1/k.
    void operator()(unsigned k = 4) {
        if (rng_() % k == 0) weft::this_task::yield();
    }
    unsigned next(unsigned bound) { return static_cast<unsigned>(rng_() % bound); }

private:
    std::minstd_rand rng_;
};

/// Yields the task (or thread) until pred() holds: lets the other tasks on a single
/// worker run meanwhile.
template <class Predicate>
void yield_until(Predicate pred) {
    while (!pred()) weft::this_task::yield();
}

/// Runs body(id) at once on `tasks` weft tasks (ids 0 to tasks-1) and on one plain OS
/// thread (id 1000), and returns when all have finished: an LCO serves both kinds of
/// waiter, and the stress tests mix them.
template <class Body>
void run_tasks_and_a_thread(unsigned tasks, Body& body) {
    std::thread plain(body, 1000u);
    try {
        weft::async([&] {
            weft::task_group g;
            for (unsigned id = 0; id < tasks; ++id) g.run([&body, id] { body(id); });
            g.wait();
        }).get();
    } catch (...) {
        plain.join();
        throw;
    }
    plain.join();
}

}  // namespace weft::test
