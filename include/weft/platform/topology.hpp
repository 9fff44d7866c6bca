// The machine's sockets, NUMA nodes, cores, processing units and caches, discovered once
// with hwloc, and pinning of OS threads to cores.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace weft {

/// One level of the data/unified cache hierarchy (instruction caches are not reported).
struct cache_info {
    unsigned level;            ///< 1 for L1d, 2 for L2, ...
    std::size_t size_bytes;    ///< size of one instance of this cache
    std::size_t line_bytes;    ///< line size; weft::cache_line_size when hwloc does not know it
    unsigned shared_by_cores;  ///< how many of this topology's cores share one instance
};

/// One core: the unit weft pins a worker thread to.
struct core_info {
    unsigned index;             ///< logical index 0..num_cores()-1, in hwloc's logical order
    unsigned os_index;          ///< OS core id (unique per socket only); the logical index if the OS reports none
    std::vector<unsigned> pus;  ///< OS indices of its processing units (hyper-threads), ascending
    unsigned numa_node;         ///< index into topology::numa_nodes() (0 if the machine reports none)
    unsigned socket;            ///< logical index of its package (0 if the machine reports none)
};

/// One NUMA node that holds at least one of this topology's cores.
///
/// Indices are dense: a NUMA node none of whose CPUs this process may use (e.g. under
/// `taskset`), or a CPU-less memory node, is not listed, so a per-node structure indexed by
/// core_info::numa_node never has an empty slot. os_index says which node it is to the OS.
struct numa_node_info {
    unsigned index;              ///< 0..num_numa_nodes()-1
    unsigned os_index;           ///< OS node number (as in /sys/devices/system/node/nodeN)
    std::uint64_t memory_bytes;  ///< local memory, 0 if unknown
    std::vector<unsigned> cores; ///< logical indices of its cores, ascending
};

class topology;

namespace detail {
struct hwloc_handle;
struct topology_builder;
/// The topology machine() returns when hwloc cannot load: std::thread::hardware_concurrency()
/// cores of one PU each, one NUMA node, one socket, no caches, and binding refused with
/// `reason`. Internal; exposed so that the fallback path is tested.
topology fallback_topology(std::string reason);
}  // namespace detail

/// The processing resources weft can run on: sockets, NUMA nodes, cores with their PUs,
/// and caches.
///
/// A topology is immutable once built, so every const member may be called from any thread.
/// It is cheap to copy (the hwloc handle is shared).
///
/// Example (from tests/unit/platform/topology_test.cpp):
/// ```
/// const weft::topology t = weft::topology::synthetic(2, 2, 4, 2);
/// EXPECT_EQ(t.num_cores(), 16u);
/// EXPECT_EQ(t.cores()[5].numa_node, 1u);   // cores 4..7 sit on NUMA node 1
/// EXPECT_EQ(t.cores()[9].socket, 1u);      // cores 8..15 sit on socket 1
/// ```
class topology {
public:
    /// The machine this process runs on, discovered once with hwloc on first call.
    ///
    /// Restricted to the CPUs this process may use: its cgroup/cpuset, and the CPU binding
    /// of the process at the time of the first call (so `taskset -c 0-3` yields 4 PUs).
    /// If hwloc fails to load, returns a fallback (see description()) that cannot bind.
    /// Thread-safe.
    static const topology& machine();

    /// A synthetic topology for tests: `sockets` x `numa_per_socket` x `cores_per_numa` x
    /// `pus_per_core`, numbered in that order (core c has PUs c*pus_per_core + 0..pus_per_core-1).
    ///
    /// It has no caches and cannot bind threads.
    /// @throws std::invalid_argument if a count is 0 or there would be more than 2^20 PUs.
    static topology synthetic(unsigned sockets, unsigned numa_per_socket, unsigned cores_per_numa,
                              unsigned pus_per_core = 1);

    /// Number of processing units (hardware threads) over all cores.
    unsigned num_pus() const noexcept { return num_pus_; }
    /// Number of cores; at least 1.
    unsigned num_cores() const noexcept { return static_cast<unsigned>(cores_.size()); }
    /// Number of NUMA nodes holding at least one core; at least 1.
    unsigned num_numa_nodes() const noexcept { return static_cast<unsigned>(numa_nodes_.size()); }
    /// Number of sockets (packages) holding at least one core; at least 1.
    unsigned num_sockets() const noexcept { return num_sockets_; }

    /// The cores, indexed by core_info::index.
    const std::vector<core_info>& cores() const noexcept { return cores_; }
    /// The NUMA nodes, indexed by numa_node_info::index.
    const std::vector<numa_node_info>& numa_nodes() const noexcept { return numa_nodes_; }
    /// One entry per data/unified cache level (L1d, L2, L3...), ascending, as seen from core 0.
    const std::vector<cache_info>& caches() const noexcept { return caches_; }

    /// Where this topology came from: "hwloc X.Y.Z", "synthetic AxBxCxD", or
    /// "fallback without hwloc: <why hwloc failed>".
    const std::string& description() const noexcept { return description_; }
    /// True when bind_this_thread_to_core() can work at all (a topology of this machine
    /// loaded by hwloc, on a platform that supports thread binding).
    bool can_bind() const noexcept { return no_binding_reason_.empty(); }

    /// Binds the calling OS thread to core `core % num_cores()` (all its PUs).
    ///
    /// @return an empty string on success, else a message saying why not (hwloc/errno text,
    ///         or why this topology cannot bind). Never throws, never aborts.
    std::string bind_this_thread_to_core(unsigned core) const;

    /// Writes a human-readable summary: where the topology came from, the counts, the NUMA
    /// nodes, every core with its socket, node and PUs, and the caches. Used by
    /// `--weft:print-topology`.
    void print(std::ostream& os) const;

private:
    friend struct detail::topology_builder;

    topology() = default;

    std::vector<core_info> cores_;
    std::vector<numa_node_info> numa_nodes_;
    std::vector<cache_info> caches_;
    unsigned num_pus_ = 0;
    unsigned num_sockets_ = 1;
    std::string description_;
    std::string no_binding_reason_;
    std::shared_ptr<const detail::hwloc_handle> hwloc_;  // null unless loaded by hwloc
};

}  // namespace weft
