// Builds weft::topology from hwloc (or synthetically, or from hardware_concurrency when hwloc
// fails) and binds OS threads to cores through hwloc.
#include "weft/platform/topology.hpp"

#include "weft/config/config.hpp"

#include <hwloc.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace weft {
namespace detail {

/// Owns one loaded hwloc topology and, per weft core, the cpuset that binding uses.
/// Read-only once built: hwloc allows concurrent queries and binding calls on a topology
/// that nobody modifies.
struct hwloc_handle {
    hwloc_topology_t topo = nullptr;
    std::vector<hwloc_const_cpuset_t> core_cpusets;  // borrowed from topo's objects

    hwloc_handle() = default;
    hwloc_handle(const hwloc_handle&) = delete;
    hwloc_handle& operator=(const hwloc_handle&) = delete;
    ~hwloc_handle() {
        if (topo != nullptr) hwloc_topology_destroy(topo);
    }
};

namespace {

// HWLOC_UNKNOWN_INDEX, spelled without the header's C-style cast.
constexpr unsigned unknown_index = ~0u;

std::string errno_text(int e) { return std::generic_category().message(e); }

// "0-3,8,10-11": ascending values, runs collapsed.
std::string format_list(const std::vector<unsigned>& values) {
    std::string out;
    for (std::size_t i = 0; i < values.size();) {
        std::size_t j = i;
        while (j + 1 < values.size() && values[j + 1] == values[j] + 1) ++j;
        if (!out.empty()) out += ',';
        out += std::to_string(values[i]);
        if (j > i) out += '-' + std::to_string(values[j]);
        i = j + 1;
    }
    return out.empty() ? std::string("none") : out;
}

// "32 KiB", "4.5 GiB": the largest binary unit not above the value, one decimal if inexact.
std::string format_bytes(std::uint64_t bytes) {
    static constexpr std::array<const char*, 5> units{"B", "KiB", "MiB", "GiB", "TiB"};
    std::size_t u = 0;
    while (u + 1 < units.size() && (bytes >> (10 * (u + 1))) != 0) ++u;
    const unsigned shift = static_cast<unsigned>(10 * u);
    const std::uint64_t whole = bytes >> shift;
    const std::uint64_t rest = bytes - (whole << shift);
    std::string out = std::to_string(whole);
    if (rest != 0) {
        const std::uint64_t tenths = (rest * 10) >> shift;
        out += '.' + std::to_string(tenths);
    }
    return out + ' ' + units[u];
}

std::string plural(unsigned n, const char* one, const char* many) {
    return std::to_string(n) + ' ' + (n == 1 ? one : many);
}

// Maps sparse hwloc logical indices, in ascending order, to 0..n-1.
class dense_index {
public:
    void add(unsigned sparse) { keys_.push_back(sparse); }
    void finish() {
        std::sort(keys_.begin(), keys_.end());
        keys_.erase(std::unique(keys_.begin(), keys_.end()), keys_.end());
    }
    unsigned operator()(unsigned sparse) const noexcept {
        const auto it = std::lower_bound(keys_.begin(), keys_.end(), sparse);
        return static_cast<unsigned>(it - keys_.begin());
    }
    std::size_t size() const noexcept { return keys_.size(); }

private:
    std::vector<unsigned> keys_;
};

// The NUMA node local to `cpuset`: the first (in logical order) whose cpuset contains it,
// else the first that overlaps it, else none. Cpuset inclusion rather than walking parents,
// because hwloc 2 hangs NUMA nodes (and memory-side caches) off the CPU tree.
hwloc_obj_t local_numa_node(const std::vector<hwloc_obj_t>& nodes, hwloc_const_cpuset_t cpuset) {
    for (hwloc_obj_t n : nodes)
        if (n->cpuset != nullptr && hwloc_bitmap_isincluded(cpuset, n->cpuset) != 0) return n;
    for (hwloc_obj_t n : nodes)
        if (n->cpuset != nullptr && hwloc_bitmap_intersects(cpuset, n->cpuset) != 0) return n;
    return nullptr;
}

enum class restrict_result { unchanged, restricted, destroyed };

// Restricts `topo` to the CPUs this process is bound to (taskset, MPI launcher binding...);
// hwloc has already removed what the cgroup/cpuset forbids. A failure to read the binding
// leaves the topology whole; a failure to allocate inside hwloc_topology_restrict leaves it
// unloaded, reported as `destroyed` with `error` set.
restrict_result restrict_to_process_binding(hwloc_topology_t topo, std::string& error) {
    if (hwloc_topology_is_thissystem(topo) == 0) return restrict_result::unchanged;
    hwloc_bitmap_t bound = hwloc_bitmap_alloc();
    if (bound == nullptr) return restrict_result::unchanged;
    int rc = hwloc_get_cpubind(topo, bound, HWLOC_CPUBIND_PROCESS);
    if (rc != 0) rc = hwloc_get_cpubind(topo, bound, HWLOC_CPUBIND_THREAD);
    restrict_result result = restrict_result::unchanged;
    if (rc == 0) {
        hwloc_const_cpuset_t all = hwloc_topology_get_topology_cpuset(topo);
        hwloc_bitmap_and(bound, bound, all);
        if (hwloc_bitmap_iszero(bound) == 0 && hwloc_bitmap_isequal(bound, all) == 0) {
            if (hwloc_topology_restrict(topo, bound, 0) == 0) {
                result = restrict_result::restricted;
            } else if (errno == ENOMEM) {
                error = "hwloc_topology_restrict failed: " + errno_text(ENOMEM);
                result = restrict_result::destroyed;
            }
        }
    }
    hwloc_bitmap_free(bound);
    return result;
}

}  // namespace

/// Builds topologies; the one friend of weft::topology.
struct topology_builder {
    static topology fallback(std::string reason) {
        topology t;
        const unsigned n = std::max(1u, std::thread::hardware_concurrency());
        numa_node_info node{0, 0, 0, {}};
        t.cores_.reserve(n);
        for (unsigned i = 0; i < n; ++i) {
            t.cores_.push_back(core_info{i, i, {i}, 0, 0});
            node.cores.push_back(i);
        }
        t.numa_nodes_.push_back(std::move(node));
        t.num_pus_ = n;
        t.num_sockets_ = 1;
        t.description_ = "fallback without hwloc: " + reason;
        t.no_binding_reason_ = "no hwloc topology (" + reason + "): binding not possible";
        return t;
    }

    static topology synthetic(unsigned sockets, unsigned numa_per_socket, unsigned cores_per_numa,
                              unsigned pus_per_core) {
        if (sockets == 0 || numa_per_socket == 0 || cores_per_numa == 0 || pus_per_core == 0)
            throw std::invalid_argument("weft::topology::synthetic: every count must be at least 1");
        // Checked after every factor: each is below 2^32, so no product can wrap.
        constexpr std::uint64_t max_pus = std::uint64_t{1} << 20;
        std::uint64_t total_pus = 1;
        for (unsigned factor : {sockets, numa_per_socket, cores_per_numa, pus_per_core}) {
            total_pus *= factor;
            if (total_pus > max_pus) throw std::invalid_argument("weft::topology::synthetic: more than 2^20 PUs");
        }

        topology t;
        const unsigned nodes = sockets * numa_per_socket;
        const unsigned cores = nodes * cores_per_numa;
        t.cores_.reserve(cores);
        t.numa_nodes_.reserve(nodes);
        for (unsigned n = 0; n < nodes; ++n) t.numa_nodes_.push_back(numa_node_info{n, n, 0, {}});
        for (unsigned c = 0; c < cores; ++c) {
            core_info core{c, c, {}, c / cores_per_numa, c / (cores_per_numa * numa_per_socket)};
            for (unsigned p = 0; p < pus_per_core; ++p) core.pus.push_back(c * pus_per_core + p);
            t.numa_nodes_[core.numa_node].cores.push_back(c);
            t.cores_.push_back(std::move(core));
        }
        t.num_pus_ = static_cast<unsigned>(total_pus);
        t.num_sockets_ = sockets;
        t.description_ = "synthetic " + std::to_string(sockets) + 'x' + std::to_string(numa_per_socket) + 'x' +
                         std::to_string(cores_per_numa) + 'x' + std::to_string(pus_per_core);
        t.no_binding_reason_ = "synthetic topology: binding not possible";
        return t;
    }

    static topology discover() {
        auto handle = std::make_shared<hwloc_handle>();
        if (hwloc_topology_init(&handle->topo) != 0) {
            const int e = errno;
            handle->topo = nullptr;
            return fallback("hwloc_topology_init failed: " + errno_text(e));
        }
        // Only data/unified caches are reported, and I/O devices are never needed.
        hwloc_topology_set_icache_types_filter(handle->topo, HWLOC_TYPE_FILTER_KEEP_NONE);
        hwloc_topology_set_io_types_filter(handle->topo, HWLOC_TYPE_FILTER_KEEP_NONE);
        if (hwloc_topology_load(handle->topo) != 0)
            return fallback("hwloc_topology_load failed: " + errno_text(errno));

        std::string error;
        const restrict_result restriction = restrict_to_process_binding(handle->topo, error);
        if (restriction == restrict_result::destroyed) return fallback(error);
        return from_hwloc(std::move(handle), restriction == restrict_result::restricted);
    }

private:
    static topology from_hwloc(std::shared_ptr<hwloc_handle> handle, bool restricted) {
        hwloc_topology_t topo = handle->topo;

        // A core is a Core object, or a PU that has none above it (hwloc may omit Cores).
        std::vector<hwloc_obj_t> core_objs;
        for (hwloc_obj_t pu = nullptr; (pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, pu)) != nullptr;) {
            hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
            if (core == nullptr) core = pu;
            // PUs of one core are adjacent in logical order, so this search stops at once.
            if (std::find(core_objs.rbegin(), core_objs.rend(), core) == core_objs.rend())
                core_objs.push_back(core);
        }
        if (core_objs.empty()) return fallback("hwloc reported no processing unit");

        std::vector<hwloc_obj_t> numa_objs;
        for (hwloc_obj_t n = nullptr; (n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, n)) != nullptr;)
            numa_objs.push_back(n);

        std::vector<hwloc_obj_t> core_numa(core_objs.size());
        std::vector<hwloc_obj_t> core_package(core_objs.size());
        dense_index numa_index;
        dense_index package_index;
        for (std::size_t i = 0; i < core_objs.size(); ++i) {
            core_numa[i] = local_numa_node(numa_objs, core_objs[i]->cpuset);
            if (core_numa[i] != nullptr) numa_index.add(core_numa[i]->logical_index);
            core_package[i] = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, core_objs[i]);
            if (core_package[i] != nullptr) package_index.add(core_package[i]->logical_index);
        }
        numa_index.finish();
        package_index.finish();

        topology t;
        t.numa_nodes_.resize(std::max<std::size_t>(1, numa_index.size()), numa_node_info{0, 0, 0, {}});
        for (std::size_t i = 0; i < t.numa_nodes_.size(); ++i) t.numa_nodes_[i].index = static_cast<unsigned>(i);
        for (hwloc_obj_t n : numa_objs) {
            if (std::find(core_numa.begin(), core_numa.end(), n) == core_numa.end()) continue;
            numa_node_info& info = t.numa_nodes_[numa_index(n->logical_index)];
            info.os_index = n->os_index == unknown_index ? info.index : n->os_index;
            info.memory_bytes = n->attr != nullptr ? n->attr->numanode.local_memory : 0;
        }

        t.cores_.reserve(core_objs.size());
        handle->core_cpusets.reserve(core_objs.size());
        for (std::size_t i = 0; i < core_objs.size(); ++i) {
            hwloc_obj_t obj = core_objs[i];
            core_info core{};
            core.index = static_cast<unsigned>(i);
            core.os_index = obj->os_index == unknown_index ? core.index : obj->os_index;
            for (hwloc_obj_t pu = nullptr;
                 (pu = hwloc_get_next_obj_inside_cpuset_by_type(topo, obj->cpuset, HWLOC_OBJ_PU, pu)) != nullptr;)
                core.pus.push_back(pu->os_index);
            std::sort(core.pus.begin(), core.pus.end());
            core.numa_node = core_numa[i] != nullptr ? numa_index(core_numa[i]->logical_index) : 0;
            core.socket = core_package[i] != nullptr ? package_index(core_package[i]->logical_index) : 0;
            t.num_pus_ += static_cast<unsigned>(core.pus.size());
            t.numa_nodes_[core.numa_node].cores.push_back(core.index);
            t.cores_.push_back(std::move(core));
            handle->core_cpusets.push_back(obj->cpuset);
        }
        t.num_sockets_ = static_cast<unsigned>(std::max<std::size_t>(1, package_index.size()));

        // One entry per cache level above core 0; sharing counts this topology's cores.
        static constexpr std::array<hwloc_obj_type_t, 5> cache_types{
            HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE};
        for (hwloc_obj_type_t type : cache_types) {
            hwloc_obj_t cache = hwloc_get_ancestor_obj_by_type(topo, type, core_objs.front());
            if (cache == nullptr || cache->attr == nullptr || cache->cpuset == nullptr) continue;
            if (cache->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION) continue;
            const auto sharing = std::count_if(core_objs.begin(), core_objs.end(), [&](hwloc_obj_t c) {
                return hwloc_bitmap_isincluded(c->cpuset, cache->cpuset) != 0;
            });
            const unsigned line = cache->attr->cache.linesize;
            t.caches_.push_back(cache_info{cache->attr->cache.depth, static_cast<std::size_t>(cache->attr->cache.size),
                                           line != 0 ? std::size_t{line} : cache_line_size,
                                           static_cast<unsigned>(std::max<std::ptrdiff_t>(1, sharing))});
        }

        t.description_ = std::string("hwloc ") + HWLOC_VERSION;
        if (restricted) t.description_ += ", restricted to the process CPU binding";
        const hwloc_topology_support* support = hwloc_topology_get_support(topo);
        if (hwloc_topology_is_thissystem(topo) == 0)
            t.no_binding_reason_ = "the hwloc topology does not describe this machine (HWLOC_XMLFILE or "
                                   "HWLOC_SYNTHETIC set?): binding not possible";
        else if (support == nullptr || support->cpubind == nullptr || support->cpubind->set_thisthread_cpubind == 0)
            t.no_binding_reason_ = "hwloc cannot bind threads on this platform";
        t.hwloc_ = std::move(handle);
        return t;
    }
};

topology fallback_topology(std::string reason) { return topology_builder::fallback(std::move(reason)); }

}  // namespace detail

const topology& topology::machine() {
    static const topology instance = detail::topology_builder::discover();
    return instance;
}

topology topology::synthetic(unsigned sockets, unsigned numa_per_socket, unsigned cores_per_numa,
                             unsigned pus_per_core) {
    return detail::topology_builder::synthetic(sockets, numa_per_socket, cores_per_numa, pus_per_core);
}

std::string topology::bind_this_thread_to_core(unsigned core) const {
    try {
        if (!no_binding_reason_.empty()) return no_binding_reason_;
        // Cannot happen (can_bind() implies a loaded handle), but the contract is "never aborts".
        if (hwloc_ == nullptr || hwloc_->core_cpusets.size() != cores_.size())
            return "weft internal error: topology has no hwloc cpusets to bind with";
        const unsigned c = core % num_cores();
        if (hwloc_set_cpubind(hwloc_->topo, hwloc_->core_cpusets[c], HWLOC_CPUBIND_THREAD) == 0) return {};
        const int e = errno;
        return "hwloc_set_cpubind(core " + std::to_string(c) + ", PUs " + detail::format_list(cores_[c].pus) +
               ", HWLOC_CPUBIND_THREAD) failed: " + detail::errno_text(e);
    } catch (...) {
        return "out of memory";  // short enough for the small-string buffer: no allocation
    }
}

void topology::print(std::ostream& os) const {
    using detail::format_bytes;
    using detail::format_list;
    using detail::plural;
    os << "weft topology (" << description_ << "): " << plural(num_sockets_, "socket", "sockets") << ", "
       << plural(num_numa_nodes(), "NUMA node", "NUMA nodes") << ", " << plural(num_cores(), "core", "cores") << ", "
       << plural(num_pus_, "PU", "PUs") << '\n';
    for (const numa_node_info& n : numa_nodes_) {
        os << "  NUMA node " << n.index << " (os " << n.os_index;
        if (n.memory_bytes != 0) os << ", " << format_bytes(n.memory_bytes);
        os << "): cores " << format_list(n.cores) << '\n';
    }
    for (const core_info& c : cores_) {
        os << "  core " << c.index << " (os " << c.os_index << "): socket " << c.socket << ", NUMA node "
           << c.numa_node << ", PUs " << format_list(c.pus) << '\n';
    }
    if (caches_.empty()) os << "  caches: unknown\n";
    for (const cache_info& c : caches_) {
        os << "  L" << c.level << (c.level == 1 ? "d" : "") << ": " << format_bytes(c.size_bytes) << ", "
           << c.line_bytes << " B lines, ";
        if (c.shared_by_cores == 1)
            os << "per core\n";
        else
            os << "shared by " << c.shared_by_cores << " cores\n";
    }
    os << "  thread binding: " << (can_bind() ? std::string("available") : no_binding_reason_) << '\n';
}

}  // namespace weft
