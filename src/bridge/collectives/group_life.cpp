// A group's life (commit, delete, term) and the release of its members after a failure.
#include <algorithm>
#include <string>
#include <utility>

#include "bridge/collectives/collective_wait.hpp"
#include "bridge/collectives/collectives.hpp"
#include "bridge/engine.hpp"
#include "core/log.hpp"

namespace hygaspi::collectives {

void plan(GroupRecord &g, std::uint32_t slot) {
  g.node = shm::NodeGroup{};
  g.node.slot = slot;
  g.node.tag = g.tag;
  g.leaders.clear();
  g.my_leader_index = -1;
  g.barrier = {};
  g.allreduce = {};
  std::vector<int> seen_nodes;
  for (gaspi_rank_t m : g.members) {
    const Peer &peer = rt().peers[GlobalRank{m}];
    if (peer.on_node()) {
      if (peer.kind == PeerKind::self)
        g.node.my_index = static_cast<std::uint32_t>(g.node.members.size());
      g.node.members.push_back(peer.node);
    }
    const int node = rt().mpi.active() ? rt().mpi.node_of[m] : 0;
    if (std::find(seen_nodes.begin(), seen_nodes.end(), node) == seen_nodes.end()) {
      seen_nodes.push_back(node); // members ascend, so the first one met on a node leads it
      if (m == rt().rank)
        g.my_leader_index = static_cast<std::int32_t>(g.leaders.size());
      g.leaders.push_back(peer.mpi);
    }
  }
}

gaspi_return_t open_group(GroupRecord &g, std::vector<gaspi_rank_t> members, std::uint32_t slot, std::uint32_t tag,
                          std::uint64_t slot_bytes) {
  g.members = std::move(members);
  const auto me = std::lower_bound(g.members.begin(), g.members.end(), static_cast<gaspi_rank_t>(rt().rank));
  g.my_index = static_cast<std::uint32_t>(me - g.members.begin());
  g.tag = tag;
  plan(g, slot);
  return publish(g, slot_bytes);
}

gaspi_return_t publish(GroupRecord &g, std::uint64_t slot_bytes) {
  if (g.leads_node())
    if (gaspi_return_t rc = shm::reduce_area_create(rt().node, g.node, g.reduce_area, slot_bytes); rc != GASPI_SUCCESS)
      return rc;
  shm::publish_group(rt().node, g.node);
  return GASPI_SUCCESS;
}

void withdraw(GroupRecord &g) {
  shm::withdraw_group(rt().node, g.node.slot);
  drop(g);
}

void forget_area_name(GroupRecord &g) noexcept {
  if (g.leads_node())
    shm::reduce_area_forget_name(rt().node, g.reduce_area);
}

void drop(GroupRecord &g) noexcept { shm::reduce_area_drop(rt().node, g.reduce_area, g.leads_node()); }

gaspi_return_t check_not_broken(const GroupRecord &g) {
  if (!shm::is_broken(rt().node, g.node))
    return GASPI_SUCCESS;
  log::error("group %u is broken: a member left an earlier collective of it with an error", g.node.slot);
  return GASPI_ERROR;
}

std::string failure(GroupRecord &g, Collective which, std::int32_t awaited) {
  shm::Node &node = rt().node;
  if (node.stopping())
    return kTermWhileWaiting;
  engine::refresh_liveness(); // rate-limited
  if (std::string dead = shm::gone_members(node, g.node, awaited); !dead.empty())
    return dead;
  if (shm::is_broken(node, g.node) || (g.leads_across() && mpi::abort_notice(rt().mpi, g.tag)))
    return "another member left this collective with an error";
  if (g.leads_across()) {
    // Another node's leader known dead (a node of one rank, whose death only a notice tells): its
    // messages of this collective may never come, and nobody on its node can say how far it got.
    for (const MpiRank leader : g.leaders)
      if (rt().control.known_dead(leader))
        return "rank " + std::to_string(rt().peers.global(leader).value()) +
               ", another node's leader in this group, died";
    mpi::take_departures(rt().mpi, g.tag, g.departed);
    const bool barrier = which == Collective::barrier;
    if ((barrier ? g.barriers_done : g.allreduces_done) >= (barrier ? g.departed.barriers : g.departed.allreduces))
      return "rank " + std::to_string(rt().peers.global(MpiRank{g.departed.leader}).value()) +
             ", another node's leader in this group, ended its session (gaspi_proc_term) before this " +
             (barrier ? "barrier" : "allreduce");
  }
  return {};
}

void depart(GroupRecord &g) {
  if (g.leads_across())
    mpi::leader_departs(rt().mpi, g.tag, g.leaders, static_cast<std::uint32_t>(g.my_leader_index), g.barriers_done,
                        g.allreduces_done);
}

gaspi_return_t end_collective(GroupRecord &g, gaspi_return_t rc) {
  if (rc == GASPI_SUCCESS || rc == GASPI_TIMEOUT)
    return rc;
  // Abandon whatever of the two machines this call drove; the other (a barrier beside an
  // allreduce) fails at its next look, as the group is broken from here on.
  shm::mark_broken(rt().node, g.node);
  if (g.leads_across()) {
    mpi::leader_abort(rt().mpi, g.tag, g.leaders, static_cast<std::uint32_t>(g.my_leader_index));
  } else if (g.spans_nodes() && !g.leads_node() &&
             rt().node.state_word(g.node.members[0]).load(std::memory_order_acquire) ==
                 static_cast<std::uint32_t>(shm::RankState::dead)) {
    // This node's leader died: the other nodes' leaders wait for its messages, and only its node
    // members know. Each of them that fails tells them in its place (a notice more is harmless).
    const MpiRank leader = rt().peers[rt().peers.global(g.node.members[0])].mpi;
    const auto at = std::find(g.leaders.begin(), g.leaders.end(), leader);
    if (at != g.leaders.end())
      mpi::leader_abort(rt().mpi, g.tag, g.leaders, static_cast<std::uint32_t>(at - g.leaders.begin()));
  }
  return rc;
}

} // namespace hygaspi::collectives
