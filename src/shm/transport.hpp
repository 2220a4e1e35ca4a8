// The node transport (bridge/transport.hpp's concept): node peers' segments are mapped into this
// process, so put and get are copies that complete before they return, notify is a seq_cst store
// plus the owner's doorbell, and the atomics are the CPU atomics of core/atomic_op.hpp on the mapped
// word. Bound user memory, which is not in shm, is reached with CMA (process_vm_readv/writev,
// inside Node::put/get). Everything is inline: this is the data path.
#pragma once
#include <GASPI.h>

#include <cstdint>

#include "core/atomic_op.hpp"
#include "core/deadline.hpp"
#include "core/ranks.hpp"
#include "shm/node.hpp"

namespace hygaspi::shm {

class Transport {
public:
  using Peer = NodeIndex;
  using Segment = MappedSegment;

  explicit Transport(Node &node) noexcept : node_(&node) {}

  gaspi_return_t put(NodeIndex to, const MappedSegment &dst, std::uint64_t offset, const void *src, std::uint64_t size,
                     std::uint32_t /*queue: complete now*/) {
    return node_->put(dst, to, offset, src, size);
  }
  gaspi_return_t get(void *dst, NodeIndex from, const MappedSegment &src, std::uint64_t offset, std::uint64_t size,
                     std::uint32_t /*queue*/) {
    return node_->get(dst, src, from, offset, size);
  }
  // spec §8.3.2: the puts of this thread came first in program order, and the seq_cst store
  // releases them.
  gaspi_return_t notify(NodeIndex to, const MappedSegment &dst, std::uint32_t id, std::uint32_t value,
                        std::uint32_t /*queue*/) noexcept {
    node_->notify(dst, to, id, value);
    return GASPI_SUCCESS;
  }
  // The segment's data is host memory mapped here (dst.host_mapped(); the caller rejects bound and
  // device memory) and the word is aligned and inside it (checked by the caller).
  gaspi_return_t atomic(NodeIndex, const MappedSegment &dst, std::uint64_t offset, const AtomicOp &op,
                        std::uint64_t &old, std::uint64_t /*timeout_ms*/) noexcept {
    old = apply_atomic(dst.data + offset, op);
    return GASPI_SUCCESS;
  }
  // Node-local operations complete when they are posted.
  gaspi_return_t flush(std::uint32_t /*queue*/) noexcept { return GASPI_SUCCESS; }

private:
  Node *node_;
};

} // namespace hygaspi::shm
