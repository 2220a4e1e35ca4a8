// What the front ends' inline fast paths ask of the engine: the mappings this process holds of its
// own and its node peers' segments, and what an atomic needs to use one without asking again.
// Each answer is the common, all-valid case or nullptr/false: the caller then takes its full path.
#pragma once
#include <atomic>
#include <cstdint>

#include "core/segment_view.hpp"

namespace hygaspi::engine {

// The cached mapping of segment `seg` (< the engine's segment slots) of `rank`, when `rank` is in
// range, alive, and this rank or a node peer whose mapping this process has cached already.
const SegmentView *mapped_segment(std::uint32_t rank, std::uint32_t seg) noexcept;
// Both of a transfer in one call (the write fast paths): mapped_segment(rank, seg) and, into
// `local`, engine::local_segment(local_seg) (bridge/engine.hpp).
const SegmentView *mapped_pair(std::uint32_t rank, std::uint32_t seg, std::uint32_t local_seg,
                               const SegmentView *&local) noexcept;
// Sets notification `id` of `rank`'s `seg` (from mapped_segment, or this rank's local_segment) to
// `value`: a seq_cst store after the data, then the owner's doorbell if a waiter sleeps.
void notify_mapped(std::uint32_t rank, const SegmentView &seg, std::uint32_t id, std::uint32_t value) noexcept;

// Bit q set: GASPI queue q may have device copies in flight (bridge/device_rma.cpp settle_queue),
// which its next notification must not overtake (spec 8.3.2): a fast path that notifies on q takes
// the full path then. Queue ids are below 32 (limits::kMaxQueues).
extern std::atomic<std::uint32_t> g_queues_with_copies;
[[nodiscard]] inline bool queue_has_copies(std::uint32_t queue) noexcept {
  return ((g_queues_with_copies.load(std::memory_order_acquire) >> queue) & 1u) != 0;
}

// A node segment that atomics reach without a lookup while the caller's key holds (the life cycle,
// the rank, the segment id: GASPI_inline.h). What can change is read again on every use: the
// owner's generation of the segment against the mapping's (a delete or re-create) and the owner's
// liveness.
struct AtomicTarget {
  char *data = nullptr;   // the mapping's, which lives as long as its generation
  std::uint64_t last = 0; // the offset of the last word in it
  std::uint64_t mapped_generation = 0;
  const std::atomic<std::uint64_t> *generation = nullptr; // the owner's
  const std::atomic<std::uint32_t> *state = nullptr;      // the owner's life: kDeadOwner once dead
};
inline constexpr std::uint32_t kDeadOwner = 3; // the node's rank state "dead" (checked in engine.cpp)
// Fills `t` (all but its key) for segment `seg` of `rank`: false unless mapped_segment finds it and
// it is addressable here and holds a word.
bool fill_atomic_target(std::uint32_t rank, std::uint32_t seg, AtomicTarget &t) noexcept;

} // namespace hygaspi::engine
