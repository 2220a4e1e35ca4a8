// A rank's segment as a data-path call reaches it (GASPI's write, read, notify and atomics): the
// call resolves (rank, segment id) once into a Target, checks its arguments against the Target's
// size and notification count, and hands it to the engine's operations below, which pick the
// transport the peer table chose for that rank. The front end never learns which one it is.
#pragma once
#include <GASPI.h>

#include <cstdint>

#include "core/atomic_op.hpp"
#include "core/ranks.hpp"
#include "core/segment_view.hpp"

namespace hygaspi {

struct Peer;
namespace shm {
struct MappedSegment;
}
namespace mpi {
struct RemoteSegment;
}

// A segment of another rank, reached through shm (a node peer, or this rank) or MPI (another
// node): the one its peer's kind selects is set. Only the bridge looks inside.
struct RemoteRef {
  const shm::MappedSegment *shm = nullptr;
  const mpi::RemoteSegment *mpi = nullptr;
  std::uint64_t size = 0;
  std::uint32_t notification_num = 0;
};

namespace engine {

class Completion;

// Why find() found no segment. The front end says it in its own words.
enum class Found {
  yes,
  absent,         // a node peer (or this rank) has no segment of that id now
  not_registered, // the rank has not registered that segment with this rank
};

class Target {
public:
  [[nodiscard]] std::uint64_t size() const noexcept { return ref_.size; }
  [[nodiscard]] std::uint32_t notification_num() const noexcept { return ref_.notification_num; }
  // The word of an atomic can be reached: false for bound user memory of a node peer, which this
  // process reaches by cross-memory attach, not by a mapping.
  [[nodiscard]] bool atomics() const noexcept { return atomics_; }
  // The segment's bytes are CUDA device memory (wherever they are).
  [[nodiscard]] bool device() const noexcept { return device_; }
  // For the bridge's routing (bridge/target.cpp).
  [[nodiscard]] const Peer &peer() const noexcept { return *peer_; }
  [[nodiscard]] const RemoteRef &ref() const noexcept { return ref_; }

private:
  friend Found find(GlobalRank, std::uint32_t, Target &) noexcept;
  const Peer *peer_ = nullptr;
  RemoteRef ref_;
  bool atomics_ = false;
  bool device_ = false;
};

// Resolves segment `id` of rank `r` (< the job's size, checked by the caller).
Found find(GlobalRank r, std::uint32_t id, Target &out) noexcept;

// The data operations, each on a Target found in the same call; the caller checked ranges and
// notification ids. On `queue`: a node peer's transfer is complete when it returns, another
// node's at flush(queue). spec §8.3.2 / §8.4.1: a notification never overtakes the writes this
// queue carried to the same rank before it.
// `local`: the local segment that holds src/dst, when its memory is not host memory (a device
// segment: bridge/device_rma.hpp), else nullptr. A copy on a device's stream (this process's or a
// node peer's device memory) and a transfer with another node's device memory are left in flight
// on `queue`, complete at flush(queue), before the queue's next notification, and at
// gets_landed(_, queue); the other device routes complete before the call returns.
gaspi_return_t put(const Target &to, std::uint64_t offset, const void *src, std::uint64_t size, std::uint32_t queue,
                   const SegmentView *local = nullptr);
gaspi_return_t get(void *dst, const Target &from, std::uint64_t offset, std::uint64_t size, std::uint32_t queue,
                   const SegmentView *local = nullptr);
// The same, but a transfer with another node's device memory stays in flight in `pending`
// (GASNet-EX's NB and NBI forms), where the forms above leave it on `queue`.
gaspi_return_t put(const Target &to, std::uint64_t offset, const void *src, std::uint64_t size, std::uint32_t queue,
                   const SegmentView *local, Completion &pending);
gaspi_return_t get(void *dst, const Target &from, std::uint64_t offset, std::uint64_t size, std::uint32_t queue,
                   const SegmentView *local, Completion &pending);
gaspi_return_t notify(const Target &to, std::uint32_t id, std::uint32_t value, std::uint32_t queue);
// put then notify, with one choice of transport for both.
gaspi_return_t put_notify(const Target &to, std::uint64_t offset, const void *src, std::uint64_t size, std::uint32_t id,
                          std::uint32_t value, std::uint32_t queue, const SegmentView *local = nullptr);
// The gets this rank issued to `from` so far have landed (MPI: a flush of that rank; a node
// peer's are complete already, but for device copies left in flight on `queue`).
gaspi_return_t gets_landed(GlobalRank from, std::uint32_t queue);
// The engine's atomic operation on the word at `offset` (aligned, inside, target.atomics()): a
// CPU atomic on a node peer's mapping, a request served by the target's progress elsewhere.
gaspi_return_t atomic(const Target &on, std::uint64_t offset, const AtomicOp &op, std::uint64_t &old,
                      std::uint64_t timeout_ms);
// Completes every transfer posted to `queue` so far (MPI: a flush where the queue carried one).
// GASPI_TIMEOUT when the device copies left on the queue have not run within `timeout_ms`
// (GASPI_TEST: one look); nothing else waits for the client.
gaspi_return_t flush(std::uint32_t queue, std::uint64_t timeout_ms);

} // namespace engine

} // namespace hygaspi
