// Acknowledgment of deaths and the "nobody left to send" test (bridge/failures.hpp).
#include "bridge/failures.hpp"

#include <algorithm>

#include "bridge/progress.hpp"
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

gaspi_return_t await_any_partner(Step ready, gaspi_timeout_t timeout, bool passive, Step slow) {
  shm::Node &node = rt().node;
  const bool block = timeout == GASPI_BLOCK;
  enum class Why { none, death, no_sender } why = Why::none;
  auto healthy = [&] {
    slow();
    if (block && node.unacknowledged_death())
      why = Why::death;
    else if (block && passive && no_sender_left())
      why = Why::no_sender;
    return why == Why::none;
  };
  if (const gaspi_return_t rc = node.wait_while(ready, Deadline(timeout), healthy, progress()); rc != GASPI_ERROR)
    return rc;
  if (node.stopping())
    log::error("gaspi_proc_term was called while this call waited");
  else if (why == Why::death)
    log::error("a node peer died; GASPI_BLOCK waits that any rank may end fail until the application "
               "acknowledges the death (gaspi_state_vec_get, a purge, or a group without the dead rank)");
  else
    log::error("every rank that could send has died or terminated");
  return GASPI_ERROR;
}

} // namespace hygaspi
