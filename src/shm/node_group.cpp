#include "shm/node_group.hpp"

namespace hygaspi::shm {

void publish_group(Node &node, NodeGroup &g) noexcept {
  g.peer_slots.assign(g.members.size(), -1);
  g.peer_slots[g.my_index] = static_cast<std::int32_t>(g.slot);
  GroupSlot &mine = node.my_block().group_slots[g.slot];
  mine.broken.store(0, std::memory_order_relaxed);
  mine.tag.store(g.tag, std::memory_order_seq_cst);
  ring_others(node, g);
}

void ring_others(Node &node, const NodeGroup &g) noexcept {
  for (std::size_t i = 0; i < g.members.size(); ++i)
    if (i != g.my_index)
      node.ring(g.members[i]);
}

void withdraw_group(Node &node, std::uint32_t slot) noexcept {
  node.my_block().group_slots[slot].tag.store(0, std::memory_order_seq_cst);
}

std::int32_t find_slot(Node &node, NodeGroup &g, std::uint32_t i) noexcept {
  const GroupSlot *slots = node.block(g.members[i]).group_slots;
  std::int32_t &cached = g.peer_slots[i];
  if (cached >= 0 && slots[cached].tag.load(std::memory_order_acquire) == g.tag)
    return cached;
  cached = -1;
  for (std::uint32_t s = 0; s < limits::kGroupSlots; ++s)
    if (slots[s].tag.load(std::memory_order_acquire) == g.tag) {
      cached = static_cast<std::int32_t>(s);
      break;
    }
  return cached;
}

void mark_broken(Node &node, NodeGroup &g) noexcept {
  for (std::uint32_t i = 0; i < g.members.size(); ++i) {
    const std::int32_t s = find_slot(node, g, i);
    if (s < 0)
      continue; // not committed yet: it will see the dead member, or time out
    node.block(g.members[i]).group_slots[s].broken.store(g.tag, std::memory_order_seq_cst);
    if (g.members[i] != node.rank())
      node.ring(g.members[i]);
  }
}

bool is_broken(Node &node, const NodeGroup &g) noexcept {
  return node.my_block().group_slots[g.slot].broken.load(std::memory_order_acquire) == g.tag;
}

std::string gone_members(Node &node, const NodeGroup &g, std::int32_t awaited) {
  std::string dead, left;
  for (std::uint32_t i = 0; i < g.members.size(); ++i) {
    if (awaited != kAllMembers && awaited != static_cast<std::int32_t>(i))
      continue;
    const auto state = static_cast<RankState>(node.state_word(g.members[i]).load(std::memory_order_acquire));
    // A member that ends the whole job (gasnet_exit) is no member that left: the job's end reaches
    // this rank by its own protocol, with that member's exit code.
    const bool left_session = state == RankState::terminated && !node.ends_job(g.members[i]);
    std::string *list = state == RankState::dead ? &dead : left_session ? &left : nullptr;
    if (list != nullptr)
      *list += (list->empty() ? "rank " : ", ") + std::to_string(node.global_rank(g.members[i]).value());
  }
  if (!dead.empty())
    return dead + " of the group died";
  return left.empty() ? left
                      : left + " of the group ended its session (gaspi_proc_term) without joining this collective";
}

} // namespace hygaspi::shm
