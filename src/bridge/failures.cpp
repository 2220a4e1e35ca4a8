// Acknowledgment of deaths and the "nobody left to send" test (bridge/failures.hpp).
#include "bridge/failures.hpp"

#include <algorithm>

#include "bridge/runtime.hpp"
#include "core/log.hpp"

namespace hygaspi {

void acknowledge_deaths() noexcept { rt().node.acknowledge_deaths(rt().node.deaths()); }

void acknowledge_deaths_outside(const std::vector<gaspi_rank_t> &members) noexcept {
  shm::Node &node = rt().node;
  std::uint32_t outside = 0;
  for (std::uint32_t i = 0; i < node.nranks(); ++i)
    if (const NodeIndex r{i};
        !node.alive(r) && !std::binary_search(members.begin(), members.end(), rt().peers.global(r).value()))
      ++outside;
  node.acknowledge_deaths(outside);
}

bool no_sender_left() noexcept {
  const bool other_nodes = rt().peers.spans_nodes(); // they may send through MPI
  return !other_nodes && rt().node.deaths() > 0 && !rt().node.peer_may_send();
}

bool any_partner_healthy(AnyPartnerWait &w) noexcept {
  if (w.block && rt().node.unacknowledged_death())
    w.why = AnyPartnerWait::Why::death;
  else if (w.block && w.passive && no_sender_left())
    w.why = AnyPartnerWait::Why::no_sender;
  return w.why == AnyPartnerWait::Why::none;
}

void any_partner_failed(const AnyPartnerWait &w) noexcept {
  if (rt().node.stopping())
    log::error("gaspi_proc_term was called while this call waited");
  else if (w.why == AnyPartnerWait::Why::death)
    log::error("a node peer died; GASPI_BLOCK waits that any rank may end fail until the application "
               "acknowledges the death (gaspi_state_vec_get, a purge, or a group without the dead rank)");
  else
    log::error("every rank that could send has died or terminated");
}

} // namespace hygaspi
