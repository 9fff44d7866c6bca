// The active global address space's running part (issue #24; seed 004 L39: objects keep
// their global names when they move): which components live here, where this
// locality's migratable components live now, and a cache of where others' do. The
// call path (run a component call, forward it, hold it, answer it) is locality.cpp's;
// the tables and migration are agas.cpp's.
#pragma once

#include <weft/distributed/component.hpp>
#include <weft/distributed/parcel.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <string_view>
#include <typeinfo>
#include <vector>

namespace weft::distributed::detail {

/// A component call this locality keeps for a while (held while its object moves, or
/// about to be forwarded): its header, payload (the target id, then the arguments) and
/// chunks, in memory and kept alive by `keep`.
struct held_parcel {
    parcel_header h;
    std::vector<std::byte> payload;
    std::vector<serialization::chunk> chunks;
    std::shared_ptr<const void> keep;
};

/// The target id a component call's payload starts with (split_message checked that
/// there are 16 bytes).
id_type call_target(std::span<const std::byte> payload) noexcept;

// --- agas.cpp ------------------------------------------------------------------------

enum class found { live, moving, absent };

/// Pins `id` if it lives here and takes calls (found::live; `ref` set); else says why
/// not. @throws weft::error if it lives here as another type than `expected`.
found agas_acquire(const id_type& id, const std::type_info& expected, std::string_view action, local_ref& ref);

/// A call whose object did not take it here: holds it if the object is moving away
/// from here, runs it if the object took calls meanwhile, forwards it to where the
/// object should be (its home, or the home's record), or fails it if the object does
/// not exist.
void agas_route(held_parcel p);

/// A forwarded call ran here: tell its origin where `id` lives (its cache).
void agas_note_location(std::uint32_t origin, const id_type& id);

/// The runtime's start and stop: the component types' table; every component still
/// alive is destroyed at stop (and counted as leaked, on stderr).
void agas_start();
void agas_stop() noexcept;

/// Does nothing: called at start so that every program links lcos.cpp, whose
/// component actions (the distributed latch's and channel's) must be in every
/// locality's action table, used or not.
void lcos_start() noexcept;

/// The /agas counters' values on this locality.
struct agas_stats {
    std::uint64_t resolves = 0, cache_hits = 0, cache_misses = 0, migrations = 0;
};
agas_stats agas_read_stats() noexcept;

// --- locality.cpp --------------------------------------------------------------------

/// Runs a held call on its pinned object, in a new task, and answers it.
void run_held(held_parcel p, local_ref ref);
/// Answers (or, for a posted call, ends the program over) a call that cannot run.
void fail_call(const parcel_header& h, std::exception_ptr e);
/// Sends `p` on to `destination` (one hop more; its origin, continuation and chunks kept).
void forward_parcel(held_parcel&& p, std::uint32_t destination);
/// Sends a parcel whose header is complete (source, origin, destination set).
/// @throws weft::runtime_state_error when no distributed runtime runs.
void send_parcel_header(parcel_header h, const serialization::output_archive& payload,
                        std::shared_ptr<const void> keep);

}  // namespace weft::distributed::detail
