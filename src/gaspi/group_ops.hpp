// Group helpers shared by the group calls, gaspi_barrier, gaspi_allreduce and the collective
// segment calls (gaspi/groups.hpp). The collectives themselves run on engine groups
// (bridge/engine_groups.hpp).
#pragma once
#include <GASPI.h>

#include <cstdint>

namespace hygaspi {

// Checks that `group` is committed and contains this rank.
gaspi_return_t check_committed_group(gaspi_group_t group) noexcept;

// The barrier of `group`; resumable after GASPI_TIMEOUT (spec §11.2.1).
gaspi_return_t group_barrier(gaspi_group_t group, gaspi_timeout_t timeout);

// A newly committed group (members, tag set): opens its engine group, which decides its route
// (node part, leaders) and makes it findable by its node peers.
gaspi_return_t publish_commit(gaspi_group_t group);

// Bytes of one member's slot in a reduce area: the largest allreduce the configuration allows.
std::uint64_t allreduce_slot_bytes() noexcept;

} // namespace hygaspi
