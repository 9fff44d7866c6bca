// Performance counters across localities (issue #24): how a counter's value travels in a
// parcel. The counters layer knows nothing of the archive; its types get their serialize
// functions here, found by argument-dependent lookup.
#pragma once

#include <weft/counters/counters.hpp>

namespace weft::counters {

/// Every field of a counter value, in declaration order.
template <class Archive>
void serialize(Archive& ar, counter_value& v) {
    ar(v.name, v.unit, v.value, v.available, v.reason, v.interval_s);
}

}  // namespace weft::counters
