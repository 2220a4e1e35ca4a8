// Groups (spec §6): created and filled locally, committed collectively. The table holds each
// group's members and the progress of its resumable collectives (spec §11: a call that returns
// GASPI_TIMEOUT keeps its progress, and the next call continues).
#pragma once
#include <GASPI.h>

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "core/limits.hpp"

namespace hygaspi {

// Where a dissemination barrier stands; owned by the group, advanced by the transport.
struct BarrierProgress {
  std::uint32_t seq = 0;   // sequence number of the current (or last) barrier, 1-based
  std::uint32_t round = 0; // next round to complete
  bool sent = false;       // this round's signal was sent
  bool active = false;     // a barrier is in progress
};

// Where a node-local allreduce stands (shm/node_reduce.hpp); kept across GASPI_TIMEOUT.
struct ReduceProgress {
  std::uint32_t seq = 0; // sequence number of the current (or last) allreduce, 1-based
  enum Phase : std::uint32_t { idle, contributed, combined, published } phase = idle;
};

enum class GroupState { free, created, committed };

struct Group {
  GroupState state = GroupState::free;
  std::vector<gaspi_rank_t> members; // sorted, unique
  std::uint32_t my_index = 0;        // position of this rank in members (when committed)
  std::uint32_t tag = 0;             // identifies this commit of this membership, never 0
  bool committing = false;           // a commit returned GASPI_TIMEOUT and is resumable
  BarrierProgress barrier;
  ReduceProgress reduce;
  std::mutex collective; // one barrier caller at a time
  std::mutex reducing;   // one allreduce caller at a time; a barrier may run beside it
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
  void clear() {
    for (auto &g : groups) {
      g.state = GroupState::free;
      g.members.clear();
      g.committing = false;
      g.barrier = {};
      g.reduce = {};
    }
    commits_.clear();
  }

private:
  std::map<std::uint64_t, std::uint32_t> commits_;
};

} // namespace hygaspi
