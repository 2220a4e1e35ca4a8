// RMA on engine segments addressed by (rank, segment id, offset), for the front ends whose segments
// are made collectively (GASNet's attach; GASNet-EX's segment), and one completion object for what
// is still in flight.
//
// The route is decided here, per call, from the segment's mapping: a segment this process maps
// (its own, a node peer's) is a copy that completes before the call returns; any other is reached
// with MPI RMA on the segment's window (mpi::Rma holds every window), which open_window makes
// collectively: a regular window (MPI_Win_create, far cheaper than a dynamic one across hosts:
// docs/PLATFORM.md), or a dynamic one where the knob HYGASPI_DYNAMIC_WINDOW asks for it.
//
// Completion: every MPI put and get takes a ticket of its target, and an MPI_Win_flush of the
// target completes every ticket issued before it, at both ends (MPI-3.1 §11.5.4). A Completion
// keeps the highest ticket per target; settling it flushes each target that no flush has passed
// yet. So many transfers to one target cost one flush. It also holds copies in flight on a CUDA
// device's stream (GASNet-EX's device copies, and a GASPI queue's: bridge/device_rma.cpp),
// complete once their events have passed, and atomics in flight to another node
// (bridge/segment_atomic.hpp), complete once their replies are in, and transfers with another
// node's device memory (bridge/remote_device.hpp), complete once its owner served them: one object
// for what a GASNet handle, an NBI set, a GASNet-EX event or a GASPI queue's device copies wait for.
#pragma once
#include <GASPI.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "bridge/segment_atomic.hpp"
#include "core/ranks.hpp"
#include "kinds/cuda_device.hpp"

namespace hygaspi::engine {

// A transfer with another node's device memory (bridge/remote_device.hpp).
struct RemoteTransfer;
using RemoteTransferPtr = std::shared_ptr<RemoteTransfer>;

class Completion {
public:
  Completion() = default;
  // Moved, never copied: a copy in flight has one owner, which tests it until it is done.
  Completion(Completion &&) noexcept = default;
  Completion &operator=(Completion &&) noexcept = default;
  Completion(const Completion &) = delete;
  Completion &operator=(const Completion &) = delete;
  // Waits for the device copies still in flight (a thread that ends with unsynced NBI copies), so
  // that none runs on and each event goes back to its device's pool; MPI tickets need no end, and
  // an atomic's reply receive is abandoned to mpi::Replies with its flight, as is an inline
  // transfer's with another node's device memory (a staged one runs on in its queue). No wait here
  // needs MPI, which may have ended (a thread's NBI set at the process's exit).
  ~Completion();
  [[nodiscard]] bool empty() const noexcept {
    return pending_.empty() && copies_.empty() && atomics_.empty() && remote_.empty();
  }
  void add(std::uint32_t segment, GlobalRank target, std::uint64_t ticket);
  // A copy in flight on `device`'s stream (started with CudaDevice::start_copy).
  void add(kinds::CudaDevice &device, const kinds::Copy &copy);
  // An atomic in flight to `target` (started with start_atomic); once its reply is in, the word's
  // old value goes to `result` as `width` (4 or 8) bytes, unless `result` is nullptr.
  void add(AtomicFlightPtr flight, GlobalRank target, void *result, unsigned width);
  // A transfer with another node's device memory (bridge/remote_device.hpp start_remote_device).
  void add(RemoteTransferPtr transfer);
  // Takes over what `other` waits for (`other` is then empty).
  void merge(Completion &other);
  // One look at the device copies and the atomics, which need no flush: true when none of them is
  // left in flight (the MPI tickets wait for settle). A failed one counts as done, and settle
  // reports it. The atomics' replies need MPI progress: the caller's wait drives it. A front end
  // whose waits also serve its own messages waits for ready() in its wait before settle (GASNet-EX:
  // ex::settle, which polls AMs meanwhile).
  bool ready();
  // Completes everything this object waits for (the device copies and the atomics still in flight,
  // with MPI progress and, for an atomic, its target's health: one whose target died is abandoned;
  // then the flushes, each bounded by MPI progress here and at the target, never by the client).
  // GASPI_ERROR when a copy, an atomic or MPI failed (logged); the object is then empty anyway.
  gaspi_return_t settle();

private:
  struct Pending {
    std::uint32_t segment; // whose window
    std::uint32_t rank;    // global rank of the target
    std::uint64_t ticket;  // the highest ticket to complete
  };
  struct InFlight {
    kinds::CudaDevice *device;
    kinds::Copy copy;
  };
  struct Atomic {
    AtomicFlightPtr flight;
    std::uint32_t rank; // global rank of the target
    unsigned width;     // of the old value
    void *result;       // where it goes; nullptr: nowhere
  };
  bool copies_done();
  bool atomics_done();
  bool remote_done();
  std::vector<Pending> pending_;
  std::vector<InFlight> copies_;
  std::vector<Atomic> atomics_;
  std::vector<RemoteTransferPtr> remote_;
  bool failed_ = false; // a copy or an atomic failed: settle reports it
};

// A copy of n bytes between two addresses of this process's unified space, at least one of them
// `device`'s memory (or a node peer's opened through it), on the device's stream; complete when it
// returns (a Completion of that one copy, settled). Not cuMemcpy: the driver API's "API
// synchronization behavior" lets it return before a copy into device memory is done (device ->
// device at once, host -> device once the source is staged), and a node peer that read after the
// notification saw the old bytes (on an H100). The wait polls the copy's event in core/wait.hpp
// (no progress step: the copy needs none), which took 2 µs less per copy there than
// cuEventSynchronize. GASPI_ERROR (logged, with the driver's reason) when the copy fails.
gaspi_return_t copy_now(kinds::CudaDevice &device, void *dst, const void *src, std::size_t n);

// What a put completes before it returns (the rest: at settle).
enum class Complete {
  none,   // nothing: the source must stay untouched until settle
  local,  // the source may be reused
  remote, // the data is at the target
};

// Opens segment `id`'s window over every rank's segment `id` (collective over every rank of an
// MPI job; nothing to do on one node). `base`, `size`: this rank's segment (size 0: none).
gaspi_return_t open_window(std::uint32_t id, void *base, std::uint64_t size);

// [offset, +n) of `target`'s segment `id` from or to `local`. `pending` nullptr: complete at return;
// else what is left goes there (a get: all of it; a put: beyond `complete`). The caller checked the
// range against the segment. GASPI_ERROR when MPI failed or no window reaches the target.
gaspi_return_t put(GlobalRank target, std::uint32_t id, std::uint64_t offset, const void *local, std::size_t n,
                   Complete complete, Completion *pending);
gaspi_return_t get(void *local, GlobalRank target, std::uint32_t id, std::uint64_t offset, std::size_t n,
                   Completion *pending);

} // namespace hygaspi::engine
