// The engine's data operations on a Target (bridge/target.hpp): the transport is chosen here, once
// per operation, from the peer table (docs/DESIGN.md "Code conventions").
#include "bridge/target.hpp"

#include "bridge/device_rma.hpp"
#include "bridge/fast_views.hpp"
#include "bridge/runtime.hpp"

namespace hygaspi::engine {

namespace {

// `fn(transport, target, segment)` runs with the peer's transport, its rank in that transport's
// space, and the segment's description for that transport.
template <class Fn> gaspi_return_t on_transport(const Target &t, Fn &&fn) {
  const Peer &peer = t.peer();
  if (peer.on_node())
    return fn(rt().shm_transport, peer.node, *t.ref().shm);
  return fn(rt().mpi_transport, peer.mpi, *t.ref().mpi);
}

} // namespace

Found find(GlobalRank r, std::uint32_t id, Target &out) noexcept {
  Runtime &rtm = rt();
  const Peer &peer = rtm.peers[r];
  out = Target{};
  out.peer_ = &peer;
  if (peer.on_node()) {
    const shm::MappedSegment *m = rtm.node.lookup(peer.node, id);
    if (m == nullptr)
      return rtm.node.published(peer.node, id) && !rtm.node.registered_here(peer.node, id) ? Found::not_registered
                                                                                           : Found::absent;
    out.ref_ = RemoteRef{m, nullptr, m->size, m->notification_num};
    out.atomics_ = m->host_mapped();
    out.device_ = m->memory == Memory::cuda;
    return Found::yes;
  }
  const mpi::RemoteSegment *seg = rtm.rma.remote(peer.mpi, id);
  if (seg == nullptr)
    return Found::not_registered;
  out.ref_ = RemoteRef{nullptr, seg, seg->size, seg->notification_num};
  out.device_ = seg->device != 0;
  out.atomics_ = !out.device_;
  return Found::yes;
}

gaspi_return_t put(const Target &to, std::uint64_t offset, const void *src, std::uint64_t size, std::uint32_t queue,
                   const SegmentView *local) {
  if (local != nullptr || to.device()) [[unlikely]]
    return device_put(to, offset, src, size, queue, local);
  return on_transport(
      to, [&](auto &tx, auto rank, const auto &seg) { return tx.put(rank, seg, offset, src, size, queue); });
}

gaspi_return_t get(void *dst, const Target &from, std::uint64_t offset, std::uint64_t size, std::uint32_t queue,
                   const SegmentView *local) {
  if (local != nullptr || from.device()) [[unlikely]]
    return device_get(dst, from, offset, size, queue, local);
  return on_transport(
      from, [&](auto &tx, auto rank, const auto &seg) { return tx.get(dst, rank, seg, offset, size, queue); });
}

gaspi_return_t put(const Target &to, std::uint64_t offset, const void *src, std::uint64_t size, std::uint32_t queue,
                   const SegmentView *local, Completion &pending) {
  if (local != nullptr || to.device())
    return device_put(to, offset, src, size, queue, local, &pending);
  return put(to, offset, src, size, queue, local);
}

gaspi_return_t get(void *dst, const Target &from, std::uint64_t offset, std::uint64_t size, std::uint32_t queue,
                   const SegmentView *local, Completion &pending) {
  if (local != nullptr || from.device())
    return device_get(dst, from, offset, size, queue, local, &pending);
  return get(dst, from, offset, size, queue, local);
}

gaspi_return_t notify(const Target &to, std::uint32_t id, std::uint32_t value, std::uint32_t queue) {
  // Into another node's device segment while the queue carries device transfers: the owner sets
  // it after them (device_put_notify of no bytes), so the call need not wait for them.
  if (to.device() && !to.peer().on_node() && queue_has_copies(queue)) [[unlikely]]
    return device_put_notify(to, 0, nullptr, 0, id, value, queue, nullptr);
  HYGASPI_TRY(settle_queue(queue)); // after the device copies the queue carried before it
  return on_transport(to, [&](auto &tx, auto rank, const auto &seg) { return tx.notify(rank, seg, id, value, queue); });
}

gaspi_return_t put_notify(const Target &to, std::uint64_t offset, const void *src, std::uint64_t size, std::uint32_t id,
                          std::uint32_t value, std::uint32_t queue, const SegmentView *local) {
  if (local != nullptr || to.device()) [[unlikely]]
    return device_put_notify(to, offset, src, size, id, value, queue, local);
  HYGASPI_TRY(settle_queue(queue)); // the device copies the queue carried before this notification
  return on_transport(to, [&](auto &tx, auto rank, const auto &seg) {
    HYGASPI_TRY(tx.put(rank, seg, offset, src, size, queue));
    return tx.notify(rank, seg, id, value, queue);
  });
}

gaspi_return_t gets_landed(GlobalRank from, std::uint32_t queue) {
  HYGASPI_TRY(settle_queue(queue));
  const Peer &peer = rt().peers[from];
  return peer.on_node() ? GASPI_SUCCESS : rt().mpi_transport.flush_peer(peer.mpi);
}

gaspi_return_t atomic(const Target &on, std::uint64_t offset, const AtomicOp &op, std::uint64_t &old,
                      std::uint64_t timeout_ms) {
  return on_transport(
      on, [&](auto &tx, auto rank, const auto &seg) { return tx.atomic(rank, seg, offset, op, old, timeout_ms); });
}

gaspi_return_t flush(std::uint32_t queue, std::uint64_t timeout_ms) {
  HYGASPI_TRY(copies_done(queue, timeout_ms));
  const gaspi_return_t copies = settle_queue(queue, true); // the MPI part completes all the same
  HYGASPI_TRY(rt().shm_transport.flush(queue));
  if (rt().rma.active())
    HYGASPI_TRY(rt().mpi_transport.flush(queue)); // a plain load first: a queue of node-local posts skips the RMW
  return copies;
}

} // namespace hygaspi::engine
