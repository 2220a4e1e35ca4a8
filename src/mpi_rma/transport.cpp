#include "mpi_rma/transport.hpp"

namespace hygaspi::mpi {

void Transport::reset() noexcept {
  for (auto &f : needs_flush_)
    f.store(false, std::memory_order_relaxed);
}

gaspi_return_t Transport::flush(std::uint32_t queue) {
  // Cleared before the flush: a put issued after the exchange sets the flag again, and the next
  // flush(queue) covers it; a put issued before it is covered by this flush.
  // A plain load first: a queue without MPI transfers pays no read-modify-write (gaspi_wait's fixed
  // cost on the node-local path).
  if (!needs_flush_[queue].load(std::memory_order_acquire) ||
      !needs_flush_[queue].exchange(false, std::memory_order_acq_rel))
    return GASPI_SUCCESS;
  return rma_->flush_all();
}

gaspi_return_t Transport::atomic(MpiRank to, const AtomicRequest &request, std::uint64_t &old,
                                 const Deadline &deadline) {
  std::uint64_t value = 0;
  auto healthy = [&] { return (!healthy_.active() || healthy_()) && !control_->known_dead(to); };
  const gaspi_return_t rc = control_->atomics().run(to, request, value, deadline, progress_, healthy);
  if (rc == GASPI_SUCCESS)
    old = value;
  return rc;
}

} // namespace hygaspi::mpi
