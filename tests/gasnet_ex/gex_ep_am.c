/* Active messages between endpoints created with GEX_EP_CAPABILITY_AM, through TM-pairs, on every
 * path. Each rank creates ep1 (AM and RMA, with a bound and published host segment) and ep2 (AM
 * only). Every endpoint registers the same handler indices with functions of its own, so a message
 * that ran the wrong endpoint's table fails its check. Every rank sends to every rank, itself
 * included:
 *   - Short ep1 -> ep2 with 3 arguments; the reply goes back to ep1;
 *   - Medium ep2 -> ep1; the Medium reply goes back to ep2;
 *   - Long ep1 -> ep1 into the target's ep1 segment, and a Long reply into the sender's;
 *   - a negotiated-payload Medium request ep2 -> ep1;
 *   - Short on the primordial team (endpoint 0), whose table is apart from the others.
 * Every handler checks gex_Token_Info (the endpoint that got the message, its source rank, the
 * entry it runs) and the arguments and bytes. Bad input: an endpoint with a capability this
 * build does not serve, and handlers registered on an RMA-only endpoint.
 *
 * With an argument it runs one fatal scene (CMakeLists.txt checks rank 0's message):
 *   rma_pair: rank 0 sends through a pair of its RMA-only endpoint;
 *   no_am_target: rank 1 sends to rank 0's RMA-only endpoint, which rank 0 finds when it polls. */
#define GASNET_PAR 1
#include <gasnetex.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gex_check.h"

#define MAXR 16
#define CHUNK 4096u
#define SEG (2u * MAXR * CHUNK) /* requests land in [0, MAXR CHUNK), replies above */
#define H_REQ_SHORT 200
#define H_REQ_MEDIUM 201
#define H_REQ_LONG 202
#define H_REP 210

static gex_Client_t client;
static gex_EP_t ep0, ep1, ep2;
static gex_TM_t tm;
static gex_Segment_t seg0, seg1;
static gex_Rank_t me, n;
static unsigned replies[3]; /* per endpoint that got one; atomic (several threads may poll) */
static unsigned requests[3];
static void count(unsigned *c) { __atomic_fetch_add(c, 1, __ATOMIC_ACQ_REL); }
static unsigned read_count(unsigned *c) { return __atomic_load_n(c, __ATOMIC_ACQUIRE); }

static unsigned char byte_at(gex_Rank_t src, size_t i, int salt) { return (unsigned char)(src * 31u + i * 7u + salt); }

/* The endpoint a handler runs on is `expect`, the message came from `src`, and it runs `fn`. */
static void check_token(gex_Token_t t, gex_EP_t expect, gex_Rank_t src, void (*fn)(void), int is_req) {
  gex_Token_Info_t info;
  CHECK(gex_Token_Info(t, &info, GEX_TI_ALL) == GEX_TI_ALL);
  CHECK(info.gex_ep == expect);
  CHECK(info.gex_srcrank == src);
  CHECK(info.gex_entry != NULL && info.gex_entry->gex_fnptr == (gex_AM_Fn_t)fn);
  CHECK(info.gex_is_req == (unsigned)is_req);
}

static gex_EP_t ep_of(int index) { return index == 0 ? ep0 : index == 1 ? ep1 : ep2; }

/* Replies on every endpoint: a0 the replier, a1 the endpoint index the reply must reach. */
#define REPLY_HANDLER(K)                                                                                               \
  static void rep##K(gex_Token_t t, gex_AM_Arg_t a0, gex_AM_Arg_t a1);                                                 \
  static void rep##K(gex_Token_t t, gex_AM_Arg_t a0, gex_AM_Arg_t a1) {                                                \
    check_token(t, ep_of(K), (gex_Rank_t)a0, (void (*)(void))rep##K, 0);                                               \
    CHECK(a1 == K);                                                                                                    \
    count(&replies[K]);                                                                                                \
  }
REPLY_HANDLER(0)
REPLY_HANDLER(1)
REPLY_HANDLER(2)

static void rep_medium(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t a0) {
  check_token(t, ep2, (gex_Rank_t)a0, (void (*)(void))rep_medium, 0);
  CHECK(nbytes == 100);
  for (size_t i = 0; i < nbytes; ++i)
    CHECK(((unsigned char *)buf)[i] == byte_at((gex_Rank_t)a0, i, 9));
  count(&replies[2]);
}

static void rep_long(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t a0) {
  check_token(t, ep1, (gex_Rank_t)a0, (void (*)(void))rep_long, 0);
  unsigned char *want = (unsigned char *)gex_Segment_QueryAddr(seg1) + (MAXR + a0) * CHUNK;
  CHECK(buf == want && nbytes == CHUNK);
  for (size_t i = 0; i < nbytes; ++i)
    CHECK(want[i] == byte_at((gex_Rank_t)a0, i, 5));
  count(&replies[1]);
}

/* ep0's Short request: the primordial table. */
static void req0(gex_Token_t t, gex_AM_Arg_t src, gex_AM_Arg_t to, gex_AM_Arg_t tag) {
  check_token(t, ep0, (gex_Rank_t)src, (void (*)(void))req0, 1);
  CHECK(to == (gex_AM_Arg_t)me && tag == 0);
  count(&requests[0]);
  OK(gex_AM_ReplyShort2(t, H_REP, 0, me, 0));
}
/* ep2's Short request, from ep1: the reply goes to the sender's ep1. */
static void req2_short(gex_Token_t t, gex_AM_Arg_t src, gex_AM_Arg_t to, gex_AM_Arg_t tag) {
  check_token(t, ep2, (gex_Rank_t)src, (void (*)(void))req2_short, 1);
  CHECK(to == (gex_AM_Arg_t)me && tag == 2);
  count(&requests[2]);
  OK(gex_AM_ReplyShort2(t, H_REP, 0, me, 1));
}
/* ep1's Medium request, from ep2: a Medium reply goes back to ep2. */
static void req1_medium(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t src) {
  check_token(t, ep1, (gex_Rank_t)src, (void (*)(void))req1_medium, 1);
  CHECK(nbytes == 300 || nbytes == 200);
  for (size_t i = 0; i < nbytes; ++i)
    CHECK(((unsigned char *)buf)[i] == byte_at((gex_Rank_t)src, i, nbytes == 300 ? 3 : 4));
  count(&requests[1]);
  unsigned char out[100];
  for (size_t i = 0; i < sizeof out; ++i)
    out[i] = byte_at(me, i, 9);
  OK(gex_AM_ReplyMedium1(t, H_REP + 1, out, sizeof out, GEX_EVENT_NOW, 0, me));
}
/* ep1's Long request, from ep1: the payload is in this rank's ep1 segment; a Long reply goes into
 * the sender's. */
static void req1_long(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t src, gex_AM_Arg_t reply_at_hi,
                      gex_AM_Arg_t reply_at_lo) {
  check_token(t, ep1, (gex_Rank_t)src, (void (*)(void))req1_long, 1);
  unsigned char *want = (unsigned char *)gex_Segment_QueryAddr(seg1) + src * CHUNK;
  CHECK(buf == want && nbytes == CHUNK);
  for (size_t i = 0; i < nbytes; ++i)
    CHECK(want[i] == byte_at((gex_Rank_t)src, i, 1));
  count(&requests[1]);
  static __thread unsigned char out[CHUNK];
  for (size_t i = 0; i < CHUNK; ++i)
    out[i] = byte_at(me, i, 5);
  void *at = (void *)(((uintptr_t)(uint32_t)reply_at_hi << 32) | (uint32_t)reply_at_lo);
  OK(gex_AM_ReplyLong1(t, H_REP + 2, out, CHUNK, at, GEX_EVENT_NOW, 0, me));
}
/* Each endpoint's table names the same indices with functions of its own: a wrong table fails. */
static void wrong_short(gex_Token_t t, gex_AM_Arg_t a, gex_AM_Arg_t b, gex_AM_Arg_t c) {
  (void)t, (void)a, (void)b, (void)c;
  CHECK(!"a Short ran on an endpoint it was not sent to");
}
static void wrong_payload(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t a) {
  (void)t, (void)buf, (void)nbytes, (void)a;
  CHECK(!"a Medium or Long ran on an endpoint it was not sent to");
}

static void barrier(void) { gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); }

static void wait_for(unsigned *counter, unsigned target) {
  while (read_count(counter) < target)
    gasnet_AMPoll();
}

#define SHORT_REQ (GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST)
#define SHORT_REP (GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY)
#define MEDIUM_REQ (GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST)
#define MEDIUM_REP (GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY)
#define LONG_REQ (GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST)
#define LONG_REP (GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY)

static void register_tables(void) {
  gex_AM_Entry_t t0[] = {{H_REQ_SHORT, (gex_AM_Fn_t)req0, SHORT_REQ, 3, NULL, "req0"},
                         {H_REP, (gex_AM_Fn_t)rep0, SHORT_REP, 2, NULL, "rep0"}};
  gex_AM_Entry_t t1[] = {{H_REQ_SHORT, (gex_AM_Fn_t)wrong_short, SHORT_REQ, 3, NULL, "wrong1"},
                         {H_REQ_MEDIUM, (gex_AM_Fn_t)req1_medium, MEDIUM_REQ, 1, NULL, "req1_medium"},
                         {H_REQ_LONG, (gex_AM_Fn_t)req1_long, LONG_REQ, 3, NULL, "req1_long"},
                         {H_REP, (gex_AM_Fn_t)rep1, SHORT_REP, 2, NULL, "rep1"},
                         {H_REP + 2, (gex_AM_Fn_t)rep_long, LONG_REP, 1, NULL, "rep_long"}};
  gex_AM_Entry_t t2[] = {{H_REQ_SHORT, (gex_AM_Fn_t)req2_short, SHORT_REQ, 3, NULL, "req2_short"},
                         {H_REQ_MEDIUM, (gex_AM_Fn_t)wrong_payload, MEDIUM_REQ, 1, NULL, "wrong2"},
                         {H_REP, (gex_AM_Fn_t)rep2, SHORT_REP, 2, NULL, "rep2"},
                         {H_REP + 1, (gex_AM_Fn_t)rep_medium, MEDIUM_REP, 1, NULL, "rep_medium"}};
  OK(gex_EP_RegisterHandlers(ep0, t0, sizeof t0 / sizeof t0[0]));
  OK(gex_EP_RegisterHandlers(ep1, t1, sizeof t1 / sizeof t1[0]));
  OK(gex_EP_RegisterHandlers(ep2, t2, sizeof t2 / sizeof t2[0]));
}

int main(int argc, char **argv) {
  const char *scene = argc > 1 ? argv[1] : "";
  OK(gex_Client_Init(&client, &ep0, &tm, "GEX_EP_AM", &argc, &argv, 0));
  me = gex_TM_QueryRank(tm);
  n = gex_TM_QuerySize(tm);
  CHECK(n <= MAXR);
  OK(gex_Segment_Attach(&seg0, tm, 4096));

  gex_EP_t bad = (gex_EP_t)(uintptr_t)0x4040;
  CHECK(gex_EP_Create(&bad, client, GEX_EP_CAPABILITY_AM | GEX_EP_CAPABILITY_VIS, 0) == GASNET_ERR_BAD_ARG);
  CHECK(bad == (gex_EP_t)(uintptr_t)0x4040);
  OK(gex_EP_Create(&ep1, client, GEX_EP_CAPABILITY_AM | GEX_EP_CAPABILITY_RMA, 0));
  OK(gex_EP_Create(&ep2, client, GEX_EP_CAPABILITY_AM, 0));
  CHECK(gex_EP_QueryIndex(ep1) == 1 && gex_EP_QueryIndex(ep2) == 2);
  gex_EP_t rma_only;
  OK(gex_EP_Create(&rma_only, client, GEX_EP_CAPABILITY_RMA, 0));
  gex_AM_Entry_t none[] = {{0, (gex_AM_Fn_t)wrong_short, SHORT_REQ, 3, NULL, "none"}};
  CHECK(gex_EP_RegisterHandlers(rma_only, none, 1) == GASNET_ERR_BAD_ARG);

  OK(gex_Segment_Create(&seg1, client, NULL, SEG, GEX_MK_HOST, 0));
  OK(gex_EP_BindSegment(ep1, seg1, 0));
  OK(gex_EP_PublishBoundSegment(tm, &ep1, 1, 0));
  register_tables();
  barrier(); /* every rank's endpoints and tables exist before any message is sent to them */

  if (me == 0 && strcmp(scene, "rma_pair") == 0)
    (void)gex_AM_RequestShort0(gex_TM_Pair(rma_only, 1), n - 1, H_REQ_SHORT, 0);
  if (strcmp(scene, "no_am_target") == 0) {
    if (me == 1)
      OK(gex_AM_RequestShort0(gex_TM_Pair(ep1, 3), 0, H_REQ_SHORT, 0));
    for (;;) /* until rank 0 ends the job */
      gasnet_AMPoll();
  }

  gex_TM_t p12 = gex_TM_Pair(ep1, 2), p21 = gex_TM_Pair(ep2, 1), p11 = gex_TM_Pair(ep1, 1);
  static unsigned char medium[300], long_out[CHUNK];
  for (size_t i = 0; i < sizeof medium; ++i)
    medium[i] = byte_at(me, i, 3);
  for (size_t i = 0; i < CHUNK; ++i)
    long_out[i] = byte_at(me, i, 1);
  for (gex_Rank_t r = 0; r < n; ++r) {
    OK(gex_AM_RequestShort3(tm, r, H_REQ_SHORT, 0, me, r, 0));
    OK(gex_AM_RequestShort3(p12, r, H_REQ_SHORT, 0, me, r, 2));
    OK(gex_AM_RequestMedium1(p21, r, H_REQ_MEDIUM, medium, sizeof medium, GEX_EVENT_NOW, 0, me));
    void *remote = NULL;
    uintptr_t size = 0;
    OK(gex_Segment_QueryBound(p11, r, &remote, NULL, &size));
    CHECK(size == SEG);
    void *reply_at = (char *)gex_Segment_QueryAddr(seg1) + (MAXR + r) * CHUNK;
    const uintptr_t at = (uintptr_t)reply_at;
    OK(gex_AM_RequestLong3(p11, r, H_REQ_LONG, long_out, CHUNK, (char *)remote + me * CHUNK, GEX_EVENT_NOW, 0, me,
                           (gex_AM_Arg_t)(uint32_t)(at >> 32), (gex_AM_Arg_t)(uint32_t)at));
    /* Negotiated payload, ep2 -> ep1, from the library's buffer. */
    gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(p21, r, NULL, 200, 200, NULL, 0, 1);
    CHECK(gex_AM_SrcDescSize(sd) >= 200);
    for (size_t i = 0; i < 200; ++i)
      ((unsigned char *)gex_AM_SrcDescAddr(sd))[i] = byte_at(me, i, 4);
    gex_AM_CommitRequestMedium1(sd, H_REQ_MEDIUM, 200, me);
  }
  /* Replies: ep0 n (primordial), ep1 n (Short) + n (Long), ep2 2n (Medium, twice). */
  wait_for(&replies[0], n);
  wait_for(&replies[1], 2 * n);
  wait_for(&replies[2], 2 * n);
  wait_for(&requests[0], n);
  wait_for(&requests[1], 3 * n);
  wait_for(&requests[2], n);
  barrier();
  CHECK(read_count(&replies[0]) == n && read_count(&replies[1]) == 2 * n && read_count(&replies[2]) == 2 * n);
  CHECK(read_count(&requests[0]) == n && read_count(&requests[1]) == 3 * n && read_count(&requests[2]) == n);
  if (me == 0)
    printf("SUCCESS gex_ep_am\n");
  fflush(stdout);
  gasnet_exit(0);
  return 0;
}
