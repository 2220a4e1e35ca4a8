// A committed group as the node-local transport sees it, and how node peers find each other's
// state of it. Group handles are local (spec §6.3: "gaspi_group_t" identifies a group only on the
// rank that created it), so ranks meet in shm by the group's commit tag, which every member
// computes alike from the membership (GroupTable::next_tag): each rank publishes, in its rank block,
// which of its slots holds which tag, and a peer looks the tag up once per commit.
//
// A collective needs every member. So its waits end with GASPI_ERROR as soon as any member on the
// node is dead, or any member marked the group broken: a member that leaves a collective with an
// error marks it (for every node member), so the members still waiting on it return too, instead
// of waiting for a signal that will never come.
#pragma once
#include <GASPI.h>

#include <cstdint>
#include <vector>

#include "core/deadline.hpp"
#include "core/log.hpp"
#include "shm/node.hpp"

namespace hygaspi::shm {

struct NodeGroup {
  std::uint32_t slot = 0;               // this rank's slot of the group (its local handle)
  std::uint32_t tag = 0;                // commit tag, the same on every member
  std::vector<gaspi_rank_t> members;    // node-local indices of the members on this node, ascending
  std::uint32_t my_index = 0;           // my position in members
  std::vector<std::int32_t> peer_slots; // each member's slot of the group; -1 until looked up
};

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

// Waits until ready(); GASPI_TIMEOUT at the deadline; GASPI_ERROR once a member on the node is
// dead or the group is broken (looked at on the slow path of the wait, at least every 10 ms).
// `drive`: the caller's progress step, driven while it waits (core/wait.hpp).
template <class Ready>
gaspi_return_t await_group(Node &node, const NodeGroup &g, Ready &&ready, const Deadline &deadline, Step drive) {
  auto healthy = [&] {
    if (is_broken(node, g))
      return false;
    for (auto m : g.members)
      if (!node.alive(NodeIndex{m}))
        return false;
    return true;
  };
  if (const gaspi_return_t rc = node.wait_while(ready, deadline, healthy, drive); rc != GASPI_ERROR)
    return rc;
  bool dead = false;
  for (auto m : g.members)
    if (!node.alive(NodeIndex{m})) {
      log::error("node rank %u of the group died", static_cast<unsigned>(m));
      dead = true;
    }
  if (!dead)
    log::error("another member left this collective with an error");
  return GASPI_ERROR;
}

} // namespace hygaspi::shm
