#include "bridge/peers.hpp"

namespace hygaspi {

void PeerTable::build(GlobalRank me, std::uint32_t nranks, std::span<const GlobalRank> node_members, bool mpi_job) {
  me_ = me;
  peers_.assign(nranks, Peer{});
  for (std::uint32_t r = 0; r < nranks; ++r) {
    peers_[r].global = GlobalRank{r};
    // Today an MPI rank and a global rank have the same value (core/ranks.hpp).
    peers_[r].mpi = MpiRank{mpi_job ? static_cast<int>(r) : -1};
  }
  node_members_.assign(node_members.begin(), node_members.end());
  for (std::uint32_t i = 0; i < node_members_.size(); ++i) {
    Peer &p = peers_[node_members_[i].value()];
    p.node = NodeIndex{i};
    p.kind = node_members_[i] == me ? PeerKind::self : PeerKind::shm;
  }
}

void PeerTable::clear() noexcept {
  peers_.clear();
  node_members_.clear();
  me_ = GlobalRank{};
}

} // namespace hygaspi
