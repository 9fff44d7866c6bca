// Tests for the perf_event wrapper: every outcome is either a working counter or a closed one
// with a reason, so the tests accept both and check that each is coherent. No durations.
#include "counters/perf_events.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

namespace {

using weft::detail::current_thread_id;
using weft::detail::find_perf_event_kind;
using weft::detail::perf_event_counter;
using weft::detail::perf_event_kind;
using weft::detail::perf_event_kinds;

// Fixed user-space work (a few milliseconds at most); volatile keeps the optimiser from
// folding the loop away.
void busy_loop() {
    volatile std::uint64_t sink = 0;
    for (std::uint64_t i = 0; i < 2'000'000; ++i) sink = sink + i;
}

const perf_event_kind& kind(std::string_view name) {
    const perf_event_kind* k = find_perf_event_kind(name);
    if (k == nullptr) throw std::logic_error("no perf_event kind " + std::string(name));
    return *k;
}

std::size_t open_descriptors() {
    std::size_t n = 0;
    // The iterator's own descriptor is counted too, the same in every call.
    for (auto it = std::filesystem::directory_iterator("/proc/self/fd");
         it != std::filesystem::directory_iterator(); ++it) {
        ++n;
    }
    return n;
}

TEST(perf_event_kinds, names_are_unique_and_found_by_name) {
    const std::set<std::string_view> expected{
        "cycles",           "instructions",   "cache-references", "cache-misses",
        "branch-instructions", "branch-misses", "L1-dcache-load-misses",
        "task-clock",       "context-switches", "cpu-migrations", "page-faults"};
    std::set<std::string_view> names;
    for (const perf_event_kind& k : perf_event_kinds()) {
        ASSERT_NE(k.name, nullptr);
        EXPECT_TRUE(names.insert(k.name).second) << "duplicate kind " << k.name;
        EXPECT_NE(std::string_view(k.unit), "");
        EXPECT_NE(std::string_view(k.help), "");
        EXPECT_EQ(find_perf_event_kind(k.name), &k);
    }
    EXPECT_EQ(names, expected);

    EXPECT_EQ(kind("cycles").type, PERF_TYPE_HARDWARE);
    EXPECT_EQ(kind("L1-dcache-load-misses").type, PERF_TYPE_HW_CACHE);
    EXPECT_EQ(kind("task-clock").type, PERF_TYPE_SOFTWARE);
    EXPECT_EQ(std::string_view(kind("task-clock").unit), "ns");

    EXPECT_EQ(find_perf_event_kind("no-such-event"), nullptr);
    EXPECT_EQ(find_perf_event_kind(""), nullptr);
    EXPECT_EQ(find_perf_event_kind("Cycles"), nullptr);  // names are case-sensitive
}

// Not a check: prints what this machine offers, which the other tests cannot assume.
TEST(perf_event_counter, every_kind_opens_or_says_why) {
    for (const perf_event_kind& k : perf_event_kinds()) {
        perf_event_counter c(current_thread_id(), k);
        busy_loop();
        const std::optional<std::uint64_t> v = c.read();
        if (c.is_open()) {
            std::cout << "[ opened   ] " << k.name << " = "
                      << (v ? std::to_string(*v) : "unreadable: " + c.unavailable_reason()) << ' '
                      << k.unit << '\n';
        } else {
            EXPECT_FALSE(v.has_value());
            EXPECT_NE(c.unavailable_reason().find("perf_event_open"), std::string::npos)
                << c.unavailable_reason();
            std::cout << "[ refused  ] " << k.name << ": " << c.unavailable_reason() << '\n';
        }
    }
}

TEST(perf_event_counter, task_clock_on_calling_thread_grows_across_busy_loop) {
    perf_event_counter c(current_thread_id(), kind("task-clock"));
    if (!c.is_open()) {
        ASSERT_NE(c.unavailable_reason(), "");
        GTEST_SKIP() << "the kernel refuses software perf events here: " << c.unavailable_reason();
    }
    EXPECT_EQ(c.unavailable_reason(), "");
    const std::optional<std::uint64_t> before = c.read();
    ASSERT_TRUE(before.has_value()) << c.unavailable_reason();
    busy_loop();
    const std::optional<std::uint64_t> after = c.read();
    ASSERT_TRUE(after.has_value()) << c.unavailable_reason();
    EXPECT_GT(*after, *before);
}

TEST(perf_event_counter, counts_another_thread_and_main_reads_it) {
    std::atomic<int> tid{0};
    std::atomic<bool> opened{false};
    std::atomic<bool> worked{false};
    std::atomic<bool> stop{false};
    std::thread spinner([&] {
        tid.store(current_thread_id());
        while (!opened.load()) {}
        busy_loop();  // work done after the counter exists, so its count cannot be 0
        worked.store(true);
        while (!stop.load()) {}
    });
    while (tid.load() == 0) std::this_thread::yield();

    perf_event_counter c(tid.load(), kind("task-clock"));
    opened.store(true);
    while (!worked.load()) std::this_thread::yield();
    const std::optional<std::uint64_t> v = c.read();
    stop.store(true);
    spinner.join();

    if (!c.is_open()) {
        ASSERT_NE(c.unavailable_reason(), "");
        GTEST_SKIP() << "the kernel refuses software perf events here: " << c.unavailable_reason();
    }
    ASSERT_TRUE(v.has_value()) << c.unavailable_reason();
    EXPECT_GT(*v, 0U);
}

// The kernel records context switches in its own context; counted with exclude_kernel they
// would open and read 0 forever, so weft includes the kernel for them or reports a refusal.
TEST(perf_event_counter, context_switches_count_a_sleep_or_explain) {
    perf_event_counter c(current_thread_id(), kind("context-switches"));
    if (!c.is_open()) {
        EXPECT_NE(c.unavailable_reason().find("perf_event_open"), std::string::npos)
            << c.unavailable_reason();
        GTEST_SKIP() << "context-switches refused here: " << c.unavailable_reason();
    }
    // Each sleep blocks, so it switches at least once; TSan's instrumented run once read 0
    // after a single 1 ms sleep, so sleep until the count shows it (100 tries at most).
    std::optional<std::uint64_t> v;
    for (int i = 0; i < 100; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        v = c.read();
        ASSERT_TRUE(v.has_value()) << c.unavailable_reason();
        if (*v > 0) break;
    }
    EXPECT_GT(*v, 0U);
}

TEST(perf_event_counter, page_faults_count_touching_fresh_memory) {
    perf_event_counter c(current_thread_id(), kind("page-faults"));
    if (!c.is_open()) {
        EXPECT_NE(c.unavailable_reason(), "");
        GTEST_SKIP() << "page-faults refused here: " << c.unavailable_reason();
    }
    constexpr std::size_t pages = 16;
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    // A fresh anonymous mapping: its pages do not exist until the first write faults them in.
    void* mem = ::mmap(nullptr, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
    ASSERT_NE(mem, MAP_FAILED);
    auto* bytes = static_cast<volatile char*>(mem);
    for (std::size_t i = 0; i < pages; ++i) bytes[i * page] = 1;
    const std::optional<std::uint64_t> v = c.read();
    ::munmap(mem, pages * page);
    ASSERT_TRUE(v.has_value()) << c.unavailable_reason();
    EXPECT_GT(*v, 0U);
}

TEST(perf_event_counter, hardware_cycles_count_or_explain) {
    perf_event_counter c(current_thread_id(), kind("cycles"));
    busy_loop();
    const std::optional<std::uint64_t> v = c.read();
    if (c.is_open()) {
        ASSERT_TRUE(v.has_value()) << c.unavailable_reason();
        EXPECT_GT(*v, 0U);
    } else {
        EXPECT_FALSE(v.has_value());
        EXPECT_NE(c.unavailable_reason().find("perf_event_open"), std::string::npos)
            << c.unavailable_reason();
    }
}

TEST(perf_event_counter, nonexistent_thread_is_closed_with_reason) {
    // Above the kernel's largest possible pid_max (2^22), so no thread ever has this id.
    perf_event_counter c(0x7ffffff0, kind("task-clock"));
    EXPECT_FALSE(c.is_open());
    EXPECT_NE(c.unavailable_reason(), "");
    EXPECT_FALSE(c.read().has_value());
    EXPECT_NE(c.unavailable_reason(), "");
}

TEST(perf_event_counter, negative_thread_id_is_closed_with_reason) {
    perf_event_counter c(-1, kind("task-clock"));
    EXPECT_FALSE(c.is_open());
    EXPECT_NE(c.unavailable_reason().find("not a Linux thread id"), std::string::npos)
        << c.unavailable_reason();
    EXPECT_FALSE(c.read().has_value());
}

TEST(perf_event_counter, default_constructed_is_not_opened) {
    perf_event_counter c;
    EXPECT_FALSE(c.is_open());
    EXPECT_EQ(c.unavailable_reason(), "not opened");
    EXPECT_FALSE(c.read().has_value());
    EXPECT_EQ(c.unavailable_reason(), "not opened");
}

TEST(perf_event_counter, move_transfers_descriptor) {
    const std::size_t fds_before = open_descriptors();
    {
        perf_event_counter a(current_thread_id(), kind("task-clock"));
        if (!a.is_open()) {
            const std::string reason = a.unavailable_reason();
            ASSERT_NE(reason, "");
            perf_event_counter b(std::move(a));
            EXPECT_FALSE(b.is_open());
            EXPECT_EQ(b.unavailable_reason(), reason);  // a refusal's reason moves with it
            GTEST_SKIP() << "the kernel refuses software perf events here: " << reason;
        }
        EXPECT_EQ(open_descriptors(), fds_before + 1);

        perf_event_counter b(std::move(a));
        // NOLINTNEXTLINE(bugprone-use-after-move): the moved-from state is what is checked
        EXPECT_FALSE(a.is_open());
        EXPECT_EQ(a.unavailable_reason(), "not opened");
        EXPECT_FALSE(a.read().has_value());
        ASSERT_TRUE(b.is_open());
        EXPECT_TRUE(b.read().has_value()) << b.unavailable_reason();

        perf_event_counter c;
        c = std::move(b);
        EXPECT_FALSE(b.is_open());  // NOLINT(bugprone-use-after-move)
        ASSERT_TRUE(c.is_open());
        EXPECT_TRUE(c.read().has_value()) << c.unavailable_reason();
        EXPECT_EQ(open_descriptors(), fds_before + 1);  // moved, never duplicated

        // Assigning over an open counter closes its descriptor.
        perf_event_counter d(current_thread_id(), kind("task-clock"));
        ASSERT_TRUE(d.is_open()) << d.unavailable_reason();
        EXPECT_EQ(open_descriptors(), fds_before + 2);
        c = std::move(d);
        EXPECT_EQ(open_descriptors(), fds_before + 1);
        EXPECT_TRUE(c.read().has_value()) << c.unavailable_reason();
    }
    EXPECT_EQ(open_descriptors(), fds_before);  // destructors closed the rest
}

}  // namespace
