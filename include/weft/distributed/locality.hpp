// Localities: the processes of a distributed run (seed 004 §II), one per MPI rank under
// mpirun, or just this process without it (issue #23).
#pragma once

#include <weft/distributed/id_type.hpp>

#include <cstdint>
#include <vector>

namespace weft {

/// This locality's id. @throws weft::runtime_state_error when no runtime runs.
id_type find_here();
/// Every locality's id, locality 0 first. @throws weft::runtime_state_error
std::vector<id_type> find_all_localities();
/// Every locality's id but this one's, in order. @throws weft::runtime_state_error
std::vector<id_type> find_remote_localities();
/// The id of locality `n`. @throws weft::runtime_state_error; weft::error if there is no
/// locality `n` in this run.
id_type find_locality(std::uint32_t n);
/// This locality's number: 0 to get_num_localities() - 1 (0 when no runtime runs).
std::uint32_t get_locality_id() noexcept;
/// How many localities this run has (1 without mpirun; 1 when no runtime runs).
std::uint32_t get_num_localities() noexcept;

}  // namespace weft
