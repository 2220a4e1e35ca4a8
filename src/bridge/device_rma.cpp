// The device routes of the engine's put and get (bridge/device_rma.hpp).
#include "bridge/device_rma.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "bridge/fast_views.hpp"
#include "bridge/progress.hpp"
#include "bridge/segment_rma.hpp"
#include "bridge/runtime.hpp"
#include "core/limits.hpp"
#include "core/log.hpp"
#include "core/wait.hpp"
#include "kinds/devices.hpp"

namespace hygaspi::engine {

std::atomic<std::uint32_t> g_queues_with_copies{0};

namespace {

// This process's device `ordinal`; nullptr (logged) when there is none.
kinds::CudaDevice *device_of(int ordinal) {
  std::string why;
  kinds::CudaDevice *dev = kinds::device(rt().knobs.cuda_library, ordinal, why);
  if (dev == nullptr)
    log::error("CUDA device %d: %s", ordinal, why.c_str());
  return dev;
}

// A copy between two addresses of this process, at least one of them memory of the device
// `ordinal`; complete when it returns (copy_now, bridge/segment_rma.hpp).
gaspi_return_t device_copy(void *dst, const void *src, std::uint64_t n, int ordinal) {
  kinds::CudaDevice *dev = device_of(ordinal);
  return dev != nullptr ? copy_now(*dev, dst, src, n) : GASPI_ERROR;
}

// The copies a GASPI queue has in flight on device streams: GASPI completes a queue's transfers at
// gaspi_wait (spec 8.2.3), so a write or read between device memory this process addresses goes
// on the stream and the call returns; settle_queue waits for them, before the queue's next
// notification too (spec 8.3.2, 8.4.1: it comes after the data). Several threads may post to one
// queue: each queue's copies have their lock.
struct QueueCopies {
  std::mutex lock;
  // While it may hold something, or `failed` waits for gaspi_wait, the queue's bit of
  // g_queues_with_copies is set.
  Completion copies;
  bool failed = false; // a copy failed: gaspi_wait (or purge) reports it, whoever settled it
};
static_assert(limits::kMaxQueues <= 32, "a queue's bit in g_queues_with_copies");
QueueCopies &queue_copies(std::uint32_t queue) {
  static auto *all = new std::array<QueueCopies, limits::kMaxQueues>; // threads may still post at exit
  return (*all)[queue];
}

// The routes through a host bounce buffer (a node peer's bound host memory, another node's host
// segment) move this much at a time.
constexpr std::uint64_t kBouncePiece = std::uint64_t{1} << 20;
// The staged route to another node's device memory keeps up to kStagingSlots requests in flight,
// each of up to mpi::kDevicePiece bytes in its own slot of the staging buffer: the owner serves one
// piece while this process copies the next into its slot (put) or the last one out (get).
constexpr std::uint64_t kStagingSlots = 4;
constexpr std::uint64_t kStagingBytes = kStagingSlots * mpi::kDevicePiece;

// Host memory for the process's life, page-locked through the first device that copies through
// it: a copy between pinned memory and the device runs as DMA, without the driver's own staging
// (CUDA stages pageable memory through a pinned buffer of its own). Kept, like the devices
// (kinds/devices.hpp), so that it is pinned once however often the library starts. Its user
// serialises access.
class PinnedBuffer {
public:
  explicit PinnedBuffer(std::uint64_t bytes)
      : bytes_(bytes), data_(static_cast<char *>(std::aligned_alloc(kPage, bytes))) {}
  // The buffer (nullptr if it could not be allocated), pinned now if `ordinal` >= 0 names a device
  // and it is not yet. A driver that refuses leaves it pageable, which costs speed only.
  char *use(int ordinal) {
    if (!pinned_ && ordinal >= 0 && data_ != nullptr) {
      pinned_ = true; // tried once
      std::string why;
      kinds::CudaDevice *dev = kinds::device(rt().knobs.cuda_library, ordinal, why);
      if (dev == nullptr || !dev->pin(data_, bytes_, why))
        log::debug("a staging buffer of %lu bytes stays pageable: %s", static_cast<unsigned long>(bytes_), why.c_str());
    }
    return data_;
  }

private:
  static constexpr std::uint64_t kPage = 4096;
  std::uint64_t bytes_;
  char *data_;
  bool pinned_ = false;
};

// The owner's host buffer for the staged requests it serves. One progress step at a time serves
// them: a thread that finds another at it leaves the requests to it.
struct Serving {
  std::mutex lock;
  PinnedBuffer buffer{mpi::kDevicePiece};
};
Serving &serving() {
  static auto *s = new Serving; // threads may still make progress as the process exits
  return *s;
}

int ordinal_of(const SegmentView *local) { return local != nullptr ? local->device : -1; }

// The routes through host memory (a node peer's bound host memory, another node's host segment)
// pass each piece through one of two slots of kBouncePiece bytes: pinned host memory, taken from a
// pool for the length of a transfer and given back, so that each buffer is pinned once and kept
// (like the devices) however many threads transfer.
class BounceLease {
public:
  BounceLease() {
    std::lock_guard hold(pool().lock);
    if (pool().free.empty())
      pool().free.push_back(new PinnedBuffer(2 * kBouncePiece));
    buffer_ = pool().free.back();
    pool().free.pop_back();
  }
  // The buffer goes back only after a transfer that succeeded: after a failure MPI may still read
  // or write a slot (a flush that failed), so the buffer is left to it (2 MiB per such failure),
  // and a buffer that could not be allocated is dropped, so that a later lease tries again.
  ~BounceLease() {
    if (!succeeded_ || buffer_->use(-1) == nullptr)
      return;
    std::lock_guard hold(pool().lock);
    pool().free.push_back(buffer_);
  }
  BounceLease(const BounceLease &) = delete;
  BounceLease &operator=(const BounceLease &) = delete;
  // The two slots, one after the other (nullptr, logged, when there is no memory).
  char *use(int ordinal) {
    char *data = buffer_->use(ordinal);
    if (data == nullptr)
      log::error("no host memory to pass device data through");
    return data;
  }
  // The transfer is complete, and the slots are free for the next one.
  gaspi_return_t done(gaspi_return_t rc) {
    succeeded_ = rc == GASPI_SUCCESS;
    return rc;
  }

private:
  struct Pool {
    std::mutex lock;
    std::vector<PinnedBuffer *> free;
  };
  static Pool &pool() {
    static auto *p = new Pool; // threads may still transfer as the process exits
    return *p;
  }
  PinnedBuffer *buffer_;
  bool succeeded_ = false;
};

// Starts a copy on `ordinal`'s device stream into `copying`.
gaspi_return_t start_copy(Completion &copying, void *dst, const void *src, std::uint64_t n, int ordinal) {
  kinds::CudaDevice *dev = device_of(ordinal);
  if (dev == nullptr)
    return GASPI_ERROR;
  kinds::Copy copy;
  if (std::string why; !dev->start_copy(dst, src, n, copy, why)) {
    log::error("CUDA device %d: %s", ordinal, why.c_str());
    return GASPI_ERROR;
  }
  copying.add(*dev, copy);
  return GASPI_SUCCESS;
}

// A copy between two addresses this process reaches, left in flight on `queue` (a value that
// names no GASPI queue: complete at return).
gaspi_return_t queued_copy(std::uint32_t queue, void *dst, const void *src, std::uint64_t n, int ordinal) {
  if (queue >= limits::kMaxQueues)
    return device_copy(dst, src, n, ordinal);
  QueueCopies &q = queue_copies(queue);
  std::lock_guard hold(q.lock);
  HYGASPI_TRY(start_copy(q.copies, dst, src, n, ordinal));
  g_queues_with_copies.fetch_or(1u << queue, std::memory_order_release);
  return GASPI_SUCCESS;
}

// Device memory of `ordinal` to host memory that `cross(done, n, slot)` reaches, a piece at a time
// through the two slots: the device copies piece i + 1 into one slot while piece i crosses from the
// other (`cross` completes it before it returns, so the slot is free again). A copy still running
// when a step fails is awaited before the slots go back (the Completion's destructor).
template <class Cross> gaspi_return_t bounce_put(const char *from, std::uint64_t size, int ordinal, Cross &&cross) {
  BounceLease lease;
  char *const slots = lease.use(ordinal);
  if (slots == nullptr)
    return GASPI_ERROR;
  auto slot = [&](std::uint64_t i) { return slots + (i & 1u) * kBouncePiece; };
  auto piece = [&](std::uint64_t i) { return std::min(size - i * kBouncePiece, kBouncePiece); };
  const std::uint64_t count = (size + kBouncePiece - 1) / kBouncePiece;
  Completion copying;
  HYGASPI_TRY(start_copy(copying, slot(0), from, piece(0), ordinal));
  for (std::uint64_t i = 0; i < count; ++i) {
    HYGASPI_TRY(copying.settle()); // piece i is in its slot
    if (i + 1 < count)             // into the slot that piece i - 1 crossed from
      HYGASPI_TRY(start_copy(copying, slot(i + 1), from + (i + 1) * kBouncePiece, piece(i + 1), ordinal));
    HYGASPI_TRY(cross(i * kBouncePiece, piece(i), slot(i)));
  }
  return lease.done(GASPI_SUCCESS);
}

// The other way: `cross(done, n, slot)` brings piece i into its slot (complete at return) while the
// device copies piece i - 1 out of the other.
template <class Cross> gaspi_return_t bounce_get(char *to, std::uint64_t size, int ordinal, Cross &&cross) {
  BounceLease lease;
  char *const slots = lease.use(ordinal);
  if (slots == nullptr)
    return GASPI_ERROR;
  const std::uint64_t count = (size + kBouncePiece - 1) / kBouncePiece;
  Completion copying;
  for (std::uint64_t i = 0; i < count; ++i) {
    char *slot = slots + (i & 1u) * kBouncePiece; // its last reader, piece i - 2's copy, is done
    const std::uint64_t done = i * kBouncePiece, n = std::min(size - done, kBouncePiece);
    HYGASPI_TRY(cross(done, n, slot));
    HYGASPI_TRY(copying.settle()); // piece i - 1's copy
    HYGASPI_TRY(start_copy(copying, to + done, slot, n, ordinal));
  }
  return lease.done(copying.settle());
}

// This process's staging buffer for another node's device memory, held by one transfer at a time:
// pinned host memory of kStagingBytes, bound as the engine segment kDeviceStaging (so attached to
// the MPI window) at first use after each start. The owner reads a put's bytes from it and writes a
// get's into it (DeviceRequest).
struct Staging {
  std::mutex lock;
  PinnedBuffer *memory = new PinnedBuffer(kStagingBytes);
};
Staging &staging() {
  static auto *s = new Staging; // threads may still transfer as the process exits
  return *s;
}
// The buffer, bound if need be (the caller holds staging().lock); nullptr (logged) when it cannot be.
char *staging_buffer(int ordinal) {
  char *memory = staging().memory->use(ordinal);
  const SegmentView *seg = rt().segments.local(limits::kDeviceStaging);
  if (seg == nullptr && memory != nullptr &&
      rt().segments.create(limits::kDeviceStaging, kStagingBytes, 0, memory, 0) == GASPI_SUCCESS)
    seg = rt().segments.local(limits::kDeviceStaging);
  if (seg == nullptr)
    log::error("no staging buffer for device memory of other nodes (see above)");
  return seg != nullptr ? seg->data : nullptr;
}

// A transfer gave up on a piece whose owner may still write into its slot: a rank that was killed
// can be between its acknowledgement and its end, in the middle of a served get. The buffer is
// never used again (its memory is left to the dead owner's late put, a megabyte per such death),
// and the next transfer binds a fresh one. The caller holds staging().lock.
void retire_staging() {
  (void)rt().segments.remove(limits::kDeviceStaging);
  staging().memory = new PinnedBuffer(kStagingBytes);
}

void log_unserved(const Peer &peer, std::uint32_t segment, std::uint64_t offset, bool put, std::uint64_t n) {
  log::error("rank %u could not serve %lu bytes %s its device segment %u at offset %lu", peer.global.print(),
             static_cast<unsigned long>(n), put ? "into" : "out of", segment, static_cast<unsigned long>(offset));
}

// A copy between host memory and memory that is device memory when `ordinal` >= 0.
gaspi_return_t local_copy(void *dst, const void *src, std::uint64_t n, int ordinal) {
  if (ordinal >= 0)
    return device_copy(dst, src, n, ordinal);
  std::memcpy(dst, src, n);
  return GASPI_SUCCESS;
}

// Up to kDeviceInline bytes with another node's device segment: inside the request (put) or its
// reply (get).
gaspi_return_t remote_inline(const Peer &peer, std::uint32_t segment, std::uint64_t offset, char *local,
                             std::uint64_t size, bool put, int ordinal) {
  alignas(8) char bytes[mpi::kDeviceInline];
  if (put)
    HYGASPI_TRY(local_copy(bytes, local, size, ordinal));
  const mpi::DeviceRequest request{segment, put ? 1u : 0u, offset, size, 0, 0, 0};
  auto alive = [&peer] { return rt().alive(peer); };
  if (const gaspi_return_t rc = rt().control.device().transfer(peer.mpi, request, bytes, mpi_progress(), Step(alive));
      rc != GASPI_SUCCESS) {
    log_unserved(peer, segment, offset, put, size);
    return rc;
  }
  return put ? GASPI_SUCCESS : local_copy(local, bytes, size, ordinal);
}

// More with another node's device segment: piece by piece through the staging buffer's slots,
// up to kStagingSlots requests in flight. Piece i uses slot i % kStagingSlots; a slot is reused
// once the reply of its last piece is in (and, for a get, its bytes are copied out). After a
// failure the pieces in flight are still awaited: the owner may be writing into their slots.
gaspi_return_t remote_staged(const Peer &peer, std::uint32_t segment, std::uint64_t offset, char *local,
                             std::uint64_t size, bool put, int ordinal) {
  Runtime &r = rt();
  std::lock_guard hold(staging().lock);
  char *stage = staging_buffer(ordinal);
  if (stage == nullptr)
    return GASPI_ERROR;
  struct Slot {
    mpi::DeviceRequests::Flight flight;
    std::uint64_t done = 0; // the piece's place in the transfer
    std::uint64_t n = 0;    // its bytes; 0 when the slot is free
  };
  std::array<Slot, kStagingSlots> slots;
  auto alive = [&peer] { return rt().alive(peer); };
  gaspi_return_t status = GASPI_SUCCESS;
  bool abandoned = false;
  // Waits for the piece in slot k, then frees the slot; a get's bytes go to `local`.
  auto finish = [&](std::uint64_t k) {
    Slot &s = slots[k];
    gaspi_return_t rc = GASPI_ERROR;
    auto replied = [&] { return r.control.device().test(s.flight, rc, nullptr); };
    if (wait_until(replied, Deadline(GASPI_BLOCK), r.node.wait_policy(), mpi_progress(), Nap{}, Step(alive)) !=
        GASPI_SUCCESS) {
      r.control.device().abandon(std::move(s.flight));
      abandoned = true;
      rc = GASPI_ERROR;
    }
    if (rc != GASPI_SUCCESS)
      log_unserved(peer, segment, offset + s.done, put, s.n);
    if (rc == GASPI_SUCCESS && !put) {
      r.rma.sync(); // the owner's MPI_Put, flushed before it answered, is seen by the loads below
      rc = local_copy(local + s.done, stage + k * mpi::kDevicePiece, s.n, ordinal);
    }
    s.n = 0;
    if (status == GASPI_SUCCESS)
      status = rc;
  };
  for (std::uint64_t done = 0, i = 0; done < size && status == GASPI_SUCCESS; done += mpi::kDevicePiece, ++i) {
    const std::uint64_t k = i % kStagingSlots;
    if (slots[k].n != 0)
      finish(k);
    if (status != GASPI_SUCCESS)
      break;
    char *slot = stage + k * mpi::kDevicePiece;
    const std::uint64_t n = std::min(size - done, mpi::kDevicePiece);
    if (put) {
      if ((status = local_copy(slot, local + done, n, ordinal)) != GASPI_SUCCESS)
        break;
      r.rma.sync(); // the owner's MPI_Get reads what these stores wrote
    }
    const mpi::DeviceRequest request{segment, put ? 1u : 0u, offset + done, n, reinterpret_cast<std::uint64_t>(slot), 0,
                                     0};
    if ((status = r.control.device().start(peer.mpi, request, nullptr, slots[k].flight)) != GASPI_SUCCESS)
      break;
    slots[k].done = done;
    slots[k].n = n;
  }
  // The pieces still in flight, oldest first.
  const std::uint64_t count = (size + mpi::kDevicePiece - 1) / mpi::kDevicePiece;
  for (std::uint64_t i = 0; i < kStagingSlots; ++i)
    if (const std::uint64_t k = (count + i) % kStagingSlots; slots[k].n != 0)
      finish(k);
  if (abandoned)
    retire_staging();
  return status;
}

// Transfers with another node's device segment `seg`.
gaspi_return_t remote_device(const Peer &peer, const mpi::RemoteSegment &seg, std::uint64_t offset, char *local,
                             std::uint64_t size, bool put, int ordinal) {
  return size <= mpi::kDeviceInline ? remote_inline(peer, seg.segment, offset, local, size, put, ordinal)
                                    : remote_staged(peer, seg.segment, offset, local, size, put, ordinal);
}

} // namespace

gaspi_return_t settle_queue(std::uint32_t queue, bool at_wait) {
  if (queue >= limits::kMaxQueues || !queue_has_copies(queue))
    return GASPI_SUCCESS;
  QueueCopies &q = queue_copies(queue);
  std::lock_guard hold(q.lock); // a copy started meanwhile waits for it, and for the next settle
  gaspi_return_t rc = q.copies.settle();
  q.failed = q.failed || rc != GASPI_SUCCESS;
  if (at_wait && q.failed) {
    rc = GASPI_ERROR;
    q.failed = false;
  }
  // Cleared only once every copy started before it has completed (a thread that sees the bit
  // clear may notify at once) and no failure waits for gaspi_wait.
  if (!q.failed)
    g_queues_with_copies.fetch_and(~(1u << queue), std::memory_order_release);
  return rc;
}

gaspi_return_t copies_done(std::uint32_t queue, std::uint64_t timeout_ms) {
  if (queue >= limits::kMaxQueues || !queue_has_copies(queue))
    return GASPI_SUCCESS;
  QueueCopies &q = queue_copies(queue);
  auto ready = [&q] {
    std::lock_guard hold(q.lock);
    return q.copies.ready(); // a failed copy counts as run: flush reports it
  };
  return wait_until(ready, Deadline(timeout_ms), rt().node.wait_policy(), NoProgress{}, Nap{}, kAlwaysHealthy);
}

void drop_queued_copies() noexcept {
  for (std::uint32_t queue = 0; queue < limits::kMaxQueues; ++queue)
    if (settle_queue(queue, true) != GASPI_SUCCESS) // as gaspi_wait: clears the failure and the bit
      log::warn("queue %u: a device copy failed after its last gaspi_wait", queue);
}

gaspi_return_t device_put(const Target &to, std::uint64_t offset, const void *src, std::uint64_t size,
                          std::uint32_t queue, const SegmentView *local) {
  Runtime &r = rt();
  const Peer &peer = to.peer();
  const int mine = ordinal_of(local);
  const auto *from = static_cast<const char *>(src);
  if (peer.on_node()) {
    const shm::MappedSegment &seg = *to.ref().shm;
    if (seg.memory != Memory::peer_host)
      return queued_copy(queue, seg.data + offset, src, size, seg.memory == Memory::cuda ? seg.device : mine);
    return bounce_put(from, size, mine, [&](std::uint64_t done, std::uint64_t n, const char *slot) {
      return r.node.put(seg, peer.node, offset + done, slot, n);
    });
  }
  const mpi::RemoteSegment &seg = *to.ref().mpi;
  if (seg.device != 0)
    return remote_device(peer, seg, offset, const_cast<char *>(from), size, true, mine);
  return bounce_put(from, size, mine, [&](std::uint64_t done, std::uint64_t n, const char *slot) {
    HYGASPI_TRY(r.rma.put(peer.mpi, seg.data + offset + done, slot, n));
    return r.rma.flush(peer.mpi); // the slot is reused next but one
  });
}

gaspi_return_t device_get(void *dst, const Target &from, std::uint64_t offset, std::uint64_t size, std::uint32_t queue,
                          const SegmentView *local) {
  Runtime &r = rt();
  const Peer &peer = from.peer();
  const int mine = ordinal_of(local);
  auto *to = static_cast<char *>(dst);
  if (peer.on_node()) {
    const shm::MappedSegment &seg = *from.ref().shm;
    if (seg.memory != Memory::peer_host)
      return queued_copy(queue, dst, seg.data + offset, size, seg.memory == Memory::cuda ? seg.device : mine);
    return bounce_get(to, size, mine, [&](std::uint64_t done, std::uint64_t n, char *slot) {
      return r.node.get(slot, seg, peer.node, offset + done, n);
    });
  }
  const mpi::RemoteSegment &seg = *from.ref().mpi;
  if (seg.device != 0)
    return remote_device(peer, seg, offset, to, size, false, mine);
  return bounce_get(to, size, mine, [&](std::uint64_t done, std::uint64_t n, char *slot) {
    HYGASPI_TRY(r.rma.get(slot, peer.mpi, seg.data + offset + done, n));
    return r.rma.flush(peer.mpi);
  });
}

bool serve_device_requests() {
  Runtime &r = rt();
  Serving &serve = serving();
  std::unique_lock hold(serve.lock, std::try_to_lock);
  if (!hold.owns_lock())
    return false; // another thread serves them
  mpi::DeviceCall call;
  bool served = false;
  while (r.control.device().take(call)) {
    served = true;
    const mpi::DeviceRequest &q = call.request;
    // The request comes from another process: the range is checked against the segment as it is now.
    const shm::MappedSegment *seg = q.segment < limits::kSegmentSlots ? r.segments.local(q.segment) : nullptr;
    gaspi_return_t rc = GASPI_ERROR;
    char *buffer = nullptr;
    if (seg == nullptr || seg->memory != Memory::cuda || !mpi::device_range_inside(q, seg->size)) {
      log::error("rank %u asked for [%lu, +%lu) of device segment %u, which this rank does not have",
                 r.peers.global(call.from).print(), static_cast<unsigned long>(q.offset),
                 static_cast<unsigned long>(q.size), q.segment);
    } else if (q.staging == 0) { // inline: the message's bytes, or the reply's
      rc = q.put != 0 ? device_copy(seg->data + q.offset, call.bytes, q.size, seg->device)
                      : device_copy(call.bytes, seg->data + q.offset, q.size, seg->device);
    } else if ((buffer = serve.buffer.use(seg->device)) == nullptr) {
      log::error("no host buffer to serve device requests with");
    } else if (q.put != 0) { // the initiator's staging buffer -> here -> the device
      rc = r.rma.get(buffer, call.from, q.staging, q.size);
      if (rc == GASPI_SUCCESS)
        rc = r.rma.flush(call.from);
      if (rc == GASPI_SUCCESS)
        rc = device_copy(seg->data + q.offset, buffer, q.size, seg->device);
    } else { // the device -> here -> the initiator's staging buffer
      rc = device_copy(buffer, seg->data + q.offset, q.size, seg->device);
      if (rc == GASPI_SUCCESS)
        rc = r.rma.put(call.from, q.staging, buffer, q.size);
      if (rc == GASPI_SUCCESS)
        rc = r.rma.flush(call.from);
    }
    r.control.device().reply(call, rc);
  }
  return served;
}

} // namespace hygaspi::engine
