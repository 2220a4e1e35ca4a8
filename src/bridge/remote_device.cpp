// Transfers with another node's device segment, both sides (bridge/remote_device.hpp).
#include "bridge/remote_device.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <deque>
#include <mutex>

#include "bridge/device_copy.hpp"
#include "bridge/runtime.hpp"
#include "core/limits.hpp"
#include "core/log.hpp"

namespace hygaspi::engine {

namespace {

// Up to kStagingSlots pieces of a staged transfer in flight, each of up to mpi::kDevicePiece bytes
// in its own slot of the staging buffer: the owner serves one piece while this process copies the
// next into its slot (put) or the last one out (get).
constexpr std::uint64_t kStagingSlots = 4;
constexpr std::uint64_t kStagingBytes = kStagingSlots * mpi::kDevicePiece;

} // namespace

struct RemoteTransfer {
  struct Piece {
    mpi::DeviceRequests::Flight flight;
    std::uint64_t done = 0; // the piece's place in the transfer
    std::uint64_t n = 0;    // its bytes
    bool busy = false;      // in flight (a notification alone is a piece of 0 bytes)
  };
  const Peer *peer;
  std::uint32_t segment;
  std::uint64_t offset;
  char *local;
  std::uint64_t size;
  bool put;
  int ordinal;                               // of the local side's device; negative: host memory
  std::uint32_t notify_id = 0;               // a put's notification, which its last piece carries
  std::uint32_t notify_value = 0;            // (0: none)
  bool queued = false;                       // it takes its turn in the queue (whoever drives it ends it)
  bool sent = false;                         // an inline transfer's request has left
  std::array<Piece, kStagingSlots> pieces{}; // piece i in slot i % kStagingSlots; an inline one in 0
  std::uint64_t issued = 0;                  // bytes whose pieces have started
  char *stage = nullptr;                     // the staging buffer, once the transfer heads the queue
  bool abandoned = false;                    // a piece was given up while its owner may still serve it
  const char *given_up = nullptr;            // why, then
  gaspi_return_t status = GASPI_SUCCESS;     // final once `done`
  std::atomic<bool> done{false};

  RemoteTransfer() = default;
  RemoteTransfer(const RemoteTransfer &) = delete;
  RemoteTransfer &operator=(const RemoteTransfer &) = delete;
  // Let go of while a piece is still in flight (its Completion dropped at a thread's or the
  // process's end: only an inline transfer, since the queue holds a queued one until it ends): the
  // reply's receive and its buffer go to mpi::Replies, which completes or cancels them.
  ~RemoteTransfer() {
    for (Piece &p : pieces)
      if (p.busy)
        rt().control.device().abandon(std::move(p.flight));
  }

  [[nodiscard]] bool staged() const noexcept { return size > mpi::kDeviceInline; }
};

namespace {

// The staged transfers, in the order they started; the first holds this process's staging buffer:
// pinned host memory of kStagingBytes, bound as the engine segment kDeviceStaging (so attached to
// the MPI window) at first use after each start. The owner reads a put's bytes from it and writes
// a get's into it (DeviceRequest).
struct Staging {
  std::mutex lock;
  PinnedBuffer *memory = new PinnedBuffer(kStagingBytes);
  std::deque<RemoteTransferPtr> queue;
  std::atomic<std::size_t> queued{0}; // queue.size(), for a look without the lock
};
Staging &staging() {
  static auto *s = new Staging; // threads may still transfer as the process exits
  return *s;
}

std::atomic<bool> g_stopping{false};
// Why a transfer was given up.
constexpr const char *kStopped = "still in flight when the library stopped (never waited for)";
constexpr const char *kOwnerDied = "its owner died";
thread_local bool t_driving = false; // this thread moves the queue on: a progress step inside does not

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

void log_unserved(const RemoteTransfer &t, std::uint64_t done, std::uint64_t n) {
  log::error("rank %u could not serve %lu bytes %s its device segment %u at offset %lu", t.peer->global.print(),
             static_cast<unsigned long>(n), t.put ? "into" : "out of", t.segment,
             static_cast<unsigned long>(t.offset + done));
}

// One look at a piece's reply: true once it is in (`rc` the owner's status, an inline get's bytes
// in `bytes`), or once the piece is given up (its owner died, or the engine stops: GASPI_ERROR).
bool piece_answered(RemoteTransfer &t, RemoteTransfer::Piece &p, gaspi_return_t &rc, void *bytes) {
  Runtime &r = rt();
  if (r.control.device().test(p.flight, rc, bytes)) {
    if (rc != GASPI_SUCCESS)
      log_unserved(t, p.done, p.n);
    return true;
  }
  const bool alive = r.alive(*t.peer);
  if (alive && !g_stopping.load(std::memory_order_acquire))
    return false;
  r.control.device().abandon(std::move(p.flight));
  t.abandoned = true;
  t.given_up = alive ? kStopped : kOwnerDied;
  rc = GASPI_ERROR;
  return true;
}

// The piece's end: a failure is kept as the transfer's result.
void end_piece(RemoteTransfer &t, RemoteTransfer::Piece &p, gaspi_return_t rc) {
  if (t.status == GASPI_SUCCESS)
    t.status = rc;
  p.busy = false;
}

// The transfer's end, which a look may see from now on.
void end_transfer(RemoteTransfer &t) {
  if (t.given_up != nullptr)
    log::error("a transfer of %lu bytes %s rank %u's device segment %u was given up: %s",
               static_cast<unsigned long>(t.size), t.put ? "into" : "out of", t.peer->global.print(), t.segment,
               t.given_up);
  t.done.store(true, std::memory_order_release);
}

// Every piece has left: an inline transfer's request (which may be a notification alone, of 0
// bytes), or a staged one's every byte.
bool all_started(const RemoteTransfer &t) { return t.staged() ? t.issued == t.size : t.sent; }

gaspi_return_t start_piece(RemoteTransfer &t, RemoteTransfer::Piece &p, std::uint64_t n, std::uint64_t staging,
                           const void *bytes) {
  mpi::DeviceRequest request{};
  request.segment = t.segment;
  request.put = t.put ? 1u : 0u;
  request.offset = t.offset + t.issued;
  request.size = n;
  request.staging = staging;
  if (t.issued + n == t.size) { // the last piece: the owner serves it after the others
    request.notify_id = t.notify_id;
    request.notify_value = t.notify_value;
  }
  HYGASPI_TRY(rt().control.device().start(t.peer->mpi, request, bytes, p.flight));
  p.done = t.issued;
  p.n = n;
  p.busy = true;
  t.issued += n;
  return GASPI_SUCCESS;
}

// An inline transfer's request, with a put's bytes copied from the local side now.
gaspi_return_t send_inline(RemoteTransfer &t) {
  alignas(8) char bytes[mpi::kDeviceInline];
  if (t.put && t.size != 0)
    HYGASPI_TRY(local_copy(bytes, t.local, t.size, t.ordinal));
  HYGASPI_TRY(start_piece(t, t.pieces[0], t.size, 0, bytes)); // an MPI failure is logged
  t.sent = true;
  return GASPI_SUCCESS;
}

// One look at an inline transfer's reply: true once it is in (a get's bytes copied out) or the
// transfer was given up.
bool inline_answered(RemoteTransfer &t) {
  alignas(8) char bytes[mpi::kDeviceInline];
  RemoteTransfer::Piece &p = t.pieces[0];
  gaspi_return_t rc = GASPI_ERROR;
  if (!piece_answered(t, p, rc, bytes))
    return false;
  if (rc == GASPI_SUCCESS && !t.put)
    rc = local_copy(t.local, bytes, t.size, t.ordinal);
  end_piece(t, p, rc);
  return true;
}

// The transfer at the head of the queue (the caller holds staging().lock): the pieces whose
// replies are in end (a get's bytes copied out of their slots), and new ones start in the free
// slots of the staging buffer. A notified put of up to kDeviceInline bytes waits its turn here
// too, then goes inline. True when any piece started or ended. After a failure the pieces in
// flight are still awaited: the owner may be writing into their slots.
bool step(RemoteTransfer &t) {
  Runtime &r = rt();
  if (t.status == GASPI_SUCCESS && !all_started(t)) { // what has not started never does, then
    if (g_stopping.load(std::memory_order_acquire)) {
      t.status = GASPI_ERROR;
      t.given_up = kStopped;
    } else if (!r.alive(*t.peer)) {
      t.status = GASPI_ERROR;
      t.given_up = kOwnerDied;
    }
  }
  if (!t.staged()) {
    if (t.status == GASPI_SUCCESS && !t.sent) {
      t.status = send_inline(t);
      return true;
    }
    return t.pieces[0].busy && inline_answered(t);
  }
  bool moved = false;
  if (t.stage == nullptr && t.status == GASPI_SUCCESS && (t.stage = staging_buffer(t.ordinal)) == nullptr)
    t.status = GASPI_ERROR;
  for (std::uint64_t k = 0; k < kStagingSlots; ++k) {
    RemoteTransfer::Piece &p = t.pieces[k];
    gaspi_return_t rc = GASPI_ERROR;
    if (!p.busy || !piece_answered(t, p, rc, nullptr))
      continue;
    if (rc == GASPI_SUCCESS && !t.put) {
      r.rma.sync(); // the owner's MPI_Put, flushed before it answered, is seen by the loads below
      rc = local_copy(t.local + p.done, t.stage + k * mpi::kDevicePiece, p.n, t.ordinal);
    }
    end_piece(t, p, rc);
    moved = true;
  }
  while (t.status == GASPI_SUCCESS && t.issued < t.size) {
    const std::uint64_t k = (t.issued / mpi::kDevicePiece) % kStagingSlots;
    if (t.pieces[k].busy)
      break; // its slot's last piece is still in flight
    char *slot = t.stage + k * mpi::kDevicePiece;
    const std::uint64_t n = std::min(t.size - t.issued, mpi::kDevicePiece);
    if (t.put) {
      if ((t.status = local_copy(slot, t.local + t.issued, n, t.ordinal)) != GASPI_SUCCESS)
        break;
      r.rma.sync(); // the owner's MPI_Get reads what these stores wrote
    }
    t.status = start_piece(t, t.pieces[k], n, reinterpret_cast<std::uint64_t>(slot), nullptr);
    moved = true;
  }
  return moved;
}

bool finished(const RemoteTransfer &t) {
  return (all_started(t) || t.status != GASPI_SUCCESS) &&
         std::all_of(t.pieces.begin(), t.pieces.end(), [](const RemoteTransfer::Piece &p) { return !p.busy; });
}

// Moves the queue on until its head is still in flight (the caller holds staging().lock).
bool drive_queue(Staging &s) {
  t_driving = true;
  bool moved = false;
  while (!s.queue.empty()) {
    RemoteTransfer &t = *s.queue.front();
    moved |= step(t);
    if (!finished(t))
      break;
    if (t.abandoned)
      retire_staging();
    end_transfer(t);
    s.queue.pop_front();
    s.queued.fetch_sub(1, std::memory_order_release);
  }
  t_driving = false;
  return moved;
}

// An inline transfer outside the queue: its one look (only the Completion that holds it looks).
bool test_inline(RemoteTransfer &t) {
  if (!inline_answered(t))
    return false;
  end_transfer(t);
  return true;
}

} // namespace

gaspi_return_t start_remote_device(const Peer &peer, std::uint32_t segment, std::uint64_t offset, char *local,
                                   std::uint64_t size, bool put, int ordinal, Completion &pending,
                                   std::uint32_t notify_id, std::uint32_t notify_value) {
  auto t = std::make_shared<RemoteTransfer>();
  t->peer = &peer;
  t->segment = segment;
  t->offset = offset;
  t->local = local;
  t->size = size;
  t->put = put;
  t->ordinal = ordinal;
  t->notify_id = notify_id;
  t->notify_value = notify_value;
  // A notification comes after every transfer this process started before it to the same rank:
  // those in the queue are done before its turn, and the inline ones' requests went before its own.
  t->queued = t->staged() || notify_value != 0;
  if (!t->queued) {
    HYGASPI_TRY(send_inline(*t));
  } else {
    Staging &s = staging();
    std::lock_guard hold(s.lock);
    s.queue.push_back(t);
    s.queued.fetch_add(1, std::memory_order_release);
    if (!t_driving)
      (void)drive_queue(s); // the first pieces leave now
  }
  pending.add(std::move(t));
  return GASPI_SUCCESS;
}

bool test_remote_device(RemoteTransfer &transfer, gaspi_return_t &rc) {
  if (!transfer.done.load(std::memory_order_acquire)) {
    if (transfer.queued)
      (void)drive_remote_device(); // whoever drives the queue ends it
    else
      (void)test_inline(transfer);
    if (!transfer.done.load(std::memory_order_acquire))
      return false;
  }
  rc = transfer.status;
  return true;
}

bool drive_remote_device() {
  Staging &s = staging();
  if (s.queued.load(std::memory_order_acquire) == 0 || t_driving)
    return false;
  std::unique_lock hold(s.lock, std::try_to_lock);
  return hold.owns_lock() && drive_queue(s); // else another thread is at it
}

void stop_remote_device(bool stopping) noexcept {
  g_stopping.store(stopping, std::memory_order_release);
  if (!stopping)
    return;
  Staging &s = staging();
  std::lock_guard hold(s.lock);
  (void)drive_queue(s); // each look gives up what is still in flight: the queue ends empty
}

namespace {

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

} // namespace

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
    } else if (!mpi::device_notification_inside(q, seg->notification_num)) {
      log::error("rank %u asked for notification %u of device segment %u, which has %u",
                 r.peers.global(call.from).print(), q.notify_id, q.segment, seg->notification_num);
    } else if (q.staging == 0 && q.size == 0) { // a notification alone
      rc = GASPI_SUCCESS;
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
    // A put's notification, after its bytes (the copy completed): spec §8.3.2.
    if (rc == GASPI_SUCCESS && q.notify_value != 0)
      r.node.notify(*seg, r.peers.self_node(), q.notify_id, q.notify_value);
    r.control.device().reply(call, rc);
  }
  return served;
}

} // namespace hygaspi::engine
