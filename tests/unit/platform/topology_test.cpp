// Tests of weft::topology: the real machine's invariants, the binding contract, synthetic
// topologies and the hwloc-failure fallback.
#include "weft/platform/topology.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace {

// Structural invariants every topology must satisfy, whatever machine it describes.
void expect_consistent(const weft::topology& t) {
    ASSERT_GE(t.num_cores(), 1u);
    ASSERT_GE(t.num_pus(), 1u);
    ASSERT_GE(t.num_numa_nodes(), 1u);
    ASSERT_GE(t.num_sockets(), 1u);
    ASSERT_EQ(t.cores().size(), t.num_cores());
    ASSERT_EQ(t.numa_nodes().size(), t.num_numa_nodes());

    std::set<unsigned> pus;
    std::size_t pu_count = 0;
    for (std::size_t i = 0; i < t.cores().size(); ++i) {
        const weft::core_info& c = t.cores()[i];
        EXPECT_EQ(c.index, i);
        EXPECT_FALSE(c.pus.empty()) << "core " << i;
        EXPECT_TRUE(std::is_sorted(c.pus.begin(), c.pus.end())) << "core " << i;
        EXPECT_LT(c.numa_node, t.num_numa_nodes()) << "core " << i;
        EXPECT_LT(c.socket, t.num_sockets()) << "core " << i;
        pus.insert(c.pus.begin(), c.pus.end());
        pu_count += c.pus.size();
    }
    EXPECT_EQ(pus.size(), pu_count) << "a PU OS index appears in two cores";
    EXPECT_EQ(pu_count, t.num_pus());

    // numa_nodes() lists exactly the cores that name it, and no node is empty.
    std::size_t listed = 0;
    for (std::size_t n = 0; n < t.numa_nodes().size(); ++n) {
        const weft::numa_node_info& node = t.numa_nodes()[n];
        EXPECT_EQ(node.index, n);
        EXPECT_FALSE(node.cores.empty()) << "NUMA node " << n;
        for (unsigned c : node.cores) {
            ASSERT_LT(c, t.num_cores());
            EXPECT_EQ(t.cores()[c].numa_node, n);
        }
        listed += node.cores.size();
    }
    EXPECT_EQ(listed, t.num_cores());

    // Every socket index in range is used by some core.
    std::set<unsigned> sockets;
    for (const weft::core_info& c : t.cores()) sockets.insert(c.socket);
    EXPECT_EQ(sockets.size(), t.num_sockets());

    unsigned previous_level = 0;
    for (const weft::cache_info& c : t.caches()) {
        EXPECT_GT(c.level, previous_level);
        previous_level = c.level;
        EXPECT_GT(c.size_bytes, 0u);
        EXPECT_GT(c.line_bytes, 0u);
        EXPECT_GE(c.shared_by_cores, 1u);
        EXPECT_LE(c.shared_by_cores, t.num_cores());
    }
}

#if defined(__linux__)
// The OS PUs the calling thread may run on, read independently of hwloc.
std::vector<unsigned> current_thread_affinity() {
    cpu_set_t set;
    CPU_ZERO(&set);
    EXPECT_EQ(pthread_getaffinity_np(pthread_self(), sizeof(set), &set), 0);
    std::vector<unsigned> cpus;
    for (unsigned cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    return cpus;
}
#endif

// The binding contract for one call: success means the thread now runs only on the PUs of
// core `core % num_cores()`; failure means a non-empty reason.
void expect_bind_contract(const weft::topology& t, unsigned core) {
    const std::string error = t.bind_this_thread_to_core(core);
    if (!t.can_bind()) {
        EXPECT_FALSE(error.empty());
    }
    if (!error.empty()) return;
#if defined(__linux__)
    EXPECT_EQ(current_thread_affinity(), t.cores()[core % t.num_cores()].pus);
#endif
}

TEST(topology, machine_is_consistent) { expect_consistent(weft::topology::machine()); }

TEST(topology, machine_is_discovered_once) {
    const weft::topology* first = &weft::topology::machine();
    std::vector<const weft::topology*> seen(4, nullptr);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < seen.size(); ++i)
        threads.emplace_back([&seen, i] { seen[i] = &weft::topology::machine(); });
    for (std::thread& th : threads) th.join();
    for (const weft::topology* p : seen) EXPECT_EQ(p, first);
}

TEST(topology, machine_pus_are_allowed_for_this_process) {
#if defined(__linux__)
    // Run before any test binds the main thread: the main thread may use every PU listed.
    if (!weft::topology::machine().can_bind())
        GTEST_SKIP() << "the topology may not describe this machine: " << weft::topology::machine().description();
    const std::vector<unsigned> allowed = current_thread_affinity();
    for (const weft::core_info& c : weft::topology::machine().cores())
        for (unsigned pu : c.pus) EXPECT_TRUE(std::binary_search(allowed.begin(), allowed.end(), pu)) << "PU " << pu;
#else
    GTEST_SKIP() << "affinity is read with Linux calls";
#endif
}

TEST(topology, binding_core_zero_from_a_fresh_thread_keeps_the_contract) {
    const weft::topology& t = weft::topology::machine();
    std::string error = "not run";
    std::thread th([&] {
        error = t.bind_this_thread_to_core(0);
        expect_bind_contract(t, 0);
    });
    th.join();
    if (!error.empty()) {
        EXPECT_NE(error, "not run");
        std::cout << "[ info     ] binding not possible here: " << error << '\n';
    }
}

TEST(topology, binding_wraps_the_core_index) {
    const weft::topology& t = weft::topology::machine();
    std::thread th([&] {
        expect_bind_contract(t, t.num_cores());      // core 0
        expect_bind_contract(t, t.num_cores() + 1);  // core 1 % n
        expect_bind_contract(t, UINT_MAX);
    });
    th.join();
}

TEST(topology, every_thread_binds_to_its_own_core_concurrently) {
    const weft::topology& t = weft::topology::machine();
    const unsigned n = std::min(t.num_cores(), 16u) * 2;
    std::vector<std::thread> threads;
    for (unsigned i = 0; i < n; ++i) threads.emplace_back([&t, i] { expect_bind_contract(t, i); });
    for (std::thread& th : threads) th.join();
}

TEST(topology, a_copy_binds_like_the_original) {
    const weft::topology copy = weft::topology::machine();
    EXPECT_EQ(copy.num_cores(), weft::topology::machine().num_cores());
    EXPECT_EQ(copy.can_bind(), weft::topology::machine().can_bind());
    std::thread th([&] { expect_bind_contract(copy, 0); });
    th.join();
}

TEST(topology, synthetic_2_2_4_2) {
    const weft::topology t = weft::topology::synthetic(2, 2, 4, 2);
    expect_consistent(t);
    EXPECT_EQ(t.num_cores(), 16u);
    EXPECT_EQ(t.num_pus(), 32u);
    EXPECT_EQ(t.num_numa_nodes(), 4u);
    EXPECT_EQ(t.num_sockets(), 2u);
    EXPECT_EQ(t.cores()[5].numa_node, 1u);
    EXPECT_EQ(t.cores()[9].socket, 1u);
    for (unsigned c = 0; c < 16; ++c) {
        const weft::core_info& core = t.cores()[c];
        EXPECT_EQ(core.numa_node, c / 4) << "core " << c;
        EXPECT_EQ(core.socket, c / 8) << "core " << c;
        EXPECT_EQ(core.pus, (std::vector<unsigned>{2 * c, 2 * c + 1})) << "core " << c;
    }
    for (unsigned n = 0; n < 4; ++n)
        EXPECT_EQ(t.numa_nodes()[n].cores, (std::vector<unsigned>{4 * n, 4 * n + 1, 4 * n + 2, 4 * n + 3}));
    EXPECT_TRUE(t.caches().empty());
    EXPECT_EQ(t.description(), "synthetic 2x2x4x2");
}

TEST(topology, synthetic_cannot_bind) {
    const weft::topology t = weft::topology::synthetic(1, 1, 2);
    EXPECT_FALSE(t.can_bind());
    EXPECT_EQ(t.bind_this_thread_to_core(0), "synthetic topology: binding not possible");
    EXPECT_EQ(t.bind_this_thread_to_core(7), "synthetic topology: binding not possible");
}

TEST(topology, synthetic_defaults_to_one_pu_per_core) {
    const weft::topology t = weft::topology::synthetic(1, 2, 3);
    expect_consistent(t);
    EXPECT_EQ(t.num_cores(), 6u);
    EXPECT_EQ(t.num_pus(), 6u);
    EXPECT_EQ(t.num_sockets(), 1u);
    EXPECT_EQ(t.cores()[4].pus, std::vector<unsigned>{4});
}

TEST(topology, synthetic_rejects_empty_and_huge_shapes) {
    EXPECT_THROW(weft::topology::synthetic(0, 1, 1), std::invalid_argument);
    EXPECT_THROW(weft::topology::synthetic(1, 0, 1), std::invalid_argument);
    EXPECT_THROW(weft::topology::synthetic(1, 1, 0), std::invalid_argument);
    EXPECT_THROW(weft::topology::synthetic(1, 1, 1, 0), std::invalid_argument);
    EXPECT_THROW(weft::topology::synthetic(1u << 16, 1u << 16, 1u << 16, 1u << 16), std::invalid_argument);
}

TEST(topology, fallback_has_one_node_one_socket_and_says_why_it_cannot_bind) {
    const weft::topology t = weft::detail::fallback_topology("hwloc_topology_load failed: test");
    expect_consistent(t);
    EXPECT_EQ(t.num_cores(), std::max(1u, std::thread::hardware_concurrency()));
    EXPECT_EQ(t.num_pus(), t.num_cores());
    EXPECT_EQ(t.num_numa_nodes(), 1u);
    EXPECT_EQ(t.num_sockets(), 1u);
    EXPECT_FALSE(t.can_bind());
    const std::string error = t.bind_this_thread_to_core(0);
    EXPECT_NE(error.find("hwloc_topology_load failed: test"), std::string::npos) << error;
}

TEST(topology, print_mentions_the_core_count) {
    std::ostringstream synthetic;
    weft::topology::synthetic(2, 2, 4, 2).print(synthetic);
    EXPECT_NE(synthetic.str().find("16 cores"), std::string::npos) << synthetic.str();
    EXPECT_NE(synthetic.str().find("32 PUs"), std::string::npos) << synthetic.str();
    EXPECT_NE(synthetic.str().find("core 15 (os 15): socket 1, NUMA node 3, PUs 30-31"), std::string::npos)
        << synthetic.str();

    const weft::topology& m = weft::topology::machine();
    std::ostringstream machine;
    m.print(machine);
    const std::string count = std::to_string(m.num_cores()) + (m.num_cores() == 1 ? " core," : " cores,");
    EXPECT_NE(machine.str().find(count), std::string::npos) << machine.str();
    std::cout << machine.str();
}

}  // namespace
