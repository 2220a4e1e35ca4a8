#include "bridge/segments.hpp"

#include <algorithm>
#include <array>

#include "core/log.hpp"

namespace hygaspi {

namespace {
// What of segment `m` the dynamic window needs attached. An allocated segment's shm object holds
// its notification array (whole pages), then its data: one range, so one attachment
// (mpi_rma/rma.hpp, "Attachments"). Bound memory lies elsewhere. Device memory is not attached:
// its owner serves it (mpi::DeviceRequests).
std::array<mpi::Rma::Range, 2> attachments(const shm::MappedSegment &m) {
  if (m.kind == shm::SegmentKind::shm)
    return {{{m.notifications, static_cast<std::uint64_t>(m.data - reinterpret_cast<char *>(m.notifications)) + m.size},
             {}}};
  if (m.kind == shm::SegmentKind::user)
    return {{{m.notifications, std::uint64_t{m.notification_num} * sizeof(std::uint32_t)}, {m.data, m.size}}};
  return {{{m.notifications, std::uint64_t{m.notification_num} * sizeof(std::uint32_t)}, {}}};
}
} // namespace

gaspi_return_t SegmentTable::create(std::uint32_t seg, std::uint64_t size, std::uint32_t notification_num,
                                    void *user_memory, std::uint64_t alloc_policy, const kinds::IpcKey *device_key) {
  std::lock_guard lock(mutex_);
  // The spec leaves the code open; GPI-2 returns GASPI_ERR_INV_SEG.
  if (node_->local(seg) != nullptr) {
    log::error("segment %u already exists", seg);
    return GASPI_ERR_INV_SEG;
  }
  if (const gaspi_return_t rc =
          node_->segment_create(seg, size, notification_num, user_memory, alloc_policy, device_key);
      rc != GASPI_SUCCESS)
    return rc;
  // The message inbox is reached by node peers only (bridge/am_channel.hpp): no attachment, which
  // osc/rdma counts against its cap.
  if (rma_->active() && seg != limits::kInbox) {
    if (const gaspi_return_t rc = rma_->attach(seg, attachments(*node_->local(seg))); rc != GASPI_SUCCESS) {
      node_->segment_delete(seg);
      return rc;
    }
  }
  entries_[seg].registered.clear();
  return GASPI_SUCCESS;
}

gaspi_return_t SegmentTable::register_with(std::uint32_t seg, const Peer &peer) {
  if (peer.kind == PeerKind::shm)
    node_->register_segment(seg, peer.node);
  if (peer.on_node())
    return GASPI_SUCCESS;
  const shm::MappedSegment &m = *node_->local(seg);
  const mpi::RemoteSegment entry{m.generation,
                                 m.size,
                                 reinterpret_cast<std::uint64_t>(m.data),
                                 reinterpret_cast<std::uint64_t>(m.notifications),
                                 m.notification_num,
                                 seg,
                                 m.memory == Memory::cuda ? 1u : 0u,
                                 0,
                                 {}};
  if (const gaspi_return_t rc = rma_->register_with(seg, peer.mpi, entry); rc != GASPI_SUCCESS)
    return rc;
  std::lock_guard lock(mutex_);
  auto &ranks = entries_[seg].registered;
  if (std::find(ranks.begin(), ranks.end(), peer.mpi) == ranks.end())
    ranks.push_back(peer.mpi);
  return GASPI_SUCCESS;
}

gaspi_return_t SegmentTable::open_window(std::uint32_t seg, bool dynamic, const std::vector<MpiRank> &members) {
  if (!rma_->active())
    return GASPI_SUCCESS;
  // Every member takes part, one that offers no window too (kNoWindow): then none opens anywhere.
  const shm::MappedSegment *m = node_->local(seg);
  if (m == nullptr || m->kind != shm::SegmentKind::shm || dynamic)
    return rma_->open_window(mpi::Rma::kNoWindow, {}, 1, mpi::Window::Kind::regular, members);
  return rma_->open_window(seg, attachments(*m)[0], m->generation, mpi::Window::Kind::regular, members);
}

gaspi_return_t SegmentTable::remove(std::uint32_t seg) {
  std::lock_guard lock(mutex_);
  if (node_->local(seg) == nullptr) {
    log::error("segment %u does not exist", seg);
    return GASPI_ERR_INV_SEG;
  }
  Entry &e = entries_[seg];
  e.pending_collective.store(false, std::memory_order_release);
  if (rma_->active()) {
    // Peers of other nodes must not reach into memory that is about to be freed.
    for (const MpiRank r : e.registered)
      if (const gaspi_return_t rc = rma_->register_with(seg, r, mpi::RemoteSegment{}); rc != GASPI_SUCCESS)
        return rc;
    e.registered.clear();
    rma_->forget_window(seg);
    rma_->detach(seg);
  }
  return node_->segment_delete(seg);
}

void SegmentTable::clear() noexcept {
  std::lock_guard lock(mutex_);
  for (Entry &e : entries_) {
    e.pending_collective.store(false, std::memory_order_relaxed);
    e.registered.clear();
  }
}

} // namespace hygaspi
