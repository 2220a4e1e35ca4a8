// Acknowledgment of deaths and the "nobody left to send" test (bridge/failures.hpp).
#include "bridge/failures.hpp"

#include <algorithm>

namespace hygaspi {

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

} // namespace hygaspi
