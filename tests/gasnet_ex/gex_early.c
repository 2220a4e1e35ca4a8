/* Before gex_Client_Init, gex_System_QueryJobRank/Size (and gasnet_mynode/nodes) answer
 * GEX_RANK_INVALID and 0, as GASNet-EX does.
 * A GASNet-EX client communicates from gex_Client_Init on [GEX "Active Messages", "Collectives"]:
 * it registers its handlers, meets the others in a barrier, and then sends Short and Medium
 * requests (with replies) to every rank and runs a reduction, all before it attaches a segment;
 * gex_Segment_QueryBound reports no segment meanwhile. It then attaches one and sends Long
 * requests into each peer's, which it learnt from QueryBound. With the argument `noattach` it
 * never attaches and ends with gasnet_exit(0): the job ends cleanly with exit code 0. */
#define GASNET_PAR 1
#include <gasnetex.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gex_check.h"

#define MAXR 64
#define MEDIUM 1000
#define LONG_BYTES 4096

static gex_TM_t tm;
static gex_Rank_t me, n;
static int requests, replies;

enum { H_SHORT, H_MEDIUM, H_LONG, H_REPLY, H_COUNT };
static gex_AM_Entry_t table[H_COUNT];
#define IDX(h) (table[h].gex_index)

static gex_Rank_t source(gex_Token_t t) {
  gex_Token_Info_t info;
  CHECK((gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK) != 0);
  return info.gex_srcrank;
}
static unsigned char byte_at(gex_Rank_t src, size_t i) { return (unsigned char)(src * 13u + i * 5u + 1u); }

/* Every request carries its sender and a check value; the reply returns the value plus one. */
static void req_short(gex_Token_t t, gex_AM_Arg_t from, gex_AM_Arg_t value) {
  CHECK((gex_Rank_t)from == source(t));
  CHECK(value == (gex_AM_Arg_t)(from * 100 + (gex_AM_Arg_t)me));
  __atomic_fetch_add(&requests, 1, __ATOMIC_SEQ_CST);
  OK(gex_AM_ReplyShort1(t, IDX(H_REPLY), 0, value + 1));
}
static void req_medium(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t from) {
  CHECK((gex_Rank_t)from == source(t) && nbytes == MEDIUM);
  for (size_t i = 0; i < nbytes; ++i)
    CHECK(((unsigned char *)buf)[i] == byte_at((gex_Rank_t)from, i));
  __atomic_fetch_add(&requests, 1, __ATOMIC_SEQ_CST);
  OK(gex_AM_ReplyShort1(t, IDX(H_REPLY), 0, (gex_AM_Arg_t)(from * 100 + (gex_AM_Arg_t)me) + 1));
}
static void req_long(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t from) {
  CHECK((gex_Rank_t)from == source(t) && nbytes == LONG_BYTES);
  void *base = NULL;
  uintptr_t size = 0;
  OK(gex_Segment_QueryBound(tm, me, &base, NULL, &size));
  CHECK((char *)buf == (char *)base + (size_t)from * LONG_BYTES);
  for (size_t i = 0; i < nbytes; ++i)
    CHECK(((unsigned char *)buf)[i] == byte_at((gex_Rank_t)from, i));
  __atomic_fetch_add(&requests, 1, __ATOMIC_SEQ_CST);
  OK(gex_AM_ReplyShort1(t, IDX(H_REPLY), 0, (gex_AM_Arg_t)(from * 100 + (gex_AM_Arg_t)me) + 1));
}
static void rep(gex_Token_t t, gex_AM_Arg_t value) {
  CHECK(value == (gex_AM_Arg_t)(me * 100 + (gex_AM_Arg_t)source(t)) + 1);
  __atomic_fetch_add(&replies, 1, __ATOMIC_SEQ_CST);
}

static void barrier(void) { gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); }
static int load(int *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }

/* One request of `h` to every rank (itself included), then every reply and every request in. */
static void round_of(int h, int round) {
  static unsigned char out[LONG_BYTES];
  for (size_t i = 0; i < sizeof out; ++i)
    out[i] = byte_at(me, i);
  for (gex_Rank_t r = 0; r < n; ++r) {
    const gex_AM_Arg_t value = (gex_AM_Arg_t)(me * 100 + r);
    if (h == H_SHORT) {
      OK(gex_AM_RequestShort2(tm, r, IDX(H_SHORT), 0, (gex_AM_Arg_t)me, value));
    } else if (h == H_MEDIUM) {
      OK(gex_AM_RequestMedium1(tm, r, IDX(H_MEDIUM), out, MEDIUM, GEX_EVENT_NOW, 0, (gex_AM_Arg_t)me));
    } else {
      void *base = NULL;
      uintptr_t size = 0;
      OK(gex_Segment_QueryBound(tm, r, &base, NULL, &size));
      CHECK(size >= (uintptr_t)n * LONG_BYTES);
      OK(gex_AM_RequestLong1(tm, r, IDX(H_LONG), out, LONG_BYTES, (char *)base + (size_t)me * LONG_BYTES, GEX_EVENT_NOW,
                             0, (gex_AM_Arg_t)me));
    }
  }
  /* Requests of a faster rank's next round may come in already: at least this round's. */
  GASNET_BLOCKUNTIL(load(&replies) == round * (int)n && load(&requests) >= round * (int)n);
}

int main(int argc, char **argv) {
  const int attach = !(argc > 1 && strcmp(argv[1], "noattach") == 0);
  gex_Client_t client;
  gex_EP_t ep;
  /* Before the client exists, the job's queries answer as GASNet-EX's do: no rank, no ranks. */
  CHECK(gex_System_QueryJobRank() == GEX_RANK_INVALID && gex_System_QueryJobSize() == 0);
  CHECK(gasnet_mynode() == (gasnet_node_t)-1 && gasnet_nodes() == 0);
  OK(gex_Client_Init(&client, &ep, &tm, "EARLY", &argc, &argv, 0));
  CHECK(gex_System_QueryJobRank() == gex_TM_QueryRank(tm) && gex_System_QueryJobSize() == gex_TM_QuerySize(tm));
  me = gex_TM_QueryRank(tm);
  n = gex_TM_QuerySize(tm);
  CHECK(n <= MAXR);
  const gex_Flags_t req = GEX_FLAG_AM_REQUEST, reply = GEX_FLAG_AM_REPLY;
  table[H_SHORT] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)req_short, req | GEX_FLAG_AM_SHORT, 2, NULL, "short"};
  table[H_MEDIUM] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)req_medium, req | GEX_FLAG_AM_MEDIUM, 1, NULL, "medium"};
  table[H_LONG] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)req_long, req | GEX_FLAG_AM_LONG, 1, NULL, "long"};
  table[H_REPLY] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)rep, reply | GEX_FLAG_AM_SHORT, 1, NULL, "reply"};
  OK(gex_EP_RegisterHandlers(ep, table, H_COUNT));
  barrier(); /* every rank's handlers are registered */

  /* No segment yet: QueryBound says so and leaves its outputs alone. */
  void *addr = &addr;
  CHECK(gex_Segment_QueryBound(tm, (me + 1) % n, &addr, NULL, NULL) != GASNET_OK);
  CHECK(addr == &addr);
  CHECK(gex_EP_QuerySegment(ep) == GEX_SEGMENT_INVALID);

  round_of(H_SHORT, 1);
  round_of(H_MEDIUM, 2);
  uint64_t mine = (uint64_t)me + 1, sum = 0;
  gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, &sum, &mine, GEX_DT_U64, sizeof mine, 1, GEX_OP_ADD, NULL, NULL, 0));
  CHECK(sum == (uint64_t)n * (n + 1) / 2);
  barrier();

  if (attach) {
    gex_Segment_t seg = GEX_SEGMENT_INVALID;
    OK(gex_Segment_Attach(&seg, tm,
                          ((uintptr_t)MAXR * LONG_BYTES + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE));
    CHECK(seg != GEX_SEGMENT_INVALID && gex_EP_QuerySegment(ep) == seg);
    round_of(H_LONG, 3);
    round_of(H_SHORT, 4);
    barrier();
  }
  if (me == 0) {
    printf("SUCCESS gex_early%s\n", attach ? "" : " noattach");
    fflush(stdout);
  }
  gasnet_exit(0);
  return 1;
}
