// Node-local dissemination barrier (Hensgen, Finkel, Manber 1988): ceil(log2 n) rounds; in round
// k, member i signals member i + 2^k and waits for member i - 2^k. No shared counter is hammered,
// and each flag has exactly one writer.
//
// A step, not a wait: node_barrier_step() looks once and advances as far as it can without
// waiting (the hierarchical collectives of bridge/collectives/ call it from their one wait loop).
// Its progress lives in NodeBarrierState, kept by the caller across GASPI_TIMEOUT.
//
// A barrier may carry a 64-bit value and fold it (an allreduce in the barrier's own messages): in
// round k a member sends what it has folded so far with its signal, in the signal's cache line,
// and folds what its source sent. A member hears from some others twice when n is not a power of
// two, so the fold must be idempotent as well as commutative and associative (a mismatch check,
// a maximum, a bitwise or). GASNet's barrier ids take this way: one flag's trip per round, where
// an allreduce through the reduce area cost a cache line's trip more.
#pragma once
#include <GASPI.h>

#include <cstdint>

#include "core/value_fold.hpp"
#include "shm/node_group.hpp"

namespace hygaspi::shm {

// Where a dissemination barrier stands.
struct NodeBarrierState {
  std::uint32_t seq = 0;     // sequence number of the current (or last) barrier, 1-based
  std::uint32_t round = 0;   // next round to complete
  bool sent = false;         // this round's signal was sent
  bool active = false;       // a barrier is in progress
  std::uint32_t awaited = 0; // the member (position in NodeGroup::members) the last look waited for
  // With a fold: this member's value, set before the barrier starts; the fold of all at the end.
  std::uint64_t value = 0;
};

// One look (a GASPI_TEST call): starts a barrier when none is active, signals each round's
// partner once, and passes every round whose partner has arrived. GASPI_SUCCESS when the barrier
// is complete (the next call starts a new one), GASPI_TIMEOUT while a partner has not arrived or
// not published the group yet.
// With `fold`, state.value travels and folds (see above).
gaspi_return_t node_barrier_step(Node &node, NodeGroup &group, NodeBarrierState &state,
                                 ValueFold fold = nullptr) noexcept;
// Gives up the current barrier (an error elsewhere ended the collective).
inline void node_barrier_abandon(NodeBarrierState &state) noexcept { state.active = false; }

} // namespace hygaspi::shm
