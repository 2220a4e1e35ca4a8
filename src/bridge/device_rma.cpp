// The device routes of the engine's put and get (bridge/device_rma.hpp).
#include "bridge/device_rma.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "bridge/progress.hpp"
#include "bridge/runtime.hpp"
#include "core/log.hpp"
#include "kinds/devices.hpp"

namespace hygaspi::engine {

namespace {

// A copy between two addresses of this process, at least one of them device memory, on the device
// `ordinal`'s stream; complete when it returns. The wait polls the copy's event in core/wait.hpp
// (no progress step: the copy needs none): on an H100 this took 2 µs less per copy than letting the
// driver wait (cuEventSynchronize, CudaDevice::copy_now).
gaspi_return_t device_copy(void *dst, const void *src, std::uint64_t n, int ordinal) {
  std::string why;
  kinds::CudaDevice *dev = kinds::device(rt().knobs.cuda_library, ordinal, why);
  kinds::Copy copy;
  if (dev != nullptr && dev->start_copy(dst, src, n, copy, why)) {
    auto done = [&] { return dev->test(copy, why); };
    (void)wait_until(done, Deadline(GASPI_BLOCK), rt().node.wait_policy(), Step(), Nap{}, kAlwaysHealthy);
    if (why.empty())
      return GASPI_SUCCESS;
  }
  log::error("CUDA device %d: %s", ordinal, why.c_str());
  return GASPI_ERROR;
}

// The host buffer that device data passes through: the calling thread's, kept between calls (a
// fresh megabyte would fault its pages in every time).
char *bounce() {
  thread_local std::vector<char> buffer(mpi::kDeviceChunk);
  return buffer.data();
}

int ordinal_of(const SegmentView *local) { return local != nullptr ? local->device : -1; }

// `fn(done, n)` for each piece of at most kDeviceChunk bytes of [0, size).
template <class Fn> gaspi_return_t pieces(std::uint64_t size, Fn &&fn) {
  for (std::uint64_t done = 0; done < size;) {
    const std::uint64_t n = std::min(size - done, mpi::kDeviceChunk);
    if (const gaspi_return_t rc = fn(done, n); rc != GASPI_SUCCESS)
      return rc;
    done += n;
  }
  return GASPI_SUCCESS;
}

// One request to another node's device segment.
gaspi_return_t served(const Peer &peer, std::uint32_t segment, std::uint64_t offset, bool put, const void *payload,
                      void *into, std::uint64_t n) {
  const mpi::DeviceRequest request{segment, put ? 1u : 0u, offset, n, 0, 0};
  auto alive = [&peer] { return rt().alive(peer); };
  const gaspi_return_t rc = rt().control.device_transfer(peer.mpi, request, payload, into, mpi_progress(), Step(alive));
  if (rc != GASPI_SUCCESS)
    log::error("rank %u could not serve %lu bytes %s its device segment %u at offset %lu", peer.global.print(),
               static_cast<unsigned long>(n), put ? "into" : "out of", segment, static_cast<unsigned long>(offset));
  return rc;
}

} // namespace

gaspi_return_t device_put(const Target &to, std::uint64_t offset, const void *src, std::uint64_t size,
                          const SegmentView *local) {
  Runtime &r = rt();
  const Peer &peer = to.peer();
  const int mine = ordinal_of(local);
  const auto *from = static_cast<const char *>(src);
  if (peer.on_node()) {
    const shm::MappedSegment &seg = *to.ref().shm;
    if (seg.memory != Memory::peer_host)
      return device_copy(seg.data + offset, src, size, seg.memory == Memory::cuda ? seg.device : mine);
    return pieces(size, [&](std::uint64_t done, std::uint64_t n) {
      HYGASPI_TRY(device_copy(bounce(), from + done, n, mine));
      return r.node.put(seg, peer.node, offset + done, bounce(), n);
    });
  }
  const mpi::RemoteSegment &seg = *to.ref().mpi;
  if (seg.device != 0)
    return pieces(size, [&](std::uint64_t done, std::uint64_t n) {
      const void *payload = from + done;
      if (local != nullptr) {
        HYGASPI_TRY(device_copy(bounce(), from + done, n, mine));
        payload = bounce();
      }
      return served(peer, seg.segment, offset + done, true, payload, nullptr, n);
    });
  return pieces(size, [&](std::uint64_t done, std::uint64_t n) {
    HYGASPI_TRY(device_copy(bounce(), from + done, n, mine));
    HYGASPI_TRY(r.rma.put(peer.mpi, seg.data + offset + done, bounce(), n));
    return r.rma.flush(peer.mpi); // the bounce buffer is reused next
  });
}

gaspi_return_t device_get(void *dst, const Target &from, std::uint64_t offset, std::uint64_t size,
                          const SegmentView *local) {
  Runtime &r = rt();
  const Peer &peer = from.peer();
  const int mine = ordinal_of(local);
  auto *to = static_cast<char *>(dst);
  if (peer.on_node()) {
    const shm::MappedSegment &seg = *from.ref().shm;
    if (seg.memory != Memory::peer_host)
      return device_copy(dst, seg.data + offset, size, seg.memory == Memory::cuda ? seg.device : mine);
    return pieces(size, [&](std::uint64_t done, std::uint64_t n) {
      HYGASPI_TRY(r.node.get(bounce(), seg, peer.node, offset + done, n));
      return device_copy(to + done, bounce(), n, mine);
    });
  }
  const mpi::RemoteSegment &seg = *from.ref().mpi;
  if (seg.device != 0)
    return pieces(size, [&](std::uint64_t done, std::uint64_t n) {
      void *into = local != nullptr ? bounce() : to + done;
      HYGASPI_TRY(served(peer, seg.segment, offset + done, false, nullptr, into, n));
      return local != nullptr ? device_copy(to + done, bounce(), n, mine) : GASPI_SUCCESS;
    });
  return pieces(size, [&](std::uint64_t done, std::uint64_t n) {
    HYGASPI_TRY(r.rma.get(bounce(), peer.mpi, seg.data + offset + done, n));
    HYGASPI_TRY(r.rma.flush(peer.mpi));
    return device_copy(to + done, bounce(), n, mine);
  });
}

bool serve_device_requests() {
  Runtime &r = rt();
  mpi::DeviceCall call;
  bool served = false;
  while (r.control.take_device(call)) {
    served = true;
    const mpi::DeviceRequest &q = call.request;
    // The request comes from another process: the range is checked against the segment as it is now.
    const shm::MappedSegment *seg = q.segment < limits::kSegmentSlots ? r.segments.local(q.segment) : nullptr;
    gaspi_return_t rc = GASPI_ERROR;
    if (seg == nullptr || seg->memory != Memory::cuda || !mpi::device_range_inside(q, seg->size))
      log::error("rank %u asked for [%lu, +%lu) of device segment %u, which this rank does not have",
                 r.peers.global(call.from).print(), static_cast<unsigned long>(q.offset),
                 static_cast<unsigned long>(q.size), q.segment);
    else if (q.put != 0)
      rc = device_copy(seg->data + q.offset, call.bytes(), q.size, seg->device);
    else
      rc = device_copy(call.bytes(), seg->data + q.offset, q.size, seg->device);
    r.control.reply_device(call, rc);
  }
  return served;
}

} // namespace hygaspi::engine
