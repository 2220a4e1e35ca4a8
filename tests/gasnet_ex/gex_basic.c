/* The first layer of the GASNet-EX front end (gasnetex.h) on every path: client and job queries,
 * neighbourhoods, segment attach and bound queries against every rank's own report, handler
 * registration, Short/Medium/Long requests and replies (0, 1, 8 and 16 arguments; payloads of 0,
 * 1 and the largest bytes, all checked) with gex_Token_Info, every RMA form against data each
 * peer wrote, events, NBI completion and an access region, HSLs, the non-blocking barrier, and bad
 * input that the spec answers with an error code.
 *
 * With an argument it runs one fatal scene instead (CMakeLists.txt checks the message):
 *   badput: a put that ends past the target's segment;  badam: a Long request before
 *   gex_Segment_Attach (no segment to land in; Short and Medium ones work then: gex_early.c);
 *   nullput, nullget, wrapget, nullmed, nulllong: a local buffer that is null, or wraps around
 *   the address space (over MPI, Open MPI's cross-memory attach failed on these and retried
 *   without end); leafall: gex_Event_QueryLeaf of GEX_EC_ALL;  badnargs, badcat, reqtoreply: a
 *   message that breaks its handler's registration (argument count, category, request or
 *   reply), fatal at its target. */
#define GASNET_PAR 1
#include <gasnetex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gex_check.h"

#define MAXR 16
#define SLOT 65536u            /* per peer: its Long requests and our replies (AM phase), its puts (RMA phase) */
#define HOME_OFF (MAXR * SLOT) /* this rank's own pattern, which peers read */
#define HOME_SIZE 8192u
#define SEG_SIZE (HOME_OFF + 2 * 65536u) /* the slots, home, and a spare page run */

static gex_Client_t client;
static gex_EP_t ep;
static gex_TM_t tm;
static gex_Segment_t seg;
static gex_Rank_t me, n;
static char *owner_addr[MAXR]; /* every rank's segment as it reported it (AM exchange) */
static uintptr_t owner_size[MAXR];
static volatile int got_seginfo, got_replies, got_requests;
static int cdata_tag;

static gex_AM_Arg_t argval(gex_Rank_t src, int i) { return (gex_AM_Arg_t)(0x5a000000 + (int)src * 1000 + i * 7 + 1); }
static unsigned char byte_at(gex_Rank_t src, size_t i, int reply) {
  return (unsigned char)(src * 31u + i * 7u + (reply ? 101u : 3u));
}
static void check_args(gex_Rank_t src, int nargs, const gex_AM_Arg_t *a) {
  for (int i = 0; i < nargs; ++i)
    CHECK(a[i] == argval(src, i));
}
/* The Token_Info of a handler registered with `index` and flags for `is_long`. */
static void check_info(gex_Token_t t, gex_Rank_t src, int is_req, int is_long) {
  gex_Token_Info_t info;
  gex_TI_t got = gex_Token_Info(t, &info, GEX_TI_ALL);
  CHECK((got & (GEX_TI_SRCRANK | GEX_TI_EP)) == (GEX_TI_SRCRANK | GEX_TI_EP));
  CHECK(info.gex_srcrank == src && info.gex_ep == ep);
  if (got & GEX_TI_IS_REQ)
    CHECK((int)info.gex_is_req == is_req);
  if (got & GEX_TI_IS_LONG)
    CHECK((int)info.gex_is_long == is_long);
  if (got & GEX_TI_ENTRY)
    CHECK(info.gex_entry != NULL && info.gex_entry->gex_cdata == &cdata_tag);
}
static gex_Rank_t source(gex_Token_t t) {
  gex_Token_Info_t info;
  gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  return info.gex_srcrank;
}

/* ---- handlers. Indices: the table's order, each "don't care" (0), gets 255, 254, ... */
enum { H_SEGINFO, H_S0, H_S1, H_S8, H_S16, H_S_REP, H_MED, H_MED_REP, H_LONG, H_LONG_REP, H_LONG0, H_COUNT };
static gex_AM_Entry_t table[H_COUNT];
#define IDX(h) (table[h].gex_index)

static void seginfo(gex_Token_t t, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3) {
  gex_Rank_t src = source(t);
  owner_addr[src] = (char *)(uintptr_t)(((uint64_t)(uint32_t)a0 << 32) | (uint32_t)a1);
  owner_size[src] = (uintptr_t)(((uint64_t)(uint32_t)a2 << 32) | (uint32_t)a3);
  __atomic_fetch_add(&got_seginfo, 1, __ATOMIC_SEQ_CST);
}
static void reply_short(gex_Token_t t, gex_AM_Arg_t nargs) {
  check_info(t, source(t), 0, 0);
  CHECK(nargs == 0 || nargs == 1 || nargs == 8 || nargs == 16);
  __atomic_fetch_add(&got_replies, 1, __ATOMIC_SEQ_CST);
}
static void req_s0(gex_Token_t t) {
  check_info(t, source(t), 1, 0);
  __atomic_fetch_add(&got_requests, 1, __ATOMIC_SEQ_CST);
  OK(gex_AM_ReplyShort1(t, IDX(H_S_REP), 0, 0));
}
static void req_s1(gex_Token_t t, gex_AM_Arg_t a0) {
  gex_AM_Arg_t a[1] = {a0};
  check_info(t, source(t), 1, 0);
  check_args(source(t), 1, a);
  __atomic_fetch_add(&got_requests, 1, __ATOMIC_SEQ_CST);
  OK(gex_AM_ReplyShort(t, IDX(H_S_REP), 0, 1)); /* the count-less form */
}
static void req_s8(gex_Token_t t, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4,
                   gex_AM_Arg_t a5, gex_AM_Arg_t a6, gex_AM_Arg_t a7) {
  gex_AM_Arg_t a[8] = {a0, a1, a2, a3, a4, a5, a6, a7};
  check_info(t, source(t), 1, 0);
  check_args(source(t), 8, a);
  __atomic_fetch_add(&got_requests, 1, __ATOMIC_SEQ_CST);
  OK(gex_AM_ReplyShort1(t, IDX(H_S_REP), 0, 8));
}
static void req_s16(gex_Token_t t, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4,
                    gex_AM_Arg_t a5, gex_AM_Arg_t a6, gex_AM_Arg_t a7, gex_AM_Arg_t a8, gex_AM_Arg_t a9,
                    gex_AM_Arg_t a10, gex_AM_Arg_t a11, gex_AM_Arg_t a12, gex_AM_Arg_t a13, gex_AM_Arg_t a14,
                    gex_AM_Arg_t a15) {
  gex_AM_Arg_t a[16] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15};
  check_info(t, source(t), 1, 0);
  check_args(source(t), 16, a);
  __atomic_fetch_add(&got_requests, 1, __ATOMIC_SEQ_CST);
  OK(gex_AM_ReplyShort1(t, IDX(H_S_REP), 0, 16));
}

static unsigned char med_out[16384 + 64];
static void fill(unsigned char *p, size_t nbytes, gex_Rank_t src, int reply) {
  for (size_t i = 0; i < nbytes; ++i)
    p[i] = byte_at(src, i, reply);
}
static void check_bytes(const void *buf, size_t nbytes, gex_Rank_t src, int reply) {
  const unsigned char *p = (const unsigned char *)buf;
  for (size_t i = 0; i < nbytes; ++i)
    CHECK(p[i] == byte_at(src, i, reply));
}
/* Medium request: checks its bytes, replies with as many of its own. */
static void req_med(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t want) {
  static unsigned char out[16384];
  check_info(t, source(t), 1, 0);
  CHECK(nbytes == (size_t)want);
  CHECK(nbytes == 0 || ((uintptr_t)buf & 7u) == 0);
  check_bytes(buf, nbytes, source(t), 0);
  fill(out, nbytes, me, 1);
  gex_Event_t lc;
  OK(gex_AM_ReplyMedium1(t, IDX(H_MED_REP), out, nbytes, &lc, 0, want));
  (void)lc; /* complete at return here; testing events is not allowed in a handler */
  __atomic_fetch_add(&got_requests, 1, __ATOMIC_SEQ_CST);
}
static void rep_med(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t want) {
  check_info(t, source(t), 0, 0);
  CHECK(nbytes == (size_t)want);
  check_bytes(buf, nbytes, source(t), 1);
  __atomic_fetch_add(&got_replies, 1, __ATOMIC_SEQ_CST);
}
/* Long request into this rank's slot of the sender; the reply goes to the sender's slot of us. */
static void req_long(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t want) {
  gex_Rank_t src = source(t);
  check_info(t, src, 1, 1);
  CHECK(nbytes == (size_t)want);
  CHECK(buf == (char *)gex_Segment_QueryAddr(seg) + (size_t)src * SLOT);
  check_bytes(buf, nbytes, src, 0);
  static unsigned char out[SLOT / 2];
  fill(out, nbytes, me, 1);
  OK(gex_AM_ReplyLong1(t, IDX(H_LONG_REP), out, nbytes, owner_addr[src] + (size_t)me * SLOT + SLOT / 2, GEX_EVENT_NOW,
                       0, want));
  __atomic_fetch_add(&got_requests, 1, __ATOMIC_SEQ_CST);
}
static void rep_long(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t want) {
  gex_Rank_t src = source(t);
  check_info(t, src, 0, 1);
  CHECK(nbytes == (size_t)want);
  CHECK(buf == (char *)gex_Segment_QueryAddr(seg) + (size_t)src * SLOT + SLOT / 2);
  check_bytes(buf, nbytes, src, 1);
  __atomic_fetch_add(&got_replies, 1, __ATOMIC_SEQ_CST);
}

/* A Long of 0 bytes: the handler gets dest_addr as the initiator gave it, even outside the segment
 * or null ([GEX "Misc semantic strengthening"]); the address travels in the two arguments too. */
static void req_long0(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t hi, gex_AM_Arg_t lo) {
  check_info(t, source(t), 1, 1);
  CHECK(nbytes == 0);
  CHECK((uintptr_t)buf == (uintptr_t)(((uint64_t)(uint32_t)hi << 32) | (uint32_t)lo));
  OK(gex_AM_ReplyShort1(t, IDX(H_S_REP), 0, 0));
  __atomic_fetch_add(&got_requests, 1, __ATOMIC_SEQ_CST);
}

static void entry(int h, void (*fn)(), gex_Flags_t flags, unsigned nargs, const char *name) {
  table[h].gex_index = 0;
  table[h].gex_fnptr = (gex_AM_Fn_t)fn;
  table[h].gex_flags = flags;
  table[h].gex_nargs = nargs;
  table[h].gex_cdata = &cdata_tag;
  table[h].gex_name = name;
}

static void barrier(void) {
  gex_Event_t e = gex_Coll_BarrierNB(tm, 0);
  gex_Event_Wait(e);
}
static void wait_counter(volatile int *c, int want) {
  GASNET_BLOCKUNTIL(__atomic_load_n(c, __ATOMIC_SEQ_CST) >= want);
  CHECK(*c == want);
}

static void test_queries(void) {
  me = gex_System_QueryJobRank();
  n = gex_System_QueryJobSize();
  CHECK(n >= 1 && n <= MAXR && me < n);
  CHECK(gex_TM_QueryRank(tm) == me && gex_TM_QuerySize(tm) == n);
  CHECK(me == gasnet_mynode() && n == gasnet_nodes());
  CHECK(gex_TM_QueryEP(tm) == ep && gex_TM_QueryClient(tm) == client && gex_EP_QueryClient(ep) == client);
  CHECK(gex_EP_QueryIndex(ep) == 0);
  CHECK(strcmp(gex_Client_QueryName(client), "GEXTEST") == 0);
  CHECK(gex_Client_QueryFlags(client) == GEX_FLAG_USES_GASNET1);
  CHECK(gex_Client_QueryCData(client) == NULL && gex_EP_QueryCData(ep) == NULL && gex_TM_QueryCData(tm) == NULL);
  gex_Client_SetCData(client, &client);
  gex_EP_SetCData(ep, &ep);
  gex_TM_SetCData(tm, &tm);
  CHECK(gex_Client_QueryCData(client) == &client && gex_EP_QueryCData(ep) == &ep && gex_TM_QueryCData(tm) == &tm);
  CHECK(GEX_RANK_INVALID > n);
  for (gex_Rank_t r = 0; r < n; ++r)
    CHECK(gex_TM_TranslateRankToJobrank(tm, r) == r && gex_TM_TranslateJobrankToRank(tm, r) == r);

  gex_RankInfo_t *info = NULL;
  gex_Rank_t count = 0, mine = 0, nsets = 0, myset = 0, hsets = 0, hset = 0;
  gex_System_QueryNbrhdInfo(&info, &count, &mine);
  CHECK(info != NULL && count >= 1 && mine < count && info[mine].gex_jobrank == me);
  gasnet_nodeinfo_t nodeinfo[MAXR];
  OK(gasnet_getNodeInfo(nodeinfo, (int)n));
  gex_Rank_t same = 0;
  for (gex_Rank_t r = 0; r < n; ++r)
    same += nodeinfo[r].supernode == nodeinfo[me].supernode;
  CHECK(count == same);
  for (gex_Rank_t i = 0; i < count; ++i) {
    CHECK(nodeinfo[info[i].gex_jobrank].supernode == nodeinfo[me].supernode);
    CHECK(i == 0 || info[i - 1].gex_jobrank < info[i].gex_jobrank);
  }
  gex_System_QueryHostInfo(&info, &count, &mine);
  CHECK(info != NULL && count >= 1 && info[mine].gex_jobrank == me);
  gex_System_QueryMyPosition(&nsets, &myset, &hsets, &hset);
  CHECK(nsets >= 1 && myset < nsets && hsets >= 1 && hset < hsets && nsets <= n);
}

static void test_registration(void) {
  entry(H_SEGINFO, (void (*)())seginfo, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 4, "seginfo");
  entry(H_S0, (void (*)())req_s0, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, "s0");
  entry(H_S1, (void (*)())req_s1, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, "s1");
  entry(H_S8, (void (*)())req_s8, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 8, "s8");
  entry(H_S16, (void (*)())req_s16, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 16, "s16");
  entry(H_S_REP, (void (*)())reply_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, "s_rep");
  entry(H_MED, (void (*)())req_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, "med");
  entry(H_MED_REP, (void (*)())rep_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 1, "med_rep");
  entry(H_LONG, (void (*)())req_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQREP, 1, "long");
  entry(H_LONG_REP, (void (*)())rep_long, GEX_FLAG_AM_MEDLONG | GEX_FLAG_AM_REPLY, 1, "long_rep");
  entry(H_LONG0, (void (*)())req_long0, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 2, "long0");
  table[H_SEGINFO].gex_index = 200; /* one fixed index; the rest "don't care" */
  /* Bad tables, refused whole: a reserved index, and flags without Request/Reply. */
  gex_AM_Entry_t bad = table[H_S0];
  bad.gex_index = 5;
  CHECK(gex_EP_RegisterHandlers(ep, &bad, 1) == GASNET_ERR_BAD_ARG);
  bad.gex_index = 0;
  bad.gex_flags = GEX_FLAG_AM_SHORT;
  CHECK(gex_EP_RegisterHandlers(ep, &bad, 1) == GASNET_ERR_BAD_ARG);
  OK(gex_EP_RegisterHandlers(ep, table, 2)); /* incrementally: two now, the rest below */
  OK(gex_EP_RegisterHandlers(ep, table + 2, H_COUNT - 2));
  CHECK(table[H_SEGINFO].gex_index == 200);
  for (int h = 1; h < H_COUNT; ++h) /* highest free first, in table order */
    CHECK(table[h].gex_index == 256 - h);
  bad = table[H_SEGINFO]; /* index 200 is taken now */
  CHECK(gex_EP_RegisterHandlers(ep, &bad, 1) == GASNET_ERR_BAD_ARG);
}

static void test_segment(void) {
  CHECK(gex_EP_QuerySegment(ep) == GEX_SEGMENT_INVALID);
  void *p = (void *)&seg;
  CHECK(gex_Segment_QueryBound(tm, me, &p, NULL, NULL) != 0 && p == (void *)&seg);
  CHECK(gex_Segment_Attach(&seg, tm, 1000) == GASNET_ERR_BAD_ARG);
  OK(gex_Segment_Attach(&seg, tm, SEG_SIZE));
#ifndef GASNET_HYG_NO_INLINE
  /* The inline node path is open where this program reads it (its copies of the library's
   * variables, if the executable holds any). */
  CHECK(gex_hyg_tm0 == tm && gasnet_hyg_segments_v1 != NULL && gasnet_hyg_nnodes == gex_TM_QuerySize(tm));
#endif
  CHECK(gex_Segment_Attach(&seg, tm, SEG_SIZE) == GASNET_ERR_RESOURCE);
  CHECK(seg != GEX_SEGMENT_INVALID && gex_EP_QuerySegment(ep) == seg && gex_Segment_QueryClient(seg) == client);
  CHECK(gex_Segment_QuerySize(seg) >= SEG_SIZE && gex_Segment_QueryAddr(seg) != NULL);
  gex_Segment_SetCData(seg, &seg);
  CHECK(gex_Segment_QueryCData(seg) == &seg);
  /* Every rank tells every rank where its segment is; the bound queries must agree. */
  char *base = (char *)gex_Segment_QueryAddr(seg);
  uint64_t b = (uint64_t)(uintptr_t)base, s = gex_Segment_QuerySize(seg);
  for (gex_Rank_t r = 0; r < n; ++r)
    OK(gex_AM_RequestShort4(tm, r, IDX(H_SEGINFO), 0, (uint32_t)(b >> 32), (uint32_t)b, (uint32_t)(s >> 32),
                            (uint32_t)s));
  wait_counter(&got_seginfo, (int)n);
  gasnet_nodeinfo_t nodeinfo[MAXR];
  OK(gasnet_getNodeInfo(nodeinfo, (int)n));
  for (gex_Rank_t r = 0; r < n; ++r) {
    void *owner = NULL, *local = &p;
    uintptr_t size = 0;
    OK(gex_Segment_QueryBound(tm, r, &owner, &local, &size));
    CHECK(owner == owner_addr[r] && size == owner_size[r]);
    if (nodeinfo[r].supernode == nodeinfo[me].supernode)
      CHECK(local == (char *)owner + nodeinfo[r].offset);
    else
      CHECK(local == NULL);
    if (r == me)
      CHECK(owner == base && local == base);
  }
  OK(gex_Segment_QueryBound(tm, me, NULL, NULL, NULL));
  barrier();
}

static void test_am(void) {
  const int nn = (int)n;
  gex_AM_Arg_t a[16];
  for (int i = 0; i < 16; ++i)
    a[i] = argval(me, i);
  CHECK(gex_AM_MaxArgs() >= 16);
  /* Short: 0, 1, 8 and 16 arguments to every rank, each answered by a reply. */
  for (gex_Rank_t r = 0; r < n; ++r) {
    OK(gex_AM_RequestShort0(tm, r, IDX(H_S0), 0));
    OK(gex_AM_RequestShort(tm, r, IDX(H_S1), 0, a[0]));
    OK(gex_AM_RequestShort8(tm, r, IDX(H_S8), GEX_FLAG_IMMEDIATE, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]));
    OK(gex_AM_RequestShort16(tm, r, IDX(H_S16), 0, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10],
                             a[11], a[12], a[13], a[14], a[15]));
  }
  wait_counter(&got_replies, 4 * nn);
  barrier();
  CHECK(got_requests == 4 * nn);
  got_replies = got_requests = 0;
  barrier();

  /* Medium: 0, 1 and the largest payload, with each lc_opt a request accepts. */
  size_t maxmed = gex_AM_MaxRequestMedium(tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 1);
  CHECK(maxmed >= 512 && maxmed <= sizeof med_out && maxmed == gex_AM_LUBRequestMedium());
  CHECK(gex_AM_MaxReplyMedium(tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 1) >= maxmed);
  size_t sizes[3] = {0, 1, maxmed};
  for (gex_Rank_t r = 0; r < n; ++r) {
    for (int k = 0; k < 3; ++k) {
      fill(med_out, sizes[k], me, 0);
      gex_Event_t lc = GEX_EVENT_NO_OP;
      OK(gex_AM_RequestMedium1(tm, r, IDX(H_MED), med_out, sizes[k], GEX_EVENT_NOW, 0, (gex_AM_Arg_t)sizes[k]));
      OK(gex_AM_RequestMedium(tm, r, IDX(H_MED), med_out, sizes[k], &lc, 0, (gex_AM_Arg_t)sizes[k]));
      gex_Event_Wait(lc);
      OK(gex_AM_RequestMedium1(tm, r, IDX(H_MED), med_out, sizes[k], GEX_EVENT_GROUP, 0, (gex_AM_Arg_t)sizes[k]));
      gex_NBI_Wait(GEX_EC_AM, 0);
      memset(med_out, 0xee, sizes[k]); /* the source is free once locally complete */
    }
  }
  wait_counter(&got_replies, 9 * nn);
  barrier();
  CHECK(got_requests == 9 * nn);
  got_replies = got_requests = 0;
  barrier();

  /* Long: 0, 1 and the largest that fits half a slot, into our slot of each peer. */
  size_t maxlong = gex_AM_MaxRequestLong(tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 1);
  CHECK(maxlong >= 512 && maxlong == gex_AM_LUBRequestLong());
  size_t lsizes[3] = {0, 1, maxlong < SLOT / 2 ? maxlong : SLOT / 2};
  static unsigned char out[SLOT / 2];
  for (int k = 0; k < 3; ++k) {
    fill(out, lsizes[k], me, 0);
    for (gex_Rank_t r = 0; r < n; ++r) {
      gex_Event_t lc;
      OK(gex_AM_RequestLong1(tm, r, IDX(H_LONG), out, lsizes[k], owner_addr[r] + (size_t)me * SLOT, &lc, 0,
                             (gex_AM_Arg_t)lsizes[k]));
      CHECK(gex_Event_Test(lc) == GASNET_OK);
    }
    wait_counter(&got_replies, (k + 1) * nn); /* one size at a time: a slot holds one payload */
    barrier();
  }
  CHECK(got_requests == 3 * nn);
  got_replies = got_requests = 0;
  barrier();

  /* Long of 0 bytes to null, to the first page, and past the end of the target's segment. */
  for (gex_Rank_t r = 0; r < n; ++r) {
    char *const where[3] = {NULL, (char *)0x1000, owner_addr[r] + owner_size[r] + 12345};
    for (int k = 0; k < 3; ++k) {
      const uint64_t at = (uint64_t)(uintptr_t)where[k];
      OK(gex_AM_RequestLong2(tm, r, IDX(H_LONG0), out, 0, where[k], GEX_EVENT_NOW, 0, (gex_AM_Arg_t)(at >> 32),
                             (gex_AM_Arg_t)(uint32_t)at));
    }
  }
  wait_counter(&got_replies, 3 * nn);
  barrier();
  CHECK(got_requests == 3 * nn);
  barrier();
}

/* ---- RMA: each rank's home holds its pattern; peers read it in every form and write theirs into
 * their slot of it in every form. */
enum { V_BLOCKING, V_NB_NOW, V_NB_DEFER, V_NB_LC, V_NBI_NOW, V_NBI_DEFER, V_NBI_GROUP, V_COUNT };
#define PUT_LEN 1000u
#define VAL_OFF (V_COUNT * 1024u)

static unsigned char rma_byte(gex_Rank_t owner, size_t i, int variant) {
  return (unsigned char)(owner * 13u + i * 5u + (unsigned)variant * 29u + 7u);
}

static void test_rma(void) {
  char *base = (char *)gex_Segment_QueryAddr(seg);
  memset(base, 0, HOME_OFF);
  for (size_t i = 0; i < HOME_SIZE; ++i)
    base[HOME_OFF + i] = (char)rma_byte(me, i, 0);
  barrier();
  static unsigned char buf[HOME_SIZE], src[V_COUNT][PUT_LEN];
  for (gex_Rank_t r = 0; r < n; ++r) {
    char *home = owner_addr[r] + HOME_OFF;
    /* gets */
    memset(buf, 0, sizeof buf);
    OK(gex_RMA_GetBlocking(tm, buf, r, home, HOME_SIZE, 0));
    for (size_t i = 0; i < HOME_SIZE; ++i)
      CHECK(buf[i] == rma_byte(r, i, 0));
    memset(buf, 0, sizeof buf);
    gex_Event_t ev[2];
    ev[0] = gex_RMA_GetNB(tm, buf, r, home, 4096, 0);
    ev[1] = gex_RMA_GetNB(tm, buf + 4096, r, home + 4096, HOME_SIZE - 4096, 0);
    while (ev[0] != GEX_EVENT_INVALID || ev[1] != GEX_EVENT_INVALID)
      if (gex_Event_TestSome(ev, 2, 0) != GASNET_OK)
        gasnet_AMPoll();
    CHECK(ev[0] == GEX_EVENT_INVALID && ev[1] == GEX_EVENT_INVALID);
    for (size_t i = 0; i < HOME_SIZE; ++i)
      CHECK(buf[i] == rma_byte(r, i, 0));
    memset(buf, 0, sizeof buf);
    OK(gex_RMA_GetNBI(tm, buf, r, home, HOME_SIZE / 2, 0));
    OK(gex_RMA_GetNBI(tm, buf + HOME_SIZE / 2, r, home + HOME_SIZE / 2, HOME_SIZE / 2, 0));
    gex_NBI_Wait(GEX_EC_GET, 0);
    for (size_t i = 0; i < HOME_SIZE; ++i)
      CHECK(buf[i] == rma_byte(r, i, 0));
    gex_RMA_Value_t v8 = gex_RMA_GetBlockingVal(tm, r, home + 16, 8, 0), v3 = gex_RMA_GetBlockingVal(tm, r, home, 3, 0);
    for (int i = 0; i < 8; ++i)
      CHECK(((v8 >> (8 * i)) & 0xff) == rma_byte(r, 16 + (size_t)i, 0));
    CHECK(v3 == (gex_RMA_Value_t)(rma_byte(r, 0, 0) | rma_byte(r, 1, 0) << 8 | (uint32_t)rma_byte(r, 2, 0) << 16));
    CHECK(gex_RMA_GetNB(tm, buf, r, home, 0, 0) == GEX_EVENT_INVALID);

    /* puts into our slot of r */
    char *slot = owner_addr[r] + (size_t)me * SLOT;
    for (int v = 0; v < V_COUNT; ++v)
      for (size_t i = 0; i < PUT_LEN; ++i)
        src[v][i] = rma_byte(me, i, v + 1);
    gex_Event_t pe[4], lc = GEX_EVENT_NO_OP;
    OK(gex_RMA_PutBlocking(tm, r, slot + V_BLOCKING * 1024, src[V_BLOCKING], PUT_LEN, 0));
    pe[0] = gex_RMA_PutNB(tm, r, slot + V_NB_NOW * 1024, src[V_NB_NOW], PUT_LEN, GEX_EVENT_NOW, 0);
    pe[1] = gex_RMA_PutNB(tm, r, slot + V_NB_DEFER * 1024, src[V_NB_DEFER], PUT_LEN, GEX_EVENT_DEFER, 0);
    pe[2] = gex_RMA_PutNB(tm, r, slot + V_NB_LC * 1024, src[V_NB_LC], PUT_LEN, &lc, 0);
    gex_Event_Wait(lc);
    /* The local-completion leaf of a root: here it has always happened (GEX_EVENT_INVALID), and a
     * query makes nothing, so asking twice gives the same answer. */
    for (int k = 0; k < 3; ++k)
      CHECK(gex_Event_QueryLeaf(pe[k], GEX_EC_LC) == GEX_EVENT_INVALID &&
            gex_Event_QueryLeaf(pe[k], GEX_EC_LC) == GEX_EVENT_INVALID);
    CHECK(gex_Event_QueryLeaf(GEX_EVENT_INVALID, GEX_EC_LC) == GEX_EVENT_INVALID);
    pe[3] = gex_RMA_PutNBVal(tm, r, slot + VAL_OFF, (gex_RMA_Value_t)0x1122334455667788ull + me, 8, 0);
    OK(gex_RMA_PutNBI(tm, r, slot + V_NBI_NOW * 1024, src[V_NBI_NOW], PUT_LEN, GEX_EVENT_NOW, 0));
    OK(gex_RMA_PutNBI(tm, r, slot + V_NBI_DEFER * 1024, src[V_NBI_DEFER], PUT_LEN, GEX_EVENT_DEFER, 0));
    OK(gex_RMA_PutNBI(tm, r, slot + V_NBI_GROUP * 1024, src[V_NBI_GROUP], PUT_LEN, GEX_EVENT_GROUP, 0));
    OK(gex_RMA_PutBlockingVal(tm, r, slot + VAL_OFF + 8, 0xabcd, 2, 0));
    OK(gex_RMA_PutNBIVal(tm, r, slot + VAL_OFF + 16, 0x77, 1, 0));
    gex_NBI_Wait(GEX_EC_LC, 0);
    if (r % 2 == 0) {
      gex_Event_WaitAll(pe, 4, 0);
    } else {
      while (gex_Event_TestAll(pe, 4, 0) != GASNET_OK)
        gasnet_AMPoll();
    }
    for (int i = 0; i < 4; ++i)
      CHECK(pe[i] == GEX_EVENT_INVALID);
    if (r % 2 == 0) {
      gex_NBI_Wait(GEX_EC_ALL, 0);
    } else {
      while (gex_NBI_Test(GEX_EC_PUT | GEX_EC_GET, 0) != GASNET_OK)
        gasnet_AMPoll();
    }
  }
  /* An access region: NBI gets from every peer, synchronised through one event. */
  static unsigned char region[MAXR][64];
  memset(region, 0, sizeof region);
  gex_NBI_BeginAccessRegion(0);
  for (gex_Rank_t r = 0; r < n; ++r)
    OK(gex_RMA_GetNBI(tm, region[r], r, owner_addr[r] + HOME_OFF + 100, 64, 0));
  /* Inside the region only the NBI puts' and gets' syncs are forbidden [G1 3.3.6.1]: the atomics'
   * and AMs' categories may be tested and waited for. */
  CHECK(gex_NBI_Test(GEX_EC_RMW | GEX_EC_AM, 0) == GASNET_OK);
  gex_NBI_Wait(GEX_EC_RMW, 0);
  gex_Event_t re = gex_NBI_EndAccessRegion(0);
  gex_Event_Wait(re);
  for (gex_Rank_t r = 0; r < n; ++r)
    for (size_t i = 0; i < 64; ++i)
      CHECK(region[r][i] == rma_byte(r, 100 + i, 0));
  barrier();
  for (gex_Rank_t w = 0; w < n; ++w) {
    const unsigned char *slot = (const unsigned char *)base + (size_t)w * SLOT;
    for (int v = 0; v < V_COUNT; ++v)
      for (size_t i = 0; i < PUT_LEN; ++i)
        CHECK(slot[v * 1024 + i] == rma_byte(w, i, v + 1));
    uint64_t v8;
    uint16_t v2;
    memcpy(&v8, slot + VAL_OFF, 8);
    memcpy(&v2, slot + VAL_OFF + 8, 2);
    CHECK(v8 == 0x1122334455667788ull + w && v2 == 0xabcd && slot[VAL_OFF + 16] == 0x77);
  }
  barrier();
}

static void test_barrier(void) {
  static gex_HSL_t lock = GEX_HSL_INITIALIZER;
  gex_HSL_Lock(&lock);
  gex_HSL_Unlock(&lock);
  OK(gex_HSL_Trylock(&lock));
  gex_HSL_Unlock(&lock);
  for (int i = 0; i < 20; ++i) {
    gex_Event_t e = gex_Coll_BarrierNB(tm, 0);
    if (i % 2 == 0) {
      while (gex_Event_Test(e) != GASNET_OK) {
      }
    } else {
      gex_Event_t all[2] = {GEX_EVENT_INVALID, e};
      gex_Event_WaitAll(all, 2, 0);
    }
  }
  CHECK(gex_Event_Test(GEX_EVENT_INVALID) == GASNET_OK);
  gex_Event_t none[2] = {GEX_EVENT_INVALID, GEX_EVENT_INVALID};
  CHECK(gex_Event_TestSome(none, 2, 0) == GASNET_OK && gex_Event_TestAll(none, 2, 0) == GASNET_OK);
  gex_Event_WaitSome(none, 2, 0);
}

int main(int argc, char **argv) {
  const char *scene = argc > 1 ? argv[1] : "";
  const char *name = strrchr(argv[0], '/') != NULL ? strrchr(argv[0], '/') + 1 : argv[0]; /* also gex_basic_lib */
  CHECK(gex_Client_Init(&client, &ep, &tm, "lowercase", &argc, &argv, 0) == GASNET_ERR_BAD_ARG);
  if (strcmp(scene, "badname") == 0) /* each rank's message names that rank, before any init worked */
    return 0;
  OK(gex_Client_Init(&client, &ep, &tm, "GEXTEST", &argc, &argv, GEX_FLAG_USES_GASNET1));
  CHECK(client != GEX_CLIENT_INVALID && ep != GEX_EP_INVALID && tm != GEX_TM_INVALID);
  CHECK(gex_Client_Init(&client, &ep, &tm, "GEXTEST", &argc, &argv, 0) == GASNET_ERR_RESOURCE);
  test_queries();
  test_registration();
  if (strcmp(scene, "badam") == 0 && me == 0) {
    static char word[8];
    gex_AM_RequestLong1(tm, n - 1, IDX(H_LONG), word, sizeof word, word, GEX_EVENT_NOW, 0, 0); /* fatal: no segment */
  }
  test_segment();
  if (me == 0 && n > 1) { /* a null local buffer: fatal before any copy or MPI transfer */
    static uint64_t x;
    if (strcmp(scene, "nullput") == 0)
      gex_RMA_PutBlocking(tm, n - 1, owner_addr[n - 1], NULL, 8, 0);
    if (strcmp(scene, "nullget") == 0)
      gex_Event_Wait(gex_RMA_GetNB(tm, NULL, n - 1, owner_addr[n - 1], 8, 0));
    if (strcmp(scene, "wrapget") == 0)
      gex_RMA_GetBlocking(tm, (void *)(UINTPTR_MAX - 3), n - 1, owner_addr[n - 1], 8, 0);
    if (strcmp(scene, "nullmed") == 0)
      gex_AM_RequestMedium1(tm, n - 1, IDX(H_MED), NULL, 8, GEX_EVENT_NOW, 0, 8);
    if (strcmp(scene, "nulllong") == 0)
      gex_AM_RequestLong1(tm, n - 1, IDX(H_LONG), NULL, 8, owner_addr[n - 1], GEX_EVENT_NOW, 0, 8);
    if (strcmp(scene, "leafall") == 0)
      (void)gex_Event_QueryLeaf(gex_RMA_PutNB(tm, n - 1, owner_addr[n - 1], &x, 8, GEX_EVENT_DEFER, 0), GEX_EC_ALL);
    /* Stray handles (never an object of this client): fatal before anything is read through them. */
    if (strcmp(scene, "straysegment") == 0)
      (void)gex_Segment_QueryAddr((gex_Segment_t)(uintptr_t)0x1234);
    if (strcmp(scene, "strayclient") == 0)
      (void)gex_Client_QueryName((gex_Client_t)(uintptr_t)0x1234);
    if (strcmp(scene, "strayep") == 0)
      (void)gex_EP_QueryCData((gex_EP_t)(uintptr_t)0x1234);
    if (strcmp(scene, "straytm") == 0)
      gex_TM_SetCData((gex_TM_t)(uintptr_t)0x1234, NULL);
    if (strcmp(scene, "nbimask") == 0) /* bits outside GEX_EC_ALL name no event category */
      (void)gex_NBI_Test((gex_EC_t)0x12345678, 0);
  }
  /* Registration assertions broken by the sender: fatal at the target (rank 0), in its poll. */
  if (n > 1 && (strcmp(scene, "badnargs") == 0 || strcmp(scene, "badcat") == 0 || strcmp(scene, "reqtoreply") == 0)) {
    if (me == 1) {
      static char byte;
      if (strcmp(scene, "badnargs") == 0) /* H_S1 takes 1 argument */
        OK(gex_AM_RequestShort2(tm, 0, IDX(H_S1), 0, 1, 2));
      else if (strcmp(scene, "badcat") == 0) /* H_S1 is a Short handler */
        OK(gex_AM_RequestMedium1(tm, 0, IDX(H_S1), &byte, 1, GEX_EVENT_NOW, 0, 1));
      else /* H_S_REP serves replies only */
        OK(gex_AM_RequestShort1(tm, 0, IDX(H_S_REP), 0, 1));
      barrier(); /* never completes: rank 0 ends the job */
    }
    for (;;) /* until the message comes: a barrier does not wait for it, and the job could end first */
      (void)gasnet_AMPoll();
  }
  if (strcmp(scene, "badput") == 0) {
    if (me == 0) { /* 8 bytes ending 4 past the end of the last rank's segment: fatal */
      uint64_t x = 0;
      gex_RMA_PutBlocking(tm, n - 1, owner_addr[n - 1] + owner_size[n - 1] - 4, &x, 8, 0);
    }
    barrier();
    return 0;
  }
  test_am();
  test_rma();
  test_barrier();
  barrier();
  if (me == 0) {
    printf("SUCCESS %s\n", name);
    fflush(stdout);
  }
  gasnet_exit(0);
  return 0;
}
