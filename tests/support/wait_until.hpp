// Polling with a deadline, for tests that wait on a condition the workload guarantees.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <thread>

namespace weft::test {

/// Polls `pred` until it holds; fails the test (and returns false) after a deadline far
/// beyond any expected wait, so that a bug shows as a failure, not a hang.
inline bool wait_until(const std::function<bool()>& pred, const char* what) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!pred()) {
        if (std::chrono::steady_clock::now() > deadline) {
            ADD_FAILURE() << "timed out waiting for: " << what;
            return false;
        }
        std::this_thread::yield();
    }
    return true;
}

}  // namespace weft::test
