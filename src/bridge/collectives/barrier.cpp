// The hierarchical barrier's step machine (spec §11.2).
#include "bridge/collectives/collective_wait.hpp"
#include "bridge/collectives/collectives.hpp"

namespace hygaspi::collectives {

namespace {
using BarrierPhase = BarrierMachine::Phase;

// One look: advances through the phases as far as it can without waiting.
gaspi_return_t barrier_step(GroupRecord &g, ValueFold fold, std::uint64_t area_slot_bytes) {
  BarrierMachine &b = g.barrier;
  if (b.phase == BarrierPhase::node_arrive) {
    // While the reduce area has a name, each member maps the area before it arrives, so that a
    // completed barrier tells the leader that every node member has it mapped and the name can go
    // (forget_area_name): a GASNet job that never reduces leaves nothing in /dev/shm when all its
    // processes are killed.
    if (area_slot_bytes != 0 && !b.node.active && g.node.members.size() > 1)
      if (gaspi_return_t rc = shm::reduce_area_attach_step(rt().node, g.node, g.reduce_area, area_slot_bytes);
          rc != GASPI_SUCCESS)
        return rc;
    if (gaspi_return_t rc = shm::node_barrier_step(rt().node, g.node, b.node, fold); rc != GASPI_SUCCESS)
      return rc;
    if (!g.spans_nodes())
      return GASPI_SUCCESS;
    b.phase = BarrierPhase::leaders;
    b.leaders.value = b.node.value; // the node's fold, which the leader carries to the others
  }
  if (b.phase == BarrierPhase::leaders) {
    if (g.my_leader_index >= 0) {
      if (gaspi_return_t rc = mpi::leader_barrier_step(rt().mpi, g.tag, g.leaders,
                                                       static_cast<std::uint32_t>(g.my_leader_index), b.leaders, fold);
          rc != GASPI_SUCCESS)
        return rc;
      b.node.value = b.leaders.value; // every node's: the release spreads it over this node
    }
    b.phase = BarrierPhase::node_release;
  }
  if (gaspi_return_t rc = shm::node_barrier_step(rt().node, g.node, b.node, fold); rc != GASPI_SUCCESS)
    return rc;
  b.phase = BarrierPhase::node_arrive;
  return GASPI_SUCCESS;
}
} // namespace

gaspi_return_t barrier(GroupRecord &g, std::uint64_t area_slot_bytes, const Deadline &deadline, ValueFold fold,
                       std::uint64_t *value) {
  if (fold != nullptr && g.barrier.phase == BarrierPhase::node_arrive && !g.barrier.node.active)
    g.barrier.node.value = *value; // the barrier starts at this call
  // A leader's MPI phase needs nothing more of the node; the node phases need the partner that
  // the dissemination's last look waited for.
  auto awaited = [&] {
    return g.barrier.phase == BarrierPhase::leaders ? shm::kNoMember
                                                    : static_cast<std::int32_t>(g.barrier.node.awaited);
  };
  const gaspi_return_t rc = wait_steps(
      g, Collective::barrier, [&] { return barrier_step(g, fold, area_slot_bytes); }, awaited, deadline);
  if (rc == GASPI_SUCCESS)
    ++g.barriers_done;
  if (rc == GASPI_SUCCESS && fold != nullptr)
    *value = g.barrier.node.value;
  if (rc != GASPI_SUCCESS && rc != GASPI_TIMEOUT) { // an error abandons this barrier
    shm::node_barrier_abandon(g.barrier.node);
    mpi::leader_barrier_abandon(rt().mpi, g.barrier.leaders);
    g.barrier.phase = BarrierPhase::node_arrive;
  }
  return end_collective(g, rc);
}

} // namespace hygaspi::collectives
