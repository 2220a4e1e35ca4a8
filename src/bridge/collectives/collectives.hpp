// Hierarchical collectives (docs/DESIGN.md "Collectives and groups"): barrier and allreduce as step
// machines over one GroupRecord. Each machine advances through its phases by calling the shm and
// MPI steps (shm/node_barrier.hpp, shm/node_reduce.hpp, mpi_rma/leaders.hpp: each looks once and
// never waits), and waits in one loop (collective_wait.hpp). Resumable (spec §11.2.1, §11.3.1): a
// call that returns GASPI_TIMEOUT keeps the machine's state in the record and the next call
// continues; GASPI_TEST makes one step; allreduce reads the send buffer on the first call only.
//
// Failures live here too (a member that left with an error must not keep the others waiting): a collective that
// ends with an error marks the group broken for its node members (shm) and sends the other
// leaders an abort notice (MPI), so every member that still waits is released with GASPI_ERROR.
#pragma once
#include <GASPI.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "bridge/collectives/group_record.hpp"
#include "core/deadline.hpp"
#include "core/value_fold.hpp"

namespace hygaspi::collectives {

// ---- the group's life
// Works out how this rank reaches the members of a newly committed group (node part, leaders).
void plan(GroupRecord &g, std::uint32_t slot);
// Makes a newly committed group (after plan) findable by its node peers: the leader's reduce area
// (slot_bytes per member), then its slot under its commit tag (shm/node_group.hpp).
gaspi_return_t publish(GroupRecord &g, std::uint64_t slot_bytes);
// The group is deleted: withdraws its slot and drops the reduce area.
void withdraw(GroupRecord &g);
// gaspi_proc_term: drops the reduce area of a committed group.
void drop(GroupRecord &g) noexcept;
// gaspi_proc_term, before drop: a leader tells the group's other leaders how many of its
// collectives it completed (mpi::leader_departs), so that none waits forever for a later one.
void depart(GroupRecord &g);
// After an allreduce of the group completed, every node member has mapped its reduce area: the
// leader removes the area's name (shm::reduce_area_forget_name).
void forget_area_name(GroupRecord &g) noexcept;

// A front end's group (a GASPI group at its commit, a GASNet-EX team): makes `g` a committed
// group of `members` (global ranks, sorted, unique, this rank among them) in engine slot `slot`
// (a GASPI group's handle, or limits::kMaxGroups..kGroupSlots-1 for a team) under `tag` (the same
// on every member, never 0), then plans and publishes it. Local: the members meet at its first collective, whose steps
// look again until each member has published it. withdraw() closes it.
gaspi_return_t open_group(GroupRecord &g, std::vector<gaspi_rank_t> members, std::uint32_t slot, std::uint32_t tag,
                          std::uint64_t slot_bytes);

// A collective of a broken group fails at once with GASPI_ERROR (logged).
gaspi_return_t check_not_broken(const GroupRecord &g);

// ---- the collectives; the caller holds the group's `collective` (barrier) or `reducing` lock
// With `fold`, the barrier also folds *value across the members, in the node phases' signals
// (shm/node_barrier.hpp) and the leaders' messages: read when the barrier starts, written when it
// completes. With `area_slot_bytes` (its slot_bytes, see publish), each node member maps the
// group's reduce area before it arrives; 0 once the area's name is gone.
gaspi_return_t barrier(GroupRecord &g, std::uint64_t area_slot_bytes, const Deadline &deadline,
                       ValueFold fold = nullptr, std::uint64_t *value = nullptr);
// acc = acc (op) other; the same function combines in shm and between leaders.
using Combine = gaspi_return_t (*)(void *ctx, void *acc, const void *other);
// `bytes` <= slot_bytes, the size of each member's slot in the reduce area (see publish).
gaspi_return_t allreduce(GroupRecord &g, const void *send, void *receive, std::size_t bytes, Combine combine, void *ctx,
                         std::uint64_t slot_bytes, const Deadline &deadline);

} // namespace hygaspi::collectives
