// Node-local allreduce through one shared buffer (docs/DESIGN.md "Collectives and groups"): every member copies
// its contribution into its slot of the leader's reduce area, the leader combines the slots and
// publishes the result, every member copies it out. One copy in, one combine pass, one copy out;
// no point-to-point messages.
//
// A small allreduce of a group that lives on one node takes the shared way instead: every member
// copies its contribution into its shared slot and folds every member's slot itself, in member
// order, so each member waits for the others' arrival only (one flag's trip, as a barrier does)
// and not for the leader's publication as well (two trips). Every member folds the same slots in
// the same order, so every member gets the same bits, as the leader's result would be.
//
// Steps, not waits: each function below does its part at once or looks once (GASPI_TIMEOUT: not
// yet). The hierarchical allreduce (bridge/collectives/) orders them, runs the inter-node exchange
// on the leader's result between combine and publish, and waits in its one loop. The send buffer
// is read only by reduce_contribute, on the first call of an allreduce (spec §11.3.1).
//
// Slot reuse is safe without extra flags: a member contributes to allreduce s+1 only after it has
// seen result s, which the leader publishes only after it has read every slot of s; and the leader
// writes result s+1 only after every member has contributed to s+1, i.e. copied result s out.
#pragma once
#include <GASPI.h>

#include <cstddef>
#include <cstdint>

#include "shm/node_group.hpp"

namespace hygaspi::shm {

// acc = acc (op) other, for `ctx`'s element type and count. Returns GASPI_SUCCESS or an error.
using Combine = gaspi_return_t (*)(void *ctx, void *acc, const void *other);

// The node-local part of a group's allreduce progress: the sequence number of the current (or
// last) allreduce, 1-based.
struct NodeReduceState {
  std::uint32_t seq = 0;
};

// One group's reduce area as this rank maps it: created by the node's leader, named by the
// group's commit tag, which every member knows.
struct ReduceArea {
  std::uint32_t tag = 0;   // commit tag of the group this mapping belongs to (0: none)
  std::uint64_t nonce = 0; // random part of the area's name (Node::object_name)
  ReduceLayout layout{};
  ShmObject object;
  [[nodiscard]] char *at(std::size_t offset) const noexcept { return static_cast<char *>(object.data()) + offset; }
  [[nodiscard]] ReduceFlag &arrived(std::uint32_t i) const noexcept {
    return reinterpret_cast<ReduceFlag *>(at(layout.arrived_offset()))[i];
  }
  [[nodiscard]] ReduceFlag &result_seq() const noexcept {
    return *reinterpret_cast<ReduceFlag *>(at(layout.result_seq_offset()));
  }
  [[nodiscard]] char *result() const noexcept { return at(layout.result_offset()); }
  [[nodiscard]] SharedSlotHead &shared_head(std::uint32_t seq, std::uint32_t i) const noexcept {
    return *reinterpret_cast<SharedSlotHead *>(at(layout.shared_offset(seq, i)));
  }
  [[nodiscard]] char *shared_data(std::uint32_t seq, std::uint32_t i) const noexcept {
    return at(layout.shared_offset(seq, i) + kSharedDataOffset);
  }
};

// The leader creates the area of a newly committed group, before it publishes the group
// (publish_group), so members that find the group find the area.
gaspi_return_t reduce_area_create(Node &node, const NodeGroup &group, ReduceArea &area, std::uint64_t slot_bytes);
// One look: maps the leader's area once the leader has published the group. GASPI_SUCCESS (also
// when mapped already), GASPI_TIMEOUT (not published yet), GASPI_ERROR (logged).
gaspi_return_t reduce_area_attach_step(Node &node, NodeGroup &group, ReduceArea &area, std::uint64_t slot_bytes);
// Drops this rank's mapping (group deleted, or term); the leader also removes the name.
void reduce_area_drop(Node &node, ReduceArea &area, bool leader) noexcept;
// The leader removes the area's name once every node member has mapped it (after a completed
// allreduce): a crash then leaves nothing of it in /dev/shm. The mappings stay.
void reduce_area_forget_name(Node &node, const ReduceArea &area) noexcept;

// Starts allreduce state.seq + 1: copies `send` into this member's slot and tells the leader.
void reduce_contribute(Node &node, const NodeGroup &group, ReduceArea &area, NodeReduceState &state, const void *send,
                       std::size_t bytes) noexcept;
// Leader, one look: once every member has contributed, combines the slots into area.result().
// GASPI_SUCCESS, GASPI_TIMEOUT (a member has not contributed yet), or the combine's error.
gaspi_return_t reduce_combine_step(const NodeGroup &group, ReduceArea &area, const NodeReduceState &state,
                                   std::size_t bytes, Combine combine, void *ctx);
// Leader: makes area.result() visible to the members and wakes them.
void reduce_publish(Node &node, const NodeGroup &group, ReduceArea &area, const NodeReduceState &state) noexcept;
// One look: once the leader has published the result, copies it to `receive`.
gaspi_return_t reduce_collect_step(const ReduceArea &area, const NodeReduceState &state, void *receive,
                                   std::size_t bytes) noexcept;

// The shared way, for bytes <= kSharedMaxBytes. Starts allreduce state.seq + 1: copies `send`
// into this member's shared slot of the sequence's parity, raises the slot's sequence and tells
// every other member. arrived[] follows too, so that the leader's way never compares a sequence
// with one from long ago.
//
// Two parities make reuse safe without more flags: a member writes its slot of parity p at
// allreduce s once it has completed s - 1, i.e. seen every member arrive at s - 1; a member
// arrives at s - 1 only after it has folded s - 2, the last allreduce that read parity p. So a
// reader waiting for s finds the slot at s - 2 or earlier, or at s: never past it, and it looks
// for s exactly.
void reduce_share(Node &node, const NodeGroup &group, ReduceArea &area, NodeReduceState &state, const void *send,
                  std::size_t bytes) noexcept;
// One look: once every member has shared, folds the shared slots in member order into `acc`
// (bytes long). GASPI_SUCCESS, GASPI_TIMEOUT (a member has not shared yet), or the combine's
// error. The leader also raises result_seq, for the same reason as arrived[] above.
gaspi_return_t reduce_fold_step(const NodeGroup &group, ReduceArea &area, const NodeReduceState &state, void *acc,
                                std::size_t bytes, Combine combine, void *ctx);

} // namespace hygaspi::shm
