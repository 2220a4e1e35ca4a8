// The one transport interface of the engine (docs/DESIGN.md "Layers"), checked by a concept and
// resolved at compile time: no virtual call on the data path. The bridge picks the transport of
// a peer once (bridge/peers.hpp) and calls it directly.
//
// Every operation names its target in the transport's own rank space (shm: NodeIndex, MPI:
// MpiRank) and its segment by the transport's own description (shm::MappedSegment,
// mpi::RemoteSegment), so a global rank cannot reach a transport unconverted.
//   put / get       queue an RDMA of `size` bytes; complete at flush(queue) at the latest
//   notify          writes a notification word; never overtakes the earlier puts of the same
//                   queue to that peer (spec §8.3.2: "the notification ... is guaranteed to be
//                   visible after the data of the previous write requests to the same rank")
//   atomic          the engine's atomic operation (core/atomic_op.hpp: GASPI's fetch_add and
//                   compare_swap, GASNet-EX's gex_AD_Op*), the word's old value out; atomic with
//                   respect to every other initiator, local or remote (docs/DESIGN.md "Atomicity")
//   flush(queue)    completes every put/get this process issued on `queue`
// The atomic takes the caller's timeout in ms (a Deadline reads the clock: only MPI needs it).
// Return values are status codes (gaspi_return_t: GASPI_SUCCESS, GASPI_TIMEOUT, GASPI_ERROR);
// the engine knows no other GASPI type.
#pragma once
#include <GASPI.h>

#include <concepts>
#include <cstdint>

#include "core/atomic_op.hpp"
#include "core/deadline.hpp"

namespace hygaspi {

template <class T>
concept Transport = requires(T &t, typename T::Peer peer, const typename T::Segment &segment, std::uint64_t offset,
                             const void *src, void *dst, std::uint64_t size, std::uint32_t queue, std::uint32_t id,
                             std::uint32_t value, const AtomicOp &op, std::uint64_t &old, std::uint64_t timeout_ms) {
  { t.put(peer, segment, offset, src, size, queue) } -> std::same_as<gaspi_return_t>;
  { t.get(dst, peer, segment, offset, size, queue) } -> std::same_as<gaspi_return_t>;
  { t.notify(peer, segment, id, value, queue) } -> std::same_as<gaspi_return_t>;
  { t.atomic(peer, segment, offset, op, old, timeout_ms) } -> std::same_as<gaspi_return_t>;
  { t.flush(queue) } -> std::same_as<gaspi_return_t>;
};

} // namespace hygaspi
