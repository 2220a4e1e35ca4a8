// GASNet-EX RMA, events, NBI completion and access regions, over the GASNet-1 extended API
// (extended.cpp); collective events are ex_coll.cpp's. Every address range is checked against the
// target's segment here first, so that a bad one is fatal naming the gex_ call.
//
// Events: an RMA event is the GASNet-1 handle (the types are interoperable [GEX "Events"]); an
// atomic's, a collective's and a TM-pair's device copy's are told apart by their bits
// (ex_internal.hpp), which no handle has.
#include "gasnet/ex_internal.hpp"

using namespace hygaspi;
using namespace hygaspi::gasnet;
using namespace hygaspi::gasnet::ex;

namespace {

constexpr gex_Flags_t kRmaFlags = GEX_FLAG_IMMEDIATE | GEX_FLAG_LC_COPY_YES | GEX_FLAG_LC_COPY_NO;

// The entry checks of every RMA call: `rank` of `tm` turns into a job rank. False when there is
// nothing to move (nbytes 0).
bool start(const char *call, gex_TM_t tm, gex_Rank_t &rank, const void *remote, std::size_t nbytes, gex_Flags_t flags) {
  rank = job_rank(call, tm, rank);
  require_segment(call);
  require_flags(call, flags, kRmaFlags);
  require_may_communicate(call);
  if (nbytes == 0)
    return false;
  (void)segment_offset(call, rank, remote, nbytes); // fatal outside rank's segment
  return true;
}

// RMA through a TM-pair (ex_mk.cpp's pair_copy): true when `tm` is one (and the call is made,
// its event in `event`); false for a team, and the caller goes on.
bool pair_rma(const char *call, gex_TM_t tm, gex_Rank_t rank, void *local, void *remote, std::size_t nbytes,
              gex_Flags_t flags, bool put, PairWait wait = PairWait::now, gex_Event_t *event = nullptr) {
  if (!is_pair(tm))
    return false;
  require_flags(call, flags, kRmaFlags);
  require_may_communicate(call);
  if (rank >= state().nodes)
    fatal(call, "rank %u is not in the job (%u ranks): a TM-pair names job ranks", rank, state().nodes);
  const gex_Event_t e = nbytes > 0 ? pair_copy(call, tm, rank, local, remote, nbytes, put, wait) : GEX_EVENT_INVALID;
  if (event != nullptr)
    *event = e;
  return true;
}

std::size_t value_size(const char *call, std::size_t nbytes) {
  if (nbytes == 0 || nbytes > sizeof(gex_RMA_Value_t))
    fatal(call, "nbytes %zu is not in 1..%zu", nbytes, sizeof(gex_RMA_Value_t));
  return nbytes;
}

// One event's test; true (and the event consumed) when it is complete.
bool test_one(const char *call, gex_Event_t e, bool block) {
  if (e == GEX_EVENT_INVALID)
    return true;
  if (e == GEX_EVENT_NO_OP)
    fatal(call, "GEX_EVENT_NO_OP cannot be tested or waited for");
  if (ad_event(e))
    return ad_event_test(call, e, block);
  if (is_coll_event(e))
    return coll_test(call, e, block);
  if (block) {
    gasnet_wait_syncnb(to_handle(e));
    return true;
  }
  return gasnet_try_syncnb(to_handle(e)) == GASNET_OK;
}

void require_no_flags(const char *call, gex_Flags_t flags) {
  if (flags != 0)
    fatal(call, "flags %#x: they are reserved and must be 0", static_cast<unsigned>(flags));
}

} // namespace

extern "C" {

int gex_RMA_PutBlocking(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes, gex_Flags_t flags) {
  if (pair_rma("gex_RMA_PutBlocking", tm, rank, const_cast<void *>(src), dest, nbytes, flags, true))
    return 0;
  if (start("gex_RMA_PutBlocking", tm, rank, dest, nbytes, flags))
    gasnet_put_bulk(rank, dest, const_cast<void *>(src), nbytes);
  return 0;
}

// lc_opt [GEX "Extended API", note 2a]: NOW leaves the source reusable at return (GASNet-1's
// non-bulk put); DEFER lets it wait for the sync (bulk); GROUP is NOW here, so that GEX_EC_LC has
// nothing left to wait for.
int gex_RMA_PutNBI(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes, gex_Event_t *lc_opt,
                   gex_Flags_t flags) {
  const char *call = "gex_RMA_PutNBI";
  if (lc_opt != GEX_EVENT_NOW && lc_opt != GEX_EVENT_DEFER && lc_opt != GEX_EVENT_GROUP)
    fatal(call, "lc_opt must be GEX_EVENT_NOW, GEX_EVENT_DEFER or GEX_EVENT_GROUP");
  // DEFER leaves a device copy in flight (its source is read until then); NOW and GROUP wait for it.
  if (pair_rma(call, tm, rank, const_cast<void *>(src), dest, nbytes, flags, true,
               lc_opt == GEX_EVENT_DEFER ? PairWait::nbi : PairWait::now))
    return 0;
  if (!start(call, tm, rank, dest, nbytes, flags))
    return 0;
  if (lc_opt == GEX_EVENT_DEFER)
    gasnet_put_nbi_bulk(rank, dest, const_cast<void *>(src), nbytes);
  else
    gasnet_put_nbi(rank, dest, const_cast<void *>(src), nbytes);
  return 0;
}

// lc_opt [note 2b]: NOW, DEFER, or a pointer that receives the local completion event, complete
// at return here (GEX_EVENT_INVALID).
gex_Event_t gex_RMA_PutNB(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes, gex_Event_t *lc_opt,
                          gex_Flags_t flags) {
  const char *call = "gex_RMA_PutNB";
  if (lc_opt == nullptr || lc_opt == GEX_EVENT_GROUP)
    fatal(call, "lc_opt must be GEX_EVENT_NOW, GEX_EVENT_DEFER or the address of an event");
  gex_Event_t e = GEX_EVENT_INVALID;
  if (pair_rma(call, tm, rank, const_cast<void *>(src), dest, nbytes, flags, true,
               lc_opt == GEX_EVENT_DEFER ? PairWait::event : PairWait::now, &e))
    ; // e: the device copy in flight, or GEX_EVENT_INVALID
  else if (start(call, tm, rank, dest, nbytes, flags))
    e = to_event(lc_opt == GEX_EVENT_DEFER ? gasnet_put_nb_bulk(rank, dest, const_cast<void *>(src), nbytes)
                                           : gasnet_put_nb(rank, dest, const_cast<void *>(src), nbytes));
  if (lc_opt != GEX_EVENT_NOW && lc_opt != GEX_EVENT_DEFER)
    *lc_opt = GEX_EVENT_INVALID;
  return e;
}

int gex_RMA_GetBlocking(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes, gex_Flags_t flags) {
  if (pair_rma("gex_RMA_GetBlocking", tm, rank, dest, src, nbytes, flags, false))
    return 0;
  if (start("gex_RMA_GetBlocking", tm, rank, src, nbytes, flags))
    gasnet_get_bulk(dest, rank, src, nbytes);
  return 0;
}
int gex_RMA_GetNBI(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes, gex_Flags_t flags) {
  if (pair_rma("gex_RMA_GetNBI", tm, rank, dest, src, nbytes, flags, false, PairWait::nbi))
    return 0;
  if (start("gex_RMA_GetNBI", tm, rank, src, nbytes, flags))
    gasnet_get_nbi_bulk(dest, rank, src, nbytes);
  return 0;
}
gex_Event_t gex_RMA_GetNB(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes, gex_Flags_t flags) {
  if (gex_Event_t e = GEX_EVENT_INVALID;
      pair_rma("gex_RMA_GetNB", tm, rank, dest, src, nbytes, flags, false, PairWait::event, &e))
    return e;
  if (!start("gex_RMA_GetNB", tm, rank, src, nbytes, flags))
    return GEX_EVENT_INVALID;
  return to_event(gasnet_get_nb_bulk(dest, rank, src, nbytes));
}

gex_RMA_Value_t gex_RMA_GetBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *src, size_t nbytes, gex_Flags_t flags) {
  const char *call = "gex_RMA_GetBlockingVal";
  if (gex_RMA_Value_t v = 0; pair_rma(call, tm, rank, &v, src, value_size(call, nbytes), flags, false))
    return v; // little-endian: the low nbytes hold the value
  start(call, tm, rank, src, value_size(call, nbytes), flags);
  return gasnet_get_val(rank, src, nbytes);
}
int gex_RMA_PutBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value, size_t nbytes,
                           gex_Flags_t flags) {
  const char *call = "gex_RMA_PutBlockingVal";
  if (pair_rma(call, tm, rank, &value, dest, value_size(call, nbytes), flags, true))
    return 0;
  start(call, tm, rank, dest, value_size(call, nbytes), flags);
  gasnet_put_val(rank, dest, value, nbytes);
  return 0;
}
int gex_RMA_PutNBIVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value, size_t nbytes,
                      gex_Flags_t flags) {
  const char *call = "gex_RMA_PutNBIVal";
  if (pair_rma(call, tm, rank, &value, dest, value_size(call, nbytes), flags, true))
    return 0;
  start(call, tm, rank, dest, value_size(call, nbytes), flags);
  gasnet_put_nbi_val(rank, dest, value, nbytes);
  return 0;
}
gex_Event_t gex_RMA_PutNBVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value, size_t nbytes,
                             gex_Flags_t flags) {
  const char *call = "gex_RMA_PutNBVal";
  if (pair_rma(call, tm, rank, &value, dest, value_size(call, nbytes), flags, true))
    return GEX_EVENT_INVALID;
  start(call, tm, rank, dest, value_size(call, nbytes), flags);
  return to_event(gasnet_put_nb_val(rank, dest, value, nbytes));
}

int gex_Event_Test(gex_Event_t event) {
  return test_one("gex_Event_Test", event, false) ? GASNET_OK : GASNET_ERR_NOT_READY;
}
void gex_Event_Wait(gex_Event_t event) { test_one("gex_Event_Wait", event, true); }

// [GEX]: success is all (or some) of the events complete, or none valid; completed ones become
// GEX_EVENT_INVALID.
int gex_Event_TestAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags) {
  const char *call = "gex_Event_TestAll";
  require_no_flags(call, flags);
  if (numevents > 0 && pevent == nullptr)
    fatal(call, "a null array of %zu events", numevents);
  bool all = true;
  for (size_t i = 0; i < numevents; ++i) {
    if (test_one(call, pevent[i], false))
      pevent[i] = GEX_EVENT_INVALID;
    else
      all = false;
  }
  return all ? GASNET_OK : GASNET_ERR_NOT_READY;
}
void gex_Event_WaitAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags) {
  const char *call = "gex_Event_WaitAll";
  require_no_flags(call, flags);
  if (numevents > 0 && pevent == nullptr)
    fatal(call, "a null array of %zu events", numevents);
  for (size_t i = 0; i < numevents; ++i) {
    test_one(call, pevent[i], true);
    pevent[i] = GEX_EVENT_INVALID;
  }
}
int gex_Event_TestSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags) {
  const char *call = "gex_Event_TestSome";
  require_no_flags(call, flags);
  if (numevents > 0 && pevent == nullptr)
    fatal(call, "a null array of %zu events", numevents);
  bool any_valid = false, any_done = false;
  for (size_t i = 0; i < numevents; ++i) {
    if (pevent[i] == GEX_EVENT_INVALID)
      continue;
    any_valid = true;
    if (test_one(call, pevent[i], false)) {
      pevent[i] = GEX_EVENT_INVALID;
      any_done = true;
    }
  }
  return !any_valid || any_done ? GASNET_OK : GASNET_ERR_NOT_READY;
}
void gex_Event_WaitSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags) {
  require_no_flags("gex_Event_WaitSome", flags);
  block_until([&] { return gex_Event_TestSome(pevent, numevents, 0) == GASNET_OK; });
}

// GEX_EC_AM and GEX_EC_LC have nothing outstanding: every AM payload and every NBI put's source
// is locally complete when its call returns. Atomics: GEX_EC_RMW, and SET and GET with the puts and
// the gets (ex_ad.cpp).
int gex_NBI_Test(gex_EC_t event_mask, gex_Flags_t flags) {
  const char *call = "gex_NBI_Test";
  require_no_flags(call, flags);
  require_may_communicate(call);
  if (!ad_nbi_test(call, event_mask))
    return GASNET_ERR_NOT_READY;
  const bool gets = (event_mask & GEX_EC_GET) != 0, puts = (event_mask & GEX_EC_PUT) != 0;
  if (gets && puts)
    return gasnet_try_syncnbi_all();
  if (gets)
    return gasnet_try_syncnbi_gets();
  if (puts)
    return gasnet_try_syncnbi_puts();
  return GASNET_OK;
}
void gex_NBI_Wait(gex_EC_t event_mask, gex_Flags_t flags) {
  const char *call = "gex_NBI_Wait";
  require_no_flags(call, flags);
  require_may_communicate(call);
  ad_nbi_wait(call, event_mask);
  if ((event_mask & GEX_EC_GET) != 0)
    gasnet_wait_syncnbi_gets();
  if ((event_mask & GEX_EC_PUT) != 0)
    gasnet_wait_syncnbi_puts();
}

void gex_NBI_BeginAccessRegion(gex_Flags_t flags) {
  require_no_flags("gex_NBI_BeginAccessRegion", flags);
  gasnet_begin_nbi_accessregion();
}
gex_Event_t gex_NBI_EndAccessRegion(gex_Flags_t flags) {
  require_no_flags("gex_NBI_EndAccessRegion", flags);
  return to_event(gasnet_end_nbi_accessregion());
}

} // extern "C"
