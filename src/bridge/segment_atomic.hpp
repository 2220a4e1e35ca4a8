// The engine's atomic operation (core/atomic_op.hpp) on engine segments addressed by (rank,
// segment id, offset), for the front ends that reach the engine through its facade (GASNet-EX's
// gex_AD_Op*): the route is decided here from the segment's mapping, as segment_rma.hpp decides a
// put's. A segment this process maps is the caller's to reach with apply_atomic (no call needed);
// any other rank is sent a request that its progress serves with the same CPU atomic
// (bridge/progress.cpp serve_atomic), and the operation stays in flight, in an AtomicFlight, until
// test_atomic sees the reply.
#pragma once
#include <GASPI.h>

#include <cstdint>
#include <memory>

#include "core/atomic_op.hpp"
#include "core/ranks.hpp"

namespace hygaspi::engine {

struct AtomicFlight; // the request's reply receive (bridge/segment_atomic.cpp)
struct AtomicFlightDelete {
  void operator()(AtomicFlight *f) const noexcept;
};
using AtomicFlightPtr = std::unique_ptr<AtomicFlight, AtomicFlightDelete>;

// Sends `op` on [offset, + width) of `target`'s segment `id`, a rank this process does not map. The
// caller checked the word against the segment (aligned, inside). GASPI_ERROR when no MPI reaches
// the target (nothing in flight then).
gaspi_return_t start_atomic(GlobalRank target, std::uint32_t id, std::uint64_t offset, const AtomicOp &op,
                            AtomicFlightPtr &flight);
// One look (no progress: the caller's wait drives it): true once the reply is in, with the
// target's status (GASPI_ERROR: it refused the word) and the word's old value.
bool test_atomic(AtomicFlight &flight, gaspi_return_t &rc, std::uint64_t &old);

} // namespace hygaspi::engine
