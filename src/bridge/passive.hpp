// Passive messages (GASPI's passive communication, spec §9) as the engine carries them, addressed
// by rank. Which path reaches the rank is decided here:
// - a node peer: every rank owns a receive ring in shm (shm/passive_ring.hpp); a sender copies its
//   message into a slot of the target's ring and rings the target's doorbell; the receiver copies
//   it out, frees the slot and wakes senders that wait for space. Both sides sleep on a futex
//   doorbell while they wait (spec §9.1: "avoid busy-waiting");
// - another node: a two-sided MPI message on the engine's private communicator, sent within the
//   receiver's credits (mpi::Messages::send); the receiver's progress step moves it into a mailbox.
//   A receive looks at both sources, taking turns which first.
// The front end checks its arguments (rank, segment range, size against its own maximum) first.
#pragma once
#include <GASPI.h>

#include <cstdint>

#include "core/ranks.hpp"

namespace hygaspi::engine {

// Sends `size` (> 0) bytes at `src` to rank `to`, which is alive. GASPI_SUCCESS once the message is
// in the target's ring or held by its MPI; GASPI_TIMEOUT: nothing was sent; GASPI_ERR_INV_COMMSIZE:
// larger than the target's receive slots; GASPI_ERROR: the target died, or term began (logged).
gaspi_return_t passive_send(GlobalRank to, const char *src, std::uint64_t size, gaspi_timeout_t timeout);

// Receives the next message of any sender into `dst` (`size` bytes), waiting under the rules of
// bridge/failures.hpp. `from` gets its sender. A longer message is truncated, consumed, and
// returns GASPI_ERROR (logged).
gaspi_return_t passive_receive(char *dst, std::uint64_t size, std::uint32_t &from, gaspi_timeout_t timeout);

// Discards every message published to this rank now, skips slots that dead senders claimed, and
// acknowledges the deaths seen so far (bridge/failures.hpp). Never waits.
void passive_purge() noexcept;

} // namespace hygaspi::engine
