// weft::collectives over MPI (collectives_backend.hpp): a collective call becomes one
// non-blocking MPI collective on the group's own communicator, posted by the
// transport's progress() (mpi_job); a sub-group's communicator comes from
// MPI_Comm_create_group over a duplicate of MPI_COMM_WORLD reserved for that.
#include "collectives_backend.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

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

// --- Large reductions on binomial trees ----------------------------------------------
//
// Open MPI 4.1's non-blocking MPI_Ireduce of 1 MiB takes several times its blocking
// MPI_Reduce (bench/RESULTS.md, "collectives"): its schedule advances a segment per
// test. From `tree_bytes` on, reduce and all_reduce run on point-to-point messages
// instead: a binomial tree (Thakur, Rabenseifner and Gropp, "Optimization of Collective
// Communication Operations in MPICH", IJHPCA 19(1) 2005, §4: the binomial reduce and
// broadcast) rooted at the call's root (0 for all_reduce), with relative ranks
// v = (rank - root) mod p.
// - Reduce: for mask = 1, 2, 4, ...: a rank with v & mask sends its partial result to
//   v - mask and is done; otherwise it receives v + mask's (if that rank exists) and
//   folds it in with MPI_Reduce_local.
// - all_reduce then broadcasts the root's result down the same tree: a rank v != 0
//   receives from v - lowbit(v), then every rank sends to v + m for m = lowbit(v)/2,
//   ..., 1 (the root: from the highest power of two below p) where that rank exists.
// Each step is one request, and a job of its own (step_done says there is another).
// Every member picks the same algorithm: it depends on the kind, the element count and
// type and the group's size only. No MPI collective is involved, so a tree call cannot
// be started in a different order relative to other collectives on different members;
// its messages carry a tag from the call's number, so that calls in flight at once on
// one communicator never take each other's messages (calls 32,767 apart alias; MPI_TAG_UB
// is at least that). MPI's built-in operations on arithmetic types commute, so folding
// a child's part on either side gives the same result up to floating-point rounding (as
// with MPI's own algorithms, which differ in order too).

constexpr std::size_t tree_bytes = std::size_t{64} << 10;

struct tree {
    enum class step { none, reduce_receive, reduce_send, bcast_receive, bcast_send };
    int p = 0, v = 0, root = 0, tag = 0;
    int mask = 1;              ///< reduce: the next exchange's distance
    int down = -1;             ///< broadcast: the next child's distance (-1: not started)
    bool folded = false;       ///< `acc` holds a partial result
    bool sent = false;         ///< reduce: the partial result went to the parent
    bool got = false;          ///< broadcast: the result is here
    step posted = step::none;
    std::byte* acc = nullptr;  ///< the call's result buffer, or `own`
    std::vector<std::byte> own, in;
    int rank_of(int rel) const noexcept { return (rel + root) % p; }
};

std::size_t element_size(dtype t) noexcept {
    int bytes = 1;
    MPI_Type_size(datatype(t), &bytes);
    return static_cast<std::size_t>(bytes);
}

/// The tree's state for `c` if it takes the trees, else null.
tree* tree_of(mpi_call* c) noexcept {
    if (c->steps) return static_cast<tree*>(c->steps.get());
    if (c->what != kind::reduce && c->what != kind::all_reduce) return nullptr;
    const std::size_t bytes = c->count * element_size(c->type);
    if (bytes < tree_bytes) return nullptr;
    const MPI_Comm comm = *static_cast<const MPI_Comm*>(c->comm);
    int p = 0, rank = 0;
    check("MPI_Comm_size", MPI_Comm_size(comm, &p));
    check("MPI_Comm_rank", MPI_Comm_rank(comm, &rank));
    std::shared_ptr<tree> t;
    try {
        t = std::make_shared<tree>();
        t->p = p;
        t->root = c->what == kind::reduce ? static_cast<int>(c->root) : 0;
        t->v = (rank - t->root + p) % p;
        t->tag = static_cast<int>(c->sequence % 32767);
        // Its children in the reduce: v + m for each m below v's lowest set bit.
        int children = 0;
        for (int m = 1; m < p && (t->v & m) == 0; m <<= 1) children += t->v + m < p ? 1 : 0;
        if (c->recv != nullptr) {
            t->acc = static_cast<std::byte*>(c->recv);
        } else if (children > 0) {  // a reduce's inner node: a buffer of its own
            t->own.resize(bytes);
            t->acc = t->own.data();
        }
        if (children > 1) t->in.resize(bytes);  // the second child's part on (all buffers made here)
    } catch (...) {
        // No memory: MPI_Ireduce needs none of ours. Every member must take the same
        // algorithm, so this ends the program as an MPI error would.
        failed("weft::collectives (a reduction's buffer)", MPI_ERR_NO_MEM);
    }
    c->steps = t;
    return t.get();
}

/// `t`'s next step (none once finished), its distances moved on to it.
tree::step plan(tree& t) noexcept {
    if (t.sent) return tree::step::none;
    while (t.mask < t.p) {  // the root's v is 0: it only receives
        if ((t.v & t.mask) != 0) return tree::step::reduce_send;
        if (t.v + t.mask < t.p) return tree::step::reduce_receive;
        t.mask <<= 1;
    }
    return tree::step::none;
}

/// The broadcast's next step, for an all_reduce whose reduce is done.
tree::step plan_broadcast(tree& t) noexcept {
    if (!t.got) {
        if (t.v != 0) return tree::step::bcast_receive;
        t.got = true;
    }
    if (t.down < 0) {
        int top = 1;  // lowbit(v); for the root, the least power of two >= p
        if (t.v != 0) top = t.v & -t.v;
        else
            while (top < t.p) top <<= 1;
        t.down = top >> 1;
    }
    while (t.down > 0) {
        if (t.v + t.down < t.p) return tree::step::bcast_send;
        t.down >>= 1;
    }
    return tree::step::none;
}

/// What `t` does next: the reduce's steps, then (all_reduce) the broadcast's.
tree::step next_step(const mpi_call* c, tree& t) noexcept {
    const tree::step s = plan(t);
    if (s != tree::step::none || c->what != kind::all_reduce) return s;
    return plan_broadcast(t);
}

void post_step(mpi_call* c, tree& t, MPI_Request* r) noexcept {
    const MPI_Comm comm = *static_cast<const MPI_Comm*>(c->comm);
    const MPI_Datatype type = datatype(c->type);
    const int n = static_cast<int>(c->count);
    t.posted = next_step(c, t);
    switch (t.posted) {
    case tree::step::reduce_send:
        check("MPI_Isend",
              MPI_Isend(t.folded ? t.acc : c->send, n, type, t.rank_of(t.v - t.mask), t.tag, comm, r));
        return;
    case tree::step::reduce_receive: {
        // The first child's part lands in `acc`, the later ones' in `in`.
        void* into = t.folded ? t.in.data() : t.acc;
        check("MPI_Irecv", MPI_Irecv(into, n, type, t.rank_of(t.v + t.mask), t.tag, comm, r));
        return;
    }
    case tree::step::bcast_receive:
        check("MPI_Irecv", MPI_Irecv(c->recv, n, type, t.rank_of(t.v - (t.v & -t.v)), t.tag, comm, r));
        return;
    case tree::step::bcast_send:
        check("MPI_Isend", MPI_Isend(c->recv, n, type, t.rank_of(t.v + t.down), t.tag, comm, r));
        return;
    case tree::step::none: break;
    }
    // step_done said there was a step: unreachable.
    std::fprintf(stderr, "weft: weft::collectives: a reduction's tree has no step to post\n");
    std::abort();
}

}  // namespace

bool step_done(void* call) noexcept {
    auto* c = static_cast<mpi_call*>(call);
    if (!c->steps) return false;  // one MPI collective
    tree& t = *static_cast<tree*>(c->steps.get());
    const MPI_Datatype type = datatype(c->type);
    const int n = static_cast<int>(c->count);
    switch (t.posted) {
    case tree::step::reduce_receive:
        if (t.folded) {
            check("MPI_Reduce_local", MPI_Reduce_local(t.in.data(), t.acc, n, type, operation(c->op)));
        } else {
            check("MPI_Reduce_local", MPI_Reduce_local(c->send, t.acc, n, type, operation(c->op)));
            t.folded = true;
        }
        t.mask <<= 1;
        break;
    case tree::step::reduce_send: t.sent = true; break;
    case tree::step::bcast_receive: t.got = true; break;
    case tree::step::bcast_send: t.down >>= 1; break;
    case tree::step::none: return false;
    }
    return next_step(c, t) != tree::step::none;
}

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
    if (tree* steps = tree_of(c)) {
        post_step(c, *steps, r);
        return;
    }
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
