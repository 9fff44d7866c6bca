// A build without MPI (WEFT_WITH_MPI=OFF): one locality, so every communicator has one
// member and collectives complete at once without these.
#include "collectives_backend.hpp"

#include <cstdlib>

namespace weft::collectives::detail {

void* create_comm(const void*, const std::vector<std::uint32_t>&, int) { return nullptr; }
void free_comm(void*) noexcept {}
void start_call(void*, void*) noexcept { std::abort(); }  // unreachable: no group has two members
bool step_done(void*) noexcept { std::abort(); }

}  // namespace weft::collectives::detail
