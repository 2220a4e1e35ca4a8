/* A rank that initiates a collective and then waits for something else must still do its part in
 * the collective: GASNet's poll moves initiated collectives on. Rank 0 initiates a barrier and then
 * waits in GASNET_BLOCKUNTIL for an AM from every other rank, which each sends only once its own
 * wait for that barrier has returned. If rank 0's polls did not advance the barrier (rank 0 leads
 * its node), the others would never leave it and the job would hang. Once with
 * gex_Coll_BarrierNB, once with gasnet_barrier_notify, once with a reduction. */
#define GASNET_PAR 1
#include <gasnetex.h>
#include <stdio.h>
#include <stdlib.h>

#include "gex_check.h"

static volatile int arrived;
static void on_done(gex_Token_t t) {
  (void)t;
  __atomic_fetch_add(&arrived, 1, __ATOMIC_SEQ_CST);
}
static gex_AM_Entry_t table[] = {{0, (gex_AM_Fn_t)on_done, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "done"}};

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  gex_Segment_t seg;
  CHECK(gex_Client_Init(&client, &ep, &tm, "PROGRESS", &argc, &argv, 0) == GASNET_OK);
  CHECK(gex_EP_RegisterHandlers(ep, table, 1) == GASNET_OK);
  CHECK(gex_Segment_Attach(&seg, tm, GASNET_PAGESIZE) == GASNET_OK);
  const gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
  for (int round = 0; round < 3; ++round) {
    int64_t mine = me + 1, sum = 0;
    gex_Event_t e = GEX_EVENT_INVALID;
    if (me == 0) {
      if (round == 0)
        e = gex_Coll_BarrierNB(tm, 0);
      else if (round == 1)
        gasnet_barrier_notify(round, 0);
      else
        e = gex_Coll_ReduceToAllNB(tm, &sum, &mine, GEX_DT_I64, sizeof mine, 1, GEX_OP_ADD, NULL, NULL, 0);
      GASNET_BLOCKUNTIL(__atomic_load_n(&arrived, __ATOMIC_SEQ_CST) == (int)(n - 1) * (round + 1));
      if (round == 1)
        CHECK(gasnet_barrier_wait(round, 0) == GASNET_OK);
      else
        gex_Event_Wait(e);
    } else {
      if (round == 0)
        gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
      else if (round == 1)
        CHECK(gasnet_barrier(round, 0) == GASNET_OK);
      else
        gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, &sum, &mine, GEX_DT_I64, sizeof mine, 1, GEX_OP_ADD, NULL, NULL, 0));
      CHECK(gex_AM_RequestShort0(tm, 0, table[0].gex_index, 0) == GASNET_OK);
    }
    if (round == 2)
      CHECK(sum == (int64_t)n * (n + 1) / 2);
  }
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  if (me == 0) {
    printf("SUCCESS gex_progress\n");
    fflush(stdout);
  }
  gasnet_exit(0);
  return 0;
}
