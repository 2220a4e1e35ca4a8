// One record per engine group (a committed GASPI group, a GASNet-EX team): its membership,
// how this rank reaches the members (the node part through shm, the other nodes through their
// leaders over MPI), the node's reduce area, and where its resumable collectives stand (spec §11:
// a call that returns GASPI_TIMEOUT keeps its progress here, and the next call continues).
// The step machines that drive barrier and allreduce live beside it (collectives.hpp).
#pragma once
#include <GASPI.h>

#include <array>
#include <cstdint>
#include <mutex>
#include <vector>

#include "core/limits.hpp"
#include "core/ranks.hpp"
#include "mpi_rma/leaders.hpp"
#include "shm/node_barrier.hpp"
#include "shm/node_reduce.hpp"

namespace hygaspi {

// Hierarchical barrier: the node's members meet in shm, the node leaders meet over MPI, and the
// node meets again so that nobody leaves before every node has arrived.
struct BarrierMachine {
  enum class Phase : std::uint8_t { node_arrive, leaders, node_release } phase = Phase::node_arrive;
  shm::NodeBarrierState node;
  mpi::LeaderBarrier leaders;
};

// Hierarchical allreduce: contribute to the node's reduce area (or, alone on the node, to `value`),
// the node leader combines, exchanges with the other leaders, publishes; every member collects.
// A small allreduce of a group on one node takes the reduce area's shared way: every member
// folds every contribution itself (into `value`), and no leader publishes.
struct AllreduceMachine {
  enum class Phase : std::uint8_t { idle, contributed, combined, exchanged } phase = Phase::idle;
  bool shared = false; // this allreduce takes the shared way
  shm::NodeReduceState node;
  mpi::LeaderReduce leaders;
  std::vector<char> value; // the node's partial result when this rank is alone on its node; the fold (shared)
};

enum class Collective : std::uint8_t { barrier, allreduce };

struct GroupRecord {
  // ---- membership
  std::vector<gaspi_rank_t> members; // global ranks, sorted, unique
  std::uint32_t my_index = 0;        // position of this rank in members (when committed)
  std::uint32_t tag = 0;             // identifies this commit of this membership, never 0

  // ---- route, decided once at commit (collectives::plan)
  shm::NodeGroup node;               // the members on my node (node-local indices), slots, tag
  std::vector<MpiRank> leaders;      // each node's leader (its lowest member), ascending
  std::int32_t my_leader_index = -1; // my position in leaders, -1 if I lead no node
  shm::ReduceArea reduce_area;       // mapped on the first allreduce (created at commit by the leader)

  // ---- resumable collectives; a barrier may run beside an allreduce: they keep separate state
  BarrierMachine barrier;
  AllreduceMachine allreduce;
  std::mutex collective; // one barrier caller at a time
  std::mutex reducing;   // one allreduce caller at a time

  // ---- departures (mpi::leader_departs): the collectives this rank completed, and what the other
  // nodes' leaders that ended their session had completed
  std::uint64_t barriers_done = 0, allreduces_done = 0;
  mpi::Departure departed;

  [[nodiscard]] bool spans_nodes() const noexcept { return leaders.size() > 1; }
  [[nodiscard]] bool leads_node() const noexcept { return node.my_index == 0; }
  [[nodiscard]] bool leads_across() const noexcept { return my_leader_index >= 0 && spans_nodes(); }
};

} // namespace hygaspi
