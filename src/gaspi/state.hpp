// What the GASPI front end owns, beside the engine: its life cycle (initialised, the count of
// lives, the calls under way that term waits for), its configuration (spec §5.2), its queues
// (spec §8.5) and its groups (spec §6). The engine knows none of it: GASPI passes the engine what it needs of them.
#pragma once
#include <GASPI.h>

#include <atomic>
#include <cstdint>

#include "core/config.hpp"
#include "core/no_destroy.hpp"
#include "core/queues.hpp"
#include "gaspi/groups.hpp"

namespace hygaspi::gaspi {

struct State {
  std::atomic<bool> initialized{false};
  std::atomic<std::uint32_t> life{0};       // +1 at every gaspi_proc_init: what a cache of one life keys on
  bool leaving = false;                     // gaspi_proc_term told the others (depart_group, engine_leaving)
  bool finalized_by_mpi = false;            // MPI_Finalize ran the teardown; the next gaspi_proc_term succeeds
  gaspi_config_t config = default_config(); // proposed before init, granted after
  QueueTable queues;
  GroupTable groups;
};

// Never destroyed (core/no_destroy.hpp): threads may still be inside calls when the process exits.
extern NoDestroy<State> g_state;
inline State &state() noexcept { return g_state.value; }

} // namespace hygaspi::gaspi
