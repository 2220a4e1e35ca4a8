#include "shm/node_reduce.hpp"

#include <cstring>

#include "core/log.hpp"
#include "core/sequence.hpp"

namespace hygaspi::shm {

namespace {
std::uint64_t round_up(std::uint64_t bytes) { return (bytes + kCacheLine - 1) / kCacheLine * kCacheLine; }

// A timeout keeps the progress for the next call; an error abandons this allreduce.
gaspi_return_t abandon(ReduceProgress &progress, gaspi_return_t rc) noexcept {
  if (rc != GASPI_TIMEOUT)
    progress.phase = ReduceProgress::idle;
  return rc;
}

bool reached(const ReduceFlag &flag, std::uint32_t seq) noexcept {
  return seq_reached(flag.seq.load(std::memory_order_acquire), seq);
}
} // namespace

gaspi_return_t NodeReduce::create(Node &node, const NodeGroup &group, std::uint64_t slot_bytes) {
  const auto members = static_cast<std::uint32_t>(group.members.size());
  ReduceArea &area = areas_[group.slot];
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

void NodeReduce::drop(Node &node, std::uint32_t slot, bool leader) noexcept {
  ReduceArea &area = areas_[slot];
  if (leader && area.tag != 0 && !node.solo())
    ShmObject::unlink(node.object_name("c", node.rank().value(), area.tag, 0, area.nonce));
  area = ReduceArea{};
}

void NodeReduce::clear() noexcept {
  for (auto &a : areas_)
    a = ReduceArea{};
}

gaspi_return_t NodeReduce::attach(Node &node, NodeGroup &group, std::uint64_t slot_bytes, const Deadline &deadline,
                                  Step drive) {
  ReduceArea &area = areas_[group.slot];
  if (area.tag == group.tag)
    return GASPI_SUCCESS;
  // The leader publishes the group once its area exists, before it joins the commit barrier; a
  // member normally finds it at once, but GASPI_GROUP_ALL is committed inside gaspi_proc_init
  // without a barrier.
  if (gaspi_return_t rc = await_group(
          node, group, [&] { return find_slot(node, group, 0) >= 0; }, deadline, drive);
      rc != GASPI_SUCCESS)
    return rc;
  const auto members = static_cast<std::uint32_t>(group.members.size());
  const gaspi_rank_t leader = group.members[0];
  area = ReduceArea{};
  area.layout = ReduceLayout{members, round_up(slot_bytes)};
  std::string error;
  const auto leader_slot = static_cast<std::uint32_t>(find_slot(node, group, 0));
  const std::uint64_t nonce =
      node.block(NodeIndex{leader}).group_slots[leader_slot].reduce_nonce.load(std::memory_order_relaxed);
  if (!ShmObject::open(node.object_name("c", leader, group.tag, 0, nonce), area.layout.bytes(), area.object, error)) {
    log::error("group %u: %s", group.slot, error.c_str());
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

gaspi_return_t NodeReduce::allreduce(Node &node, NodeGroup &group, std::uint64_t slot_bytes, ReduceProgress &progress,
                                     const void *send, void *receive, std::size_t bytes, Combine combine, void *ctx,
                                     InterNode inter, const Deadline &deadline, Step drive) {
  const auto n = static_cast<std::uint32_t>(group.members.size());
  const std::uint32_t my_index = group.my_index;
  const gaspi_rank_t leader = group.members[0];
  if (gaspi_return_t rc = attach(node, group, slot_bytes, deadline, drive); rc != GASPI_SUCCESS)
    return rc;
  ReduceArea &area = areas_[group.slot];

  if (progress.phase == ReduceProgress::idle) {
    progress.seq += 1;
    std::memcpy(area.at(area.layout.slot_offset(my_index)), send, bytes);
    area.arrived(my_index).seq.store(progress.seq, std::memory_order_seq_cst);
    if (my_index != 0)
      node.ring(NodeIndex{leader});
    progress.phase = ReduceProgress::contributed;
  }

  if (my_index == 0 && progress.phase == ReduceProgress::contributed) {
    for (std::uint32_t i = 1; i < n; ++i) {
      // On GASPI_TIMEOUT the phase stays `contributed`; the next call waits on.
      if (gaspi_return_t rc = await_group(
              node, group, [&] { return reached(area.arrived(i), progress.seq); }, deadline, drive);
          rc != GASPI_SUCCESS)
        return abandon(progress, rc);
    }
    char *result = area.at(area.layout.result_offset());
    std::memcpy(result, area.at(area.layout.slot_offset(0)), bytes);
    for (std::uint32_t i = 1; i < n; ++i)
      if (gaspi_return_t rc = combine(ctx, result, area.at(area.layout.slot_offset(i))); rc != GASPI_SUCCESS)
        return abandon(progress, rc);
    progress.phase = ReduceProgress::combined;
  }
  if (my_index == 0 && progress.phase == ReduceProgress::combined) {
    if (inter.step != nullptr)
      if (gaspi_return_t rc = inter.step(inter.ctx, area.at(area.layout.result_offset()), bytes, deadline);
          rc != GASPI_SUCCESS)
        return abandon(progress, rc);
    area.result_seq().seq.store(progress.seq, std::memory_order_seq_cst);
    for (std::uint32_t i = 1; i < n; ++i)
      node.ring(NodeIndex{group.members[i]});
    progress.phase = ReduceProgress::published;
  }

  if (gaspi_return_t rc = await_group(
          node, group, [&] { return reached(area.result_seq(), progress.seq); }, deadline, drive);
      rc != GASPI_SUCCESS)
    return abandon(progress, rc);
  std::memcpy(receive, area.at(area.layout.result_offset()), bytes);
  progress.phase = ReduceProgress::idle;
  return GASPI_SUCCESS;
}

} // namespace hygaspi::shm
