// Death news across nodes, acknowledgment of deaths and the "nobody left to send" test
// (bridge/failures.hpp).
#include "bridge/failures.hpp"

#include <algorithm>
#include <exception>

#include "bridge/runtime.hpp"
#include "core/log.hpp"

namespace hygaspi {

namespace {

// Tells the live ranks but `dead` (with `other_nodes_only`, those of the other nodes: this node's
// ranks watch each other) that `dead` died.
void tell(GlobalRank dead, bool other_nodes_only) noexcept {
  Runtime &r = rt();
  try {
    std::vector<MpiRank> to;
    for (std::uint32_t g = 0; g < r.nranks; ++g)
      if (const Peer &p = r.peers[GlobalRank{g}]; p.global != dead && !(other_nodes_only && p.on_node()) && r.alive(p))
        to.push_back(p.mpi);
    log::debug("telling %zu ranks that rank %u died", to.size(), dead.print());
    r.control.tell_death(r.peers[dead].mpi, to);
  } catch (const std::exception &e) {
    log::error("cannot tell the other ranks that rank %u died: %s", dead.print(), e.what()); // they wait as before
  }
}

void raise_acknowledged(std::uint32_t count) noexcept {
  std::atomic<std::uint32_t> &acknowledged = rt().deaths_acknowledged;
  std::uint32_t seen = acknowledged.load(std::memory_order_relaxed);
  while (count > seen && !acknowledged.compare_exchange_weak(seen, count, std::memory_order_acq_rel)) {
  }
}

} // namespace

void tell_node_deaths() noexcept {
  Runtime &r = rt();
  if (!r.mpi.active() || !r.peers.spans_nodes())
    return;
  const std::uint32_t deaths = r.node.deaths();
  if (r.node_deaths_told.exchange(deaths, std::memory_order_acq_rel) == deaths)
    return; // no node peer died since the last look
  for (std::uint32_t i = 0; i < r.peers.node_size(); ++i)
    if (r.node.claim_death_telling(NodeIndex{i})) // dead, and told by no other node peer yet
      tell(r.peers.global(NodeIndex{i}), true);
}

void watch_ring() noexcept {
  Runtime &r = rt();
  if (!r.mpi.active())
    return;
  r.control.ring().poll(
      [&r](MpiRank dead) {
        const GlobalRank g = r.peers.global(dead);
        if (r.peers[g].on_node())
          return; // its node peers, this rank among them, watch its process (shm/liveness.hpp)
        r.control.mark_dead(dead);
        tell(g, false); // nobody else may have seen it: the last live rank of its node
      },
      [&r](MpiRank rank) { return !r.alive(r.peers.global(rank)); });
}

void tell_death_of_killed(GlobalRank killed) noexcept { tell(killed, false); }

void tell_own_death() noexcept { tell(rt().peers.self(), true); }

std::uint32_t deaths() noexcept {
  const Runtime &r = rt();
  std::uint32_t n = 0;
  for (std::uint32_t g = 0; g < r.nranks; ++g)
    n += r.alive(GlobalRank{g}) ? 0 : 1;
  return n;
}

void acknowledge_deaths() noexcept { raise_acknowledged(deaths()); }

void acknowledge_deaths_outside(const std::vector<gaspi_rank_t> &members) noexcept {
  const Runtime &r = rt();
  std::uint32_t outside = 0;
  for (std::uint32_t g = 0; g < r.nranks; ++g)
    if (!r.alive(GlobalRank{g}) && !std::binary_search(members.begin(), members.end(), g))
      ++outside;
  raise_acknowledged(outside);
}

bool no_sender_left() noexcept {
  const bool other_nodes = rt().peers.spans_nodes(); // they may send through MPI
  return !other_nodes && rt().node.deaths() > 0 && !rt().node.peer_may_send();
}

bool any_partner_healthy(AnyPartnerWait &w) noexcept {
  if (w.block && deaths() > rt().deaths_acknowledged.load(std::memory_order_acquire))
    w.why = AnyPartnerWait::Why::death;
  else if (w.block && w.passive && no_sender_left())
    w.why = AnyPartnerWait::Why::no_sender;
  return w.why == AnyPartnerWait::Why::none;
}

void any_partner_failed(const AnyPartnerWait &w) noexcept {
  if (rt().node.stopping())
    log::error("gaspi_proc_term was called while this call waited");
  else if (w.why == AnyPartnerWait::Why::death)
    log::error("a rank died; GASPI_BLOCK waits that any rank may end fail until the application "
               "acknowledges the death (gaspi_state_vec_get, a purge, or a group without the dead rank)");
  else
    log::error("every rank that could send has died or terminated");
}

} // namespace hygaspi
