// The parcelport's transport (../shared/DESIGN.md: "MPI backend behind a transport
// interface"): moves parcels between localities. One implementation, over MPI
// (mpi_transport.cpp); a run without MPI has one locality and no transport.
//
// Everything the workers do in MPI happens in progress(), one thread at a time (a
// try-lock): senders only queue, and tasks that wait for a chunk ask progress() to
// receive it. MPI_Init, the start-up check, the counters' gather and MPI_Finalize run on
// the thread that starts and stops the runtime while no worker polls.
#pragma once

#include <weft/distributed/parcel.hpp>
#include <weft/distributed/serialization.hpp>
#include <weft/distributed/termination.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace weft::distributed::detail {

struct transport_config {
    /// Parcels to one destination gather in one message until it holds this many bytes
    /// (0: every parcel is a message of its own). --weft:parcel-coalesce
    std::size_t coalesce_bytes = 16 * 1024;
    /// The largest single MPI message; larger ones go in pieces. --weft:parcel-max-message
    std::size_t max_message = std::size_t{1} << 30;
};

/// A received message, shared by the tasks of the parcels it holds.
struct frame {
    serialization::buffer<std::byte> bytes;  ///< not zeroed before MPI writes it
    std::uint32_t source = 0;
    std::atomic<std::uint32_t> refs{0};
};

/// Cumulative statistics (the /parcels, /data and /messages counters).
struct transport_stats {
    std::atomic<std::uint64_t> parcels_sent{0}, parcels_received{0}, parcels_rejected{0};
    std::atomic<std::uint64_t> bytes_sent{0}, bytes_received{0};
    std::atomic<std::uint64_t> messages_sent{0}, messages_received{0};
};

/// A non-blocking MPI operation started and completed by progress() (weft::collectives,
/// src/distributed/collectives.cpp): the transport knows nothing of what it does.
struct mpi_job {
    /// Posts the operation (under progress()'s lock) and writes its MPI_Request to
    /// `request` (an `MPI_Request*`, opaque here).
    void (*start)(void* context, void* request) noexcept = nullptr;
    /// The request completed (under progress()'s lock: must not block).
    void (*done)(void* context) noexcept = nullptr;
    /// The transport closed with the request still pending (a member never joined).
    void (*abandon)(void* context) noexcept = nullptr;
    void* context = nullptr;
};

class transport {
public:
    /// Receives the parcels of one message, in order (called by progress(), under its
    /// lock). `f` holds one reference per parcel for the receiver, each released once
    /// (transport::release) when that parcel is done with; the views point into `f` and
    /// into the transport's scratch space, valid until the call returns.
    using deliver_fn = void (*)(frame* f, std::span<const parcel_view> parcels);

    virtual ~transport() = default;
    virtual std::uint32_t here() const noexcept = 0;
    virtual std::uint32_t size() const noexcept = 0;
    /// Processes of this run on this node (for the default worker count).
    virtual std::uint32_t local_size() const noexcept = 0;

    /// Collective, at start: exits the program on every locality with a message if the
    /// localities' action tables differ (different programs).
    virtual void check_same_program(std::uint64_t checksum, std::uint64_t actions) = 0;
    /// More workers than cores on this node: idle pollers nap after a while.
    virtual void set_oversubscribed(bool v) noexcept = 0;
    /// Starts delivering: parcels are checked against `limits`, then handed to `deliver`.
    virtual void open(const parcel_limits& limits, deliver_fn deliver) = 0;

    /// Queues a parcel (any thread). `h` has source, destination, kind, action and
    /// continuation set; chunks are sent from where they are, `keep` holds them.
    virtual void send(parcel_header h, std::span<const std::byte> payload,
                      std::span<const serialization::chunk> chunks, std::shared_ptr<const void> keep) = 0;
    /// Receives chunk `index` of a parcel from `source` whose chunks start at `tag`
    /// into `destination`; suspends the calling task until it is there.
    virtual void receive_chunk(std::uint32_t source, std::uint32_t tag, std::byte* destination, std::size_t size) = 0;
    /// A frame's last parcel is done with it.
    virtual void release(frame* f) noexcept = 0;
    /// Queues `job` (any thread) for the next progress() to start; jobs start in the
    /// order they were submitted.
    virtual void submit(const mpi_job& job) = 0;
    /// The MPI communicators of weft::collectives, as `const MPI_Comm*` (opaque here):
    /// `0` for collectives over every locality, `1` to create sub-groups from. Both are
    /// duplicates of MPI_COMM_WORLD of their own, made at start.
    virtual const void* collective_comm(int which) const noexcept = 0;

    /// The background work: sends what is queued, posts asked-for receives, completes
    /// requests, receives messages, runs termination waves. True if it did something.
    virtual bool progress(bool idle_caller) noexcept = 0;
    /// Nothing queued to send, no message being received in pieces, no job waiting to start.
    virtual bool idle() const noexcept = 0;
    /// Messages sent and fully delivered so far (what termination waves add up).
    virtual parcel_counts message_counts() const noexcept = 0;
    /// One termination wave (blocks the calling thread, not a worker, until every
    /// locality has joined): the sums of every locality's `mine`.
    virtual parcel_counts wave(parcel_counts mine) = 0;
    /// Ends every locality's program now with exit code `code` (a fatal error here).
    [[noreturn]] virtual void abort_all(int code) noexcept = 0;
    /// After the last wave: waits until every send has completed and stops receiving.
    virtual void close() = 0;
    /// Collective, after close(): every locality's `mine`, in locality order, on locality
    /// 0 (empty elsewhere).
    virtual std::vector<std::vector<std::byte>> gather(std::span<const std::byte> mine) = 0;

    transport_stats stats;
    /// Parcels delivered whose tasks have not started yet (the locality counts them).
    /// Past backlog_limit, progress() stops taking messages off the network until the
    /// workers catch up: a flood then waits in MPI's buffers, tens of bytes a parcel,
    /// not as queued tasks of hundreds.
    std::atomic<std::int64_t> backlog{0};
    static constexpr std::int64_t backlog_limit = std::int64_t{1} << 16;
};

/// The running transport (null: one locality, or no runtime). In locality.cpp.
transport* running_transport() noexcept;
/// The runtime stops: fails every collective still waiting (collectives.cpp).
void collectives_stopped() noexcept;

/// Under mpirun (or with MPI initialized by the program), the MPI transport; otherwise
/// null (one locality). Exits with a message if MPI cannot give what weft needs.
std::unique_ptr<transport> make_mpi_transport(const transport_config& cfg);

}  // namespace weft::distributed::detail
