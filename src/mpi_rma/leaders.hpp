// The inter-node part of hierarchical collectives (DESIGN.md "Collectives and groups"): one leader
// per node runs it after the node-local part. Point-to-point on the private communicator, so the
// user's reduce function can combine (no MPI_Op), and resumable: each step returns GASPI_TIMEOUT
// with its MPI requests kept in the group's state.
#pragma once
#include <GASPI.h>
#include <mpi.h>

#include <cstdint>
#include <span>
#include <vector>

#include "core/deadline.hpp"
#include "mpi_rma/control.hpp"

namespace hygaspi::mpi {

struct LeaderBarrier {
  std::uint32_t round = 0;
  bool posted = false;
  MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  char send_token = 0, receive_token = 0;
};

// Group handles are local (spec §6.3), so the leaders of a group tell its traffic apart by the
// group's commit tag, the same on every member (core/groups.hpp): `group_tag` below.

// A leader that leaves a collective with an error sends every other leader of the group an abort
// notice (leader_abort), so that none of them waits forever for its messages: each leader step
// ends with GASPI_ERROR when a notice for its group arrives, or when `broken()` says that the
// group failed on this node (asked between looks at MPI, like the notices).
struct Abort {
  bool (*broken)(void *ctx) = nullptr;
  void *ctx = nullptr;
};
void leader_abort(Env &env, std::uint32_t group_tag, std::span<const int> leaders, std::uint32_t me);

// Dissemination barrier among `leaders` (global ranks); I am leaders[me].
gaspi_return_t leader_barrier(Env &env, Control &control, Step progress, std::uint32_t group_tag,
                              std::span<const int> leaders, std::uint32_t me, LeaderBarrier &state, Abort abort,
                              const Deadline &deadline);

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
// commutative. On success `acc` holds the result on every leader.
gaspi_return_t leader_allreduce(Env &env, Control &control, Step progress, std::uint32_t group_tag,
                                std::span<const int> leaders, std::uint32_t me, void *acc, std::size_t bytes,
                                CombineFn combine, void *ctx, LeaderReduce &state, Abort abort,
                                const Deadline &deadline);

} // namespace hygaspi::mpi
