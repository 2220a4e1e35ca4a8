// GASNet-EX RMA (ex_rma.hpp): the gex_RMA_* entry points, and the implementation that they and
// GASNet-1's extended API (extended.cpp) share.
//
// Every operation goes to the engine by (job rank, segment, offset) (bridge/segment_rma.hpp),
// which copies where this process maps the segment (a node peer: the operation completes before
// the call returns, and its event is GEX_EVENT_INVALID, as [G1 §3.3.2] allows) and uses MPI RMA on
// the segment's window otherwise. The blocking and NBI puts and gets of a client compiled against
// gasnet.h or gasnetex.h make the node copy inline (gasnet_inline.h, gasnetex_inline.h) and come
// here only when one of its checks fails. Measured on one host (osc/rdma, 2 ranks, each a node of
// its own, bench_gasnet): a raw MPI_Put or MPI_Get + flush of 8 B costs 0.7-1.4 us, two thirds of
// it in the kernel (process_vm_writev/readv: CMA), and ours is 1.0-1.2x that.
//
// Completion [G1 §3.3.1], [GEX "Events"]: what an operation still waits for is an
// engine::Completion (a ticket per target), settled by a flush of each target. lc_opt
// [GEX "Extended API", note 2a]: NOW leaves the source reusable at return (GASNet-1's non-bulk
// put: Complete::local), DEFER lets it wait for the sync (bulk), and GROUP is NOW here, so that
// GEX_EC_LC has nothing left to wait for.
//
// A test has no non-blocking MPI call to use: MPI-3 has none for remote completion (MPI_Rput's
// request completes locally only, MPI-3.1 §11.3.5), and only MPI_Win_flush says that the data is
// at the target. [G1 §3.3.1] makes a synced put one whose data "has been written to the
// destination location", and [G1 §3.3.3.1] has gasnet_try_syncnb "always return immediately". We
// keep the first: a test settles (flushes the targets an earlier flush did not pass) and says OK,
// unless a device copy it covers is still running: then it says not ready and flushes nothing (a
// copy has its own non-blocking test, its CUDA event). That flush is bounded: it waits for no
// action of this thread's client and no poll, only for MPI progress here and at the target (its
// progress thread, or its next MPI call), so a test loop never deadlocks on it; and it is the wait
// that would follow anyway.
#include "gasnet/ex_rma.hpp"

using namespace hygaspi;
using namespace hygaspi::gasnet;
using namespace hygaspi::gasnet::ex;
using engine::Completion;

namespace {

constexpr gex_Flags_t kRmaFlags = GEX_FLAG_IMMEDIATE | GEX_FLAG_LC_COPY_YES | GEX_FLAG_LC_COPY_NO;

// The entry checks of every RMA call on a team: `rank` of `tm` turns into a job rank. False when
// there is nothing to move (nbytes 0).
bool start(const char *call, gex_TM_t tm, gex_Rank_t &rank, gex_Flags_t flags, std::size_t nbytes) {
  rank = job_rank(call, tm, rank);
  require_segment(call);
  require_flags(call, flags, kRmaFlags);
  require_may_communicate(call);
  follow_remote_exit(); // a loop of transfers and syncs may never poll
  return nbytes > 0;
}

// RMA through a TM-pair (ex_mk.cpp's pair_copy): true when `tm` is one (and the call is made,
// its event in `event`); false for a team, and the caller goes on.
bool pair_rma(const char *call, gex_TM_t tm, gex_Rank_t rank, void *local, void *remote, std::size_t nbytes,
              gex_Flags_t flags, bool put, PairWait wait = PairWait::now, gex_Event_t *event = nullptr) {
  if (!is_pair(tm))
    return false;
  require_flags(call, flags, kRmaFlags);
  require_may_communicate(call);
  (void)pair_rank(call, rank);
  const gex_Event_t e = nbytes > 0 ? pair_copy(call, tm, rank, local, remote, nbytes, put, wait) : GEX_EVENT_INVALID;
  if (event != nullptr)
    *event = e;
  return true;
}

PutMode put_mode(gex_Event_t *lc_opt) { return lc_opt == GEX_EVENT_DEFER ? PutMode::at_sync : PutMode::source_free; }

// An operation with an event: `go(pending)` starts it into a fresh entry of the thread's table.
template <class Go> gex_Event_t with_event(const char *call, Go &&go) {
  const EventSlot slot = reserve_event(call);
  go(slot.pending);
  return commit_event(slot);
}

} // namespace

namespace hygaspi::gasnet::ex {

std::size_t value_size(const char *call, std::size_t nbytes) {
  if (nbytes == 0 || nbytes > sizeof(gex_RMA_Value_t))
    fatal(call, "nbytes %zu is not in 1..%zu", nbytes, sizeof(gex_RMA_Value_t));
  return nbytes;
}

void put_bytes(const char *call, gex_Rank_t rank, void *remote, const void *local, std::size_t n, PutMode mode,
               Completion *pending) {
  const std::uint64_t offset = segment_offset(call, rank, remote, n);
  require_host_memory(call, local, n);
  const engine::Complete complete = mode == PutMode::blocking      ? engine::Complete::remote
                                    : mode == PutMode::source_free ? engine::Complete::local
                                                                   : engine::Complete::none;
  if (engine::put(GlobalRank{rank}, limits::kGasnetSegment, offset, const_cast<void *>(local), n, complete,
                  mode == PutMode::blocking ? nullptr : pending) != GASPI_SUCCESS)
    fatal(call, "a put to rank %u failed", rank);
}

void get_bytes(const char *call, void *local, gex_Rank_t rank, const void *remote, std::size_t n, Completion *pending) {
  const std::uint64_t offset = segment_offset(call, rank, remote, n);
  require_host_memory(call, local, n);
  if (engine::get(local, GlobalRank{rank}, limits::kGasnetSegment, offset, n, pending) != GASPI_SUCCESS)
    fatal(call, "a get from rank %u failed", rank);
}

int put_blocking(const char *call, gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, std::size_t nbytes,
                 gex_Flags_t flags) {
  if (!pair_rma(call, tm, rank, const_cast<void *>(src), dest, nbytes, flags, true) &&
      start(call, tm, rank, flags, nbytes))
    put_bytes(call, rank, dest, src, nbytes, PutMode::blocking, nullptr);
  return 0;
}

int put_nbi(const char *call, gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, std::size_t nbytes,
            gex_Event_t *lc_opt, gex_Flags_t flags) {
  if (lc_opt != GEX_EVENT_NOW && lc_opt != GEX_EVENT_DEFER && lc_opt != GEX_EVENT_GROUP)
    fatal(call, "lc_opt must be GEX_EVENT_NOW, GEX_EVENT_DEFER or GEX_EVENT_GROUP");
  // DEFER leaves a device copy in flight (its source is read until then); NOW and GROUP wait for it.
  if (!pair_rma(call, tm, rank, const_cast<void *>(src), dest, nbytes, flags, true,
                lc_opt == GEX_EVENT_DEFER ? PairWait::nbi : PairWait::now) &&
      start(call, tm, rank, flags, nbytes))
    put_bytes(call, rank, dest, src, nbytes, put_mode(lc_opt), &nbi_set(GEX_EC_PUT));
  return 0;
}

// lc_opt [note 2b]: NOW, DEFER, or a pointer that receives the local completion event, complete
// at return here (GEX_EVENT_INVALID).
gex_Event_t put_nb(const char *call, gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, std::size_t nbytes,
                   gex_Event_t *lc_opt, gex_Flags_t flags) {
  if (lc_opt == nullptr || lc_opt == GEX_EVENT_GROUP)
    fatal(call, "lc_opt must be GEX_EVENT_NOW, GEX_EVENT_DEFER or the address of an event");
  gex_Event_t e = GEX_EVENT_INVALID;
  if (pair_rma(call, tm, rank, const_cast<void *>(src), dest, nbytes, flags, true,
               lc_opt == GEX_EVENT_DEFER ? PairWait::event : PairWait::now, &e))
    ; // e: the device copy in flight, or GEX_EVENT_INVALID
  else if (start(call, tm, rank, flags, nbytes))
    e = with_event(call, [&](Completion *p) { put_bytes(call, rank, dest, src, nbytes, put_mode(lc_opt), p); });
  if (lc_opt != GEX_EVENT_NOW && lc_opt != GEX_EVENT_DEFER)
    *lc_opt = GEX_EVENT_INVALID;
  return e;
}

int get_blocking(const char *call, gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, std::size_t nbytes,
                 gex_Flags_t flags) {
  if (!pair_rma(call, tm, rank, dest, src, nbytes, flags, false) && start(call, tm, rank, flags, nbytes))
    get_bytes(call, dest, rank, src, nbytes, nullptr);
  return 0;
}

int get_nbi(const char *call, gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, std::size_t nbytes,
            gex_Flags_t flags) {
  if (!pair_rma(call, tm, rank, dest, src, nbytes, flags, false, PairWait::nbi) && start(call, tm, rank, flags, nbytes))
    get_bytes(call, dest, rank, src, nbytes, &nbi_set(GEX_EC_GET));
  return 0;
}

gex_Event_t get_nb(const char *call, gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, std::size_t nbytes,
                   gex_Flags_t flags) {
  if (gex_Event_t e = GEX_EVENT_INVALID; pair_rma(call, tm, rank, dest, src, nbytes, flags, false, PairWait::event, &e))
    return e;
  if (!start(call, tm, rank, flags, nbytes))
    return GEX_EVENT_INVALID;
  return with_event(call, [&](Completion *p) { get_bytes(call, dest, rank, src, nbytes, p); });
}

// The value forms: the value's low nbytes are its first nbytes (little-endian) [G1 §3.4.1].
gex_RMA_Value_t get_blocking_val(const char *call, gex_TM_t tm, gex_Rank_t rank, void *src, std::size_t nbytes,
                                 gex_Flags_t flags) {
  gex_RMA_Value_t v = 0; // zero-extended [G1 §3.4.2]
  get_blocking(call, tm, &v, rank, src, value_size(call, nbytes), flags);
  return v;
}
int put_blocking_val(const char *call, gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                     std::size_t nbytes, gex_Flags_t flags) {
  return put_blocking(call, tm, rank, dest, &value, value_size(call, nbytes), flags);
}
int put_nbi_val(const char *call, gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value, std::size_t nbytes,
                gex_Flags_t flags) {
  return put_nbi(call, tm, rank, dest, &value, value_size(call, nbytes), GEX_EVENT_NOW, flags); // value: this stack
}
gex_Event_t put_nb_val(const char *call, gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                       std::size_t nbytes, gex_Flags_t flags) {
  return put_nb(call, tm, rank, dest, &value, value_size(call, nbytes), GEX_EVENT_NOW, flags);
}

} // namespace hygaspi::gasnet::ex

extern "C" {

int gex_RMA_PutBlocking(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes, gex_Flags_t flags) {
  return put_blocking("gex_RMA_PutBlocking", tm, rank, dest, src, nbytes, flags);
}
int gex_RMA_PutNBI(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes, gex_Event_t *lc_opt,
                   gex_Flags_t flags) {
  return put_nbi("gex_RMA_PutNBI", tm, rank, dest, src, nbytes, lc_opt, flags);
}
gex_Event_t gex_RMA_PutNB(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes, gex_Event_t *lc_opt,
                          gex_Flags_t flags) {
  return put_nb("gex_RMA_PutNB", tm, rank, dest, src, nbytes, lc_opt, flags);
}
int gex_RMA_GetBlocking(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes, gex_Flags_t flags) {
  return get_blocking("gex_RMA_GetBlocking", tm, dest, rank, src, nbytes, flags);
}
int gex_RMA_GetNBI(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes, gex_Flags_t flags) {
  return get_nbi("gex_RMA_GetNBI", tm, dest, rank, src, nbytes, flags);
}
gex_Event_t gex_RMA_GetNB(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes, gex_Flags_t flags) {
  return get_nb("gex_RMA_GetNB", tm, dest, rank, src, nbytes, flags);
}
gex_RMA_Value_t gex_RMA_GetBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *src, size_t nbytes, gex_Flags_t flags) {
  return get_blocking_val("gex_RMA_GetBlockingVal", tm, rank, src, nbytes, flags);
}
int gex_RMA_PutBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value, size_t nbytes,
                           gex_Flags_t flags) {
  return put_blocking_val("gex_RMA_PutBlockingVal", tm, rank, dest, value, nbytes, flags);
}
int gex_RMA_PutNBIVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value, size_t nbytes,
                      gex_Flags_t flags) {
  return put_nbi_val("gex_RMA_PutNBIVal", tm, rank, dest, value, nbytes, flags);
}
gex_Event_t gex_RMA_PutNBVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value, size_t nbytes,
                             gex_Flags_t flags) {
  return put_nb_val("gex_RMA_PutNBVal", tm, rank, dest, value, nbytes, flags);
}

} // extern "C"
