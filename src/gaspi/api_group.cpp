// Groups (spec §6) and the barrier (spec §11.2).
#include <algorithm>

#include "bridge/engine.hpp"
#include "bridge/engine_groups.hpp"
#include "bridge/failures.hpp"
#include "core/statistics.hpp"
#include "gaspi/checks.hpp"
#include "gaspi/group_ops.hpp"
#include "gaspi/state.hpp"

using namespace hygaspi;
using gaspi::Group;
using gaspi::GroupState;
using gaspi::GroupTable;

namespace hygaspi {

gaspi_return_t check_committed_group(gaspi_group_t group) noexcept {
  HYGASPI_CHECK(group < gaspi::state().config.group_max, GASPI_ERR_INV_GROUP, "group %u >= group_max %u", group,
                gaspi::state().config.group_max);
  HYGASPI_CHECK(gaspi::state().groups.groups[group].state == GroupState::committed, GASPI_ERR_INV_GROUP,
                "group %u is not committed", group);
  return GASPI_SUCCESS;
}

gaspi_return_t publish_commit(gaspi_group_t group) {
  Group &g = gaspi::state().groups.groups[group];
  g.engine = engine::open_group(std::vector<std::uint32_t>(g.members.begin(), g.members.end()), group, g.tag,
                                allreduce_slot_bytes());
  return g.engine != nullptr ? GASPI_SUCCESS : GASPI_ERROR; // open_group said why
}

gaspi_return_t group_barrier(gaspi_group_t group, gaspi_timeout_t timeout) {
  HYGASPI_TRY(check_committed_group(group));
  Group &g = gaspi::state().groups.groups[group];
  std::unique_lock lock(g.collective, std::defer_lock);
  if (!lock_for(lock, timeout))
    return GASPI_TIMEOUT;
  HYGASPI_TRY(engine::check_not_broken(*g.engine));
  return engine::barrier(*g.engine, Deadline(timeout));
}

} // namespace hygaspi

extern "C" {

gaspi_return_t pgaspi_group_create(gaspi_group_t *const group) {
  return guarded("gaspi_group_create", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::not_null(group, "group"));
    GroupTable &t = gaspi::state().groups;
    std::lock_guard lock(t.mutex);
    for (std::uint32_t id = 0; id < gaspi::state().config.group_max; ++id) {
      Group &g = t.groups[id];
      if (g.state != GroupState::free)
        continue;
      g.state = GroupState::created;
      g.members.clear();
      g.committing = false;
      *group = static_cast<gaspi_group_t>(id);
      return GASPI_SUCCESS;
    }
    log::error("all %u groups are in use (group_max)", gaspi::state().config.group_max);
    return GASPI_ERR_MANY_GRP;
  });
}

gaspi_return_t pgaspi_group_add(const gaspi_group_t group, const gaspi_rank_t rank) {
  return guarded("gaspi_group_add", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_CHECK(rank < engine::size(), GASPI_ERR_INV_RANK, "rank %u out of range", rank);
    GroupTable &t = gaspi::state().groups;
    std::lock_guard lock(t.mutex);
    HYGASPI_CHECK(group < gaspi::state().config.group_max && t.groups[group].state == GroupState::created,
                  GASPI_ERR_INV_GROUP, "group %u is not a created, uncommitted group", group);
    auto &m = t.groups[group].members;
    auto at = std::lower_bound(m.begin(), m.end(), rank);
    HYGASPI_CHECK(at == m.end() || *at != rank, GASPI_ERROR, "rank %u is already in group %u", rank, group);
    m.insert(at, rank);
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_group_commit(const gaspi_group_t group, const gaspi_timeout_t timeout) {
  return guarded("gaspi_group_commit", [&] {
    InFlight call; // gaspi_proc_term in another thread wakes it
    HYGASPI_TRY(call.status());
    HYGASPI_CHECK(group < gaspi::state().config.group_max, GASPI_ERR_INV_GROUP, "group %u >= group_max", group);
    GroupTable &t = gaspi::state().groups;
    Group &g = t.groups[group];
    {
      std::lock_guard lock(t.mutex);
      HYGASPI_CHECK(g.state != GroupState::free, GASPI_ERR_INV_GROUP, "group %u was not created", group);
      if (g.state == GroupState::created) {
        const auto me = static_cast<gaspi_rank_t>(engine::rank());
        HYGASPI_CHECK(std::binary_search(g.members.begin(), g.members.end(), me), GASPI_ERR_INV_GROUP,
                      "this rank is not a member of group %u", group);
        // spec §6.3: handles are local, so node peers and leaders meet under the commit tag.
        const std::uint32_t tag = t.next_tag(g.members);
        for (std::uint32_t other = 0; other < limits::kMaxGroups; ++other)
          HYGASPI_CHECK(t.groups[other].state != GroupState::committed || t.groups[other].tag != tag, GASPI_ERROR,
                        "group %u: its commit tag %08x is taken by group %u", group, tag, other);
        g.tag = tag;
        g.state = GroupState::committed;
        g.committing = true;
        HYGASPI_TRY(publish_commit(group));
      } else if (!g.committing) {
        // Committing a committed group (e.g. GASPI_GROUP_ALL, as the spec's listings do) is a barrier.
        g.committing = true;
      }
    }
    // The commit completes when every member has committed: a barrier of the new group.
    gaspi_return_t rc = group_barrier(group, timeout);
    if (rc != GASPI_TIMEOUT)
      g.committing = false;
    if (rc == GASPI_SUCCESS)
      acknowledge_deaths_outside(g.members); // bridge/failures.hpp
    return rc;
  });
}

gaspi_return_t pgaspi_group_delete(const gaspi_group_t group) {
  return guarded("gaspi_group_delete", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_CHECK(group != GASPI_GROUP_ALL, GASPI_ERR_INV_GROUP, "GASPI_GROUP_ALL cannot be deleted");
    GroupTable &t = gaspi::state().groups;
    std::lock_guard lock(t.mutex);
    HYGASPI_CHECK(group < gaspi::state().config.group_max && t.groups[group].state != GroupState::free,
                  GASPI_ERR_INV_GROUP, "group %u does not exist", group);
    Group &g = t.groups[group];
    std::lock_guard busy(g.collective);
    std::lock_guard reducing(g.reducing);
    if (g.state == GroupState::committed)
      engine::close_group(g.engine);
    g.engine = nullptr;
    g.state = GroupState::free;
    g.members.clear();
    g.committing = false;
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_group_num(gaspi_number_t *const group_num) {
  return guarded("gaspi_group_num", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::not_null(group_num, "group_num"));
    GroupTable &t = gaspi::state().groups;
    std::lock_guard lock(t.mutex);
    *group_num = static_cast<gaspi_number_t>(
        std::count_if(t.groups.begin(), t.groups.end(), [](const Group &g) { return g.state != GroupState::free; }));
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_group_size(const gaspi_group_t group, gaspi_number_t *const group_size) {
  return guarded("gaspi_group_size", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::not_null(group_size, "group_size"));
    GroupTable &t = gaspi::state().groups;
    std::lock_guard lock(t.mutex);
    HYGASPI_CHECK(group < gaspi::state().config.group_max && t.groups[group].state != GroupState::free,
                  GASPI_ERR_INV_GROUP, "group %u does not exist", group);
    *group_size = static_cast<gaspi_number_t>(t.groups[group].members.size());
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_group_ranks(const gaspi_group_t group, gaspi_rank_t *const group_ranks) {
  return guarded("gaspi_group_ranks", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::not_null(group_ranks, "group_ranks"));
    GroupTable &t = gaspi::state().groups;
    std::lock_guard lock(t.mutex);
    HYGASPI_CHECK(group < gaspi::state().config.group_max && t.groups[group].state != GroupState::free,
                  GASPI_ERR_INV_GROUP, "group %u does not exist", group);
    std::copy(t.groups[group].members.begin(), t.groups[group].members.end(), group_ranks);
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_barrier(const gaspi_group_t group, const gaspi_timeout_t timeout) {
  return guarded("gaspi_barrier", [&] {
    stats::Timer timer(stats::collective_us);
    InFlight call; // gaspi_proc_term in another thread wakes it
    HYGASPI_TRY(call.status());
    return group_barrier(group, timeout);
  });
}

} // extern "C"

HYGASPI_ALIAS(gaspi_group_create)
HYGASPI_ALIAS(gaspi_group_add)
HYGASPI_ALIAS(gaspi_group_commit)
HYGASPI_ALIAS(gaspi_group_delete)
HYGASPI_ALIAS(gaspi_group_num)
HYGASPI_ALIAS(gaspi_group_size)
HYGASPI_ALIAS(gaspi_group_ranks)
HYGASPI_ALIAS(gaspi_barrier)
