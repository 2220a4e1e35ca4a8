// Engine groups by handle (bridge/engine_groups.hpp) over bridge/collectives/.
#include "bridge/engine_groups.hpp"

#include "bridge/collectives/collectives.hpp"
#include "bridge/runtime.hpp"
#include "core/log.hpp"

namespace hygaspi::engine {

struct Group {
  GroupRecord record;
  std::uint64_t slot_bytes = 0;
  bool area_named = true; // the reduce area's name exists until the first allreduce completed
};

Group *open_group(std::vector<std::uint32_t> members, std::uint32_t slot, std::uint32_t tag, std::uint64_t slot_bytes) {
  auto *g = new Group;
  g->slot_bytes = slot_bytes;
  std::vector<gaspi_rank_t> ranks(members.begin(), members.end());
  if (collectives::open_group(g->record, std::move(ranks), slot, tag, slot_bytes) != GASPI_SUCCESS) {
    delete g;
    return nullptr;
  }
  return g;
}

void close_group(Group *g) noexcept {
  if (g == nullptr)
    return;
  collectives::withdraw(g->record);
  delete g;
}

void drop_group(Group *g) noexcept {
  if (g == nullptr)
    return;
  collectives::drop(g->record);
  delete g;
}

gaspi_return_t check_not_broken(const Group &g) { return collectives::check_not_broken(g.record); }

std::uint32_t group_tag(const Group &g) noexcept { return g.record.tag; }

gaspi_return_t barrier(Group &g, const Deadline &deadline) {
  rt().node.release_stale_device_mappings(); // before this rank arrives (shm/node.hpp)
  return collectives::barrier(g.record, deadline);
}

gaspi_return_t allreduce(Group &g, const void *send, void *receive, std::size_t bytes, Combine combine, void *ctx,
                         const Deadline &deadline) {
  rt().node.release_stale_device_mappings();
  const gaspi_return_t rc =
      collectives::allreduce(g.record, send, receive, bytes, combine, ctx, g.slot_bytes, deadline);
  if (rc == GASPI_SUCCESS && g.area_named) {
    collectives::forget_area_name(g.record); // every node member has it mapped now
    g.area_named = false;
  }
  return rc;
}

} // namespace hygaspi::engine
