// Global atomics (spec §10): two cases of the engine's atomic operation (core/atomic_op.hpp), a
// CPU atomic on the 8-byte word in a node peer's segment mapping, or a request that a rank of
// another node serves with the same CPU atomic, so every initiator shares one atomicity domain.
#include "bridge/progress.hpp"
#include "gaspi/checks.hpp"
#include "gaspi/fast_path.hpp"
#include "core/statistics.hpp"

using namespace hygaspi;

extern "C" {
unsigned int gaspi_hyg_atomic_life_v2 = 0;
__thread gaspi_hyg_atomic_target_t gaspi_hyg_atomic_target_v2 __attribute__((tls_model("initial-exec"))) = {};
}
static_assert(GASPI_HYG_DEAD_OWNER == engine::kDeadOwner);
static_assert(sizeof(unsigned long long) == sizeof(std::uint64_t) && sizeof(unsigned int) == sizeof(std::uint32_t));

namespace hygaspi::fast {

void publish_atomic_life() noexcept {
  const gaspi::State &gs = gaspi::state();
  const bool inline_path = gs.initialized.load(std::memory_order_acquire) && !stats::active(1);
  __atomic_store_n(&gaspi_hyg_atomic_life_v2, inline_path ? gs.life.load(std::memory_order_relaxed) : 0u,
                   __ATOMIC_RELEASE);
}

void remember_atomic_target(gaspi_rank_t rank, gaspi_segment_id_t seg) noexcept {
  gaspi_hyg_atomic_target_t &t = gaspi_hyg_atomic_target_v2;
  const gaspi::State &gs = gaspi::state();
  t.key = 0;
  calls::join_thread(); // before the key: a thread whose key matches is one that term waits for
  engine::AtomicTarget found;
  if (!gs.initialized.load(std::memory_order_acquire) || seg >= gs.config.segment_max ||
      !engine::fill_atomic_target(rank, seg, found))
    return;
  t.words = reinterpret_cast<gaspi_atomic_value_t *>(found.data);
  t.last = found.last;
  t.mapped_generation = found.mapped_generation;
  // The owner's words, which the client reads with __atomic_load_n: std::atomic of these widths is
  // the plain integer (lock-free, same size), as GCC and Clang lay it out.
  static_assert(std::atomic<std::uint64_t>::is_always_lock_free && std::atomic<std::uint32_t>::is_always_lock_free);
  t.generation = reinterpret_cast<const unsigned long long *>(found.generation);
  t.state = reinterpret_cast<const unsigned int *>(found.state);
  t.key = gaspi_hyg_atomic_key(gs.life.load(std::memory_order_relaxed), rank, seg);
}

} // namespace hygaspi::fast

namespace {

// Resolves the peer and its segment once. On a node peer the word is in its mapping (CPU atomics
// of core/atomic_op.hpp); on another node the atomic runs at the target with the same functions
// (mpi_rma/remote_atomics.hpp).
gaspi_return_t atomic_target(gaspi_segment_id_t seg_id, gaspi_offset_t offset, gaspi_rank_t rank,
                             gaspi_atomic_value_t *val_old, engine::Target &seg) {
  HYGASPI_TRY(check::init());
  HYGASPI_TRY(check::not_null(val_old, "val_old"));
  HYGASPI_TRY(check::rank(rank));
  HYGASPI_TRY(check::remote_segment(rank, seg_id, offset, sizeof(gaspi_atomic_value_t), seg));
  HYGASPI_CHECK(offset % sizeof(gaspi_atomic_value_t) == 0, GASPI_ERR_UNALIGN_OFF, "offset %lu is not 8-byte aligned",
                offset);
  HYGASPI_CHECK(seg.atomics(), GASPI_ERROR, "segment %u of rank %u is %s, which global atomics cannot reach", seg_id,
                rank, seg.device() ? "CUDA device memory" : "bound user memory of another process");
  return GASPI_SUCCESS;
}

gaspi_return_t atomic_done(gaspi_return_t rc, gaspi_segment_id_t seg, gaspi_offset_t offset, gaspi_rank_t rank) {
  if (rc == GASPI_ERROR)
    log::error("rank %u could not apply the atomic to segment %u offset %lu", rank, seg, offset);
  return rc;
}

// The full paths: every check with its message, and the MPI route. Out of line, so that the
// entry points' fast path (gaspi_hyg_atomic_word) saves no registers and builds no frame.
[[gnu::noinline]] gaspi_return_t fetch_add_full(gaspi_segment_id_t segment_id, gaspi_offset_t offset, gaspi_rank_t rank,
                                                gaspi_atomic_value_t val_add, gaspi_atomic_value_t *val_old,
                                                gaspi_timeout_t timeout) noexcept {
  return guarded("gaspi_atomic_fetch_add", [&] {
    engine::Target seg;
    HYGASPI_TRY(atomic_target(segment_id, offset, rank, val_old, seg));
    fast::remember_atomic_target(rank, segment_id);
    stats::atomic_op(rank);
    return atomic_done(engine::atomic(seg, offset, fetch_add_op(val_add), *val_old, timeout), segment_id, offset, rank);
  });
}

[[gnu::noinline]] gaspi_return_t compare_swap_full(gaspi_segment_id_t segment_id, gaspi_offset_t offset,
                                                   gaspi_rank_t rank, gaspi_atomic_value_t comparator,
                                                   gaspi_atomic_value_t val_new, gaspi_atomic_value_t *val_old,
                                                   gaspi_timeout_t timeout) noexcept {
  return guarded("gaspi_atomic_compare_swap", [&] {
    engine::Target seg;
    HYGASPI_TRY(atomic_target(segment_id, offset, rank, val_old, seg));
    fast::remember_atomic_target(rank, segment_id);
    stats::atomic_op(rank);
    // spec §10.3: the value before the call, whether or not it was swapped.
    return atomic_done(engine::atomic(seg, offset, compare_swap_op(comparator, val_new), *val_old, timeout), segment_id,
                       offset, rank);
  });
}

} // namespace

extern "C" {

gaspi_return_t pgaspi_atomic_fetch_add(const gaspi_segment_id_t segment_id, const gaspi_offset_t offset,
                                       const gaspi_rank_t rank, const gaspi_atomic_value_t val_add,
                                       gaspi_atomic_value_t *const val_old, const gaspi_timeout_t timeout) {
  // For a client without the inline path (GASPI_inline.h): the same check, no frame to build.
  {
    calls::Section in;
    if (gaspi_atomic_value_t *word = gaspi_hyg_atomic_word(segment_id, offset, rank, val_old); word != nullptr)
        [[likely]] {
      *val_old = apply_atomic(word, fetch_add_op(val_add)); // the engine's CPU atomic, folded to one fetch_add
      return GASPI_SUCCESS;
    }
  }
  return fetch_add_full(segment_id, offset, rank, val_add, val_old, timeout);
}

gaspi_return_t pgaspi_atomic_compare_swap(const gaspi_segment_id_t segment_id, const gaspi_offset_t offset,
                                          const gaspi_rank_t rank, const gaspi_atomic_value_t comparator,
                                          const gaspi_atomic_value_t val_new, gaspi_atomic_value_t *const val_old,
                                          const gaspi_timeout_t timeout) {
  // For a client without the inline path (GASPI_inline.h): the same check, no frame to build.
  {
    calls::Section in;
    if (gaspi_atomic_value_t *word = gaspi_hyg_atomic_word(segment_id, offset, rank, val_old); word != nullptr)
        [[likely]] {
      // The value before the call, whether or not it was swapped (spec §10.3).
      *val_old = apply_atomic(word, compare_swap_op(comparator, val_new));
      return GASPI_SUCCESS;
    }
  }
  return compare_swap_full(segment_id, offset, rank, comparator, val_new, val_old, timeout);
}

} // extern "C"

HYGASPI_ALIAS(gaspi_atomic_fetch_add)
HYGASPI_ALIAS(gaspi_atomic_compare_swap)
