// The hierarchical barrier's step machine (spec §11.2).
#include "bridge/collectives/collective_wait.hpp"
#include "bridge/collectives/collectives.hpp"

namespace hygaspi::collectives {

namespace {
using BarrierPhase = BarrierMachine::Phase;

// One look: advances through the phases as far as it can without waiting.
gaspi_return_t barrier_step(GroupRecord &g) {
  BarrierMachine &b = g.barrier;
  if (b.phase == BarrierPhase::node_arrive) {
    if (gaspi_return_t rc = shm::node_barrier_step(rt().node, g.node, b.node); rc != GASPI_SUCCESS)
      return rc;
    if (!g.spans_nodes())
      return GASPI_SUCCESS;
    b.phase = BarrierPhase::leaders;
  }
  if (b.phase == BarrierPhase::leaders) {
    if (g.my_leader_index >= 0)
      if (gaspi_return_t rc = mpi::leader_barrier_step(rt().mpi, g.tag, g.leaders,
                                                       static_cast<std::uint32_t>(g.my_leader_index), b.leaders);
          rc != GASPI_SUCCESS)
        return rc;
    b.phase = BarrierPhase::node_release;
  }
  if (gaspi_return_t rc = shm::node_barrier_step(rt().node, g.node, b.node); rc != GASPI_SUCCESS)
    return rc;
  b.phase = BarrierPhase::node_arrive;
  return GASPI_SUCCESS;
}
} // namespace

gaspi_return_t barrier(GroupRecord &g, const Deadline &deadline) {
  // A leader's MPI phase needs nothing more of the node; the node phases need the partner that
  // the dissemination's last look waited for.
  auto awaited = [&] {
    return g.barrier.phase == BarrierPhase::leaders ? shm::kNoMember
                                                    : static_cast<std::int32_t>(g.barrier.node.awaited);
  };
  const gaspi_return_t rc = wait_steps(
      g, [&] { return barrier_step(g); }, awaited, deadline);
  if (rc != GASPI_SUCCESS && rc != GASPI_TIMEOUT) { // an error abandons this barrier
    shm::node_barrier_abandon(g.barrier.node);
    mpi::leader_barrier_abandon(rt().mpi, g.barrier.leaders);
    g.barrier.phase = BarrierPhase::node_arrive;
  }
  return end_collective(g, rc);
}

} // namespace hygaspi::collectives
