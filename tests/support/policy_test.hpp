// Test support: run a test body on every scheduler policy (and several worker counts),
// so that a new policy inherits the whole suite.
#pragma once

#include <weft/weft.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>

namespace weft::test {

struct policy_case {
    const char* scheduler;
    unsigned threads;
};

/// How gtest prints a case in a failure message.
inline void PrintTo(const policy_case& c, std::ostream* os) { *os << c.scheduler << " with " << c.threads << " worker(s)"; }

inline std::string case_name(const ::testing::TestParamInfo<policy_case>& info) {
    std::string s = info.param.scheduler;
    for (char& c : s)
        if (c == '-') c = '_';
    return s + "_" + std::to_string(info.param.threads);
}

/// A fixture that starts a runtime for the parameter's policy and stops it afterwards.
class policy_test : public ::testing::TestWithParam<policy_case> {
protected:
    void SetUp() override { rt_ = std::make_unique<weft::runtime>(config()); }
    void TearDown() override { rt_.reset(); }

    virtual weft::runtime_config config() const {
        weft::runtime_config cfg;
        cfg.scheduler = GetParam().scheduler;
        cfg.threads = GetParam().threads;
        cfg.bind = false;  // tests oversubscribe; let the OS place threads
        return cfg;
    }

    /// Runs `f` as a task and waits for it from the test's thread.
    template <class F>
    auto in_task(F&& f) {
        return weft::async(std::forward<F>(f)).get();
    }

    weft::runtime& rt() { return *rt_; }
    bool single_worker() const { return GetParam().threads == 1; }

private:
    std::unique_ptr<weft::runtime> rt_;
};

// Every policy, at one worker, at two and oversubscribed (more workers than CI's two
// cores; `hierarchical` at 3: two of its workers share a core, a level of its hierarchy).
// Under TSan, six cases: every policy that runs workers concurrently, once
// (local-priority, static and xqueue-wait at 2, xqueue at 2, xqueue-static at 3 for its
// round-robin over several others, hierarchical at 2). TSan judges races by happens-before, not by which
// interleaving the OS picked; an oversubscribed instrumented runtime spent most of the
// TSan suite's time in time slices, and `single` (one worker) has no race between
// workers to find. The release and ASan builds run all ten.
#if WEFT_HAVE_TSAN
#define WEFT_TEST_POLICY_CASES                                                                           \
    ::weft::test::policy_case{"local-priority", 2}, ::weft::test::policy_case{"static", 2},              \
        ::weft::test::policy_case{"xqueue", 2}, ::weft::test::policy_case{"xqueue-static", 3},           \
        ::weft::test::policy_case{"xqueue-wait", 2}, ::weft::test::policy_case{"hierarchical", 2}
#else
#define WEFT_TEST_POLICY_CASES                                                                           \
    ::weft::test::policy_case{"local-priority", 1}, ::weft::test::policy_case{"local-priority", 2},      \
        ::weft::test::policy_case{"local-priority", 4}, ::weft::test::policy_case{"static", 2},          \
        ::weft::test::policy_case{"static", 3}, ::weft::test::policy_case{"single", 1},                  \
        ::weft::test::policy_case{"xqueue", 2}, ::weft::test::policy_case{"xqueue-static", 3},           \
        ::weft::test::policy_case{"xqueue-wait", 2}, ::weft::test::policy_case{"hierarchical", 3}
#endif

#define WEFT_INSTANTIATE_FOR_ALL_POLICIES(fixture)                                                       \
    INSTANTIATE_TEST_SUITE_P(policies, fixture, ::testing::Values(WEFT_TEST_POLICY_CASES),               \
                             ::weft::test::case_name)

}  // namespace weft::test
