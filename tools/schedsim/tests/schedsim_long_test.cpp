// tools/schedsim on the seed's 10^8-node UTS trees (Table 1): the simulated runs count
// T1L and T3L exactly. Release builds only (label `long`); skipped under the sanitizers.
#include "sim.hpp"

#include <weft/config/config.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace {

using namespace weft::schedsim;

void count(const char* tree, std::uint64_t nodes) {
    if (WEFT_HAVE_ASAN || WEFT_HAVE_TSAN) GTEST_SKIP() << "10^8-node trees: release builds only";
    config c;
    c.machine = "sockets:2,cores:4";
    c.workload = std::string("uts:") + tree;
    const result r = simulate_once(c);
    EXPECT_EQ(r.tasks, nodes);
    EXPECT_EQ(r.tasks, r.queued + r.serialized + r.roots);
    EXPECT_LE(r.max_queue, 40u);
    EXPECT_LE(r.max_public, 20u);
}

TEST(schedsim_long, uts_t1l_has_102181082_nodes) { count("T1L", 102181082); }
TEST(schedsim_long, uts_t3l_has_111345631_nodes) { count("T3L", 111345631); }

}  // namespace
