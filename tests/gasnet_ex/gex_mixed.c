/* GASNet-EX teams beside GASPI groups in one program, on one engine: every GASPI group id is
 * taken (group_max groups, several with the same members as an EX team), and EX collectives over
 * the primordial team and split teams run interleaved with GASPI barriers and allreduces over
 * groups of the same members; an EX reduction stays outstanding across GASPI collectives. Each
 * result is checked against the serial answer.
 * Then more GASPI lives while EX keeps the engine up: each makes a segment, writes into the right
 * neighbour's with a notification, and meets in a barrier and an allreduce. (The second life's
 * GASPI_GROUP_ALL once took the tag of the first, and a node peer still in the first life, or
 * just past its term, attached to the old life's collective area: "cannot map shared memory".) */
#define GASNET_PAR 1
#include <GASPI.h>
#include <gasnetex.h>
#include <stdio.h>
#include <stdlib.h>

#include "gex_check.h"
#define GOK(call) CHECK((call) == GASPI_SUCCESS)

static void gaspi_life(gex_Rank_t me, gex_Rank_t n, int life) {
  GOK(gaspi_proc_init(GASPI_BLOCK));
  GOK(gaspi_segment_create(0, 4096, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  gaspi_pointer_t base;
  GOK(gaspi_segment_ptr(0, &base));
  long *words = (long *)base;
  words[0] = (long)me * 100 + life;
  const gaspi_rank_t right = (gaspi_rank_t)((me + 1) % n), left = (gaspi_rank_t)((me + n - 1) % n);
  GOK(gaspi_write_notify(0, 0, right, 0, 64, sizeof(long), 0, 1, 0, GASPI_BLOCK));
  GOK(gaspi_wait(0, GASPI_BLOCK));
  gaspi_notification_id_t id;
  gaspi_notification_t value;
  GOK(gaspi_notify_waitsome(0, 0, 1, &id, GASPI_BLOCK));
  GOK(gaspi_notify_reset(0, id, &value));
  CHECK(value == 1 && words[8] == (long)left * 100 + life);
  GOK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  long one = 1, ranks = 0;
  GOK(gaspi_allreduce(&one, &ranks, 1, GASPI_OP_SUM, GASPI_TYPE_LONG, GASPI_GROUP_ALL, GASPI_BLOCK));
  CHECK(ranks == (long)n);
  GOK(gaspi_segment_delete(0));
  GOK(gaspi_proc_term(GASPI_BLOCK));
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t world;
  gex_Segment_t seg;
  CHECK(gex_Client_Init(&client, &ep, &world, "GEXMIXED", &argc, &argv, 0) == GASNET_OK);
  CHECK(gex_Segment_Attach(&seg, world, 1 << 16) == GASNET_OK);
  GOK(gaspi_proc_init(GASPI_BLOCK));
  const gex_Rank_t me = gex_System_QueryJobRank(), n = gex_System_QueryJobSize();

  /* GASPI: the groups of even and odd ranks, then groups of every rank until group_max. */
  gaspi_number_t group_max;
  GOK(gaspi_group_max(&group_max));
  gaspi_group_t parity_group;
  GOK(gaspi_group_create(&parity_group));
  for (gex_Rank_t r = me % 2; r < n; r += 2)
    GOK(gaspi_group_add(parity_group, (gaspi_rank_t)r));
  GOK(gaspi_group_commit(parity_group, GASPI_BLOCK));
  gaspi_number_t groups;
  GOK(gaspi_group_num(&groups));
  while (groups < group_max) {
    gaspi_group_t g;
    GOK(gaspi_group_create(&g));
    for (gex_Rank_t r = 0; r < n; ++r)
      GOK(gaspi_group_add(g, (gaspi_rank_t)r));
    GOK(gaspi_group_commit(g, GASPI_BLOCK));
    GOK(gaspi_group_num(&groups));
  }

  /* EX: the same even/odd split. */
  gex_TM_t parity;
  gex_TM_Split(&parity, world, (int)(me % 2), (int)me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  const gex_Rank_t psize = gex_TM_QuerySize(parity);
  CHECK(psize == (n - me % 2 + 1) / 2);

  for (int round = 0; round < 50; ++round) {
    /* An EX reduction over each team, outstanding across the GASPI collectives of the same members. */
    int64_t mine = (int64_t)me * 1000 + round, all_sum = 0, parity_max = -1;
    gex_Event_t ev[2];
    ev[0] = gex_Coll_ReduceToAllNB(world, &all_sum, &mine, GEX_DT_I64, 8, 1, GEX_OP_ADD, NULL, NULL, 0);
    ev[1] = gex_Coll_ReduceToAllNB(parity, &parity_max, &mine, GEX_DT_I64, 8, 1, GEX_OP_MAX, NULL, NULL, 0);
    long gsum = 0, gmine = (long)mine;
    GOK(gaspi_allreduce(&gmine, &gsum, 1, GASPI_OP_SUM, GASPI_TYPE_LONG, GASPI_GROUP_ALL, GASPI_BLOCK));
    GOK(gaspi_barrier(parity_group, GASPI_BLOCK));
    long gmin = 0;
    GOK(gaspi_allreduce(&gmine, &gmin, 1, GASPI_OP_MIN, GASPI_TYPE_LONG, parity_group, GASPI_BLOCK));
    gex_Event_WaitAll(ev, 2, 0);
    const int64_t want_sum = (int64_t)1000 * n * (n - 1) / 2 + (int64_t)n * round;
    gex_Rank_t top = n - 1;
    if (top % 2 != me % 2)
      --top;
    CHECK(all_sum == want_sum && gsum == (long)want_sum);
    CHECK(parity_max == (int64_t)top * 1000 + round && gmin == (long)(me % 2) * 1000 + round);
    gex_Event_Wait(gex_Coll_BarrierNB(parity, 0));
    GOK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
    gex_Event_Wait(gex_Coll_BarrierNB(world, 0));
  }
  CHECK(gex_TM_Destroy(parity, NULL, 0) == 0);
  GOK(gaspi_proc_term(GASPI_BLOCK));
  gex_Event_Wait(gex_Coll_BarrierNB(world, 0));
  for (int life = 1; life <= 3; ++life) {
    gaspi_life(me, n, life);
    gex_Event_Wait(gex_Coll_BarrierNB(world, 0));
  }
  if (me == 0) {
    printf("SUCCESS gex_mixed\n");
    fflush(stdout);
  }
  gasnet_exit(0);
  return 0;
}
