// The hierarchical allreduce's step machine (spec §11.3, §11.4).
#include <cstring>

#include "bridge/collectives/collective_wait.hpp"
#include "bridge/collectives/collectives.hpp"

namespace hygaspi::collectives {

namespace {
using AllreducePhase = AllreduceMachine::Phase;

struct Call {
  const void *send;
  void *receive;
  std::size_t bytes;
  Combine combine;
  void *ctx;
  std::uint64_t slot_bytes;
};

// One look: advances through the phases as far as it can without waiting.
gaspi_return_t allreduce_step(GroupRecord &g, const Call &c) {
  AllreduceMachine &m = g.allreduce;
  shm::Node &node = rt().node;
  // Alone on its node, a rank needs no reduce area: its value is the node's partial result.
  const bool alone = g.node.members.size() == 1;
  if (m.phase == AllreducePhase::idle) { // the send buffer is read here only (spec §11.3.1)
    if (alone) {
      const auto *send = static_cast<const char *>(c.send);
      m.value.assign(send, send + c.bytes);
    } else {
      if (gaspi_return_t rc = shm::reduce_area_attach_step(node, g.node, g.reduce_area, c.slot_bytes);
          rc != GASPI_SUCCESS)
        return rc;
      // Every member decides alike: the same group, and the same size (spec §11.3.1).
      m.shared = !g.spans_nodes() && c.bytes <= shm::kSharedMaxBytes;
      if (m.shared)
        shm::reduce_share(node, g.node, g.reduce_area, m.node, c.send, c.bytes);
      else
        shm::reduce_contribute(node, g.node, g.reduce_area, m.node, c.send, c.bytes);
    }
    m.phase = AllreducePhase::contributed;
  }
  if (m.shared) { // a fold into `value` (aligned for any element type), then to the caller's buffer
    m.value.resize(c.bytes);
    if (gaspi_return_t rc =
            shm::reduce_fold_step(g.node, g.reduce_area, m.node, m.value.data(), c.bytes, c.combine, c.ctx);
        rc != GASPI_SUCCESS)
      return rc;
    std::memcpy(c.receive, m.value.data(), c.bytes);
    m.phase = AllreducePhase::idle;
    m.shared = false;
    return GASPI_SUCCESS;
  }
  if (m.phase == AllreducePhase::contributed) {
    if (g.leads_node() && !alone)
      if (gaspi_return_t rc = shm::reduce_combine_step(g.node, g.reduce_area, m.node, c.bytes, c.combine, c.ctx);
          rc != GASPI_SUCCESS)
        return rc;
    m.phase = AllreducePhase::combined;
  }
  if (m.phase == AllreducePhase::combined) {
    if (g.leads_across())
      if (gaspi_return_t rc = mpi::leader_allreduce_step(
              rt().mpi, g.tag, g.leaders, static_cast<std::uint32_t>(g.my_leader_index),
              alone ? m.value.data() : g.reduce_area.result(), c.bytes, c.combine, c.ctx, m.leaders);
          rc != GASPI_SUCCESS)
        return rc;
    if (g.leads_node() && !alone)
      shm::reduce_publish(node, g.node, g.reduce_area, m.node);
    m.phase = AllreducePhase::exchanged;
  }
  if (alone)
    std::memcpy(c.receive, m.value.data(), c.bytes);
  else if (gaspi_return_t rc = shm::reduce_collect_step(g.reduce_area, m.node, c.receive, c.bytes); rc != GASPI_SUCCESS)
    return rc;
  m.phase = AllreducePhase::idle;
  return GASPI_SUCCESS;
}
} // namespace

gaspi_return_t allreduce(GroupRecord &g, const void *send, void *receive, std::size_t bytes, Combine combine, void *ctx,
                         std::uint64_t slot_bytes, const Deadline &deadline) {
  const Call call{send, receive, bytes, combine, ctx, slot_bytes};
  // The leader combines every member's contribution, then needs nothing more of the node while it
  // exchanges over MPI; a member needs only its leader (its area, then its result).
  auto awaited = [&] {
    const AllreduceMachine &m = g.allreduce;
    if (m.phase == AllreducePhase::combined)
      return shm::kNoMember;
    return m.phase == AllreducePhase::contributed && (m.shared || g.leads_node()) ? shm::kAllMembers : 0;
  };
  const gaspi_return_t rc = wait_steps(
      g, Collective::allreduce, [&] { return allreduce_step(g, call); }, awaited, deadline);
  if (rc == GASPI_SUCCESS)
    ++g.allreduces_done;
  if (rc != GASPI_SUCCESS && rc != GASPI_TIMEOUT) { // an error abandons this allreduce
    mpi::leader_allreduce_abandon(rt().mpi, g.allreduce.leaders);
    g.allreduce.phase = AllreducePhase::idle;
    g.allreduce.shared = false;
  }
  return end_collective(g, rc);
}

} // namespace hygaspi::collectives
