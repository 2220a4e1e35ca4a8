// The fast path of the GASPI data-path calls: small fixed costs per call (docs/DESIGN.md "Code
// conventions"; the path of a call in docs/ARCHITECTURE.md). Each helper answers only the common,
// all-valid case with no message and no out-of-line call, and returns nullptr for anything unusual
// (not initialised, a bad or dead rank, another node, a bad segment or offset, a mapping not cached
// yet); the entry point then runs its full path, which repeats every check and reports the error
// exactly as before.
#pragma once
#include <atomic>
#include <cstdint>

#include "bridge/runtime.hpp"
#include "gaspi/state.hpp"

namespace hygaspi {

namespace fast {

// The mapping of segment `seg` of node peer `rank` when [off, off + size) lies inside it.
inline const shm::MappedSegment *node_segment(std::uint32_t rank, std::uint32_t seg, std::uint64_t off,
                                              std::uint64_t size) noexcept {
  Runtime &r = rt();
  if (!gaspi::state().initialized.load(std::memory_order_acquire) || rank >= r.nranks ||
      seg >= gaspi::state().config.segment_max)
    return nullptr;
  const Peer &peer = r.peers[GlobalRank{rank}];
  if (!peer.on_node() || !r.node.alive(peer.node))
    return nullptr;
  const shm::MappedSegment *m = r.node.cached(peer.node, seg);
  if (m == nullptr || off > m->size || size > m->size - off)
    return nullptr;
  return m;
}

// A segment of this rank when [off, off + size) lies inside it.
inline const shm::MappedSegment *local_segment(std::uint32_t seg, std::uint64_t off, std::uint64_t size) noexcept {
  if (!gaspi::state().initialized.load(std::memory_order_acquire))
    return nullptr;
  const shm::MappedSegment *m = rt().node.local(seg);
  if (m == nullptr || off > m->size || size > m->size - off)
    return nullptr;
  return m;
}

// The node word this thread's last global atomic reached, to spare the next one on the same
// (rank, segment) the lookup's chain of dependent loads (peer table, node index, the peer's segment
// table, the mapping): on a node an atomic is a few ns, and every level of that chain added to it
// (bench_atomics). What the lookup checked once stays true while the key holds (the life cycle, the
// rank, the segment id); what can change is read again on every use: the owner's generation of
// the segment against the mapping's (a delete or re-create) and the owner's liveness.
struct AtomicTarget {
  std::uint64_t key = 0;  // (life << 32) | (rank << 8) | segment; 0: empty (life starts at 1)
  char *data = nullptr;   // the mapping's, which lives as long as its generation (shm::Node)
  std::uint64_t last = 0; // the offset of the last word in it
  std::uint64_t mapped_generation = 0;
  const std::atomic<std::uint64_t> *generation = nullptr; // the owner's
  const std::atomic<std::uint32_t> *state = nullptr;
};
inline thread_local AtomicTarget t_atomic_target __attribute__((tls_model("initial-exec")));

// The lookup behind atomic_word, which the full paths run before they go on: the checks of
// node_segment, a segment in shm. The next atomic on (rank, seg) then takes the fast path.
inline void remember_atomic_target(std::uint32_t rank, std::uint32_t seg) noexcept {
  Runtime &r = rt();
  AtomicTarget &t = t_atomic_target;
  t.key = 0;
  const gaspi::State &gs = gaspi::state();
  if (!gs.initialized.load(std::memory_order_acquire))
    return;
  const std::uint64_t key =
      (std::uint64_t{gs.life.load(std::memory_order_relaxed)} << 32) | (std::uint64_t{rank} << 8) | seg;
  if (rank >= r.nranks || seg >= gs.config.segment_max)
    return;
  const Peer &peer = r.peers[GlobalRank{rank}];
  if (!peer.on_node() || !r.node.alive(peer.node))
    return;
  const shm::MappedSegment *m = r.node.cached(peer.node, seg);
  if (m == nullptr || m->data == nullptr || m->size < sizeof(std::uint64_t))
    return;
  t.data = m->data;
  t.last = m->size - sizeof(std::uint64_t);
  t.mapped_generation = m->generation;
  t.generation = &r.node.block(peer.node).segments[seg].generation;
  t.state = &r.node.state_word(peer.node);
  t.key = key;
}

// The 8-byte word of a global atomic on a node peer.
inline std::uint64_t *atomic_word(std::uint32_t rank, std::uint32_t seg, std::uint64_t off,
                                  const void *val_old) noexcept {
  const gaspi::State &gs = gaspi::state();
  if (val_old == nullptr || off % sizeof(std::uint64_t) != 0 || !gs.initialized.load(std::memory_order_acquire))
    return nullptr;
  const std::uint64_t key =
      (std::uint64_t{gs.life.load(std::memory_order_relaxed)} << 32) | (std::uint64_t{rank} << 8) | seg;
  AtomicTarget &t = t_atomic_target;
  if (t.key != key) [[unlikely]]
    return nullptr; // the full path looks it up (remember_atomic_target): no call, no frame here
  if (t.generation->load(std::memory_order_acquire) != t.mapped_generation ||
      t.state->load(std::memory_order_acquire) == static_cast<std::uint32_t>(shm::RankState::dead) || off > t.last)
      [[unlikely]] {
    t.key = 0; // a changed segment or a dead owner: the full path decides, and the next call looks up
    return nullptr;
  }
  return reinterpret_cast<std::uint64_t *>(t.data + off);
}

} // namespace fast

} // namespace hygaspi
