// The device routes of the engine's put and get (bridge/device_rma.hpp).
#include "bridge/device_rma.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "bridge/progress.hpp"
#include "bridge/runtime.hpp"
#include "core/log.hpp"
#include "kinds/devices.hpp"

namespace hygaspi::engine {

namespace {

// A copy between two addresses of this process, at least one of them device memory, on the device
// `ordinal`'s stream; complete when it returns. Not cuMemcpy: the driver API's "API
// synchronization behavior" lets it return before a copy into device memory is done (device ->
// device at once, host -> device once the source is staged), and a node peer that read after the
// notification saw the old bytes (on an H100). The wait polls the copy's event in core/wait.hpp
// (no progress step: the copy needs none), which took 2 µs less per copy there than
// cuEventSynchronize.
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

// The owner's host buffer for the staged requests it serves (its own: the progress step that
// serves them may run inside a transfer of this thread).
char *serve_buffer() {
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

// This process's staging buffer for another node's device memory: an engine segment of
// kDeviceChunk bytes (so attached to the MPI window), made at first use and held by one transfer
// at a time (under staging_lock()). The owner reads a put's bytes from it and writes a get's into
// it (DeviceRequest).
std::mutex &staging_lock() {
  static auto *m = new std::mutex; // threads may still transfer as the process exits
  return *m;
}
// The buffer, made if need be (the caller holds staging_lock()); nullptr (logged) when it cannot be.
char *staging_buffer() {
  const SegmentView *seg = rt().segments.local(limits::kDeviceStaging);
  if (seg == nullptr && rt().segments.create(limits::kDeviceStaging, mpi::kDeviceChunk, 0, nullptr, 0) == GASPI_SUCCESS)
    seg = rt().segments.local(limits::kDeviceStaging);
  if (seg == nullptr)
    log::error("no staging buffer for device memory of other nodes (see above)");
  return seg != nullptr ? seg->data : nullptr;
}

// One request of at most kDeviceChunk bytes to another node's device segment: staged in `stage`,
// or (stage nullptr) inline, from or into `bytes`.
gaspi_return_t served(const Peer &peer, std::uint32_t segment, std::uint64_t offset, bool put, const char *stage,
                      char *bytes, std::uint64_t n) {
  const mpi::DeviceRequest request{segment, put ? 1u : 0u, offset, n, reinterpret_cast<std::uint64_t>(stage), 0, 0};
  auto alive = [&peer] { return rt().alive(peer); };
  const gaspi_return_t rc = rt().control.device_transfer(peer.mpi, request, bytes, mpi_progress(), Step(alive));
  if (rc != GASPI_SUCCESS)
    log::error("rank %u could not serve %lu bytes %s its device segment %u at offset %lu", peer.global.print(),
               static_cast<unsigned long>(n), put ? "into" : "out of", segment, static_cast<unsigned long>(offset));
  return rc;
}

// A copy between host memory and memory that is device memory when `ordinal` >= 0.
gaspi_return_t local_copy(void *dst, const void *src, std::uint64_t n, int ordinal) {
  if (ordinal >= 0)
    return device_copy(dst, src, n, ordinal);
  std::memcpy(dst, src, n);
  return GASPI_SUCCESS;
}

// Transfers with another node's device segment `seg`: inline up to kDeviceInline bytes, else piece
// by piece through the staging buffer.
gaspi_return_t remote_device(const Peer &peer, const mpi::RemoteSegment &seg, std::uint64_t offset, char *local,
                             std::uint64_t size, bool put, int ordinal) {
  if (size <= mpi::kDeviceInline) {
    alignas(8) char bytes[mpi::kDeviceInline];
    if (put)
      HYGASPI_TRY(local_copy(bytes, local, size, ordinal));
    HYGASPI_TRY(served(peer, seg.segment, offset, put, nullptr, bytes, size));
    return put ? GASPI_SUCCESS : local_copy(local, bytes, size, ordinal);
  }
  std::lock_guard hold(staging_lock());
  char *stage = staging_buffer();
  if (stage == nullptr)
    return GASPI_ERROR;
  Runtime &r = rt();
  return pieces(size, [&](std::uint64_t done, std::uint64_t n) {
    if (put) {
      HYGASPI_TRY(local_copy(stage, local + done, n, ordinal));
      r.rma.sync(); // the owner's MPI_Get reads what these stores wrote
    }
    HYGASPI_TRY(served(peer, seg.segment, offset + done, put, stage, nullptr, n));
    if (put)
      return GASPI_SUCCESS;
    r.rma.sync(); // the owner's MPI_Put, flushed before it answered, is seen by the loads below
    return local_copy(local + done, stage, n, ordinal);
  });
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
    return remote_device(peer, seg, offset, const_cast<char *>(from), size, true, mine);
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
    return remote_device(peer, seg, offset, to, size, false, mine);
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
    if (seg == nullptr || seg->memory != Memory::cuda || !mpi::device_range_inside(q, seg->size)) {
      log::error("rank %u asked for [%lu, +%lu) of device segment %u, which this rank does not have",
                 r.peers.global(call.from).print(), static_cast<unsigned long>(q.offset),
                 static_cast<unsigned long>(q.size), q.segment);
    } else if (q.staging == 0) { // inline: the message's bytes, or the reply's
      rc = q.put != 0 ? device_copy(seg->data + q.offset, call.bytes, q.size, seg->device)
                      : device_copy(call.bytes, seg->data + q.offset, q.size, seg->device);
    } else if (q.put != 0) { // the initiator's staging buffer -> here -> the device
      char *buffer = serve_buffer();
      rc = r.rma.get(buffer, call.from, q.staging, q.size);
      if (rc == GASPI_SUCCESS)
        rc = r.rma.flush(call.from);
      if (rc == GASPI_SUCCESS)
        rc = device_copy(seg->data + q.offset, buffer, q.size, seg->device);
    } else { // the device -> here -> the initiator's staging buffer
      char *buffer = serve_buffer();
      rc = device_copy(buffer, seg->data + q.offset, q.size, seg->device);
      if (rc == GASPI_SUCCESS)
        rc = r.rma.put(call.from, q.staging, buffer, q.size);
      if (rc == GASPI_SUCCESS)
        rc = r.rma.flush(call.from);
    }
    r.control.reply_device(call, rc);
  }
  return served;
}

} // namespace hygaspi::engine
