// Engine groups by handle (bridge/engine_groups.hpp) over bridge/collectives/.
#include "bridge/engine_groups.hpp"

#include "bridge/collectives/collectives.hpp"
#include "core/log.hpp"

namespace hygaspi::engine {

struct Group {
  GroupRecord record;
  std::uint64_t slot_bytes = 0;
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

std::uint32_t group_tag(const Group &g) noexcept { return g.record.tag; }

gaspi_return_t barrier(Group &g, const Deadline &deadline) { return collectives::barrier(g.record, deadline); }

gaspi_return_t allreduce(Group &g, const void *send, void *receive, std::size_t bytes, Combine combine, void *ctx,
                         const Deadline &deadline) {
  return collectives::allreduce(g.record, send, receive, bytes, combine, ctx, g.slot_bytes, deadline);
}

} // namespace hygaspi::engine
