// weft::collectives over MPI (collectives_backend.hpp): a collective call becomes one
// non-blocking MPI collective on the group's own communicator, posted by the
// transport's progress() (mpi_job); a sub-group's communicator comes from
// MPI_Comm_create_group over a duplicate of MPI_COMM_WORLD reserved for that.
#include "collectives_backend.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>

namespace weft::collectives::detail {
namespace {

[[noreturn]] void failed(const char* call, int rc) noexcept {
    char text[MPI_MAX_ERROR_STRING] = {};
    int len = 0;
    MPI_Error_string(rc, text, &len);
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr, "weft: locality %d: weft::collectives: %s failed: %.*s\n", rank, call, len, text);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::_Exit(1);
}

void check(const char* call, int rc) noexcept {
    if (rc != MPI_SUCCESS) failed(call, rc);
}

MPI_Datatype datatype(dtype t) noexcept {
    switch (t) {
    case dtype::i8: return MPI_INT8_T;
    case dtype::u8: return MPI_UINT8_T;
    case dtype::i16: return MPI_INT16_T;
    case dtype::u16: return MPI_UINT16_T;
    case dtype::i32: return MPI_INT32_T;
    case dtype::u32: return MPI_UINT32_T;
    case dtype::i64: return MPI_INT64_T;
    case dtype::u64: return MPI_UINT64_T;
    case dtype::f32: return MPI_FLOAT;
    case dtype::f64: return MPI_DOUBLE;
    case dtype::f128: return MPI_LONG_DOUBLE;
    case dtype::bytes:
    case dtype::none: break;
    }
    return MPI_BYTE;
}

MPI_Op operation(rop o) noexcept {
    switch (o) {
    case rop::sum: return MPI_SUM;
    case rop::prod: return MPI_PROD;
    case rop::min: return MPI_MIN;
    case rop::max: return MPI_MAX;
    case rop::none: break;
    }
    return MPI_OP_NULL;
}

}  // namespace

void* create_comm(const void* parent, const std::vector<std::uint32_t>& members, int tag) {
    const MPI_Comm from = *static_cast<const MPI_Comm*>(parent);
    MPI_Group all = MPI_GROUP_NULL, some = MPI_GROUP_NULL;
    check("MPI_Comm_group", MPI_Comm_group(from, &all));
    std::vector<int> ranks(members.begin(), members.end());
    check("MPI_Group_incl", MPI_Group_incl(all, static_cast<int>(ranks.size()), ranks.data(), &some));
    auto* comm = new MPI_Comm(MPI_COMM_NULL);
    check("MPI_Comm_create_group", MPI_Comm_create_group(from, some, tag, comm));
    check("MPI_Comm_set_errhandler", MPI_Comm_set_errhandler(*comm, MPI_ERRORS_RETURN));
    MPI_Group_free(&some);
    MPI_Group_free(&all);
    return comm;
}

void free_comm(void* comm) noexcept {
    auto* c = static_cast<MPI_Comm*>(comm);
    if (c == nullptr) return;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized == 0 && *c != MPI_COMM_NULL) MPI_Comm_free(c);
    delete c;
}

void start_call(void* call, void* request) noexcept {
    auto* c = static_cast<mpi_call*>(call);
    auto* r = static_cast<MPI_Request*>(request);
    const MPI_Comm comm = *static_cast<const MPI_Comm*>(c->comm);
    const MPI_Datatype t = datatype(c->type);
    const int n = static_cast<int>(c->count);  // checked to fit by the caller
    const int root = static_cast<int>(c->root);
    switch (c->what) {
    case kind::all_reduce:
        check("MPI_Iallreduce", MPI_Iallreduce(c->send, c->recv, n, t, operation(c->op), comm, r));
        break;
    case kind::reduce:
        check("MPI_Ireduce", MPI_Ireduce(c->send, c->recv, n, t, operation(c->op), root, comm, r));
        break;
    case kind::exclusive_scan:
        check("MPI_Iexscan", MPI_Iexscan(c->send, c->recv, n, t, operation(c->op), comm, r));
        break;
    case kind::broadcast: check("MPI_Ibcast", MPI_Ibcast(c->recv, n, t, root, comm, r)); break;
    case kind::all_gather:
        check("MPI_Iallgather", MPI_Iallgather(c->send, n, t, c->recv, n, t, comm, r));
        break;
    case kind::gather: check("MPI_Igather", MPI_Igather(c->send, n, t, c->recv, n, t, root, comm, r)); break;
    case kind::scatter: check("MPI_Iscatter", MPI_Iscatter(c->send, n, t, c->recv, n, t, root, comm, r)); break;
    case kind::all_to_all:
        check("MPI_Ialltoall", MPI_Ialltoall(c->send, n, t, c->recv, n, t, comm, r));
        break;
    case kind::barrier: check("MPI_Ibarrier", MPI_Ibarrier(comm, r)); break;
    }
}

}  // namespace weft::collectives::detail
