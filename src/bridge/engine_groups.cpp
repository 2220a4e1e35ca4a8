// Engine groups by handle (bridge/engine_groups.hpp) over bridge/collectives/.
#include "bridge/engine_groups.hpp"

#include "bridge/collectives/collectives.hpp"
#include "bridge/runtime.hpp"
#include "core/log.hpp"

namespace hygaspi::engine {

struct Group {
  GroupRecord record;
  std::uint64_t slot_bytes = 0;
  bool area_named = true; // the reduce area's name exists until the first barrier or allreduce completed
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

void depart_group(Group &g) { collectives::depart(g.record); }

gaspi_return_t check_not_broken(const Group &g) { return collectives::check_not_broken(g.record); }

std::uint32_t group_tag(const Group &g) noexcept { return g.record.tag; }

namespace {
// After a completed collective every node member has the reduce area mapped: its name can go.
gaspi_return_t settle_area_name(Group &g, gaspi_return_t rc) noexcept {
  if (rc == GASPI_SUCCESS && g.area_named) {
    collectives::forget_area_name(g.record);
    g.area_named = false;
  }
  return rc;
}
// What a barrier maps before it arrives (collectives::barrier): the reduce area while it has a name.
std::uint64_t area_to_map(const Group &g) noexcept { return g.area_named ? g.slot_bytes : 0; }
} // namespace

gaspi_return_t barrier(Group &g, const Deadline &deadline) {
  rt().node.release_stale_device_mappings(); // before this rank arrives (shm/node.hpp)
  return settle_area_name(g, collectives::barrier(g.record, area_to_map(g), deadline));
}

gaspi_return_t allreduce(Group &g, const void *send, void *receive, std::size_t bytes, Combine combine, void *ctx,
                         const Deadline &deadline) {
  rt().node.release_stale_device_mappings();
  return settle_area_name(g,
                          collectives::allreduce(g.record, send, receive, bytes, combine, ctx, g.slot_bytes, deadline));
}

gaspi_return_t barrier_fold(Group &g, std::uint64_t &value, ValueFold fold, const Deadline &deadline) {
  rt().node.release_stale_device_mappings(); // before this rank arrives, as barrier()
  return settle_area_name(g, collectives::barrier(g.record, area_to_map(g), deadline, fold, &value));
}

} // namespace hygaspi::engine
