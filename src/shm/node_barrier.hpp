// Node-local dissemination barrier (Hensgen, Finkel, Manber 1988): ceil(log2 n) rounds; in round
// k, member i signals member i + 2^k and waits for member i - 2^k. No shared counter is hammered,
// and each flag has exactly one writer. Resumable: progress lives in BarrierProgress.
#pragma once
#include <GASPI.h>

#include "core/deadline.hpp"
#include "core/groups.hpp"
#include "shm/node_group.hpp"

namespace hygaspi::shm {

// `drive`: the caller's progress step, driven while it waits (core/wait.hpp).
gaspi_return_t node_barrier(Node &node, NodeGroup &group, BarrierProgress &progress, const Deadline &deadline,
                            Step drive);

} // namespace hygaspi::shm
