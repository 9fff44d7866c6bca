// weft::collectives with one locality (no mpirun, or a build without MPI): every
// collective completes at once with the single member's result (issue #24); misuse still
// throws. The distributed runs are tests/distributed/collectives.cpp.
#include <weft/distributed/collectives.hpp>
#include <weft/weft.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace wc = weft::collectives;

// First: after a one-locality runtime has stopped, locality.cpp still says one runs
// (stop_progress returns before clearing `running` when there is no transport).
TEST(collectives, no_runtime_is_refused) {
    EXPECT_THROW((void)wc::world(), weft::runtime_state_error);
    EXPECT_THROW((void)wc::all_reduce(1, std::plus<>{}), weft::runtime_state_error);
}

TEST(collectives, one_locality_completes_at_once) {
    weft::runtime rt(weft::runtime_config{});
    weft::async([] {
        const wc::communicator w = wc::world();
        EXPECT_EQ(w.size(), 1u);
        EXPECT_EQ(w.rank(), 0u);
        auto sum = wc::all_reduce(3, std::plus<>{});
        EXPECT_TRUE(sum.is_ready());
        EXPECT_EQ(sum.get(), 3);
        EXPECT_EQ(wc::all_reduce(std::string("a"), [](std::string x, const std::string& y) { return x + y; }).get(), "a");
        EXPECT_EQ(wc::reduce(2.5, wc::max_op{}, 0).get(), 2.5);
        EXPECT_EQ(wc::broadcast(std::string("b"), 0).get(), "b");
        EXPECT_EQ(wc::all_gather(7).get(), std::vector<int>{7});
        EXPECT_EQ(wc::gather(std::string("g"), 0).get(), std::vector<std::string>{"g"});
        EXPECT_EQ(wc::scatter(std::vector<int>{9}, 0).get(), 9);
        EXPECT_EQ(wc::all_to_all(std::vector<std::string>{"x"}).get(), std::vector<std::string>{"x"});
        EXPECT_EQ(wc::exclusive_scan(5, std::plus<>{}).get(), 0);
        wc::barrier().get();
        const wc::communicator split = w.split(4);
        EXPECT_EQ(split.localities(), std::vector<std::uint32_t>{0});
        EXPECT_EQ(wc::all_reduce(split, 1, std::plus<>{}).get(), 1);
        EXPECT_THROW((void)wc::reduce(1, std::plus<>{}, 1), weft::error);
        EXPECT_THROW((void)wc::scatter(std::vector<int>{1, 2}, 0), weft::error);
        EXPECT_THROW((void)wc::communicator(std::vector<std::uint32_t>{1}), weft::error);
    }).get();
}

TEST(collectives, a_communicator_belongs_to_its_runtime) {
    std::optional<wc::communicator> kept;
    {
        weft::runtime rt(weft::runtime_config{});
        weft::async([&] { kept = wc::world(); }).get();
    }
    weft::runtime rt(weft::runtime_config{});
    weft::async([&] {
        // The old runtime's stop retired its communicators, at one locality as at several
        // (a regression test: one locality used to skip the stop's clean-up).
        EXPECT_EQ(kept->size(), 1u);
        EXPECT_THROW((void)wc::all_reduce(*kept, 2, std::plus<>{}), weft::runtime_state_error);
        EXPECT_EQ(wc::all_reduce(wc::world(), 2, std::plus<>{}).get(), 2);
    }).get();
}
