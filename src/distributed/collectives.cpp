// weft::collectives' compiled part (issue #24; the protocol is in
// include/weft/distributed/collectives.hpp): communicators, the MPI path's hand-over to
// the transport (an mpi_job that progress() starts and completes), and the parcel path:
// contributions travel to the root as parcels of the internal action
// weft_collective_contribute, results come back as weft_collective_result, and both
// wait in `slots`, keyed by (communicator, call number), until the call they belong
// to is made on this locality.
#include "collectives_backend.hpp"
#include "transport.hpp"

#include <weft/config/errors.hpp>
#include <weft/distributed/action.hpp>
#include <weft/distributed/async.hpp>
#include <weft/distributed/collectives.hpp>
#include <weft/distributed/detail/parcelport.hpp>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

namespace weft::collectives::detail {

namespace dd = weft::distributed::detail;

struct group : std::enable_shared_from_this<group> {
    std::vector<std::uint32_t> members;
    std::uint32_t rank = no_rank;  ///< this locality's, or no_rank
    std::uint64_t id = 0;          ///< the same on every member; 0: world
    std::uint64_t generation = 0;  ///< the runtime it belongs to
    const void* comm = nullptr;    ///< its MPI_Comm* (null: one member, or no MPI)
    void* owned = nullptr;         ///< comm, if this group made it
    std::mutex m;                  ///< call numbers are given, and MPI calls queued, in one order
    std::uint64_t next_call = 0;

    static constexpr std::uint32_t no_rank = ~std::uint32_t{0};
    group() = default;
    group(const group&) = delete;
    group& operator=(const group&) = delete;
    ~group() { free_comm(owned); }
};

namespace {

/// Runtimes started so far in this process (a communicator serves the one it was made in).
std::atomic<std::uint64_t> generation{1};

struct registry {
    std::mutex m;
    std::shared_ptr<group> world;
    /// Communicators made from each member list so far (what makes their ids).
    std::map<std::vector<std::uint32_t>, std::uint64_t> made;
    std::uint64_t generation = 0;
};

registry& groups() {
    static registry r;
    return r;
}

/// A parcel-path call in progress on this locality, or what arrived for it first.
struct slot {
    std::shared_ptr<group> g;            ///< set by the local call
    std::unique_ptr<parcel_call> call;   ///< the local call (root: combines; others: waits)
    bool called = false;
    kind k = kind::barrier;
    std::uint32_t root = 0;
    std::uint64_t check = 0;
    std::uint64_t number = 0;  ///< the call's number on its communicator
    // On the root: the contributions, by rank, and their checks.
    std::vector<std::vector<std::byte>> in;
    std::vector<std::uint64_t> checks;
    std::size_t arrived = 0;
    // On another member: its result, if it came before the call.
    bool have_result = false, result_failed = false;
    std::uint64_t result_check = 0;
    std::vector<std::byte> result;
};

struct slot_key {
    std::uint64_t comm, call;
    bool operator==(const slot_key&) const = default;
};
struct slot_hash {
    std::size_t operator()(const slot_key& k) const noexcept {
        return std::hash<std::uint64_t>{}(k.comm * 0x9e3779b97f4a7c15ull ^ k.call);
    }
};

/// MPI-path calls whose request the transport abandoned at stop (see submit_mpi).
std::mutex abandoned_mutex;
std::vector<std::unique_ptr<mpi_call>> abandoned;

std::mutex slots_mutex;
std::unordered_map<slot_key, slot, slot_hash> slots;

bool only_root_contributes(kind k) noexcept { return k == kind::broadcast || k == kind::scatter; }
bool only_root_waits(kind k) noexcept { return k == kind::reduce || k == kind::gather; }

const char* kind_name(kind k) noexcept {
    switch (k) {
    case kind::all_reduce: return "all_reduce";
    case kind::reduce: return "reduce";
    case kind::broadcast: return "broadcast";
    case kind::all_gather: return "all_gather";
    case kind::gather: return "gather";
    case kind::scatter: return "scatter";
    case kind::all_to_all: return "all_to_all";
    case kind::exclusive_scan: return "exclusive_scan";
    case kind::barrier: return "barrier";
    }
    return "?";
}

void fail_call(parcel_call& c, const std::string& why) { c.failed(std::make_exception_ptr(weft::error(why))); }

/// Completes a waiting non-root call with what came from the root.
void finish_member(slot& s) {
    if (s.result_failed) {
        std::string why(s.result.size(), ' ');
        if (!why.empty()) std::memcpy(why.data(), s.result.data(), why.size());
        fail_call(*s.call, why);
        return;
    }
    if (s.result_check != s.check) {
        fail_call(*s.call, std::string("weft::collectives::") + kind_name(s.k) +
                               ": the members' calls do not match (a different operation, value type or root on the root)");
        return;
    }
    try {
        s.call->done(s.result);
    } catch (...) {
        s.call->failed(std::current_exception());
    }
}

}  // namespace

// The parcel path's actions (internal). Root: a member's contribution.
void weft_collective_contribute(std::uint64_t comm, std::uint64_t call, std::uint64_t check, std::uint32_t from,
                                std::vector<std::byte> bytes);
WEFT_PLAIN_ACTION(weft_collective_contribute, weft_collective_contribute_action);
// A member: its result from the root (failed: `bytes` is the message).
void weft_collective_result(std::uint64_t comm, std::uint64_t call, std::uint64_t check, bool failed,
                            std::vector<std::byte> bytes);
WEFT_PLAIN_ACTION(weft_collective_result, weft_collective_result_action);

namespace {

/// The root has every contribution and its own call (taken out of `slots`): combine and
/// hand out the results.
void finish_root(slot s) {
    const group& g = *s.g;
    const std::uint32_t n = static_cast<std::uint32_t>(g.members.size());
    std::string mismatch;
    for (std::uint32_t r = 0; r < n && mismatch.empty(); ++r)
        if (r < s.checks.size() && s.checks[r] != 0 && s.checks[r] != s.check)
            mismatch = std::string("weft::collectives::") + kind_name(s.k) + ": the call of group rank " + std::to_string(r) +
                       " (locality " + std::to_string(g.members[r]) +
                       ") does not match the root's (a different operation, value type or root)";
    std::vector<std::vector<std::byte>> out;
    if (mismatch.empty()) {
        s.in.resize(n);
        try {
            out = s.call->combine(s.in);
            if (out.size() != 1 && out.size() != n) throw weft::error("weft::collectives: a combine gave the wrong count");
        } catch (const std::exception& e) {
            mismatch = std::string("weft::collectives::") + kind_name(s.k) + ": on the root: " + e.what();
        } catch (...) {
            mismatch = std::string("weft::collectives::") + kind_name(s.k) + ": the operation threw on the root";
        }
    }
    const bool others_wait = !only_root_waits(s.k);
    for (std::uint32_t r = 0; r < n; ++r) {
        if (r == s.root || !others_wait) continue;
        const id_type to = id_type::locality(g.members[r]);
        try {
            if (!mismatch.empty()) {
                std::vector<std::byte> why(mismatch.size());
                std::memcpy(why.data(), mismatch.data(), mismatch.size());
                weft::post(weft_collective_result_action{}, to, g.id, s.number, s.check, true, std::move(why));
            } else {
                weft::post(weft_collective_result_action{}, to, g.id, s.number, s.check, false,
                           out.size() == 1 ? out.front() : std::move(out[r]));
            }
        } catch (...) {
            // The runtime stops: that member's call fails at stop.
        }
    }
    const bool root_waits = s.k != kind::broadcast;
    if (!root_waits) return;
    if (!mismatch.empty()) {
        fail_call(*s.call, mismatch);
        return;
    }
    try {
        s.call->done(out.size() == 1 ? out.front() : out[s.root]);
    } catch (...) {
        s.call->failed(std::current_exception());
    }
}

/// Under slots_mutex: the root's slot is complete; takes it out. Else null.
bool root_ready(const slot& s) noexcept {
    if (!s.called) return false;
    const std::size_t expected = only_root_contributes(s.k) ? 1 : s.g->members.size();
    return s.arrived == expected;
}

}  // namespace

std::uint32_t group_rank(const group& g) noexcept { return g.rank; }
std::uint32_t group_size(const group& g) noexcept { return static_cast<std::uint32_t>(g.members.size()); }
const std::vector<std::uint32_t>& group_members(const group& g) noexcept { return g.members; }

std::uint32_t check_member(const group& g, const char* what) {
    dd::check_target(what, dd::here(), true);  // throws runtime_state_error with no runtime
    if (g.generation != generation.load(std::memory_order_acquire))  // acquire: pairs with collectives_stopped
        throw runtime_state_error(std::string(what) + ": the communicator belongs to a runtime that has stopped");
    if (g.rank == group::no_rank)
        throw weft::error(std::string(what) + ": locality " + std::to_string(dd::here()) +
                          " is not a member of the communicator");
    return static_cast<std::uint32_t>(g.members.size());
}

void throw_bad_root(const char* what, std::uint32_t root, std::uint32_t size) {
    throw weft::error(std::string(what) + ": root " + std::to_string(root) + " is not a rank of the communicator (of " +
                      std::to_string(size) + " members)");
}

void throw_bad_size(const char* what, std::size_t got, std::uint32_t size) {
    throw weft::error(std::string(what) + ": " + std::to_string(got) + " values for a communicator of " +
                      std::to_string(size) + " members (one per member)");
}

void throw_too_large(const char* what) {
    throw weft::error(std::string(what) + ": more than INT_MAX bytes in one call (MPI counts are ints)");
}

std::shared_ptr<group> world_group() {
    dd::check_target("weft::collectives::world", dd::here(), true);
    registry& r = groups();
    const std::lock_guard lock(r.m);
    const std::uint64_t now = generation.load(std::memory_order_acquire);  // acquire: pairs with collectives_stopped
    if (r.world && r.generation == now) return r.world;
    r.made.clear();
    r.generation = now;
    auto g = std::make_shared<group>();
    for (std::uint32_t i = 0; i < dd::localities(); ++i) g->members.push_back(i);
    g->rank = dd::here();
    g->generation = now;
    if (weft::distributed::detail::transport* t = weft::distributed::detail::running_transport())
        g->comm = t->collective_comm(0);
    r.world = g;
    return g;
}

std::shared_ptr<group> make_group(std::vector<std::uint32_t> members) {
    constexpr const char* what = "weft::collectives::communicator";
    dd::check_target(what, dd::here(), true);
    if (members.empty()) throw weft::error(std::string(what) + ": an empty list of localities");
    {
        std::vector<std::uint32_t> sorted = members;
        std::sort(sorted.begin(), sorted.end());
        if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
            throw weft::error(std::string(what) + ": locality " +
                              std::to_string(*std::adjacent_find(sorted.begin(), sorted.end())) + " listed twice");
        if (sorted.back() >= dd::localities())
            throw weft::error(std::string(what) + ": there is no locality " + std::to_string(sorted.back()) +
                              " in this run of " + std::to_string(dd::localities()));
    }
    world_group();  // the registry belongs to this runtime
    auto g = std::make_shared<group>();
    g->generation = generation.load(std::memory_order_acquire);  // acquire: pairs with collectives_stopped
    const auto at = std::find(members.begin(), members.end(), dd::here());
    g->members = std::move(members);
    if (at == g->members.end()) return g;  // not a member: nothing collective, unusable
    g->rank = static_cast<std::uint32_t>(at - g->members.begin());
    std::uint64_t occurrence = 0;
    {
        registry& r = groups();
        const std::lock_guard lock(r.m);
        occurrence = r.made[g->members]++;
    }
    // The id: FNV-1a of the list and how many communicators this list made before (the
    // same on every member, as each creates them in the same order); never 0 (world).
    std::uint64_t h = 0xcbf29ce484222325ull;
    auto mix = [&h](std::uint64_t x) {
        for (int i = 0; i < 8; ++i) h = (h ^ ((x >> (8 * i)) & 0xffu)) * 0x100000001b3ull;
    };
    for (std::uint32_t m : g->members) mix(m);
    mix(occurrence);
    g->id = h == 0 ? 1 : h;
    weft::distributed::detail::transport* t = weft::distributed::detail::running_transport();
    if (t == nullptr || g->members.size() == 1) return g;
    // MPI_Comm_create_group blocks until every member has called it: on a thread of its
    // own, while this task suspends (its worker polls meanwhile). The tag tells apart
    // groups being made at once; 32767 is the least MPI_TAG_UB the standard allows.
    weft::promise<void> made;
    weft::future<void> ready = made.get_future();
    void* comm = nullptr;
    std::thread maker([&] {
        try {
            comm = create_comm(t->collective_comm(1), g->members, static_cast<int>(g->id % 32767));
            made.set_value();
        } catch (...) {
            made.set_exception(std::current_exception());
        }
    });
    try {
        ready.get();
    } catch (...) {
        maker.join();
        throw;
    }
    maker.join();
    g->owned = comm;
    g->comm = comm;
    return g;
}

namespace {
weft::distributed::detail::mpi_job job_of(mpi_call* c) noexcept {
    weft::distributed::detail::mpi_job job;
    job.start = &start_call;
    job.done = [](void* x) noexcept {
        auto* call = static_cast<mpi_call*>(x);
        if (step_done(call)) {
            // Its next step: posted by the next progress() (this one holds its lock).
            if (weft::distributed::detail::transport* t = weft::distributed::detail::running_transport()) {
                t->submit(job_of(call));
                return;
            }
            call->failed(std::make_exception_ptr(
                runtime_state_error("weft::collectives: the runtime stopped in the middle of a collective")));
            delete call;
            return;
        }
        call->done();
        delete call;
    };
    job.abandon = [](void* x) noexcept {
        auto* call = static_cast<mpi_call*>(x);
        call->failed(std::make_exception_ptr(
            runtime_state_error("weft::collectives: the runtime stopped before every member joined the collective")));
        // Its request stays with MPI, which may still write its buffers: kept until exit.
        const std::lock_guard lock(abandoned_mutex);
        try {
            abandoned.emplace_back(call);
        } catch (...) {
            // No memory: leaked instead.
        }
    };
    job.context = c;
    return job;
}
}  // namespace

void submit_mpi(group& g, mpi_call* c) {
    std::unique_ptr<mpi_call> owned(c);
    weft::distributed::detail::transport* t = weft::distributed::detail::running_transport();
    if (t == nullptr || g.comm == nullptr)
        throw runtime_state_error(std::string("weft::collectives::") + kind_name(c->what) + ": no distributed runtime runs");
    c->comm = g.comm;
    c->keep = g.shared_from_this();  // a communicator dropped right after the call stays until it completes
    const std::lock_guard lock(g.m);
    c->sequence = g.next_call++;
    t->submit(job_of(c));
    owned.release();  // the transport's now
}

void submit_parcel(group& g, kind k, std::uint64_t check, std::uint32_t root, std::vector<std::byte> mine,
                   std::unique_ptr<parcel_call> c) {
    std::uint64_t number = 0;
    {
        const std::lock_guard lock(g.m);
        number = g.next_call++;
    }
    const slot_key key{g.id, number};
    const bool is_root = g.rank == root;
    if (!is_root) {
        if (!only_root_contributes(k))
            weft::post(weft_collective_contribute_action{}, id_type::locality(g.members[root]), g.id, number, check, g.rank,
                       std::move(mine));
        if (!c) return;
        std::unique_lock lock(slots_mutex);
        slot& s = slots[key];
        s.called = true;
        s.k = k;
        s.root = root;
        s.check = check;
        s.call = std::move(c);
        if (!s.have_result) return;
        slot done = std::move(s);
        slots.erase(key);
        lock.unlock();
        finish_member(done);
        return;
    }
    std::unique_lock lock(slots_mutex);
    slot& s = slots[key];
    s.g = g.shared_from_this();  // alive until the results are out
    s.called = true;
    s.k = k;
    s.root = root;
    s.check = check;
    s.number = number;
    s.call = std::move(c);
    const std::size_t n = g.members.size();
    if (s.in.size() < n) s.in.resize(n);
    if (s.checks.size() < n) s.checks.resize(n);
    s.in[root] = std::move(mine);
    s.checks[root] = check;
    ++s.arrived;
    if (!root_ready(s)) return;
    slot done = std::move(s);
    slots.erase(key);
    lock.unlock();
    finish_root(std::move(done));
}

}  // namespace weft::collectives::detail

namespace weft::collectives {

future<void> barrier(const communicator& comm) {
    detail::group& g = comm.state();
    if (detail::check_member(g, "weft::collectives::barrier") == 1) return weft::make_ready_future();
    auto c = std::make_unique<detail::barrier_mpi_call>();
    c->what = detail::kind::barrier;
    future<void> f = c->p.get_future();
    detail::submit_mpi(g, c.release());
    return f;
}

future<void> barrier() { return barrier(world()); }

}  // namespace weft::collectives

namespace weft::collectives::detail {

void weft_collective_contribute(std::uint64_t comm, std::uint64_t call, std::uint64_t check, std::uint32_t from,
                                std::vector<std::byte> bytes) {
    std::unique_lock lock(slots_mutex);
    const slot_key key{comm, call};
    slot& s = slots[key];
    if (s.in.size() <= from) s.in.resize(from + 1);
    if (s.checks.size() <= from) s.checks.resize(from + 1);
    s.in[from] = std::move(bytes);
    s.checks[from] = check;
    ++s.arrived;
    if (!root_ready(s)) return;
    slot done = std::move(s);
    slots.erase(key);
    lock.unlock();
    finish_root(std::move(done));
}

void weft_collective_result(std::uint64_t comm, std::uint64_t call, std::uint64_t check, bool failed,
                            std::vector<std::byte> bytes) {
    std::unique_lock lock(slots_mutex);
    const slot_key key{comm, call};
    slot& s = slots[key];
    s.have_result = true;
    s.result_failed = failed;
    s.result_check = check;
    s.result = std::move(bytes);
    if (!s.called) return;
    slot done = std::move(s);
    slots.erase(key);
    lock.unlock();
    finish_member(done);
}

}  // namespace weft::collectives::detail

namespace weft::distributed::detail {

void collectives_stopped() noexcept {
    using namespace weft::collectives::detail;
    // release: a communicator of this runtime read after this is seen as stale.
    generation.fetch_add(1, std::memory_order_release);
    std::unordered_map<slot_key, slot, slot_hash> left;
    {
        const std::lock_guard lock(slots_mutex);
        left.swap(slots);
    }
    for (auto& [key, s] : left) {
        if (!s.called || !s.call) continue;
        s.call->failed(std::make_exception_ptr(
            runtime_state_error("weft::collectives: the runtime stopped before every member joined the collective")));
    }
    registry& r = groups();
    const std::lock_guard lock(r.m);
    r.world.reset();
    r.made.clear();
}

}  // namespace weft::distributed::detail
