#include "shm/node_reduce.hpp"

#include <cstring>

#include "core/log.hpp"
#include "core/sequence.hpp"

namespace hygaspi::shm {

namespace {
std::uint64_t round_up(std::uint64_t bytes) { return (bytes + kCacheLine - 1) / kCacheLine * kCacheLine; }

bool reached(const ReduceFlag &flag, std::uint32_t seq) noexcept {
  return seq_reached(flag.seq.load(std::memory_order_acquire), seq);
}
} // namespace

gaspi_return_t reduce_area_create(Node &node, const NodeGroup &group, ReduceArea &area, std::uint64_t slot_bytes) {
  const auto members = static_cast<std::uint32_t>(group.members.size());
  area = ReduceArea{};
  area.layout = ReduceLayout{members, round_up(slot_bytes)};
  std::string name;
  std::string error;
  if (!node.create_object("c", group.tag, 0, area.layout.bytes(), area.object, area.nonce, name, error)) {
    log::error("group %u: %s", group.slot, error.c_str());
    return GASPI_ERR_MEMALLOC;
  }
  auto *header = reinterpret_cast<ReduceHeader *>(area.at(0));
  *header = ReduceHeader{kReduceMagic, kLayoutVersion, members, area.layout.slot_bytes};
  area.tag = group.tag;
  // Before publish_group() makes the tag visible (release): a member that finds the tag finds this.
  node.my_block().group_slots[group.slot].reduce_nonce.store(area.nonce, std::memory_order_relaxed);
  return GASPI_SUCCESS;
}

void reduce_area_forget_name(Node &node, const ReduceArea &area) noexcept {
  if (area.tag != 0 && !node.solo())
    ShmObject::unlink(node.object_name("c", node.rank().value(), area.tag, 0, area.nonce));
}

void reduce_area_drop(Node &node, ReduceArea &area, bool leader) noexcept {
  if (leader && area.tag != 0 && !node.solo())
    ShmObject::unlink(node.object_name("c", node.rank().value(), area.tag, 0, area.nonce));
  area = ReduceArea{};
}

gaspi_return_t reduce_area_attach_step(Node &node, NodeGroup &group, ReduceArea &area, std::uint64_t slot_bytes) {
  if (area.tag == group.tag)
    return GASPI_SUCCESS;
  // The leader publishes the group once its area exists, before it joins the commit barrier; a
  // member normally finds it at once, but GASPI_GROUP_ALL is committed inside gaspi_proc_init
  // without a barrier.
  const std::int32_t leader_slot = find_slot(node, group, 0);
  if (leader_slot < 0)
    return GASPI_TIMEOUT;
  const auto members = static_cast<std::uint32_t>(group.members.size());
  const NodeIndex leader = group.members[0];
  area = ReduceArea{};
  area.layout = ReduceLayout{members, round_up(slot_bytes)};
  std::string error;
  const std::uint64_t nonce = node.block(leader).group_slots[leader_slot].reduce_nonce.load(std::memory_order_relaxed);
  if (!ShmObject::open(node.object_name("c", leader.value(), group.tag, 0, nonce), area.layout.bytes(), area.object,
                       error)) {
    log::error("group %u: %s", group.slot, error.c_str());
    area = ReduceArea{};
    return GASPI_ERROR;
  }
  const auto *header = reinterpret_cast<const ReduceHeader *>(area.at(0));
  if (header->magic != kReduceMagic || header->members != members || header->slot_bytes != area.layout.slot_bytes) {
    log::error("group %u: the leader's reduce area does not match this rank's group", group.slot);
    area = ReduceArea{};
    return GASPI_ERROR;
  }
  area.tag = group.tag;
  return GASPI_SUCCESS;
}

void reduce_contribute(Node &node, const NodeGroup &group, ReduceArea &area, NodeReduceState &state, const void *send,
                       std::size_t bytes) noexcept {
  state.seq += 1;
  std::memcpy(area.at(area.layout.slot_offset(group.my_index)), send, bytes);
  area.arrived(group.my_index).seq.store(state.seq, std::memory_order_seq_cst);
  if (group.my_index != 0)
    node.ring(group.members[0]);
}

gaspi_return_t reduce_combine_step(const NodeGroup &group, ReduceArea &area, const NodeReduceState &state,
                                   std::size_t bytes, Combine combine, void *ctx) {
  const auto n = static_cast<std::uint32_t>(group.members.size());
  for (std::uint32_t i = 1; i < n; ++i)
    if (!reached(area.arrived(i), state.seq))
      return GASPI_TIMEOUT;
  char *result = area.result();
  std::memcpy(result, area.at(area.layout.slot_offset(0)), bytes);
  for (std::uint32_t i = 1; i < n; ++i)
    if (gaspi_return_t rc = combine(ctx, result, area.at(area.layout.slot_offset(i))); rc != GASPI_SUCCESS)
      return rc;
  return GASPI_SUCCESS;
}

void reduce_publish(Node &node, const NodeGroup &group, ReduceArea &area, const NodeReduceState &state) noexcept {
  area.result_seq().seq.store(state.seq, std::memory_order_seq_cst);
  ring_others(node, group); // the leader is member 0
}

gaspi_return_t reduce_collect_step(const ReduceArea &area, const NodeReduceState &state, void *receive,
                                   std::size_t bytes) noexcept {
  if (!reached(area.result_seq(), state.seq))
    return GASPI_TIMEOUT;
  std::memcpy(receive, area.result(), bytes);
  return GASPI_SUCCESS;
}

void reduce_share(Node &node, const NodeGroup &group, ReduceArea &area, NodeReduceState &state, const void *send,
                  std::size_t bytes) noexcept {
  state.seq += 1;
  std::memcpy(area.shared_data(state.seq, group.my_index), send, bytes);
  area.arrived(group.my_index).seq.store(state.seq, std::memory_order_relaxed); // nobody waits on it here
  // seq_cst, as every doorbell's condition: ordered before ring()'s look for sleepers.
  area.shared_head(state.seq, group.my_index).seq.store(state.seq, std::memory_order_seq_cst);
  ring_others(node, group);
}

gaspi_return_t reduce_fold_step(const NodeGroup &group, ReduceArea &area, const NodeReduceState &state, void *acc,
                                std::size_t bytes, Combine combine, void *ctx) {
  const auto n = static_cast<std::uint32_t>(group.members.size());
  for (std::uint32_t i = 0; i < n; ++i)
    if (area.shared_head(state.seq, i).seq.load(std::memory_order_acquire) != state.seq)
      return GASPI_TIMEOUT;
  std::memcpy(acc, area.shared_data(state.seq, 0), bytes);
  for (std::uint32_t i = 1; i < n; ++i)
    if (gaspi_return_t rc = combine(ctx, acc, area.shared_data(state.seq, i)); rc != GASPI_SUCCESS)
      return rc;
  if (group.my_index == 0)
    area.result_seq().seq.store(state.seq, std::memory_order_release);
  return GASPI_SUCCESS;
}

} // namespace hygaspi::shm
