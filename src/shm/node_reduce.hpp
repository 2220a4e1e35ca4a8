// Node-local allreduce through one shared buffer (DESIGN.md "Collectives"): every member copies
// its contribution into its slot of the leader's reduce area, the leader combines the slots and
// publishes the result, every member copies it out. One copy in, one combine pass, one copy out;
// no point-to-point messages. Resumable: progress lives in ReduceProgress, and the send buffer is
// read only on the first call of an allreduce (spec §11.3.1).
//
// Slot reuse is safe without extra flags: a member contributes to allreduce s+1 only after it has
// seen result s, which the leader publishes only after it has read every slot of s; and the leader
// writes result s+1 only after every member has contributed to s+1, i.e. copied result s out.
#pragma once
#include <GASPI.h>

#include <array>
#include <span>

#include "core/deadline.hpp"
#include "core/groups.hpp"
#include "shm/node_group.hpp"

namespace hygaspi::shm {

// acc = acc (op) other, for `ctx`'s element type and count. Returns GASPI_SUCCESS or an error.
using Combine = gaspi_return_t (*)(void *ctx, void *acc, const void *other);
// The leader's step between combining its node and publishing (the inter-node exchange); may
// return GASPI_TIMEOUT and is called again on the next call. nullptr: a single node.
struct InterNode {
  gaspi_return_t (*step)(void *ctx, void *acc, std::size_t bytes, const Deadline &deadline) = nullptr;
  void *ctx = nullptr;
};

struct ReduceArea {
  std::uint32_t tag = 0;   // commit tag of the group this mapping belongs to (0: none)
  std::uint64_t nonce = 0; // random part of the area's name (Node::object_name)
  ReduceLayout layout{};
  ShmObject object;
  [[nodiscard]] char *at(std::size_t offset) const noexcept { return static_cast<char *>(object.data()) + offset; }
  [[nodiscard]] ReduceFlag &arrived(std::uint32_t i) const noexcept {
    return reinterpret_cast<ReduceFlag *>(at(layout.arrived_offset()))[i];
  }
  [[nodiscard]] ReduceFlag &result_seq() const noexcept {
    return *reinterpret_cast<ReduceFlag *>(at(layout.result_seq_offset()));
  }
};

// Areas are kept per slot of this rank (its local handle of the group) and named by the group's
// commit tag, which every member knows.
class NodeReduce {
public:
  // The leader creates the area of a newly committed group, before it publishes the group
  // (publish_group), so members that find the group find the area.
  gaspi_return_t create(Node &node, const NodeGroup &group, std::uint64_t slot_bytes);
  // Drops this rank's mapping (group deleted); the leader also removes the name.
  void drop(Node &node, std::uint32_t slot, bool leader) noexcept;
  void clear() noexcept;

  gaspi_return_t allreduce(Node &node, NodeGroup &group, std::uint64_t slot_bytes, ReduceProgress &progress,
                           const void *send, void *receive, std::size_t bytes, Combine combine, void *ctx,
                           InterNode inter, const Deadline &deadline, Step drive);

private:
  gaspi_return_t attach(Node &node, NodeGroup &group, std::uint64_t slot_bytes, const Deadline &deadline, Step drive);
  std::array<ReduceArea, limits::kMaxGroups> areas_;
};

} // namespace hygaspi::shm
