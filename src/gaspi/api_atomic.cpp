// Global atomics (spec §10) on node peers: CPU atomics on the 8-byte word in the target's
// segment mapping, so node peers and the owner itself share one atomicity domain.
#include "bridge/progress.hpp"
#include "gaspi/checks.hpp"
#include "core/statistics.hpp"

using namespace hygaspi;

namespace {

// Finds the target word. On a node peer `word` points into its mapping; on another node `word`
// stays nullptr and the atomic runs at the target (mpi_rma/control.hpp).
gaspi_return_t atomic_target(gaspi_segment_id_t seg_id, gaspi_offset_t offset, gaspi_rank_t rank,
                             gaspi_atomic_value_t *val_old, std::uint64_t *&word) {
  HYGASPI_TRY(check::init());
  HYGASPI_TRY(check::not_null(val_old, "val_old"));
  HYGASPI_TRY(check::rank(rank));
  RemoteRef seg;
  HYGASPI_TRY(check::remote_segment(rank, seg_id, offset, sizeof(gaspi_atomic_value_t), seg));
  HYGASPI_CHECK(offset % sizeof(gaspi_atomic_value_t) == 0, GASPI_ERR_UNALIGN_OFF, "offset %lu is not 8-byte aligned",
                offset);
  word = nullptr;
  if (seg.shm == nullptr)
    return GASPI_SUCCESS;
  HYGASPI_CHECK(seg.shm->data != nullptr, GASPI_ERROR,
                "segment %u of rank %u is bound user memory, which global atomics cannot reach", seg_id, rank);
  word = reinterpret_cast<std::uint64_t *>(seg.shm->data + offset);
  return GASPI_SUCCESS;
}

gaspi_return_t remote_atomic(mpi::AtomicOp op, gaspi_segment_id_t seg, gaspi_offset_t offset, gaspi_rank_t rank,
                             std::uint64_t a, std::uint64_t b, gaspi_atomic_value_t *old, gaspi_timeout_t timeout) {
  mpi::AtomicRequest request{op, seg, offset, a, b, 0, 0};
  std::uint64_t value = 0;
  gaspi_return_t rc = rt().control.atomic(rank, request, value, Deadline(timeout), progress());
  if (rc == GASPI_SUCCESS)
    *old = value;
  else if (rc == GASPI_ERROR)
    log::error("rank %u could not apply the atomic to segment %u offset %lu", rank, seg, offset);
  return rc;
}

} // namespace

extern "C" {

gaspi_return_t pgaspi_atomic_fetch_add(const gaspi_segment_id_t segment_id, const gaspi_offset_t offset,
                                       const gaspi_rank_t rank, const gaspi_atomic_value_t val_add,
                                       gaspi_atomic_value_t *const val_old, const gaspi_timeout_t timeout) {
  return guarded("gaspi_atomic_fetch_add", [&] {
    std::uint64_t *word = nullptr;
    HYGASPI_TRY(atomic_target(segment_id, offset, rank, val_old, word));
    stats::atomic_op(rank);
    if (word == nullptr)
      return remote_atomic(mpi::AtomicOp::fetch_add, segment_id, offset, rank, val_add, 0, val_old, timeout);
    *val_old = std::atomic_ref<std::uint64_t>(*word).fetch_add(val_add, std::memory_order_seq_cst);
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_atomic_compare_swap(const gaspi_segment_id_t segment_id, const gaspi_offset_t offset,
                                          const gaspi_rank_t rank, const gaspi_atomic_value_t comparator,
                                          const gaspi_atomic_value_t val_new, gaspi_atomic_value_t *const val_old,
                                          const gaspi_timeout_t timeout) {
  return guarded("gaspi_atomic_compare_swap", [&] {
    std::uint64_t *word = nullptr;
    HYGASPI_TRY(atomic_target(segment_id, offset, rank, val_old, word));
    stats::atomic_op(rank);
    if (word == nullptr)
      return remote_atomic(mpi::AtomicOp::compare_swap, segment_id, offset, rank, comparator, val_new, val_old,
                           timeout);
    std::uint64_t expected = comparator;
    std::atomic_ref<std::uint64_t>(*word).compare_exchange_strong(expected, val_new, std::memory_order_seq_cst);
    *val_old = expected; // the value before the call, whether or not it was swapped
    return GASPI_SUCCESS;
  });
}

} // extern "C"

HYGASPI_ALIAS(gaspi_atomic_fetch_add)
HYGASPI_ALIAS(gaspi_atomic_compare_swap)
