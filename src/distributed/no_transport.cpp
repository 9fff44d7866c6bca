// A build without MPI (WEFT_WITH_MPI=OFF): every run is one locality.
#include "transport.hpp"

namespace weft::distributed::detail {

std::unique_ptr<transport> make_mpi_transport(const transport_config&) { return nullptr; }

}  // namespace weft::distributed::detail
