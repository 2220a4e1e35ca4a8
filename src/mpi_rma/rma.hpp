// Inter-node one-sided communication over one dynamic MPI window per process (docs/DESIGN.md
// "Segments": gaspi_segment_alloc + register are not collective, so every segment is
// attached locally and its address pushed to the peers it is registered with).
//
// Each process keeps a table of the remote segments registered with it: entry [owner][segment]
// holds the owner's generation, size and the addresses of the data and of the notification array.
// gaspi_segment_register(seg, rank) puts the entry into `rank`'s table with MPI_Put + flush; the
// initiator of a transfer reads only its own table.
//
// Ordering (spec §8.3.2): a notification must not overtake earlier writes to the same rank.
// MPI orders two puts to one target only across a flush, so notify = flush(target) + put.
//
// Attachments. MPI forbids overlapping attachments, and a component may cap their number (Open
// MPI's osc/rdma: MCA parameter osc_rdma_max_attach, 64 by default in 4.1). So:
//   - One attachment per segment where it can be: an allocated segment's shm object holds its
//     notification array and then its data, attached as one range. Bound memory (gaspi_segment_
//     bind/use) lies elsewhere and takes a second attachment for its data.
//   - Memory that lies inside an attachment already made (a segment bound over part of another
//     segment, as GPI-2 allows) is not attached again: the attachment counts its users and is
//     detached when the last goes, whichever segment that is. The window's addresses are
//     absolute, so a peer's put lands in the sub-segment whichever attachment covers it. A range
//     that overlaps an attachment without lying inside it (a segment bound over memory that
//     encloses an earlier segment) is refused with GASPI_ERROR before it reaches MPI: detaching
//     the smaller one to attach the union would fail peers' transfers in flight. The enclosing
//     memory must become a segment first.
//   - The cap is known before it is reached: osc_rdma_max_attach() reads it through MPI_T, and an
//     attachment beyond it fails with GASPI_ERR_MANY_SEG without reaching MPI. It must not reach
//     MPI: osc/rdma refuses it while keeping the window's region lock, after which every attach
//     and detach on the window, and every peer's lookup of our regions, spins forever. When the
//     library starts MPI itself it raises the cap to kWindowAttachments (mpi_env.cpp), enough for
//     every segment id; an application that started MPI gets the error, which names the setting.
// The alternatives: a window per segment made collectively fits gaspi_segment_create only, not
// alloc + register or bind, which are not collective; and raising the cap through MPI_T after
// MPI_Init is refused for this parameter, and would not resize windows already made.
#pragma once
#include <GASPI.h>
#include <mpi.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/ranks.hpp"
#include "core/limits.hpp"
#include "mpi_rma/mpi_env.hpp"

namespace hygaspi::mpi {

// The most attachments Rma's window needs: two for every segment slot and one for the table.
inline constexpr std::uint32_t kWindowAttachments = 2 * limits::kSegmentSlots + 1;

struct RemoteSegment {
  std::uint64_t generation; // 0: not registered with us
  std::uint64_t size;
  std::uint64_t data;          // address of the data in the owner
  std::uint64_t notifications; // address of the notification array in the owner
  std::uint32_t notification_num;
  std::uint32_t segment; // the owner's segment id (the atomics' requests name it)
  // The data is CUDA device memory, which the window does not reach: the owner serves each
  // transfer (DeviceRequests::transfer).
  std::uint32_t device;
  std::uint32_t reserved1;
  std::uint64_t reserved2[2];
};
static_assert(sizeof(RemoteSegment) == 64);

class Rma {
public:
  gaspi_return_t init(Env &env);
  void term() noexcept;
  // False when every rank shares one node: no window is created and no MPI RMA is used.
  [[nodiscard]] bool active() const noexcept { return win_ != MPI_WIN_NULL; }

  // Local segments: make their memory reachable through the window, and give it up (see
  // "Attachments" above). A segment's memory is one or two ranges (size 0: none).
  // GASPI_ERR_MANY_SEG when the window's cap of attachments is reached; a failed attach leaves
  // nothing attached.
  struct Range {
    const void *base = nullptr;
    std::uint64_t size = 0;
  };
  gaspi_return_t attach(std::uint32_t seg, const std::array<Range, 2> &ranges);
  void detach(std::uint32_t seg) noexcept;

  // Pushes the description of local segment `seg` into `rank`'s table (flushes).
  gaspi_return_t register_with(std::uint32_t seg, MpiRank rank, const RemoteSegment &entry);
  // Our copy of the entry of `rank`'s segment `seg`, or nullptr if it was never registered.
  const RemoteSegment *remote(MpiRank rank, std::uint32_t seg);

  gaspi_return_t put(MpiRank rank, std::uint64_t address, const void *src, std::uint64_t size);
  gaspi_return_t get(void *dst, MpiRank rank, std::uint64_t address, std::uint64_t size);
  // flush(rank), then the notification value (spec §8.3.2).
  gaspi_return_t notify(MpiRank rank, const RemoteSegment &seg, std::uint32_t id, std::uint32_t value);
  gaspi_return_t flush(MpiRank rank);
  gaspi_return_t flush_all();
  // Makes puts into our own memory by others visible to our loads (unified model).
  void sync() noexcept;

private:
  Env *env_ = nullptr;
  MPI_Win win_ = MPI_WIN_NULL;
  std::vector<RemoteSegment> table_;    // size * kSegmentSlots, attached to the window
  std::vector<std::uint64_t> table_at_; // address of every rank's table
  struct Attachment {
    std::uint64_t base = 0;
    std::uint64_t size = 0;
    std::uint32_t users = 0; // ranges of segments inside it
  };
  // Attaches [base, +size) for segment `seg`, or counts one more user of the attachment that
  // holds it; `used` names that attachment (its base). Under the Env lock.
  gaspi_return_t acquire(std::uint32_t seg, std::uint64_t base, std::uint64_t size, std::uint64_t &used);
  // One user fewer of the attachment at `base` (0: none); the last one detaches it.
  void release(std::uint64_t base) noexcept;

  std::vector<Attachment> attachments_;                // besides the table; no two overlap
  std::uint32_t attach_limit_ = 0;                     // the window's cap, the table included; 0: none known
  std::vector<std::array<std::uint64_t, 2>> attached_; // per segment: the attachments it uses (0: none)
};

// A window over one region of every rank, for a front end whose segments are made collectively
// (gasnet_attach): a regular window (MPI_Win_create over the region) or, to compare, a dynamic one
// with the region attached (osc/ucx over TCP serves a dynamic window 10-30x slower,
// docs/PLATFORM.md). One passive lock_all epoch from open to close. Addresses are offsets into
// the target's region. Every MPI call takes the Env lock, as Rma's do.
//
// Remote completion of puts is counted per target: put() returns a ticket, and flush(rank) completes
// every put issued before it, so a sync of many handles to one target flushes it once and a put
// that an earlier flush covered completes without an MPI call (docs/COMPATIBILITY.md, "GASNet-1").

class Window {
public:
  enum class Kind { regular, dynamic };
  // What put() completes before it returns: nothing, the source (flush_local), or the put itself at
  // the target (flush).
  enum class Complete { none, local, remote };

  // Collective over env.comm(): every rank opens its region (size 0: none).
  gaspi_return_t open(Env &env, Kind kind, void *base, std::uint64_t size);
  // Collective too (MPI_Win_free): only where every rank closes.
  void close() noexcept;
  [[nodiscard]] bool active() const noexcept { return win_ != MPI_WIN_NULL; }

  // Starts a put into [offset, +size) of rank's region; the ticket of its remote completion.
  gaspi_return_t put(MpiRank rank, std::uint64_t offset, const void *src, std::uint64_t size, Complete complete,
                     std::uint64_t &ticket);
  // A blocking get (MPI_Get + flush).
  gaspi_return_t get(void *dst, MpiRank rank, std::uint64_t offset, std::uint64_t size);
  // A get that completes at the next flush of `rank` (MPI_Get): the ticket that flush passes.
  gaspi_return_t get_nb(void *dst, MpiRank rank, std::uint64_t offset, std::uint64_t size, std::uint64_t &ticket);
  // Completes every put and get to rank issued so far (MPI_Win_flush), unless a flush already
  // passed ticket.
  gaspi_return_t flush(MpiRank rank, std::uint64_t ticket = ~std::uint64_t{0});
  [[nodiscard]] bool flushed(MpiRank rank, std::uint64_t ticket) const noexcept {
    return targets_[static_cast<std::size_t>(rank.value())].completed.load(std::memory_order_acquire) >= ticket;
  }

private:
  struct Target {
    std::atomic<std::uint64_t> issued{0};    // tickets handed out
    std::atomic<std::uint64_t> completed{0}; // every ticket up to this one is complete
  };
  gaspi_return_t flush_locked(MpiRank rank);
  MPI_Aint displacement(MpiRank rank, std::uint64_t offset) const noexcept {
    return static_cast<MPI_Aint>(bases_[static_cast<std::size_t>(rank.value())] + offset);
  }

  Env *env_ = nullptr;
  MPI_Win win_ = MPI_WIN_NULL;
  void *attached_ = nullptr;          // dynamic: the region attached
  std::vector<std::uint64_t> bases_;  // per rank: 0 (regular) or its region's address (dynamic)
  std::unique_ptr<Target[]> targets_; // per rank
};

} // namespace hygaspi::mpi
