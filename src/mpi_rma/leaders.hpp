// The inter-node part of hierarchical collectives (docs/DESIGN.md "Collectives and groups"): one leader
// per node runs it after the node-local part. Point-to-point on the private communicator, so the
// user's reduce function can combine (no MPI_Op).
//
// Steps, not waits: each *_step function posts what it has not posted yet, tests its requests
// once and moves on as far as completed messages allow (a GASPI_TEST call: GASPI_SUCCESS done,
// GASPI_TIMEOUT not yet, GASPI_ERROR from MPI, logged). The hierarchical collectives
// (bridge/collectives/) drive them from their one wait loop and keep the state across
// GASPI_TIMEOUT; the requests stay posted meanwhile.
#pragma once
#include <GASPI.h>
#include <mpi.h>

#include <cstdint>
#include <span>
#include <vector>

#include "core/ranks.hpp"
#include "core/value_fold.hpp"
#include "mpi_rma/mpi_env.hpp"

namespace hygaspi::mpi {

// Group handles are local (spec §6.3), so the leaders of a group tell its traffic apart by the
// group's commit tag, the same on every member: `group_tag` below.

// A leader that leaves a collective with an error sends every other leader of the group an abort
// notice (leader_abort), so that none of them waits forever for its messages: the wait loop asks
// abort_notice() now and then, and ends the collective with GASPI_ERROR when it says so.
void leader_abort(Env &env, std::uint32_t group_tag, std::span<const MpiRank> leaders, std::uint32_t me);
// Takes the pending abort notices of the group's tag bucket; true if one was for this group.
[[nodiscard]] bool abort_notice(Env &env, std::uint32_t group_tag);

// A leader whose rank ends its session (gaspi_proc_term) tells every other leader of each of its
// groups how many barriers and allreduces of the group it completed (leader_departs): all of its
// messages for those were sent, and none for a later one will be. A leader that waits in a later
// collective fails it instead of waiting forever (take_departures, asked with the abort notices).
struct Departure {
  std::uint64_t barriers = UINT64_MAX, allreduces = UINT64_MAX; // the fewest of the departed leaders
  int leader = -1; // the departed leader with the fewest (an MPI rank), -1 when none departed
};
void leader_departs(Env &env, std::uint32_t group_tag, std::span<const MpiRank> leaders, std::uint32_t me,
                    std::uint64_t barriers, std::uint64_t allreduces);
// Takes the departure notices that arrived for the group into `into`. Notices of another group that
// shares the tag bucket are kept for it until the session ends (forget_departures).
void take_departures(Env &env, std::uint32_t group_tag, Departure &into);
void forget_departures() noexcept;

struct LeaderBarrier {
  std::uint32_t round = 0;
  bool posted = false;
  MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  std::uint64_t sent = 0, received = 0; // the messages: what the sender had folded so far
  std::uint64_t value = 0;              // with a fold: this leader's value, and the fold of all at the end
};

// Dissemination barrier among `leaders`; I am leaders[me]. One message round per step. With
// `fold`, each message carries what its sender has folded so far and state.value (set before the
// first step) ends as the fold of every leader's; it stays in `state` when the barrier completes.
gaspi_return_t leader_barrier_step(Env &env, std::uint32_t group_tag, std::span<const MpiRank> leaders,
                                   std::uint32_t me, LeaderBarrier &state, ValueFold fold = nullptr);
// Gives up a barrier that failed (its tokens live in `state`, which the runtime keeps for good).
void leader_barrier_abandon(Env &env, LeaderBarrier &state) noexcept;

using CombineFn = gaspi_return_t (*)(void *ctx, void *acc, const void *other);

struct LeaderReduce {
  int step = 0;        // 0: fold in the leaders beyond the power of two; 1..: doubling; then unfold
  bool posted = false; // this step's messages are out
  MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  std::vector<char> send, receive;
};

// Allreduce of `acc` (bytes) among leaders by recursive doubling: log2(n) exchanges instead of a
// gather and a broadcast. Leaders beyond the largest power of two p first fold their value into
// leader i - p and get the result back at the end. Every combine puts the lower leaders' part
// first, so all leaders compute the bit-identical result even for a user operation that is not
// commutative. On GASPI_SUCCESS `acc` holds the result on every leader; a failing combine's code
// is returned as it is.
gaspi_return_t leader_allreduce_step(Env &env, std::uint32_t group_tag, std::span<const MpiRank> leaders,
                                     std::uint32_t me, void *acc, std::size_t bytes, CombineFn combine, void *ctx,
                                     LeaderReduce &state);
// Gives up an allreduce that failed: its receive is cancelled, and buffers MPI may still use are
// kept alive (see leaders.cpp).
void leader_allreduce_abandon(Env &env, LeaderReduce &state) noexcept;

} // namespace hygaspi::mpi
