// Atomics on engine segments by (rank, segment id) over MPI (bridge/segment_atomic.hpp).
#include "bridge/segment_atomic.hpp"

#include "bridge/runtime.hpp"

namespace hygaspi::engine {

struct AtomicFlight {
  mpi::Transport::Flight flight;
};

// A flight deleted before its reply came (a thread that ends with unsynced NBI atomics, a target
// that died) leaves its receive to Replies, which owns the buffer until MPI is done with it.
void AtomicFlightDelete::operator()(AtomicFlight *f) const noexcept {
  if (f->flight.reply.request != MPI_REQUEST_NULL)
    rt().mpi_transport.abandon_atomic(std::move(f->flight));
  delete f;
}

gaspi_return_t start_atomic(GlobalRank target, std::uint32_t id, std::uint64_t offset, const AtomicOp &op,
                            AtomicFlightPtr &flight) {
  Runtime &r = rt();
  if (target.value() >= r.nranks)
    return GASPI_ERROR;
  const Peer &peer = r.peers[target];
  if (peer.on_node() || !r.rma.active())
    return GASPI_ERROR; // a node peer's segment is mapped: the caller applies the atomic itself
  const mpi::RemoteSegment *seg = r.rma.remote(peer.mpi, id);
  if (seg == nullptr)
    return GASPI_ERROR;
  AtomicFlightPtr f(new AtomicFlight);
  if (const gaspi_return_t rc = r.mpi_transport.start_atomic(peer.mpi, *seg, offset, op, f->flight);
      rc != GASPI_SUCCESS)
    return rc;
  flight = std::move(f);
  return GASPI_SUCCESS;
}

bool test_atomic(AtomicFlight &flight, gaspi_return_t &rc, std::uint64_t &old) {
  return rt().mpi_transport.test_atomic(flight.flight, rc, old);
}

} // namespace hygaspi::engine
