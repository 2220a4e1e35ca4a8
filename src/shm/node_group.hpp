// A committed group as the node-local transport sees it, and how node peers find each other's
// state of it. Group handles are local (spec §6.3: "gaspi_group_t" identifies a group only on the
// rank that created it), so ranks meet in shm by the group's commit tag, which every member
// computes alike from the membership (the front end's: gaspi/groups.hpp, gasnet/ex_team.cpp): each
// rank publishes, in its rank block, which of its slots holds which tag, and a peer looks the tag
// up once per commit.
//
// A collective's wait ends with GASPI_ERROR once a member that it still waits for is dead, or any
// member marked the group broken: a member that leaves a collective with an error marks it (for
// every node member), so the members still waiting on it return too, instead of waiting for a
// signal that will never come. A member that dies after it gave this collective all it owes
// (its flags, its contribution) stops no one: the others complete (CI's mr_ranks_kill: a barrier
// partner killed after it left failed its leader's barrier, and every other node's with it).
#pragma once
#include <GASPI.h>

#include <cstdint>
#include <string>
#include <vector>

#include "shm/node.hpp"

namespace hygaspi::shm {

struct NodeGroup {
  std::uint32_t slot = 0;               // this rank's slot of the group (its local handle)
  std::uint32_t tag = 0;                // commit tag, the same on every member
  std::vector<NodeIndex> members;       // the members on this node, ascending
  std::uint32_t my_index = 0;           // my position in members
  std::vector<std::int32_t> peer_slots; // each member's slot of the group; -1 until looked up
};

// Rings the doorbell of every member of `g` on this node but this rank (after a seq_cst store that
// they may sleep on).
void ring_others(Node &node, const NodeGroup &g) noexcept;
// Publishes `g` in this rank's block (after its reduce area exists) and wakes the node members,
// which may wait to find it.
void publish_group(Node &node, NodeGroup &g) noexcept;
// Withdraws slot `slot` (group deleted, or the rank terminates).
void withdraw_group(Node &node, std::uint32_t slot) noexcept;
// The slot under which member `i` has published `g`, or -1 while it has not (yet).
std::int32_t find_slot(Node &node, NodeGroup &g, std::uint32_t i) noexcept;
// Marks `g` broken for every node member that has published it, and wakes them.
void mark_broken(Node &node, NodeGroup &g) noexcept;
[[nodiscard]] bool is_broken(Node &node, const NodeGroup &g) noexcept;

// Which node members the current step of a collective waits for (a position in
// NodeGroup::members, or every member, or none while it waits on MPI).
inline constexpr std::int32_t kAllMembers = -1;
inline constexpr std::int32_t kNoMember = -2;

// Why the `awaited` members will never take their part: "node rank a, b of the group died", or
// that they ended their session with gaspi_proc_term (which leaves every group: a rank that
// starts again commits its groups anew), or empty.
[[nodiscard]] std::string gone_members(Node &node, const NodeGroup &g, std::int32_t awaited);

} // namespace hygaspi::shm
