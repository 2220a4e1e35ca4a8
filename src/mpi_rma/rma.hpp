// Inter-node one-sided communication: the one home of the library's MPI windows.
//
// Two kinds of window reach a rank's segments:
//   - Windows over one segment of every rank (Window), opened where a segment is made collectively
//     by every rank in the same call: GASNet's attach, and GASPI's gaspi_segment_create on
//     GASPI_GROUP_ALL. A regular window (MPI_Win_create) is what MPI serves best: a dynamic one
//     costs a lookup of the target's regions per operation (osc/ucx over TCP served one 10-30x
//     slower, docs/PLATFORM.md).
//   - One dynamic window per process (Rma), for every other segment: gaspi_segment_alloc +
//     register and gaspi_segment_bind are not collective, and gaspi_segment_use binds client
//     memory, which a regular window would keep exposed after the local gaspi_segment_delete
//     (MPI_Win_free is collective; delete is not). Every segment is attached to it, those with a
//     window of their own too, so a rank outside the creation reaches it all the same.
//
// Each process keeps a table of the remote segments registered with it: entry [owner][segment]
// holds the owner's generation, size and the addresses of the data and of the notification array.
// gaspi_segment_register(seg, rank) puts the entry into `rank`'s table with MPI_Put + flush; the
// initiator of a transfer reads only its own table, and takes a segment's own window only while
// the owner's generation is the one that window was opened over.
//
// Ordering (spec §8.3.2): a notification must not overtake earlier writes to the same rank.
// MPI orders two puts to one target only across a flush, so notify = flush(target) on every
// window that holds a transfer to it, then the notification's put.
//
// Attachments to the dynamic window. MPI forbids overlapping attachments, and a component may cap
// their number (Open MPI's osc/rdma: MCA parameter osc_rdma_max_attach, 64 by default in 4.1). So:
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
//     Raising the cap through MPI_T after MPI_Init is refused for this parameter, and would not
//     resize windows already made.
#pragma once
#include <GASPI.h>
#include <mpi.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "core/ranks.hpp"
#include "core/limits.hpp"
#include "mpi_rma/mpi_env.hpp"

namespace hygaspi::mpi {

// Transfers counted on one window, to one target or to all: a flush takes the count issued before
// it and, once done, marks that count completed. A transfer counted before a flush started is
// covered by it, so where every count issued is completed there is nothing to flush.
struct Tickets {
  std::atomic<std::uint64_t> issued{0};    // tickets handed out
  std::atomic<std::uint64_t> completed{0}; // every ticket up to this one is complete
  // Counts a transfer issued (after its MPI call); its ticket.
  std::uint64_t issue() noexcept { return issued.fetch_add(1, std::memory_order_acq_rel) + 1; }
  [[nodiscard]] bool done(std::uint64_t ticket) const noexcept {
    return completed.load(std::memory_order_acquire) >= ticket;
  }
  [[nodiscard]] bool idle() const noexcept { return done(issued.load(std::memory_order_acquire)); }
  void complete(std::uint64_t upto) noexcept {
    std::uint64_t seen = completed.load(std::memory_order_relaxed);
    while (seen < upto && !completed.compare_exchange_weak(seen, upto, std::memory_order_acq_rel)) {
    }
  }
  // Runs `flush`, an MPI flush that covers every transfer issued before it, then marks them complete.
  template <class Flush> gaspi_return_t flush(Flush &&flush) {
    const std::uint64_t upto = issued.load(std::memory_order_acquire);
    const gaspi_return_t rc = flush();
    if (rc == GASPI_SUCCESS)
      complete(upto);
    return rc;
  }
};

// The Tickets of one window: per target, and over every target (for flush_all).
class WindowTickets {
public:
  void reset(std::size_t ranks) {
    targets_ = std::make_unique<Tickets[]>(ranks);
    all_.issued.store(0, std::memory_order_relaxed);
    all_.completed.store(0, std::memory_order_relaxed);
  }
  // Counts a transfer to `rank` issued (after its MPI call); its ticket of `rank`.
  std::uint64_t issue(MpiRank rank) noexcept {
    all_.issue();
    return of(rank).issue();
  }
  [[nodiscard]] Tickets &of(MpiRank rank) noexcept { return targets_[static_cast<std::size_t>(rank.value())]; }
  [[nodiscard]] const Tickets &of(MpiRank rank) const noexcept {
    return targets_[static_cast<std::size_t>(rank.value())];
  }
  [[nodiscard]] Tickets &all() noexcept { return all_; }

private:
  std::unique_ptr<Tickets[]> targets_;
  Tickets all_;
};

// A window over one region of every rank, opened collectively: a regular window (MPI_Win_create
// over the region) or, to compare, a dynamic one with the region attached (HYGASPI_DYNAMIC_WINDOW).
// One passive lock_all epoch from open to close. Addresses are offsets into the target's region.
// Every MPI call takes the Env lock, as Rma's do.
//
// Remote completion is counted per target: put() returns a ticket, and flush(rank) completes
// every put issued before it, so a sync of many handles to one target flushes it once and a put
// that an earlier flush covered completes without an MPI call (docs/COMPATIBILITY.md, "GASNet-1").
// A count over all targets does the same for flush_all().
class Window {
public:
  enum class Kind { regular, dynamic };
  // What put() completes before it returns: nothing, the source (flush_local), or the put itself at
  // the target (flush).
  enum class Complete { none, local, remote };

  // Collective over `comm` (env.comm(), or a communicator of some of its ranks): every member
  // opens its region (size 0: none). `members`: the env.comm() rank of each rank of `comm`, in its
  // order (empty: comm is env.comm()). Transfers name their target by its env.comm() rank.
  gaspi_return_t open(Env &env, Kind kind, void *base, std::uint64_t size, MPI_Comm comm,
                      const std::vector<int> &members);
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
    return tickets_.of(rank).done(ticket);
  }
  // Every transfer to `rank` issued so far is complete.
  [[nodiscard]] bool idle(MpiRank rank) const noexcept { return tickets_.of(rank).idle(); }
  // Completes every transfer issued so far to any rank (MPI_Win_flush_all), unless a flush_all
  // already did.
  gaspi_return_t flush_all();

private:
  gaspi_return_t flush_locked(MpiRank rank);
  MPI_Aint displacement(MpiRank rank, std::uint64_t offset) const noexcept {
    return static_cast<MPI_Aint>(bases_[static_cast<std::size_t>(rank.value())] + offset);
  }
  // `rank`'s rank in the window's communicator (Rma::reach passes members only).
  [[nodiscard]] int target(MpiRank rank) const noexcept {
    return in_comm_.empty() ? rank.value() : in_comm_[static_cast<std::size_t>(rank.value())];
  }

  Env *env_ = nullptr;
  MPI_Win win_ = MPI_WIN_NULL;
  std::vector<int> in_comm_;         // per env.comm() rank: its rank in the window's comm, or -1 (empty: the same)
  void *attached_ = nullptr;         // dynamic: the region attached
  std::vector<std::uint64_t> bases_; // per rank: 0 (regular) or its region's address (dynamic)
  WindowTickets tickets_;
};

// The most attachments Rma's window needs: two for every segment slot and one for the table.
inline constexpr std::uint32_t kWindowAttachments = 2 * limits::kSegmentSlots + 1;
// The most windows of single segments a process opens in one life cycle. A window lives until
// gaspi_proc_term (MPI_Win_free is collective, a segment's delete is not), so a job that creates
// and deletes segments in a loop would otherwise pile them up; beyond the cap its segments are
// reached through the dynamic window, as if none were opened.
inline constexpr std::uint32_t kMaxSegmentWindows = 64;

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

  // Windows over one segment of every rank of a group (see the top of this file). Collective over
  // the group: `members`, the MPI ranks of a GASPI group ascending, this rank among them (empty:
  // every rank), whose windows live on a communicator of their own, made at the group's first
  // window. Opens a window over `range` of local segment `seg`. `generation` != 0 (GASPI): the
  // segment's generation, and the members first agree that each names the same id (a job that
  // creates its segments in a different order on each rank, or where some rank cannot offer a
  // window: seg = kNoWindow) and that each has room for one more window; where they do not, no
  // window is opened on any member and GASPI_SUCCESS says the dynamic window serves.
  // `generation` 0 (GASNet's attach, every rank): no agreement, and GASPI_ERROR where no window
  // opens.
  static constexpr std::uint32_t kNoWindow = ~std::uint32_t{0};
  gaspi_return_t open_window(std::uint32_t seg, Range range, std::uint64_t generation, Window::Kind kind,
                             const std::vector<MpiRank> &members = {});
  // The window opened over segment `seg`, or nullptr.
  [[nodiscard]] Window *window(std::uint32_t seg) const noexcept;
  // Local segment `seg` was deleted: its window serves no more transfers. It stays open until
  // term over memory that shm::Node keeps mapped (retired, not unmapped).
  void forget_window(std::uint32_t seg) noexcept;

  // Transfers to [offset, +size) of `rank`'s segment `seg`: through the segment's window where
  // it reaches that segment, else through the dynamic window. Complete at flush.
  gaspi_return_t put(MpiRank rank, const RemoteSegment &seg, std::uint64_t offset, const void *src, std::uint64_t size);
  gaspi_return_t get(void *dst, MpiRank rank, const RemoteSegment &seg, std::uint64_t offset, std::uint64_t size);
  // Transfers to and from an address of `rank` that lies in an attachment of the dynamic window.
  gaspi_return_t put(MpiRank rank, std::uint64_t address, const void *src, std::uint64_t size);
  gaspi_return_t get(void *dst, MpiRank rank, std::uint64_t address, std::uint64_t size);
  // flush(rank), then the notification value, complete at return (spec §8.3.2).
  gaspi_return_t notify(MpiRank rank, const RemoteSegment &seg, std::uint32_t id, std::uint32_t value);
  // Completes every transfer to `rank` (flush_all: to any rank) on every window.
  gaspi_return_t flush(MpiRank rank);
  gaspi_return_t flush_all();
  // Makes puts into our own memory by others visible to our loads (unified model).
  void sync() noexcept;

private:
  // A window over one segment, and the generation of each rank's segment it was opened over
  // (empty: GASNet's, which no generation names; 0 for a rank outside the window's group).
  struct SegmentWindow {
    Window window;
    std::vector<std::uint64_t> generation;
  };
  // The communicator of a group's windows (MPI_Comm_create_group, collective over the members
  // only), made at its first window and freed at term after every window.
  struct GroupComm {
    std::vector<int> members; // env.comm() ranks, ascending
    MPI_Comm comm = MPI_COMM_NULL;
  };
  // The communicator for `members` (env.comm() itself when empty), made once. Under open_mutex_.
  gaspi_return_t group_comm(const std::vector<int> &members, MPI_Comm &comm);
  // The window of `rank`'s segment `seg` while it is the segment the window was opened over.
  [[nodiscard]] SegmentWindow *reach(MpiRank rank, const RemoteSegment &seg) const noexcept;

  Env *env_ = nullptr;
  MPI_Win win_ = MPI_WIN_NULL;
  WindowTickets tickets_;               // the dynamic window's transfers
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

  // Windows of single segments: by local segment id (nullptr: none, or forgotten), and every one
  // opened in this life cycle in the order of opening, which is the same on every rank (each
  // open is collective), so term closes them in that order. Entries below opened_count_ never
  // change until term.
  std::array<std::atomic<SegmentWindow *>, limits::kSegmentSlots> windows_{};
  std::array<std::unique_ptr<SegmentWindow>, kMaxSegmentWindows> opened_{};
  std::atomic<std::uint32_t> opened_count_{0};
  std::vector<GroupComm> comms_; // under open_mutex_
  std::mutex open_mutex_;        // one open at a time (two front ends' threads could both open)
};

} // namespace hygaspi::mpi
