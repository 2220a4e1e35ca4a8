#include "shm/node_barrier.hpp"

#include "core/sequence.hpp"

namespace hygaspi::shm {

gaspi_return_t node_barrier(Node &node, NodeGroup &group, BarrierProgress &progress, const Deadline &deadline,
                            Step drive) {
  const auto n = static_cast<std::uint32_t>(group.members.size());
  const std::uint32_t tag = group.tag;
  if (!progress.active) {
    progress.active = true;
    progress.seq += 1;
    progress.round = 0;
    progress.sent = false;
  }
  const std::uint64_t expect = (std::uint64_t{tag} << 32) | progress.seq;
  GroupFlags &mine = node.my_block().groups[group.slot];
  // On a timeout the progress is kept and the next call resumes this round; an error abandons it.
  auto leave = [&](gaspi_return_t rc) {
    if (rc != GASPI_TIMEOUT)
      progress.active = false;
    return rc;
  };

  for (; (1u << progress.round) < n; ++progress.round, progress.sent = false) {
    const std::uint32_t dist = 1u << progress.round;
    const std::uint32_t to = (group.my_index + dist) % n;
    if (!progress.sent) {
      // The partner's flags are those of its own slot of the group; a partner that has not
      // committed yet has none, and this rank waits until it publishes them.
      std::int32_t slot = find_slot(node, group, to);
      if (slot < 0) {
        auto found = [&] { return (slot = find_slot(node, group, to)) >= 0; };
        if (gaspi_return_t rc = await_group(node, group, found, deadline, drive); rc != GASPI_SUCCESS)
          return leave(rc);
      }
      node.block(NodeIndex{group.members[to]})
          .groups[slot]
          .round[progress.round]
          .store(expect, std::memory_order_seq_cst);
      node.ring(NodeIndex{group.members[to]});
      progress.sent = true;
    }
    auto &flag = mine.round[progress.round];
    // A faster partner may already be one barrier ahead: accept any later sequence of this tag.
    auto arrived = [&] {
      std::uint64_t v = flag.load(std::memory_order_acquire);
      return (v >> 32) == tag && seq_reached(static_cast<std::uint32_t>(v), progress.seq);
    };
    if (gaspi_return_t rc = await_group(node, group, arrived, deadline, drive); rc != GASPI_SUCCESS)
      return leave(rc);
  }
  progress.active = false;
  return GASPI_SUCCESS;
}

} // namespace hygaspi::shm
