// The peer table: how this rank reaches every rank of the job, decided once at init (as NCCL's
// canConnect decides a peer's transport once). A call resolves its peer with one lookup and hands
// the Peer down; nothing below asks "is this rank on my node?" again.
//
// It is the one place that converts between the rank spaces of core/ranks.hpp: a GlobalRank's
// NodeIndex (node peers) and MpiRank (other nodes), and a NodeIndex back to its GlobalRank.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "core/ranks.hpp"

namespace hygaspi {

// self and shm both move data through the node's mappings (shm transport); mpi through the MPI
// window (mpi transport).
enum class PeerKind : std::uint8_t { self, shm, mpi };

struct Peer {
  GlobalRank global;
  PeerKind kind = PeerKind::mpi;
  NodeIndex node{}; // valid unless kind == mpi
  MpiRank mpi{-1};  // valid when MPI is up (every rank of an MPI job; -1 under hygaspi-run)
  [[nodiscard]] constexpr bool on_node() const noexcept { return kind != PeerKind::mpi; }
};

class PeerTable {
public:
  // `me`: this rank; `node_members`: the global ranks of this rank's node, ascending (its
  // NodeIndex is its position); `mpi_job`: ranks have an MPI rank of the same value. A rank on
  // this node is reached through shm only when `shm` is on (same node and shm enabled), which the
  // caller has folded into node_members already (mpi_env.cpp: HYGASPI_SHM=0 makes single-rank nodes).
  void build(GlobalRank me, std::uint32_t nranks, std::span<const GlobalRank> node_members, bool mpi_job);
  void clear() noexcept;

  // r < size(): the caller checked the range (check::rank).
  [[nodiscard]] const Peer &operator[](GlobalRank r) const noexcept { return peers_[r.value()]; }
  [[nodiscard]] std::uint32_t size() const noexcept { return static_cast<std::uint32_t>(peers_.size()); }
  [[nodiscard]] bool contains(GlobalRank r) const noexcept { return r.value() < peers_.size(); }
  [[nodiscard]] GlobalRank self() const noexcept { return me_; }
  [[nodiscard]] NodeIndex self_node() const noexcept { return peers_[me_.value()].node; }

  // The node's ranks: NodeIndex i is node_members()[i].
  [[nodiscard]] std::span<const GlobalRank> node_members() const noexcept { return node_members_; }
  [[nodiscard]] std::uint32_t node_size() const noexcept { return static_cast<std::uint32_t>(node_members_.size()); }
  [[nodiscard]] GlobalRank global(NodeIndex i) const noexcept { return node_members_[i.value()]; }
  // The global rank of a rank of the engine's MPI communicator (the same value today: the
  // communicator duplicates MPI_COMM_WORLD, and GASPI rank = MPI rank).
  [[nodiscard]] GlobalRank global(MpiRank r) const noexcept {
    return GlobalRank{static_cast<std::uint32_t>(r.value())};
  }
  // Some rank lives on another node (the MPI transport is in use).
  [[nodiscard]] bool spans_nodes() const noexcept { return node_members_.size() < peers_.size(); }

private:
  GlobalRank me_{};
  std::vector<Peer> peers_;
  std::vector<GlobalRank> node_members_;
};

} // namespace hygaspi
