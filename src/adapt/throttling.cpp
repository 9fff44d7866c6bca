// Throttling (weft::adapt::set_active_workers): how many workers of the running
// scheduler take tasks, through sched's exported seam.
#include <weft/adapt/policy.hpp>
#include <weft/config/errors.hpp>
#include <weft/sched/detail/introspect.hpp>

#include "log.hpp"

#include <string>

namespace weft::adapt {

using detail::write_log;

void set_active_workers(unsigned n) {
    weft::detail::scheduler* s = weft::detail::active_scheduler();
    if (s == nullptr)
        throw runtime_state_error("weft::adapt::set_active_workers: needs a running runtime");
    const unsigned before = weft::detail::active_workers(*s);
    weft::detail::set_active_workers(*s, n);
    const unsigned after = weft::detail::active_workers(*s);
    if (after != before) write_log("throttle", "active workers " + std::to_string(before) + " -> " + std::to_string(after));
}

unsigned active_workers() {
    const weft::detail::scheduler* s = weft::detail::active_scheduler();
    if (s == nullptr) throw runtime_state_error("weft::adapt::active_workers: needs a running runtime");
    return weft::detail::active_workers(*s);
}

}  // namespace weft::adapt
