// GASPI's groups (spec §6): handles 0..group_max-1 that a program creates, fills and commits. A
// committed group runs its collectives on an engine group (bridge/engine_groups.hpp) in the engine
// slot of the same number; the members meet under the commit tag, which every member computes
// alike from the membership.
#pragma once
#include <GASPI.h>

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "bridge/engine_groups.hpp"
#include "core/limits.hpp"

namespace hygaspi::gaspi {

enum class GroupState { free, created, committed };

struct Group {
  GroupState state = GroupState::free;
  std::vector<gaspi_rank_t> members; // global ranks, sorted, unique
  std::uint32_t tag = 0;             // identifies this commit of this membership, never 0
  bool committing = false;           // a commit returned GASPI_TIMEOUT and is resumable
  engine::Group *engine = nullptr;   // while committed
  std::mutex collective;             // one barrier caller at a time
  std::mutex reducing;               // one allreduce caller at a time
};

class GroupTable {
public:
  std::mutex mutex; // guards state transitions and membership
  std::array<Group, limits::kMaxGroups> groups;

  // Tag of the next commit of `members`: a hash of the membership and of how often this
  // membership was committed before. All members compute the same value, and a re-commit gets a
  // fresh one, so signals of an earlier incarnation are never mistaken for new ones.
  std::uint32_t next_tag(const std::vector<gaspi_rank_t> &members) {
    std::uint64_t h = 1469598103934665603ull; // FNV-1a
    for (auto r : members) {
      h ^= r;
      h *= 1099511628211ull;
    }
    std::uint32_t count = commits_[h]++;
    h ^= count;
    h *= 1099511628211ull;
    auto tag = static_cast<std::uint32_t>(h ^ (h >> 32));
    return tag == 0 ? 1 : tag;
  }
  // A new life: every group free (their engine groups were dropped at term). The commit counts stay:
  // the engine, and with it the groups each node leader published, outlives a GASPI life while
  // GASNet holds it, and a node peer still in the previous life (or just past its term) must not
  // find the new life's GASPI_GROUP_ALL under the tag of the old one.
  void clear() {
    for (auto &g : groups) {
      g.state = GroupState::free;
      g.members.clear();
      g.committing = false;
      g.engine = nullptr;
    }
  }

private:
  std::map<std::uint64_t, std::uint32_t> commits_;
};

} // namespace hygaspi::gaspi
