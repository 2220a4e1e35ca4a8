// The device routes of the engine's put and get (bridge/device_rma.hpp).
#include "bridge/device_rma.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "bridge/device_copy.hpp"
#include "bridge/fast_views.hpp"
#include "bridge/progress.hpp"
#include "bridge/remote_device.hpp"
#include "bridge/runtime.hpp"
#include "bridge/segment_rma.hpp"
#include "core/limits.hpp"
#include "core/log.hpp"
#include "core/wait.hpp"

namespace hygaspi::engine {

std::atomic<std::uint32_t> g_queues_with_copies{0};

namespace {

// The device transfers a GASPI queue has in flight: GASPI completes a queue's transfers at
// gaspi_wait (spec 8.2.3), so a write or read between device memory this process addresses goes
// on the device's stream, and one with another node's device memory to its owner
// (bridge/remote_device.hpp), and the call returns; settle_queue waits for them, before the
// queue's next notification too (spec 8.3.2, 8.4.1: it comes after the data). Several threads may post to one
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

// What `start(Completion &)` starts, left in flight on GASPI queue `queue` (< kMaxQueues): its bit
// of g_queues_with_copies stays set until settle_queue has completed it.
template <class Start> gaspi_return_t onto_queue(std::uint32_t queue, Start &&start) {
  QueueCopies &q = queue_copies(queue);
  std::lock_guard hold(q.lock);
  HYGASPI_TRY(start(q.copies));
  g_queues_with_copies.fetch_or(1u << queue, std::memory_order_release);
  return GASPI_SUCCESS;
}

// A copy between two addresses this process reaches, left in flight on `queue` (a value that
// names no GASPI queue: complete at return).
gaspi_return_t queued_copy(std::uint32_t queue, void *dst, const void *src, std::uint64_t n, int ordinal) {
  if (queue >= limits::kMaxQueues)
    return device_copy(dst, src, n, ordinal);
  return onto_queue(queue, [&](Completion &c) { return start_copy(c, dst, src, n, ordinal); });
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

// A transfer with another node's device segment `seg`, left in flight in `pending`, or else on
// `queue` (a value that names no GASPI queue: complete at return).
gaspi_return_t remote_device(const Peer &peer, const mpi::RemoteSegment &seg, std::uint64_t offset, char *local,
                             std::uint64_t size, bool put, int ordinal, std::uint32_t queue, Completion *pending) {
  auto start = [&](Completion &c) {
    return start_remote_device(peer, seg.segment, offset, local, size, put, ordinal, c);
  };
  if (pending != nullptr)
    return start(*pending);
  if (queue >= limits::kMaxQueues) {
    Completion done;
    HYGASPI_TRY(start(done));
    return done.settle();
  }
  return onto_queue(queue, start);
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
  // A transfer with another node's device memory needs its owner's service: MPI progress.
  return wait_until(ready, Deadline(timeout_ms), rt().node.wait_policy(), progress(), Nap{}, kAlwaysHealthy);
}

void drop_queued_copies() noexcept {
  for (std::uint32_t queue = 0; queue < limits::kMaxQueues; ++queue)
    if (settle_queue(queue, true) != GASPI_SUCCESS) // as gaspi_wait: clears the failure and the bit
      log::warn("queue %u: a device copy failed after its last gaspi_wait", queue);
}

gaspi_return_t device_put(const Target &to, std::uint64_t offset, const void *src, std::uint64_t size,
                          std::uint32_t queue, const SegmentView *local, Completion *pending) {
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
    return remote_device(peer, seg, offset, const_cast<char *>(from), size, true, mine, queue, pending);
  return bounce_put(from, size, mine, [&](std::uint64_t done, std::uint64_t n, const char *slot) {
    HYGASPI_TRY(r.rma.put(peer.mpi, seg.data + offset + done, slot, n));
    return r.rma.flush(peer.mpi); // the slot is reused next but one
  });
}

gaspi_return_t device_put_notify(const Target &to, std::uint64_t offset, const void *src, std::uint64_t size,
                                 std::uint32_t id, std::uint32_t value, std::uint32_t queue, const SegmentView *local) {
  const Peer &peer = to.peer();
  if (peer.on_node() || to.ref().mpi->device == 0 || queue >= limits::kMaxQueues) {
    HYGASPI_TRY(device_put(to, offset, src, size, queue, local));
    return notify(to, id, value, queue); // which completes the queue's device transfers first
  }
  // Another node's device segment: the owner sets the notification once the bytes are in, after
  // those of every MPI transfer to it so far (spec §8.3.2: flushed here) and of every device
  // transfer this process started to it before (remote_device.hpp).
  HYGASPI_TRY(rt().rma.flush(peer.mpi));
  return onto_queue(queue, [&](Completion &c) {
    return start_remote_device(peer, to.ref().mpi->segment, offset, static_cast<char *>(const_cast<void *>(src)), size,
                               true, ordinal_of(local), c, id, value);
  });
}

gaspi_return_t device_get(void *dst, const Target &from, std::uint64_t offset, std::uint64_t size, std::uint32_t queue,
                          const SegmentView *local, Completion *pending) {
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
    return remote_device(peer, seg, offset, to, size, false, mine, queue, pending);
  return bounce_get(to, size, mine, [&](std::uint64_t done, std::uint64_t n, char *slot) {
    HYGASPI_TRY(r.rma.get(slot, peer.mpi, seg.data + offset + done, n));
    return r.rma.flush(peer.mpi);
  });
}

} // namespace hygaspi::engine
