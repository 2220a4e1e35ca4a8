#include "shm/node_barrier.hpp"

#include "core/sequence.hpp"

namespace hygaspi::shm {

gaspi_return_t node_barrier_step(Node &node, NodeGroup &group, NodeBarrierState &state, ValueFold fold) noexcept {
  const auto n = static_cast<std::uint32_t>(group.members.size());
  const std::uint32_t tag = group.tag;
  if (!state.active) {
    state.active = true;
    state.seq += 1;
    state.round = 0;
    state.sent = false;
  }
  const std::uint64_t expect = (std::uint64_t{tag} << 32) | state.seq;
  const std::uint32_t parity = state.seq % 2;
  GroupFlags &mine = node.my_block().groups[group.slot];
  for (; (1u << state.round) < n; ++state.round, state.sent = false) {
    const std::uint32_t dist = 1u << state.round;
    const std::uint32_t to = (group.my_index + dist) % n;
    if (!state.sent) {
      // The partner's flags are those of its own slot of the group; a partner that has not
      // committed yet has none, and this rank looks again until it publishes them.
      const std::int32_t slot = find_slot(node, group, to);
      if (slot < 0) {
        state.awaited = to;
        return GASPI_TIMEOUT;
      }
      BarrierRound &theirs = node.block(group.members[to]).groups[slot].round[state.round];
      if (fold != nullptr) // published by the flag's store below
        theirs.value[parity].store(state.value, std::memory_order_relaxed);
      theirs.flag.store(expect, std::memory_order_seq_cst);
      node.ring(group.members[to]);
      state.sent = true;
    }
    // A faster partner may already be one barrier ahead: accept any later sequence of this tag.
    const std::uint64_t v = mine.round[state.round].flag.load(std::memory_order_acquire);
    if ((v >> 32) != tag || !seq_reached(static_cast<std::uint32_t>(v), state.seq)) {
      state.awaited = (group.my_index + n - dist) % n;
      return GASPI_TIMEOUT;
    }
    // A partner one barrier ahead wrote the other parity's value: this one is still ours.
    if (fold != nullptr)
      state.value = fold(state.value, mine.round[state.round].value[parity].load(std::memory_order_relaxed));
  }
  state.active = false;
  return GASPI_SUCCESS;
}

} // namespace hygaspi::shm
