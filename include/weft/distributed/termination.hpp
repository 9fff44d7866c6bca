// Global termination detection (issue #23): nothing runs and no parcel is in flight on
// any locality. F. Mattern's four-counter method ("Algorithms for distributed termination
// detection", Distributed Computing 2(3), 1987, §4) over waves that are non-blocking
// all-reduces of every locality's (parcels sent, parcels received): a locality joins a
// wave only while it is locally idle, and the system has terminated when the messages
// received by all in one wave equal those sent by all in the next (R1 == S2). weft asks a
// little more, two identical and balanced waves in a row (S1 = R1 = S2 = R2), which
// implies Mattern's condition. No token ring, no sleep (HPX's shutdown hangs came from a
// token ring, HPX #7503).
#pragma once

#include <cstdint>
#include <optional>

namespace weft::distributed::detail {

/// One locality's counts, or their sum over all localities (a wave's result).
struct parcel_counts {
    std::uint64_t sent = 0;
    std::uint64_t received = 0;
    bool operator==(const parcel_counts&) const = default;
};

/// Decides termination from the results of successive waves. The transport runs the
/// waves (each an all-reduce of parcel_counts to which a locality contributes when it is
/// locally idle: no task, nothing to send) and hands each result to wave_done().
class termination_detector {
public:
    /// A wave completed with `total` (the sums over all localities); true once the system
    /// has terminated. Counts only ever grow; a total smaller than the last one is a bug
    /// in the caller.
    bool wave_done(parcel_counts total) noexcept {
        const bool done = last_ && *last_ == total && total.sent == total.received;
        last_ = total;
        ++waves_;
        return done;
    }
    /// Forget the previous wave (a new phase of the program, e.g. the next weft::run).
    void reset() noexcept {
        last_.reset();
        waves_ = 0;
    }
    std::uint64_t waves() const noexcept { return waves_; }

private:
    std::optional<parcel_counts> last_;
    std::uint64_t waves_ = 0;
};

}  // namespace weft::distributed::detail
