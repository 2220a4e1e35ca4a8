#include "shm/node_barrier.hpp"

#include "core/log.hpp"

namespace hygaspi::shm {

gaspi_return_t node_barrier(Node &node, std::uint32_t group_id, std::span<const gaspi_rank_t> members,
                            std::uint32_t my_index, std::uint32_t tag, BarrierProgress &progress,
                            const Deadline &deadline) {
  const auto n = static_cast<std::uint32_t>(members.size());
  if (!progress.active) {
    progress.active = true;
    progress.seq += 1;
    progress.round = 0;
    progress.sent = false;
  }
  const std::uint64_t expect = (std::uint64_t{tag} << 32) | progress.seq;
  GroupFlags &mine = node.my_block().groups[group_id];

  for (; (1u << progress.round) < n; ++progress.round, progress.sent = false) {
    const std::uint32_t dist = 1u << progress.round;
    const gaspi_rank_t to = members[(my_index + dist) % n];
    const std::uint32_t from = members[(my_index + n - dist) % n];
    if (!progress.sent) {
      node.block(to).groups[group_id].round[progress.round].store(expect, std::memory_order_seq_cst);
      node.ring(to);
      progress.sent = true;
    }
    auto &flag = mine.round[progress.round];
    // A faster partner may already be one barrier ahead: accept any later sequence of this tag.
    auto arrived = [&] {
      std::uint64_t v = flag.load(std::memory_order_acquire);
      return (v >> 32) == tag && static_cast<std::int32_t>(static_cast<std::uint32_t>(v) - progress.seq) >= 0;
    };
    std::uint32_t partner[] = {from};
    if (gaspi_return_t rc = node.await("gaspi_barrier", arrived, deadline, partner); rc != GASPI_SUCCESS) {
      if (rc != GASPI_TIMEOUT) // on a timeout the progress is kept; the next call resumes this round
        progress.active = false;
      return rc;
    }
  }
  progress.active = false;
  return GASPI_SUCCESS;
}

} // namespace hygaspi::shm
