// How the runtime (weft::runtime, weft::run) starts and stops the distributed layer.
// Not for users.
#pragma once

#include <weft/counters/counters.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace weft::distributed::detail {

struct launch_config {
    std::size_t coalesce_bytes = 16 * 1024;           ///< --weft:parcel-coalesce
    std::size_t max_message = std::size_t{1} << 30;   ///< --weft:parcel-max-message
    std::size_t zero_copy_threshold = 64 * 1024;      ///< --weft:zero-copy-threshold
    bool keep_large_buffers = true;                   ///< --weft:keep-large-buffers
};

struct launch_info {
    std::uint32_t here = 0;         ///< this locality
    std::uint32_t count = 1;        ///< localities in the run
    std::uint32_t local_count = 1;  ///< localities on this node
};

/// Before the scheduler starts: joins the distributed run when launched by mpirun (or
/// when the program initialized MPI itself), else one locality.
launch_info launch(const launch_config& cfg);
/// After the scheduler started with `workers` workers on the `cores` cores this process
/// may use:
/// freezes the action table, checks (collectively) that every locality runs the same
/// program, and starts the parcelport's progress. Exits on a mismatch.
void start(unsigned workers, unsigned cores);
/// On the thread that stops the runtime, after new outside work is closed: returns once
/// no task runs and no parcel travels on any locality (global termination). `wait_local`
/// waits for this locality's tasks to finish. Unless `spmd`, locality 0 decides: the
/// others wait until it calls quiesce too (its main function has returned).
void quiesce(void (*wait_local)(void*), void* arg, bool spmd);
/// After quiesce() and before the workers stop: stops the parcelport's progress.
void stop_progress();
/// The counters' gather at exit: every locality's values on locality 0, in order.
std::vector<counters::counter_value> gather_counters(std::vector<counters::counter_value> mine);
/// After the workers stopped: releases the transport (MPI itself ends at exit).
void shutdown() noexcept;

}  // namespace weft::distributed::detail
