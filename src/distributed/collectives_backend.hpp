// What weft::collectives (collectives.cpp) asks of MPI: creating a sub-group's
// communicator and posting one non-blocking collective. mpi_collectives.cpp implements
// it over MPI; no_mpi_collectives.cpp for a build without MPI, where every communicator
// has one member and nothing here is ever called.
#pragma once

#include <weft/distributed/collectives.hpp>

#include <cstdint>
#include <vector>

namespace weft::collectives::detail {

/// Blocks the calling thread (never a worker: collectives.cpp calls it on a thread of
/// its own) until every one of `members` (locality numbers = ranks of `parent`, a
/// `const MPI_Comm*`) has called it with the same list and `tag`; returns the new
/// communicator (an `MPI_Comm*`, to release with free_comm).
void* create_comm(const void* parent, const std::vector<std::uint32_t>& members, int tag);
/// Frees a communicator create_comm made (nothing once MPI is finalized).
void free_comm(void* comm) noexcept;
/// Posts `call` (an mpi_call*) as a non-blocking collective on call->comm, or its next
/// step, and writes its MPI_Request to `request` (an MPI_Request*). An MPI error ends
/// the program, naming it.
void start_call(void* call, void* request) noexcept;
/// The request start_call posted for `call` completed: whether the call has another
/// step to post (then submit it again), or is done.
bool step_done(void* call) noexcept;

}  // namespace weft::collectives::detail
