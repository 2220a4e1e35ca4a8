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

namespace hygaspi {

namespace fast {

// The mapping of segment `seg` of node peer `rank` when [off, off + size) lies inside it.
inline const shm::MappedSegment *node_segment(std::uint32_t rank, std::uint32_t seg, std::uint64_t off,
                                              std::uint64_t size) noexcept {
  Runtime &r = rt();
  if (!r.initialized.load(std::memory_order_acquire) || rank >= r.nranks || seg >= r.config.segment_max)
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
  if (!rt().initialized.load(std::memory_order_acquire))
    return nullptr;
  const shm::MappedSegment *m = rt().node.local(seg);
  if (m == nullptr || off > m->size || size > m->size - off)
    return nullptr;
  return m;
}

// The 8-byte word of a global atomic on a node peer.
inline std::uint64_t *atomic_word(std::uint32_t rank, std::uint32_t seg, std::uint64_t off,
                                  const void *val_old) noexcept {
  if (val_old == nullptr || off % sizeof(std::uint64_t) != 0)
    return nullptr;
  const shm::MappedSegment *m = node_segment(rank, seg, off, sizeof(std::uint64_t));
  if (m == nullptr || m->data == nullptr)
    return nullptr;
  return reinterpret_cast<std::uint64_t *>(m->data + off);
}

} // namespace fast

} // namespace hygaspi
