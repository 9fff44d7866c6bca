// What the action templates (distributed/async.hpp) need from the distributed layer's
// compiled part (src/distributed/): this locality, the continuation table, and the
// outgoing side of the parcelport. Not for users.
#pragma once

#include <weft/distributed/continuations.hpp>
#include <weft/distributed/parcel.hpp>
#include <weft/distributed/serialization.hpp>

#include <cstdint>
#include <exception>
#include <memory>
#include <string_view>

namespace weft::distributed::detail {

/// This locality's id (0 without MPI, or before the runtime starts).
std::uint32_t here() noexcept;
/// How many localities the running system has (1 without MPI).
std::uint32_t localities() noexcept;
/// The promises of this locality's remote calls in flight.
continuation_table& continuations() noexcept;
/// An empty archive for encoding one parcel on this thread, reused (no allocation once
/// it has grown). Valid until the next call on this thread. `clear` false: as left by
/// the last encoding on this thread.
serialization::output_archive& scratch_archive(bool clear = true);
/// Checks that a runtime runs with the actions frozen and `target` names one of its
/// localities. @throws weft::runtime_state_error, weft::error (naming `what`)
void check_target(const char* what, std::uint32_t target_locality, bool target_valid);
/// Queues a parcel for locality `destination` (not this one): `payload` is copied into
/// the outgoing message; its chunks are sent from where they are, kept alive by `keep`
/// until sent. Small parcels to one destination are coalesced into one message, sent
/// when a worker goes idle or polls, or at once when enough has gathered.
/// @throws weft::runtime_state_error when no distributed runtime runs.
void send_parcel(std::uint32_t destination, parcel_kind kind, std::uint32_t action, std::uint64_t continuation,
                 const serialization::output_archive& payload, std::shared_ptr<const void> keep);

/// A posted action threw: prints "weft: action NAME posted to locality N threw ..." and
/// ends the program (code 1).
[[noreturn]] void posted_action_failed(std::string_view action, const std::exception_ptr& e) noexcept;

}  // namespace weft::distributed::detail
