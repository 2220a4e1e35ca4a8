// Engine groups for the front ends (GASPI's groups, GASNet-EX teams): the
// hierarchical barrier and allreduce of bridge/collectives/ behind an opaque handle, so that a
// front end sees neither the group record nor the transports' step machines.
#pragma once
#include <GASPI.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/deadline.hpp"
#include "core/value_fold.hpp"

namespace hygaspi::engine {

struct Group; // an engine group (bridge/collectives/group_record.hpp)

// A group of `members` (global ranks, ascending, this rank among them) in engine group slot `slot`
// (one beyond GASPI's ids: limits::kMaxGroups and up) under `tag`, which every member passes
// alike; its reduce area holds `slot_bytes` per member. Not collective: members meet at the first
// collective. nullptr when it cannot be made (logged).
Group *open_group(std::vector<std::uint32_t> members, std::uint32_t slot, std::uint32_t tag, std::uint64_t slot_bytes);
// Withdraws the group and frees it.
void close_group(Group *g) noexcept;
// The front end's term begins: a leader of the group tells the other leaders how many of its
// collectives it completed (collectives::depart), so that none waits forever for a later one.
void depart_group(Group &g);
// The engine stops (the front end's term): frees the group, and drops its reduce area, without
// withdrawing it from the node.
void drop_group(Group *g) noexcept;
// GASPI_ERROR (logged) when a member left an earlier collective of the group with an error: a
// collective of a broken group fails at once.
gaspi_return_t check_not_broken(const Group &g);
[[nodiscard]] std::uint32_t group_tag(const Group &g) noexcept;

// The collectives, resumable as GASPI's (Deadline GASPI_TEST: one look; GASPI_TIMEOUT: not done
// yet, call again). The caller serialises the collectives of one group. allreduce: acc = acc (op)
// other by `combine`, the same function on a node and between node leaders; `bytes` at most the
// group's slot_bytes.
using Combine = gaspi_return_t (*)(void *ctx, void *acc, const void *other);
gaspi_return_t barrier(Group &g, const Deadline &deadline);
gaspi_return_t allreduce(Group &g, const void *send, void *receive, std::size_t bytes, Combine combine, void *ctx,
                         const Deadline &deadline);
// A barrier that also folds one 64-bit value of every member: `value` is this member's at the first
// call, and the fold of all once the barrier returns GASPI_SUCCESS. `fold` must be idempotent as
// well as commutative and associative (a value may be folded in twice). The value travels in the
// barrier's own signals: the node phases' flags (shm/node_barrier.hpp) and the leaders' messages.
gaspi_return_t barrier_fold(Group &g, std::uint64_t &value, ValueFold fold, const Deadline &deadline);

} // namespace hygaspi::engine
