// Passive messages (GASPI's passive communication, spec §9) as the engine carries them, addressed
// by rank: the passive lane of the engine's message channel (bridge/am_channel.hpp), which picks
// the path (a node peer's inbox in shm, or MPI). Both sides sleep while they wait (spec §9.1:
// "avoid busy-waiting"). The front end checks its arguments (rank, segment range, size against its
// own maximum) first.
#pragma once
#include <GASPI.h>

#include <cstdint>

#include "core/ranks.hpp"

namespace hygaspi::engine {

// Sends `size` (> 0) bytes at `src` to rank `to`, which is alive. GASPI_SUCCESS once the message is
// in the target's ring or held by its MPI; GASPI_TIMEOUT: nothing was sent; GASPI_ERR_INV_COMMSIZE:
// larger than the target receives; GASPI_ERROR: the target died, or term began (logged).
gaspi_return_t passive_send(GlobalRank to, const char *src, std::uint64_t size, gaspi_timeout_t timeout);

// Receives the next message of any sender into `dst` (`size` bytes), waiting under the rules of
// bridge/failures.hpp. `from` gets its sender. A longer message is truncated, consumed, and
// returns GASPI_ERROR (logged).
gaspi_return_t passive_receive(char *dst, std::uint64_t size, std::uint32_t &from, gaspi_timeout_t timeout);

// Discards every passive message published to this rank now, and acknowledges the deaths seen so
// far (bridge/failures.hpp). Never waits.
void passive_purge() noexcept;

} // namespace hygaspi::engine
