// The MPI transport (transport.hpp; issue #23). What this machine taught us is in
// ../shared/DESIGN.md, "The distributed layer": never let a worker block inside MPI, one
// progress owner at a time, spin then yield then park, and only when oversubscribed.
//
// Messages: parcels to one destination gather in an outbox and leave as one message
// (tag 1) when a worker polls or enough has gathered. A parcel's zero-copy chunks leave
// beside it, each under a tag of its own (tags from 16 up, allocated per destination, so
// that the task that decodes the parcel receives them, whenever it gets to them, straight
// into the storage its codec allocated). A message or chunk longer than max_message
// (at most INT_MAX) goes as pieces under one tag, which MPI's non-overtaking order keeps
// in sequence; a single parcel longer than that travels as a large_message parcel whose
// one chunk is the parcel.
//
// Receiving: a few receives stay posted for tag 1 (any source), each into a frame of
// posted_bytes_ (the coalescing bound plus 4 KiB), and polls test them. A message longer
// than that leaves as a large_message parcel, a message of its own, with the message as
// its one chunk, which the receiver posts a receive for when the parcel arrives. (Probing
// with MPI_Improbe instead, as this transport did first, cost an 8-byte round trip about
// 0.15 us more: see posted_receives.)
#include "transport.hpp"

#include <weft/config/errors.hpp>
#include <weft/futures/promise.hpp>

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace weft::distributed::detail {
namespace {

constexpr int tag_message = 1;
constexpr int first_chunk_tag = 16;
/// Receives kept posted for messages (MPI_ANY_SOURCE, tag_message). A poll tests them
/// (MPI_Testsome): on this machine's Open MPI an empty test of posted receives costs
/// about 50 cycles, an empty MPI_Improbe about 225 (it locks and searches the unexpected
/// queue), and an 8-byte ping-pong polled with posted receives is ~400 cycles shorter
/// than one polled with MPI_Improbe + MPI_Mrecv (bench/RESULTS.md, issue #23).
constexpr int posted_receives = 8;
/// Requests MPI_Testsome looks at per poll: the oldest ones.
constexpr std::size_t test_window = 256;
/// Malformed messages reported in full on stderr; the rest are only counted.
constexpr std::uint64_t rejects_reported = 10;

int world_rank() noexcept {
    int r = -1;
    int up = 0;
    MPI_Initialized(&up);
    if (up != 0) MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

[[noreturn]] void mpi_failed(const char* call, int rc) noexcept {
    char text[MPI_MAX_ERROR_STRING] = {};
    int len = 0;
    MPI_Error_string(rc, text, &len);
    std::fprintf(stderr, "weft: locality %d: %s failed: %.*s\n", world_rank(), call, len, text);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::_Exit(1);
}

#define WEFT_MPI(call)                                                                   \
    do {                                                                                 \
        if (const int weft_rc = (call); weft_rc != MPI_SUCCESS) mpi_failed(#call, weft_rc); \
    } while (false)

/// MPI is initialized once per process and finalized at exit (runtimes may come and go
/// in between; MPI cannot be initialized twice).
bool mpi_initialized_by_weft = false;

void finalize_at_exit() noexcept {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized == 0) MPI_Finalize();
}

/// One chunk queued to go: where it is, how long, its tag.
struct outgoing_chunk {
    const std::byte* data;
    std::size_t size;
    int tag;
};

/// Parcels queued for one destination.
struct outbox {
    std::mutex m;
    std::vector<std::byte> bytes;                 ///< the message being gathered
    std::vector<std::vector<std::byte>> full;     ///< gathered messages that reached max_message
    std::vector<outgoing_chunk> chunks;
    std::vector<std::shared_ptr<const void>> keeps;
    std::uint64_t parcels = 0;  ///< queued and not yet taken by a sender (statistics)
    std::uint64_t data = 0;     ///< their bytes, chunks included (statistics)
    /// Something queued (set under m with release, cleared by the flusher under m).
    std::atomic<bool> dirty{false};
    /// Chunk tags handed out so far (relaxed: only their distinctness matters).
    std::atomic<std::uint64_t> tags{0};
    /// Messages to this destination posted and not yet seen complete (written by the
    /// progress owner; relaxed: a hint for enqueue's choice to send at once).
    std::atomic<std::uint32_t> in_flight{0};
    int peer = 0;  ///< the destination's rank
};

/// Adds `n` to a count that only the progress owner writes: a load and a store, not a
/// locked read-modify-write (readers elsewhere only need whole values). `order` is the
/// store's.
template <class T>
void add_owned(std::atomic<T>& count, T n, std::memory_order order = std::memory_order_relaxed) noexcept {
    count.store(count.load(std::memory_order_relaxed) + n, order);  // relaxed load: this thread wrote it last
}

/// A task waiting for a chunk.
struct chunk_request {
    std::uint32_t source;
    int tag;
    std::byte* destination;
    std::size_t size;
    weft::promise<void> done;
};

/// What a group of MPI requests completes.
struct operation {
    enum kind_t { send, receive_chunk, receive_large, wave, job } kind = send;
    int pending = 0;
    std::vector<std::vector<std::byte>> buffers;  // send
    std::vector<std::shared_ptr<const void>> keeps;  // send
    frame* fr = nullptr;                      // receive_large
    chunk_request* request = nullptr;         // receive_chunk
    outbox* to = nullptr;                     // send
    mpi_job started;                          // job
};

class mpi_transport final : public transport {
public:
    explicit mpi_transport(const transport_config& cfg);
    ~mpi_transport() override;

    std::uint32_t here() const noexcept override { return static_cast<std::uint32_t>(rank_); }
    std::uint32_t size() const noexcept override { return static_cast<std::uint32_t>(size_); }
    std::uint32_t local_size() const noexcept override { return static_cast<std::uint32_t>(local_size_); }
    void check_same_program(std::uint64_t checksum, std::uint64_t actions) override;
    void open(const parcel_limits& limits, deliver_fn deliver) override;
    void send(parcel_header h, std::span<const std::byte> payload, std::span<const serialization::chunk> chunks,
              std::shared_ptr<const void> keep) override;
    void receive_chunk(std::uint32_t source, std::uint32_t tag, std::byte* destination, std::size_t size) override;
    void release(frame* f) noexcept override;
    void submit(const mpi_job& job) override;
    const void* collective_comm(int which) const noexcept override { return which == 0 ? &group_world_ : &group_parent_; }
    bool progress(bool idle_caller) noexcept override;
    bool idle() const noexcept override;
    parcel_counts message_counts() const noexcept override {
        // acquire (both): a count read after the deliveries it counts (see deliver_message).
        return {messages_out_.load(std::memory_order_acquire), messages_in_.load(std::memory_order_acquire)};
    }
    parcel_counts wave(parcel_counts mine) override;
    void close() override;
    std::vector<std::vector<std::byte>> gather(std::span<const std::byte> mine) override;

    void set_oversubscribed(bool v) noexcept override { oversubscribed_ = v; }
    [[noreturn]] void abort_all(int code) noexcept override {
        MPI_Abort(MPI_COMM_WORLD, code);
        std::_Exit(code);
    }

private:
    int allocate_tags(outbox& o, std::size_t n) noexcept;
    void enqueue(outbox& o, const parcel_header& h, std::span<const std::byte> payload,
                 std::span<const outgoing_chunk> chunks, std::shared_ptr<const void> keep, std::size_t parcel_bytes,
                 std::size_t data);
    // Under the progress lock:
    bool flush() noexcept;
    operation* take(outbox& o) noexcept;  // and under o.m
    void post_send(operation* op) noexcept;
    bool post_chunk_requests() noexcept;
    bool complete_requests() noexcept;
    bool receive_messages() noexcept;
    void post_receive(int slot) noexcept;
    void cancel_receives() noexcept;
    void reject(std::size_t bytes, std::uint32_t source, const char* what) noexcept;
    bool start_wave() noexcept;
    bool start_jobs() noexcept;
    void post_pieces(operation* op, bool receive, std::byte* data, std::size_t size, int peer, int tag) noexcept;
    void add_request(MPI_Request r, operation* op) noexcept;
    operation* new_operation(operation::kind_t k) noexcept;
    void finish(operation* op) noexcept;
    void deliver_message(frame* f, bool counted) noexcept;
    frame* new_frame(std::size_t size, std::uint32_t source) noexcept;
    void back_off(bool did) noexcept;

    transport_config cfg_;
    MPI_Comm comm_ = MPI_COMM_NULL;  // parcels and chunks
    MPI_Comm coll_ = MPI_COMM_NULL;  // start-up check, termination waves, gather
    MPI_Comm group_world_ = MPI_COMM_NULL;   // weft::collectives over every locality
    MPI_Comm group_parent_ = MPI_COMM_NULL;  // weft::collectives' sub-groups are made from it
    int rank_ = 0, size_ = 1, local_size_ = 1;
    std::uint64_t tag_span_ = 0;
    bool oversubscribed_ = false;
    std::vector<std::unique_ptr<outbox>> outboxes_;
    /// Some outbox is dirty (a hint for the flusher; relaxed, re-checked per outbox).
    std::atomic<bool> any_dirty_{false};

    /// The progress owner (a try-lock, never waited for; reentrant calls just fail).
    std::atomic<bool> progress_owned_{false};
    // Owned by whoever holds progress_owned_:
    std::vector<MPI_Request> requests_;
    std::vector<operation*> request_ops_;
    std::vector<int> completed_;
    std::vector<operation*> done_ops_;
    std::vector<std::unique_ptr<operation>> spare_ops_;
    std::vector<std::vector<std::byte>> spare_buffers_;
    std::vector<parcel_view> views_;
    std::vector<outgoing_chunk> chunk_scratch_;
    std::size_t test_from_ = 0;  ///< where complete_requests' window starts
    parcel_limits limits_;
    deliver_fn deliver_ = nullptr;
    std::uint64_t rejected_ = 0;

    std::mutex requests_mutex_;
    std::vector<chunk_request*> chunk_requests_;
    std::atomic<bool> have_chunk_requests_{false};

    std::mutex frames_mutex_;
    std::vector<frame*> spare_frames_;

    /// The posted receives (progress owner's): a message up to posted_bytes_ long lands
    /// in the frame of the oldest one (MPI matches posted receives in posting order);
    /// longer ones travel as a large_message parcel and a body (post_send).
    std::size_t posted_bytes_ = 0;
    bool posted_open_ = false;
    MPI_Request posted_[posted_receives] = {};
    frame* posted_frames_[posted_receives] = {};
    std::uint64_t posted_order_[posted_receives] = {};  ///< when each was posted
    std::uint64_t posted_count_ = 0;
    int posted_done_[posted_receives] = {};
    MPI_Status posted_status_[posted_receives] = {};

    /// Large messages being received in pieces (relaxed: idle() is re-checked each wave).
    std::atomic<int> large_pending_{0};
    std::atomic<std::uint64_t> messages_out_{0}, messages_in_{0};

    std::mutex wave_mutex_;
    std::condition_variable wave_cv_;
    enum class wave_state { none, asked, running, done } wave_state_ = wave_state::none;
    std::uint64_t wave_in_[2] = {}, wave_out_[2] = {};
    std::atomic<bool> wave_asked_{false};

    std::mutex jobs_mutex_;
    std::vector<mpi_job> jobs_;         ///< submitted, not started (in order)
    std::vector<mpi_job> jobs_taken_;   ///< the progress owner's: being started
    std::atomic<bool> have_jobs_{false};
};

mpi_transport::mpi_transport(const transport_config& cfg) : cfg_(cfg) {
    cfg_.max_message = std::clamp<std::size_t>(cfg_.max_message, 4096, INT_MAX);
    WEFT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm_));
    WEFT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &coll_));
    WEFT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &group_world_));
    WEFT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &group_parent_));
    // Errors come back to WEFT_MPI, which names the call and the locality before it aborts.
    WEFT_MPI(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
    WEFT_MPI(MPI_Comm_set_errhandler(coll_, MPI_ERRORS_RETURN));
    WEFT_MPI(MPI_Comm_set_errhandler(group_world_, MPI_ERRORS_RETURN));
    WEFT_MPI(MPI_Comm_set_errhandler(group_parent_, MPI_ERRORS_RETURN));
    WEFT_MPI(MPI_Comm_rank(comm_, &rank_));
    WEFT_MPI(MPI_Comm_size(comm_, &size_));
    MPI_Comm node = MPI_COMM_NULL;
    WEFT_MPI(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node));
    WEFT_MPI(MPI_Comm_size(node, &local_size_));
    WEFT_MPI(MPI_Comm_free(&node));
    void* ub = nullptr;
    int flag = 0;
    WEFT_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
    const int tag_ub = flag != 0 ? *static_cast<int*>(ub) : 32767;  // 32767: the standard's minimum
    tag_span_ = static_cast<std::uint64_t>(tag_ub - first_chunk_tag + 1);
    for (int i = 0; i < size_; ++i) {
        outboxes_.push_back(std::make_unique<outbox>());
        outboxes_.back()->peer = i;
    }
    std::fill(std::begin(posted_), std::end(posted_), MPI_REQUEST_NULL);
    // A coalesced message is at most about coalesce_bytes plus its last parcel.
    posted_bytes_ = std::clamp<std::size_t>(cfg_.coalesce_bytes + 4096, 8 * 1024, 64 * 1024);
    posted_bytes_ = std::min(posted_bytes_, cfg_.max_message);
}

void mpi_transport::open(const parcel_limits& limits, deliver_fn deliver) {
    limits_ = limits;
    deliver_ = deliver;
    if (size_ == 1 || posted_open_) return;
    for (int i = 0; i < posted_receives; ++i) post_receive(i);
    posted_open_ = true;
}

mpi_transport::~mpi_transport() {
    cancel_receives();
    for (frame* f : posted_frames_) delete f;  // (null where a receive completed last)
    for (auto& op : spare_ops_) op.reset();
    for (frame* f : spare_frames_) delete f;
    MPI_Comm_free(&comm_);
    MPI_Comm_free(&coll_);
    MPI_Comm_free(&group_world_);
    MPI_Comm_free(&group_parent_);
}

void mpi_transport::check_same_program(std::uint64_t checksum, std::uint64_t actions) {
    // max of (x, ~x) gives both max and min: they differ iff some locality differs.
    std::uint64_t mine[4] = {checksum, ~checksum, actions, ~actions}, all[4] = {};
    WEFT_MPI(MPI_Allreduce(mine, all, 4, MPI_UINT64_T, MPI_MAX, coll_));
    if (all[0] == checksum && all[1] == ~checksum && all[2] == actions && all[3] == ~actions) return;
    std::vector<std::uint64_t> each(2 * static_cast<std::size_t>(size_));
    std::uint64_t pair[2] = {checksum, actions};
    WEFT_MPI(MPI_Gather(pair, 2, MPI_UINT64_T, each.data(), 2, MPI_UINT64_T, 0, coll_));
    if (rank_ == 0) {
        std::string which;
        for (int i = 0; i < size_; ++i) {
            char line[128];
            std::snprintf(line, sizeof line, "\n  locality %d: %llu actions, checksum %016llx", i,
                          static_cast<unsigned long long>(each[2 * static_cast<std::size_t>(i) + 1]),
                          static_cast<unsigned long long>(each[2 * static_cast<std::size_t>(i)]));
            which += line;
        }
        std::fprintf(stderr,
                     "weft: the localities run different programs (their tables of actions differ):%s\n"
                     "weft: start the same binary on every locality\n",
                     which.c_str());
        std::fflush(stderr);
    }
    MPI_Barrier(coll_);
    std::exit(1);
}

int mpi_transport::allocate_tags(outbox& o, std::size_t n) noexcept {
    for (;;) {
        // relaxed: tags need only be distinct among the chunks in flight to one destination.
        const std::uint64_t start = o.tags.fetch_add(n, std::memory_order_relaxed) % tag_span_;
        if (start + n <= tag_span_) return first_chunk_tag + static_cast<int>(start);
        // The range would wrap past the largest tag: take the next one (n << tag_span_).
    }
}

void mpi_transport::send(parcel_header h, std::span<const std::byte> payload,
                         std::span<const serialization::chunk> chunks, std::shared_ptr<const void> keep) {
    if (h.destination >= outboxes_.size() || h.destination == here())
        throw weft::error("weft: a parcel for locality " + std::to_string(h.destination) + " sent by locality " +
                          std::to_string(here()) + " (of " + std::to_string(size_) + ")");
    if (chunks.size() > parcel_header::max_chunks)
        throw serialization_error("weft: a parcel with " + std::to_string(chunks.size()) + " zero-copy chunks (at most " +
                                  std::to_string(parcel_header::max_chunks) + ")");
    outbox& o = *outboxes_[h.destination];
    outgoing_chunk local[8];
    std::vector<outgoing_chunk> many;
    std::span<outgoing_chunk> out(local, chunks.size() <= 8 ? chunks.size() : 0);
    if (chunks.size() > 8) {
        many.resize(chunks.size());
        out = many;
    }
    std::size_t data = sizeof(parcel_header) + chunks.size() * sizeof(std::uint64_t) + payload.size();
    const int tag = chunks.empty() ? 0 : allocate_tags(o, chunks.size());
    for (std::size_t i = 0; i < chunks.size(); ++i) {
        out[i] = {chunks[i].data, chunks[i].size, tag + static_cast<int>(i)};
        data += chunks[i].size;
    }
    h.chunks = static_cast<std::uint32_t>(chunks.size());
    h.chunk_tag = static_cast<std::uint32_t>(tag);
    const std::size_t parcel_bytes = sizeof(parcel_header) + chunks.size() * sizeof(std::uint64_t) + payload.size();
    if (parcel_bytes <= cfg_.max_message) {
        enqueue(o, h, payload, out, std::move(keep), parcel_bytes, data);
        return;
    }
    // Too long for one message: the parcel becomes the one chunk of a large_message parcel.
    auto body = std::make_shared<std::pair<std::vector<std::byte>, std::shared_ptr<const void>>>();
    append_parcel(body->first, h, chunks, payload);
    body->second = std::move(keep);
    parcel_header announce;
    announce.kind = parcel_kind::large_message;
    announce.source = h.source;
    announce.destination = h.destination;
    announce.chunks = 1;
    const int body_tag = allocate_tags(o, 1);
    announce.chunk_tag = static_cast<std::uint32_t>(body_tag);
    std::vector<outgoing_chunk> all(out.begin(), out.end());
    all.push_back({body->first.data(), body->first.size(), body_tag});
    enqueue(o, announce, {}, all, std::move(body), sizeof announce + sizeof(std::uint64_t), data);
}

void mpi_transport::enqueue(outbox& o, const parcel_header& h, std::span<const std::byte> payload,
                            std::span<const outgoing_chunk> chunks, std::shared_ptr<const void> keep,
                            std::size_t parcel_bytes, std::size_t data) {
    operation* op = nullptr;  // set: this thread owns progress and sends the outbox's message itself
    {
        const std::lock_guard lock(o.m);
        if (!o.bytes.empty() && o.bytes.size() + parcel_bytes > cfg_.max_message) o.full.push_back(std::move(o.bytes));
        const std::size_t at = o.bytes.size();
        o.bytes.resize(at + sizeof h);
        // The chunk sizes say what travels beside the message; for a large_message parcel
        // that is the body (the last chunk), the parcel's own chunks being the body's.
        parcel_header w = h;
        std::span<const outgoing_chunk> listed = chunks;
        if (h.kind == parcel_kind::large_message) listed = chunks.last(1);
        w.chunks = static_cast<std::uint32_t>(listed.size());
        w.payload_bytes = payload.size();
        std::memcpy(o.bytes.data() + at, &w, sizeof w);
        for (const outgoing_chunk& c : listed) {
            const std::uint64_t size = c.size;
            const std::size_t p = o.bytes.size();
            o.bytes.resize(p + sizeof size);
            std::memcpy(o.bytes.data() + p, &size, sizeof size);
        }
        o.bytes.insert(o.bytes.end(), payload.begin(), payload.end());
        o.chunks.insert(o.chunks.end(), chunks.begin(), chunks.end());
        if (keep) o.keeps.push_back(std::move(keep));
        ++o.parcels;
        o.data += data;
        // Nagle's rule: a parcel to a destination with nothing in flight leaves at once (a
        // lone call does not wait for a poll); behind a message in flight, parcels gather
        // until the bound or the next poll.
        const bool now = cfg_.coalesce_bytes == 0 || o.bytes.size() >= cfg_.coalesce_bytes || !o.full.empty() ||
                         o.in_flight.load(std::memory_order_relaxed) == 0;  // relaxed: a hint
        // Sending now takes the progress lock (tried under o.m: the owner takes o.m while
        // holding it, but nobody waits for it) and the outbox's message in one go.
        bool expected = false;
        // acquire: the previous owner's work on the request lists happens before ours.
        if (now && progress_owned_.compare_exchange_strong(expected, true, std::memory_order_acquire)) op = take(o);
        else o.dirty.store(true, std::memory_order_release);  // release: the flusher's acquire sees the bytes
    }
    if (op == nullptr) {
        // The next poll sends it (if the progress lock was taken, its owner's next poll).
        any_dirty_.store(true, std::memory_order_release);  // release: as above
        return;
    }
    post_send(op);
    // A sender that sends message after message (no coalescing, or a burst past the
    // bound) also completes them, a window at a time, so that they do not pile up.
    if (requests_.size() >= test_window) complete_requests();
    progress_owned_.store(false, std::memory_order_release);  // release: pairs with the acquire above
}

bool mpi_transport::progress(bool idle_caller) noexcept {
    bool expected = false;
    // acquire: the previous owner's work on the request lists happens before ours.
    if (!progress_owned_.compare_exchange_strong(expected, true, std::memory_order_acquire)) return false;
    bool did = flush();
    did = post_chunk_requests() || did;
    did = complete_requests() || did;
    did = receive_messages() || did;
    did = start_wave() || did;
    did = start_jobs() || did;
    progress_owned_.store(false, std::memory_order_release);  // release: pairs with the acquire above
    if (idle_caller) back_off(did);
    return did;
}

// Pollers on a node with more workers than cores give their core away: every empty poll
// yields (another rank's worker may be the one with work, as Open MPI's own
// yield_when_idle does), and after 5 ms with nothing to do they nap 50 us (a message then
// waits at most that long; a busy exchange never naps). Without oversubscription they
// only spin (the scheduler's loop yields now and then).
void mpi_transport::back_off(bool did) noexcept {
    if (!oversubscribed_) return;
    // Per polling thread (several may poll in turn).
    thread_local bool idle_streak = false;
    thread_local std::chrono::steady_clock::time_point idle_since{};
    if (did) {
        idle_streak = false;
        return;
    }
    const auto now = std::chrono::steady_clock::now();
    if (!idle_streak) {
        idle_streak = true;
        idle_since = now;
    }
    if (now - idle_since > std::chrono::milliseconds(5)) std::this_thread::sleep_for(std::chrono::microseconds(50));
    else std::this_thread::yield();
}

bool mpi_transport::flush() noexcept {
    if (!any_dirty_.load(std::memory_order_acquire)) return false;  // acquire: pairs with enqueue's release
    any_dirty_.store(false, std::memory_order_relaxed);  // relaxed: a sender that sets it again is seen next poll
    bool did = false;
    for (const auto& box : outboxes_) {
        outbox& o = *box;
        if (!o.dirty.load(std::memory_order_acquire)) continue;  // acquire: pairs with enqueue's release
        operation* op = nullptr;
        {
            const std::lock_guard lock(o.m);
            if (o.bytes.empty() && o.full.empty()) {
                o.dirty.store(false, std::memory_order_relaxed);  // relaxed: under o.m (a sender took it)
                continue;
            }
            op = take(o);
        }
        post_send(op);
        did = true;
    }
    return did;
}

/// Moves what `o` holds into a send operation (its chunks into chunk_scratch_).
operation* mpi_transport::take(outbox& o) noexcept {
    operation* op = new_operation(operation::send);
    op->to = &o;
    op->buffers.swap(o.full);  // both empty-but-allocated in the steady state: no allocation
    if (!o.bytes.empty()) {
        op->buffers.push_back(std::move(o.bytes));  // leaves o.bytes empty
        if (!spare_buffers_.empty()) {
            o.bytes = std::move(spare_buffers_.back());
            spare_buffers_.pop_back();
        }
    }
    op->keeps.swap(o.keeps);
    chunk_scratch_.swap(o.chunks);
    add_owned(stats.parcels_sent, std::exchange(o.parcels, 0));
    add_owned(stats.bytes_sent, std::exchange(o.data, 0));
    o.dirty.store(false, std::memory_order_relaxed);  // relaxed: under o.m
    return op;
}

/// Posts the sends of an operation take() filled.
void mpi_transport::post_send(operation* op) noexcept {
    outbox& o = *op->to;
    const std::size_t gathered = op->buffers.size();
    for (std::size_t i = 0; i < gathered; ++i) {
        // A message longer than the posted receives goes as a large_message parcel (a
        // message of its own) and, under a chunk tag, its body, which the receiver reads
        // as a message once that parcel told it the size (deliver_message). Both buffers
        // stay in op->buffers until sent (moving a vector keeps its storage in place).
        std::byte* body = op->buffers[i].data();
        const std::size_t size = op->buffers[i].size();
        if (size > posted_bytes_) {
            std::vector<std::byte> announce;
            if (!spare_buffers_.empty()) {
                announce = std::move(spare_buffers_.back());
                spare_buffers_.pop_back();
            }
            parcel_header h;
            h.kind = parcel_kind::large_message;
            h.source = here();
            h.destination = static_cast<std::uint32_t>(o.peer);
            const int tag = allocate_tags(o, 1);
            h.chunk_tag = static_cast<std::uint32_t>(tag);
            const serialization::chunk whole{body, size};
            append_parcel(announce, h, std::span(&whole, 1), {});
            op->buffers.push_back(std::move(announce));
            post_pieces(op, false, op->buffers.back().data(), op->buffers.back().size(), o.peer, tag_message);
            post_pieces(op, false, body, size, o.peer, tag);
        } else {
            post_pieces(op, false, body, size, o.peer, tag_message);
        }
        add_owned(messages_out_, std::uint64_t{1}, std::memory_order_release);  // release: read by message_counts
        add_owned(stats.messages_sent, std::uint64_t{1});
    }
    for (const outgoing_chunk& c : chunk_scratch_)
        post_pieces(op, false, const_cast<std::byte*>(c.data), c.size, o.peer, c.tag);
    chunk_scratch_.clear();
    add_owned(o.in_flight, std::uint32_t{1});  // relaxed: a hint (see outbox)
    if (op->pending == 0) finish(op);
}

void mpi_transport::post_pieces(operation* op, bool receive, std::byte* data, std::size_t size, int peer,
                                int tag) noexcept {
    // One request per piece of at most max_message bytes (MPI counts are ints); an empty
    // run is one empty message, so that sender and receiver agree on the number.
    std::size_t at = 0;
    do {
        const int n = static_cast<int>(std::min(size - at, cfg_.max_message));
        MPI_Request r = MPI_REQUEST_NULL;
        if (receive) WEFT_MPI(MPI_Irecv(data + at, n, MPI_BYTE, peer, tag, comm_, &r));
        else WEFT_MPI(MPI_Isend(data + at, n, MPI_BYTE, peer, tag, comm_, &r));
        add_request(r, op);
        at += static_cast<std::size_t>(n);
    } while (at < size);
}

void mpi_transport::add_request(MPI_Request r, operation* op) noexcept {
    requests_.push_back(r);
    request_ops_.push_back(op);
    ++op->pending;
}

operation* mpi_transport::new_operation(operation::kind_t k) noexcept {
    operation* op = nullptr;
    if (!spare_ops_.empty()) {
        op = spare_ops_.back().release();
        spare_ops_.pop_back();
    } else {
        op = new operation;
    }
    op->kind = k;
    op->pending = 0;
    return op;
}

void mpi_transport::finish(operation* op) noexcept {
    switch (op->kind) {
    case operation::send:
        for (auto& b : op->buffers) {
            b.clear();
            if (b.capacity() <= 4 * cfg_.coalesce_bytes + 4096 && spare_buffers_.size() < 64)
                spare_buffers_.push_back(std::move(b));
        }
        op->buffers.clear();
        op->keeps.clear();
        // relaxed (both): a hint (see outbox), written by the progress owner only.
        op->to->in_flight.store(op->to->in_flight.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
        break;
    case operation::receive_large:
        deliver_message(op->fr, false);
        large_pending_.fetch_sub(1, std::memory_order_release);  // release: after the delivery
        break;
    case operation::receive_chunk:
        op->request->done.set_value();
        delete op->request;
        break;
    case operation::job: op->started.done(op->started.context); break;
    case operation::wave: {
        const std::lock_guard lock(wave_mutex_);
        wave_state_ = wave_state::done;
        wave_cv_.notify_all();
        break;
    }
    }
    op->fr = nullptr;
    op->request = nullptr;
    spare_ops_.emplace_back(op);
}

bool mpi_transport::complete_requests() noexcept {
    if (requests_.empty()) return false;
    // A window of requests per call: the oldest ones, as they complete about in the order
    // they were posted and MPI_Testsome is linear in what it is given (thousands of sends
    // in flight would make every poll slow). A window with nothing complete moves on to
    // the next one next time, so that every request is looked at.
    if (test_from_ >= requests_.size()) test_from_ = 0;
    const std::size_t window = std::min<std::size_t>(requests_.size() - test_from_, test_window);
    completed_.resize(window);
    int count = 0;
    WEFT_MPI(MPI_Testsome(static_cast<int>(window), requests_.data() + test_from_, &count, completed_.data(),
                          MPI_STATUSES_IGNORE));
    if (count == MPI_UNDEFINED || count == 0) {
        test_from_ += window;
        return false;
    }
    for (int i = 0; i < count; ++i) {
        operation* op = request_ops_[test_from_ + static_cast<std::size_t>(completed_[static_cast<std::size_t>(i)])];
        if (--op->pending == 0) done_ops_.push_back(op);
    }
    // Drop the completed requests (MPI set them to MPI_REQUEST_NULL) before finishing
    // operations, which may post new ones.
    std::size_t keep = test_from_;
    for (std::size_t i = test_from_; i < requests_.size(); ++i) {
        if (i < test_from_ + window && requests_[i] == MPI_REQUEST_NULL) continue;
        requests_[keep] = requests_[i];
        request_ops_[keep] = request_ops_[i];
        ++keep;
    }
    requests_.resize(keep);
    request_ops_.resize(keep);
    test_from_ = 0;
    std::vector<operation*> done;
    done.swap(done_ops_);
    for (operation* op : done) finish(op);
    done.clear();
    if (done_ops_.empty()) done_ops_.swap(done);  // keep the capacity
    return true;
}

bool mpi_transport::post_chunk_requests() noexcept {
    if (!have_chunk_requests_.load(std::memory_order_acquire)) return false;  // acquire: pairs with receive_chunk
    std::vector<chunk_request*> asked;
    {
        const std::lock_guard lock(requests_mutex_);
        asked.swap(chunk_requests_);
        have_chunk_requests_.store(false, std::memory_order_relaxed);  // relaxed: under the mutex
    }
    for (chunk_request* r : asked) {
        operation* op = new_operation(operation::receive_chunk);
        op->request = r;
        post_pieces(op, true, r->destination, r->size, static_cast<int>(r->source), r->tag);
    }
    return !asked.empty();
}

void mpi_transport::receive_chunk(std::uint32_t source, std::uint32_t tag, std::byte* destination, std::size_t size) {
    // The request (and its promise) belongs to progress() once queued: the task keeps only
    // the future, so that it may go away the moment the chunk is there.
    auto r = std::make_unique<chunk_request>(chunk_request{source, static_cast<int>(tag), destination, size, {}});
    weft::future<void> done = r->done.get_future();
    {
        const std::lock_guard lock(requests_mutex_);
        chunk_requests_.push_back(r.release());
        have_chunk_requests_.store(true, std::memory_order_release);  // release: pairs with post_chunk_requests
    }
    done.get();  // suspends this task; progress() posts the receive and completes it
}

frame* mpi_transport::new_frame(std::size_t size, std::uint32_t source) noexcept {
    frame* f = nullptr;
    {
        const std::lock_guard lock(frames_mutex_);
        if (!spare_frames_.empty()) {
            f = spare_frames_.back();
            spare_frames_.pop_back();
        }
    }
    if (f == nullptr) f = new frame;
    f->bytes.resize(size);
    f->source = source;
    f->refs.store(1, std::memory_order_relaxed);  // relaxed: not shared yet
    return f;
}

void mpi_transport::release(frame* f) noexcept {
    // acq_rel: the last owner sees every other owner's reads of the bytes done.
    if (f->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    if (f->bytes.capacity() > std::max<std::size_t>(cfg_.coalesce_bytes * 4, 64 * 1024)) {
        delete f;
        return;
    }
    const std::lock_guard lock(frames_mutex_);
    if (spare_frames_.size() >= 256) {
        delete f;
        return;
    }
    spare_frames_.push_back(f);
}

void mpi_transport::post_receive(int slot) noexcept {
    frame* f = new_frame(posted_bytes_, 0);
    posted_frames_[slot] = f;
    posted_order_[slot] = posted_count_++;
    WEFT_MPI(MPI_Irecv(f->bytes.data(), static_cast<int>(posted_bytes_), MPI_BYTE, MPI_ANY_SOURCE, tag_message, comm_,
                       &posted_[slot]));
}

bool mpi_transport::receive_messages() noexcept {
    if (!posted_open_) return false;
    // Flow control: with too many calls queued, messages wait in MPI (transport.hpp).
    if (backlog.load(std::memory_order_relaxed) > backlog_limit) return false;  // relaxed: a bound, re-read each poll
    // Receives that completed last time are posted again now rather than then: off the
    // way from a message to its answer (the others stay posted meanwhile).
    for (int i = 0; i < posted_receives; ++i)
        if (posted_[i] == MPI_REQUEST_NULL) post_receive(i);
    int count = 0;
    const int rc = MPI_Testsome(posted_receives, posted_, &count, posted_done_, posted_status_);
    if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) mpi_failed("MPI_Testsome(posted receives)", rc);
    if (count == MPI_UNDEFINED || count == 0) return false;
    // In arrival order: MPI fills posted receives in the order they were posted. (Testsome's
    // statuses go with its indices, so the permutation is sorted, not the indices.)
    int by_arrival[posted_receives];
    for (int i = 0; i < count; ++i) {  // an insertion sort: count <= posted_receives
        int j = i;
        for (; j > 0 && posted_order_[posted_done_[by_arrival[j - 1]]] > posted_order_[posted_done_[i]]; --j)
            by_arrival[j] = by_arrival[j - 1];
        by_arrival[j] = i;
    }
    for (int k = 0; k < count; ++k) {
        const int i = by_arrival[k];
        const int slot = posted_done_[i];
        const MPI_Status& st = posted_status_[i];
        frame* f = std::exchange(posted_frames_[slot], nullptr);
        int bytes = 0;
        WEFT_MPI(MPI_Get_count(&st, MPI_BYTE, &bytes));
        f->bytes.resize(static_cast<std::size_t>(std::max(bytes, 0)));
        f->source = static_cast<std::uint32_t>(st.MPI_SOURCE);
        if (rc == MPI_ERR_IN_STATUS && st.MPI_ERROR != MPI_SUCCESS) {
            // Only a message longer than any weft sends can fail here (its sender is not
            // this program: the start-up check compared them): dropped, never read.
            if (st.MPI_ERROR != MPI_ERR_TRUNCATE) mpi_failed("MPI_Testsome(posted receives)", st.MPI_ERROR);
            reject(f->bytes.size(), f->source, "longer than any message weft sends (truncated)");
            release(f);
            continue;
        }
        deliver_message(f, true);
    }
    return true;
}

void mpi_transport::cancel_receives() noexcept {
    if (!posted_open_) return;
    posted_open_ = false;
    for (int i = 0; i < posted_receives; ++i) {
        if (posted_[i] == MPI_REQUEST_NULL) continue;
        // Cancelling a receive completes at once (MPI 4.0 §3.8.4); every message has been
        // received by now (the termination waves said so), so none can have matched it.
        MPI_Cancel(&posted_[i]);
        MPI_Wait(&posted_[i], MPI_STATUS_IGNORE);
    }
}

void mpi_transport::reject(std::size_t bytes, std::uint32_t source, const char* what) noexcept {
    stats.parcels_rejected.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
    if (++rejected_ > rejects_reported) return;
    std::fprintf(stderr, "weft: locality %d rejected a malformed message of %zu bytes from locality %u: %s%s\n", rank_,
                 bytes, source, what, rejected_ == rejects_reported ? " (further rejections are only counted)" : "");
    std::fflush(stderr);
}

void mpi_transport::deliver_message(frame* f, bool counted) noexcept {
    views_.clear();
    try {
        split_message(f->bytes, limits_, views_);
        if (f->bytes.empty() || views_.front().header.source != f->source)
            throw serialization_error("weft: a message from locality " + std::to_string(f->source) +
                                      " whose parcels name another source");
    } catch (const std::exception& e) {
        reject(f->bytes.size(), f->source, e.what());
        views_.clear();
    }
    std::uint64_t bytes = 0;
    bool large = false;
    for (const parcel_view& v : views_) {
        if (v.header.kind == parcel_kind::large_message) {  // the body counts itself
            large = true;
            large_pending_.fetch_add(1, std::memory_order_relaxed);  // relaxed: before the count below (release)
            operation* op = new_operation(operation::receive_large);
            op->fr = new_frame(static_cast<std::size_t>(v.chunk_size(0)), f->source);
            post_pieces(op, true, op->fr->bytes.data(), op->fr->bytes.size(), static_cast<int>(f->source),
                        static_cast<int>(v.header.chunk_tag));
            continue;
        }
        bytes += sizeof(parcel_header) + v.header.chunks * sizeof(std::uint64_t) + v.payload.size();
        for (std::size_t i = 0; i < v.header.chunks; ++i) bytes += v.chunk_size(i);
    }
    if (large) std::erase_if(views_, [](const parcel_view& v) { return v.header.kind == parcel_kind::large_message; });
    if (!views_.empty()) {
        // One reference per parcel handed on, taken at once (no parcel is out yet).
        f->refs.store(1 + static_cast<std::uint32_t>(views_.size()), std::memory_order_relaxed);  // relaxed: not shared yet
        deliver_(f, views_);
    }
    add_owned(stats.parcels_received, std::uint64_t{views_.size()});
    add_owned(stats.bytes_received, bytes);
    if (counted) {
        add_owned(stats.messages_received, std::uint64_t{1});
        // release: whoever reads the count sees the tasks this message spawned.
        add_owned(messages_in_, std::uint64_t{1}, std::memory_order_release);
    }
    release(f);
}

bool mpi_transport::idle() const noexcept {
    // acquire (all): read after the work they describe.
    if (any_dirty_.load(std::memory_order_acquire) || large_pending_.load(std::memory_order_acquire) != 0 ||
        have_chunk_requests_.load(std::memory_order_acquire) || have_jobs_.load(std::memory_order_acquire))
        return false;
    for (const auto& o : outboxes_)
        if (o->dirty.load(std::memory_order_acquire)) return false;
    return true;
}

parcel_counts mpi_transport::wave(parcel_counts mine) {
    std::unique_lock lock(wave_mutex_);
    wave_in_[0] = mine.sent;
    wave_in_[1] = mine.received;
    wave_state_ = wave_state::asked;
    wave_asked_.store(true, std::memory_order_release);  // release: the poller reads wave_in_ after
    wave_cv_.wait(lock, [this] { return wave_state_ == wave_state::done; });
    wave_state_ = wave_state::none;
    return {wave_out_[0], wave_out_[1]};
}

bool mpi_transport::start_wave() noexcept {
    if (!wave_asked_.load(std::memory_order_acquire)) return false;  // acquire: pairs with wave()
    wave_asked_.store(false, std::memory_order_relaxed);  // relaxed: only the owner clears it
    operation* op = new_operation(operation::wave);
    MPI_Request r = MPI_REQUEST_NULL;
    {
        const std::lock_guard lock(wave_mutex_);
        wave_state_ = wave_state::running;
        WEFT_MPI(MPI_Iallreduce(wave_in_, wave_out_, 2, MPI_UINT64_T, MPI_SUM, coll_, &r));
    }
    add_request(r, op);
    return true;
}

void mpi_transport::submit(const mpi_job& job) {
    {
        const std::lock_guard lock(jobs_mutex_);
        jobs_.push_back(job);
        have_jobs_.store(true, std::memory_order_release);  // release: pairs with start_jobs
    }
    // Started at once if nobody polls (one poll less on the way); else by the owner.
    bool expected = false;
    // acquire: the previous owner's work on the request lists happens before ours.
    if (!progress_owned_.compare_exchange_strong(expected, true, std::memory_order_acquire)) return;
    start_jobs();
    progress_owned_.store(false, std::memory_order_release);  // release: pairs with the acquire above
}

bool mpi_transport::start_jobs() noexcept {
    if (!have_jobs_.load(std::memory_order_acquire)) return false;  // acquire: pairs with submit
    {
        const std::lock_guard lock(jobs_mutex_);
        jobs_taken_.swap(jobs_);
        have_jobs_.store(false, std::memory_order_relaxed);  // relaxed: under the mutex
    }
    for (const mpi_job& j : jobs_taken_) {
        operation* op = new_operation(operation::job);
        op->started = j;
        MPI_Request r = MPI_REQUEST_NULL;
        j.start(j.context, &r);
        add_request(r, op);
    }
    const bool did = !jobs_taken_.empty();
    jobs_taken_.clear();
    return did;
}

void mpi_transport::close() {
    // Every message has been received (the waves said so); sends may still be completing,
    // and collectives (jobs) that every member has joined. A job still pending after
    // job_grace waits for a member that never joined (an unmatched collective, a
    // program error): it is abandoned, its request left to MPI (a pending collective
    // request may be neither freed nor cancelled).
    constexpr auto job_grace = std::chrono::milliseconds(500);
    const auto since = std::chrono::steady_clock::now();
    for (;;) {
        bool expected = false;
        if (progress_owned_.compare_exchange_strong(expected, true, std::memory_order_acquire)) {  // acquire: as in progress
            start_jobs();
            complete_requests();
            bool only_jobs = true;
            for (const operation* op : request_ops_) only_jobs = only_jobs && op->kind == operation::job;
            const bool give_up = only_jobs && std::chrono::steady_clock::now() - since > job_grace;
            if (give_up) {
                for (operation* op : request_ops_)
                    if (--op->pending == 0) {
                        op->started.abandon(op->started.context);
                        spare_ops_.emplace_back(op);
                    }
                requests_.clear();
                request_ops_.clear();
            }
            const bool empty = requests_.empty();
            if (empty) cancel_receives();
            progress_owned_.store(false, std::memory_order_release);  // release: as in progress
            if (empty) return;
        }
        std::this_thread::yield();
    }
}

std::vector<std::vector<std::byte>> mpi_transport::gather(std::span<const std::byte> mine) {
    const int n = static_cast<int>(std::min<std::size_t>(mine.size(), INT_MAX / static_cast<std::size_t>(size_)));
    std::vector<int> sizes(static_cast<std::size_t>(size_));
    WEFT_MPI(MPI_Gather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, coll_));
    std::vector<int> offsets(static_cast<std::size_t>(size_));
    int total = 0;
    for (int i = 0; i < size_; ++i) {
        offsets[static_cast<std::size_t>(i)] = total;
        total += sizes[static_cast<std::size_t>(i)];
    }
    std::vector<std::byte> all(rank_ == 0 ? static_cast<std::size_t>(total) : 0);
    WEFT_MPI(MPI_Gatherv(mine.data(), n, MPI_BYTE, all.data(), sizes.data(), offsets.data(), MPI_BYTE, 0, coll_));
    std::vector<std::vector<std::byte>> out;
    if (rank_ != 0) return out;
    for (int i = 0; i < size_; ++i) {
        const auto at = all.begin() + offsets[static_cast<std::size_t>(i)];
        out.emplace_back(at, at + sizes[static_cast<std::size_t>(i)]);
    }
    return out;
}

}  // namespace

std::unique_ptr<transport> make_mpi_transport(const transport_config& cfg) {
    int up = 0, finalized = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&finalized);
    const bool launched = std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr ||
                          std::getenv("PMI_RANK") != nullptr || std::getenv("PMIX_RANK") != nullptr;
    if (finalized != 0 || (up == 0 && !launched)) return nullptr;
    int provided = MPI_THREAD_SINGLE;
    if (up == 0) {
        WEFT_MPI(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided));
        mpi_initialized_by_weft = true;
        std::atexit([] { finalize_at_exit(); });
    } else {
        WEFT_MPI(MPI_Query_thread(&provided));
    }
    if (provided < MPI_THREAD_MULTIPLE) {
        std::fprintf(stderr,
                     "weft: locality %d: MPI provides thread level %d, weft needs MPI_THREAD_MULTIPLE (%d): workers "
                     "take turns in MPI and tasks may call MPI themselves%s\n",
                     world_rank(), provided, MPI_THREAD_MULTIPLE,
                     mpi_initialized_by_weft ? "" : "; initialize MPI with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...)");
        std::fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return std::make_unique<mpi_transport>(cfg);
}

}  // namespace weft::distributed::detail
