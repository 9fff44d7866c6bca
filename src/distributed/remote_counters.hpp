// Remote performance-counter queries (issue #24): the distributed layer's side of
// weft::counters' remote source. Private to src/distributed.
#pragma once

namespace weft::distributed::detail {

/// While parcels flow on a run of several localities: lets the counters reach other
/// localities' instances (counters::detail::set_remote_source).
void remote_counters_start();
/// Before the network stops: the counters no longer reach other localities; every set this
/// locality keeps for another's query is freed.
void remote_counters_stop() noexcept;

}  // namespace weft::distributed::detail
