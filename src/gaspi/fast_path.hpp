// The fast path of the GASPI data-path calls: small fixed costs per call (docs/DESIGN.md "Code
// conventions"; the path of a call in docs/ARCHITECTURE.md). Each helper runs inside a
// calls::Section (gaspi/calls.hpp) and answers only the common,
// all-valid case with no message, and returns nullptr for anything unusual (not initialised, a bad
// or dead rank, another node, a bad segment or offset, a mapping not cached yet); the entry point
// then runs its full path, which repeats every check and reports the error exactly as before.
// What the engine answers (bridge/fast_views.hpp) is one call each; the atomics' cache is read
// inline, by the client itself (GASPI_inline.h), since an atomic on a node is a few ns and a call
// was a measurable share of it.
#pragma once
#include <atomic>
#include <cstdint>

#include "bridge/engine.hpp"
#include "bridge/fast_views.hpp"
#include "gaspi/calls.hpp"
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

// The atomics' cache (GASPI_inline.h): the client reads it inline, and so do the library's own entry
// points (api_atomic.cpp), with gaspi_hyg_atomic_word.

// Publishes gaspi_hyg_atomic_life_v2: the life while GASPI is initialised and statistics are off, else
// 0, which sends every atomic to the library. Called where either changes, under the lifecycle lock.
void publish_atomic_life() noexcept;

// The lookup behind gaspi_hyg_atomic_word, which the full paths run before they go on: a mapped
// segment of this rank or a live node peer, addressable here. The next atomic on (rank, seg) then
// takes the fast path.
void remember_atomic_target(gaspi_rank_t rank, gaspi_segment_id_t seg) noexcept;

} // namespace fast

} // namespace hygaspi
