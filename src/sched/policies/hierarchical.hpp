// What the `hierarchical` policy counts (seed 002 Table 1 and §5: tasks serialized, steals
// per level), for tests and tools inside the library.
#pragma once

#include <weft/ext/hierarchy.hpp>
#include <weft/ext/scheduler_policy.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace weft::detail {

struct hierarchical_stats {
    std::string hierarchy;                ///< hierarchy::describe()
    std::vector<unsigned> attempts;       ///< HVS attempts per level
    std::vector<ext::chunk_rule> chunks;  ///< HCS rule per level
    unsigned queue_bound = 0, public_bound = 0;
    std::vector<std::uint64_t> steals;    ///< successful steals per level
    std::vector<std::uint64_t> failed;    ///< attempts that found nothing, per level
    std::vector<std::uint64_t> moved;     ///< tasks moved by steals, per level
    std::uint64_t serialized = 0;         ///< spawns run at once because the queue was full
    std::uint64_t overflowed = 0;         ///< tasks that found the queue full and waited aside
    std::uint64_t max_queued = 0;         ///< the most tasks one worker's queue held
};

/// The statistics of a running (or stopped) `hierarchical` policy.
/// @throws weft::error if `p` is another policy.
hierarchical_stats hierarchical_statistics(const ext::scheduler_policy& p);

}  // namespace weft::detail
