// The segment table: the one home of this rank's segments (docs/ARCHITECTURE.md, "One home for
// each concern"). For each id it holds, or reaches through the one object that holds it:
//   - the local mapping (the shm object published in this rank's rank block: shm::Node creates,
//     maps and retires it, and node peers find it there; nobody else calls segment_create/delete)
//   - the MPI attachment of its memory to the dynamic window (mpi::Rma::attach/detach), and the
//     window of its own where it was made collectively (mpi::Rma::open_window/forget_window)
//   - the ranks of other nodes it is registered with (a delete clears their table entries)
//   - the pending-collective state of gaspi_segment_create/use after a GASPI_TIMEOUT
// It lives in the runtime's life cycle: clear() at gaspi_proc_term forgets everything, so a
// later gaspi_proc_init starts with no segment (tests/mr/segment_lifecycle.cpp).
#pragma once
#include <GASPI.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "bridge/peers.hpp"
#include "core/limits.hpp"
#include "mpi_rma/rma.hpp"
#include "shm/node.hpp"

namespace hygaspi {

class SegmentTable {
public:
  void bind(shm::Node &node, mpi::Rma &rma) noexcept {
    node_ = &node;
    rma_ = &rma;
  }

  // The published mapping of local segment `seg` (< kSegmentSlots), or nullptr. Lock-free.
  [[nodiscard]] const shm::MappedSegment *local(std::uint32_t seg) const noexcept { return node_->local(seg); }

  // Creates local segment `seg`: its shm object, then its MPI attachment when MPI RMA is up. Fails
  // with GASPI_ERR_INV_SEG if it exists; a failed attachment deletes the object again.
  // `device_key`: user_memory is CUDA device memory (shm::Node::segment_create).
  gaspi_return_t create(std::uint32_t seg, std::uint64_t size, std::uint32_t notification_num, void *user_memory,
                        std::uint64_t alloc_policy, const kinds::IpcKey *device_key = nullptr);
  // Makes local segment `seg` known to `peer`: node peers find it in the rank block; a rank of
  // another node gets its description put into its table (mpi_rma/rma.hpp).
  gaspi_return_t register_with(std::uint32_t seg, const Peer &peer);
  // Collective over `members` (their MPI ranks, ascending, this rank among them, not all on this
  // node), each of which made segment `seg` in the same call (GASPI's gaspi_segment_create on a
  // group): a window of its own, over its notifications and data, where every member offers one
  // (an allocated host segment) and `dynamic` (HYGASPI_DYNAMIC_WINDOW) is off. Else, and beyond the
  // cap of windows, the dynamic window keeps serving it.
  gaspi_return_t open_window(std::uint32_t seg, bool dynamic, const std::vector<MpiRank> &members);
  // Deletes local segment `seg`: clears the entries of the ranks it is registered with, detaches
  // it, deletes its shm object. GASPI_ERR_INV_SEG if it does not exist.
  gaspi_return_t remove(std::uint32_t seg);

  // A collective create/use that returned GASPI_TIMEOUT in its barrier: the next call with the
  // same id resumes the barrier instead of failing with "already exists".
  [[nodiscard]] bool pending_collective(std::uint32_t seg) const noexcept {
    return entries_[seg].pending_collective.load(std::memory_order_acquire);
  }
  void set_pending_collective(std::uint32_t seg, bool pending) noexcept {
    entries_[seg].pending_collective.store(pending, std::memory_order_release);
  }

  // gaspi_proc_term: the segments themselves go with shm::Node::term and the window; this forgets
  // the rest. Nothing survives into the next life cycle.
  void clear() noexcept;

private:
  struct Entry {
    std::atomic<bool> pending_collective{false};
    std::vector<MpiRank> registered; // ranks of other nodes holding an entry; under mutex_
  };
  shm::Node *node_ = nullptr;
  mpi::Rma *rma_ = nullptr;
  std::mutex mutex_; // serialises creation, registration bookkeeping and deletion
  std::array<Entry, limits::kSegmentSlots> entries_{};
};

} // namespace hygaspi
