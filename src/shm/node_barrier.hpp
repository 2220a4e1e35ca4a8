// Node-local dissemination barrier (Hensgen, Finkel, Manber 1988): ceil(log2 n) rounds; in round
// k, member i signals member i + 2^k and waits for member i - 2^k. No shared counter is hammered,
// and each flag has exactly one writer.
//
// A step, not a wait: node_barrier_step() looks once and advances as far as it can without
// waiting (the hierarchical collectives of bridge/collectives/ call it from their one wait loop).
// Its progress lives in NodeBarrierState, kept by the caller across GASPI_TIMEOUT.
#pragma once
#include <GASPI.h>

#include <cstdint>

#include "shm/node_group.hpp"

namespace hygaspi::shm {

// Where a dissemination barrier stands.
struct NodeBarrierState {
  std::uint32_t seq = 0;     // sequence number of the current (or last) barrier, 1-based
  std::uint32_t round = 0;   // next round to complete
  bool sent = false;         // this round's signal was sent
  bool active = false;       // a barrier is in progress
  std::uint32_t awaited = 0; // the member (position in NodeGroup::members) the last look waited for
};

// One look (a GASPI_TEST call): starts a barrier when none is active, signals each round's
// partner once, and passes every round whose partner has arrived. GASPI_SUCCESS when the barrier
// is complete (the next call starts a new one), GASPI_TIMEOUT while a partner has not arrived or
// not published the group yet.
gaspi_return_t node_barrier_step(Node &node, NodeGroup &group, NodeBarrierState &state) noexcept;
// Gives up the current barrier (an error elsewhere ended the collective).
inline void node_barrier_abandon(NodeBarrierState &state) noexcept { state.active = false; }

} // namespace hygaspi::shm
