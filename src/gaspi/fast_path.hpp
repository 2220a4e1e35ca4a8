// The fast path of the GASPI data-path calls: small fixed costs per call (docs/DESIGN.md "Code
// conventions"; the path of a call in docs/ARCHITECTURE.md). Each helper answers only the common,
// all-valid case with no message, and returns nullptr for anything unusual (not initialised, a bad
// or dead rank, another node, a bad segment or offset, a mapping not cached yet); the entry point
// then runs its full path, which repeats every check and reports the error exactly as before.
// What the engine answers (bridge/fast_views.hpp) is one call each; the atomics' cache below is
// read inline, since an atomic on a node is a few ns and a call was a measurable share of it.
#pragma once
#include <atomic>
#include <cstdint>

#include "bridge/engine.hpp"
#include "bridge/fast_views.hpp"
#include "gaspi/state.hpp"

namespace hygaspi {

namespace fast {

// The two segments of a transfer to a node peer (this rank or a node peer `rank`, its `seg`, the range [off, off +
// size)) from this rank's `local_seg` (its range [local_off, local_off + size)), in one call; false when either is not
// there or the range is not inside.
inline bool transfer_segments(std::uint32_t rank, std::uint32_t seg, std::uint64_t off, std::uint32_t local_seg,
                              std::uint64_t local_off, std::uint64_t size, const SegmentView *&dst,
                              const SegmentView *&src) noexcept {
  const gaspi::State &gs = gaspi::state();
  if (!gs.initialized.load(std::memory_order_acquire) || seg >= gs.config.segment_max)
    return false;
  dst = engine::mapped_pair(rank, seg, local_seg, src);
  return dst != nullptr && src != nullptr && off <= dst->size && size <= dst->size - off && local_off <= src->size &&
         size <= src->size - local_off;
}

// A segment of this rank when [off, off + size) lies inside it.
inline const SegmentView *local_segment(std::uint32_t seg, std::uint64_t off, std::uint64_t size) noexcept {
  if (!gaspi::state().initialized.load(std::memory_order_acquire))
    return nullptr;
  const SegmentView *m = engine::local_segment(seg);
  if (m == nullptr || off > m->size || size > m->size - off)
    return nullptr;
  return m;
}

// The key of a (rank, segment) in this life of GASPI: 0 is never one (life starts at 1).
inline std::uint64_t atomic_key(const gaspi::State &gs, std::uint32_t rank, std::uint32_t seg) noexcept {
  return (std::uint64_t{gs.life.load(std::memory_order_relaxed)} << 32) | (std::uint64_t{rank} << 8) | seg;
}

inline thread_local engine::AtomicTarget t_atomic_target __attribute__((tls_model("initial-exec")));

// The lookup behind atomic_word, which the full paths run before they go on: a mapped segment of
// this rank or a live node peer, addressable here. The next atomic on (rank, seg) then takes the fast path.
inline void remember_atomic_target(std::uint32_t rank, std::uint32_t seg) noexcept {
  const gaspi::State &gs = gaspi::state();
  t_atomic_target.key = 0;
  if (!gs.initialized.load(std::memory_order_acquire) || seg >= gs.config.segment_max)
    return;
  if (engine::fill_atomic_target(rank, seg, t_atomic_target))
    t_atomic_target.key = atomic_key(gs, rank, seg);
}

// The 8-byte word of a global atomic on a node peer.
inline std::uint64_t *atomic_word(std::uint32_t rank, std::uint32_t seg, std::uint64_t off,
                                  const void *val_old) noexcept {
  const gaspi::State &gs = gaspi::state();
  if (val_old == nullptr || off % sizeof(std::uint64_t) != 0 || !gs.initialized.load(std::memory_order_acquire))
    return nullptr;
  engine::AtomicTarget &t = t_atomic_target;
  if (t.key != atomic_key(gs, rank, seg)) [[unlikely]]
    return nullptr; // the full path looks it up (remember_atomic_target): no call, no frame here
  if (t.generation->load(std::memory_order_acquire) != t.mapped_generation ||
      t.state->load(std::memory_order_acquire) == engine::kDeadOwner || off > t.last) [[unlikely]] {
    t.key = 0; // a changed segment or a dead owner: the full path decides, and the next call looks up
    return nullptr;
  }
  return reinterpret_cast<std::uint64_t *>(t.data + off);
}

} // namespace fast

} // namespace hygaspi
