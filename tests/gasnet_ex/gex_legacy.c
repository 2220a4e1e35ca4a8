/* A GASNet-1 client that adopts GASNet-EX: gasnet_init/gasnet_attach, then gasnet_QueryGexObjects
 * and gex_ calls on those objects (a Short request and its reply, a put and a get to the next rank,
 * the segment bound query, the non-blocking barrier). */
#define GASNET_PAR 1
#include <gasnetex.h>
#include <stdio.h>
#include <stdlib.h>

#include "gex_check.h"

static volatile int pongs;
static void pong(gex_Token_t t, gex_AM_Arg_t v) {
  gex_Token_Info_t info;
  gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  CHECK(v == (gex_AM_Arg_t)info.gex_srcrank + 1000);
  __atomic_fetch_add(&pongs, 1, __ATOMIC_SEQ_CST);
}
static void ping(gex_Token_t t, gex_AM_Arg_t v) {
  CHECK(v == 7);
  CHECK(gex_AM_ReplyShort1(t, 201, 0, (gex_AM_Arg_t)gex_System_QueryJobRank() + 1000) == GASNET_OK);
}

int main(int argc, char **argv) {
  gasnet_handlerentry_t handlers[2] = {{200, (void (*)())ping}, {201, (void (*)())pong}};
  CHECK(gasnet_init(&argc, &argv) == GASNET_OK);
  CHECK(gasnet_attach(handlers, 2, 1 << 16, 0) == GASNET_OK);
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  gex_Segment_t seg;
  gasnet_QueryGexObjects(&client, &ep, &tm, &seg);
  CHECK(client != GEX_CLIENT_INVALID && ep != GEX_EP_INVALID && tm != GEX_TM_INVALID);
  CHECK(seg != GEX_SEGMENT_INVALID && gex_EP_QuerySegment(ep) == seg);
  CHECK((gex_Client_QueryFlags(client) & GEX_FLAG_USES_GASNET1) != 0);
  gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm), next = (me + 1) % n;
  CHECK(me == gasnet_mynode() && n == gasnet_nodes());
  gasnet_seginfo_t info[64];
  CHECK(n <= 64 && gasnet_getSegmentInfo(info, (int)n) == GASNET_OK);
  CHECK(gex_Segment_QueryAddr(seg) == info[me].addr && gex_Segment_QuerySize(seg) == info[me].size);
  void *owner = NULL;
  CHECK(gex_Segment_QueryBound(tm, next, &owner, NULL, NULL) == 0 && owner == info[next].addr);

  CHECK(gex_AM_RequestShort1(tm, next, 200, 0, 7) == GASNET_OK);
  GASNET_BLOCKUNTIL(pongs == 1);
  uint64_t v = 0x1234000000000000ull + me, back = 0;
  CHECK(gex_RMA_PutBlocking(tm, next, (char *)info[next].addr + 8 * me, &v, 8, 0) == 0);
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  gex_Rank_t prev = (me + n - 1) % n;
  CHECK(gex_RMA_GetBlocking(tm, &back, next, (char *)info[next].addr + 8 * me, 8, 0) == 0);
  CHECK(back == v && ((uint64_t *)info[me].addr)[prev] == 0x1234000000000000ull + prev);
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  if (me == 0)
    printf("SUCCESS gex_legacy\n");
  gasnet_exit(0);
  return 0;
}
