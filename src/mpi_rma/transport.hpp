// The inter-node transport (bridge/transport.hpp's concept) over the MPI windows of mpi_rma/rma.hpp:
//   put / get      MPI_Put / MPI_Get in the lock_all epoch of the segment's window (or the
//                  dynamic one); complete at flush(queue)
//   notify         flush(target) on every window, then the notification word (spec §8.3.2: MPI
//                  orders two puts to one target only across a flush)
//   atomic         a request to the target, which applies core/atomic_op.hpp's CPU atomic on its
//                  own mapping (mpi_rma/remote_atomics.hpp; docs/DESIGN.md "Atomicity": CPU and MPI
//                  atomics do not compose)
//   flush(queue)   MPI_Win_flush_all on every window with transfers in flight, when `queue` issued
//                  an MPI transfer since its last flush
//
// The per-queue "needs a flush" flag is set AFTER the MPI_Put/MPI_Get is issued. Set before
// (as the bridge once did), a gaspi_wait(q) in another thread could clear it and flush between the
// flag and the put, and the poster's own gaspi_wait(q) would then find the flag clear and return
// with its put never flushed (tests/mr/mr_wait_race.cpp).
#pragma once
#include <GASPI.h>

#include <array>
#include <atomic>
#include <cstdint>

#include "core/deadline.hpp"
#include "core/limits.hpp"
#include "core/ranks.hpp"
#include "core/wait.hpp"
#include "mpi_rma/control.hpp"
#include "mpi_rma/rma.hpp"

namespace hygaspi::mpi {

class Transport {
public:
  using Peer = MpiRank;
  using Segment = RemoteSegment;

  // `progress`: what the atomics drive while they wait for the target's reply (the bridge's step);
  // `healthy`: false ends that wait with GASPI_ERROR (this rank is terminating), as does the
  // target's known death.
  void bind(Rma &rma, Control &control, Step progress, Step healthy) noexcept {
    rma_ = &rma;
    control_ = &control;
    progress_ = progress;
    healthy_ = healthy;
  }
  void reset() noexcept;

  gaspi_return_t put(MpiRank to, const RemoteSegment &dst, std::uint64_t offset, const void *src, std::uint64_t size,
                     std::uint32_t queue) {
    const gaspi_return_t rc = rma_->put(to, dst, offset, src, size);
    needs_flush_[queue].store(true, std::memory_order_release); // after the put: see above
    return rc;
  }
  gaspi_return_t get(void *dst, MpiRank from, const RemoteSegment &src, std::uint64_t offset, std::uint64_t size,
                     std::uint32_t queue) {
    const gaspi_return_t rc = rma_->get(dst, from, src, offset, size);
    needs_flush_[queue].store(true, std::memory_order_release);
    return rc;
  }
  gaspi_return_t notify(MpiRank to, const RemoteSegment &dst, std::uint32_t id, std::uint32_t value,
                        std::uint32_t /*queue: notify flushes `to` itself*/) {
    return rma_->notify(to, dst, id, value);
  }
  gaspi_return_t atomic(MpiRank to, const RemoteSegment &dst, std::uint64_t offset, const AtomicOp &op,
                        std::uint64_t &old, std::uint64_t timeout_ms) {
    return atomic(to, AtomicRequest{op, dst.segment, offset, 0, 0}, old, Deadline(timeout_ms));
  }
  // The split phase of atomic (RemoteAtomics::start, test, abandon), for operations that a front
  // end keeps in flight past their call (GASNet-EX's gex_AD_OpNB/NBI).
  using Flight = RemoteAtomics::Flight;
  gaspi_return_t start_atomic(MpiRank to, const RemoteSegment &dst, std::uint64_t offset, const AtomicOp &op,
                              Flight &flight) {
    return control_->atomics().start(to, AtomicRequest{op, dst.segment, offset, 0, 0}, flight);
  }
  bool test_atomic(Flight &flight, gaspi_return_t &rc, std::uint64_t &old) {
    return control_->atomics().test(flight, rc, old);
  }
  void abandon_atomic(Flight &&flight) { control_->atomics().abandon(std::move(flight)); }
  gaspi_return_t flush(std::uint32_t queue);
  // Completes every transfer to `peer` (the local notification of the read variants).
  gaspi_return_t flush_peer(MpiRank peer) { return rma_->flush(peer); }

private:
  gaspi_return_t atomic(MpiRank to, const AtomicRequest &request, std::uint64_t &old, const Deadline &deadline);

  Rma *rma_ = nullptr;
  Control *control_ = nullptr;
  Step progress_;
  Step healthy_;
  std::array<std::atomic<bool>, limits::kMaxQueues> needs_flush_{};
};

} // namespace hygaspi::mpi
