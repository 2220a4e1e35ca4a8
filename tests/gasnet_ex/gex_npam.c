/* Negotiated-payload active messages (gex_AM_Prepare* / gex_AM_Commit*) on every path. Every rank
 * sends to every rank, itself included:
 *   - Medium requests with a library buffer (its size, its alignment, 0, 3 and 16 arguments, a
 *     commit shorter than the size) and with the client's buffer (the address is that buffer, the
 *     size is clamped to most_payload, lc_opt reports completion);
 *   - Long requests whose destination is chosen at Prepare or only at Commit;
 *   - each request handler answers with a negotiated Medium or Long reply from its own library
 *     buffer; the requester checks every byte and argument of the reply;
 *   - the count-less Commit names; GEX_FLAG_IMMEDIATE; gex_AM_Max*Long under
 *     GEX_FLAG_AM_PREPARE_LEAST_ALLOC and a Prepare at exactly that least_payload.
 *
 * With an argument it runs one fatal scene on rank 0 (CMakeLists.txt checks the message):
 *   nest: a Prepare while one is pending;  toolong: a Commit of more than gex_AM_SrcDescSize;
 *   nargs: a Commit with fewer arguments than its Prepare announced;  stalereply, stalemax: a
 *   reply Prepare, and gex_Token_MaxReplyMedium, with a request handler's token after the handler
 *   returned (the Prepare was accepted, and refused only at its Commit);  betweenput,
 *   betweenbarrier, betweenreply: a put, a barrier, and (in a request handler) a fixed-payload
 *   reply between a Prepare and its Commit, where every communication call is prohibited. */
#define GASNET_PAR 1
#include <gasnetex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gex_check.h"

#define MAXR 16
/* Per sender and owner: four request regions (one per Long "salt", see region()), then four for
 * the Long replies to them, each SLOT / 8 bytes. */
#define SLOT 262144u
#define SEG_SIZE (MAXR * SLOT)

static gex_Client_t client;
static gex_EP_t ep;
static gex_TM_t tm;
static gex_Segment_t seg;
static gex_Rank_t me, n;
static volatile int got_requests, got_replies;

static unsigned char byte_at(gex_Rank_t src, size_t i, int salt) { return (unsigned char)(src * 29u + i * 13u + salt); }
static void fill(void *p, size_t nbytes, gex_Rank_t src, int salt) {
  for (size_t i = 0; i < nbytes; ++i)
    ((unsigned char *)p)[i] = byte_at(src, i, salt);
}
static void check_bytes(const void *p, size_t nbytes, gex_Rank_t src, int salt) {
  for (size_t i = 0; i < nbytes; ++i)
    CHECK(((const unsigned char *)p)[i] == byte_at(src, i, salt));
}
static gex_Rank_t source(gex_Token_t t) {
  gex_Token_Info_t info;
  gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  return info.gex_srcrank;
}
static char *slot_of(gex_Rank_t owner, gex_Rank_t sender) {
  void *base = NULL;
  OK(gex_Segment_QueryBound(tm, owner, &base, NULL, NULL));
  return (char *)base + (size_t)sender * SLOT;
}
/* Requests in flight together never share a region: each kind of Long has its own. */
static size_t region(int salt) { return (size_t)(salt % 4) * (SLOT / 8); }

enum { H_MED0, H_MED3, H_MED16, H_LONG2, H_REP_MED, H_REP_LONG, H_COUNT };
static gex_AM_Entry_t table[H_COUNT];
#define IDX(h) (table[h].gex_index)

/* The token of the last request handler run here: a scene uses it after the handler returned. */
static gex_Token_t g_stale_token;
/* Scene betweenreply: the next reply sends a fixed-payload reply between its Prepare and Commit. */
static volatile int g_reply_between;

/* A reply of `nbytes` (salt 200 + salt of the request) from a library buffer, Medium or Long. */
static void reply(gex_Token_t t, size_t nbytes, int salt, int is_long) {
  gex_Rank_t src = source(t);
  g_stale_token = t;
  gex_AM_SrcDesc_t sd;
  if (is_long)
    sd = gex_AM_PrepareReplyLong(t, NULL, nbytes, nbytes, NULL, NULL, 0, 2);
  else
    sd = gex_AM_PrepareReplyMedium(t, NULL, nbytes, nbytes + 100, NULL, 0, 2);
  CHECK(sd != GEX_AM_SRCDESC_NO_OP);
  CHECK(gex_AM_SrcDescSize(sd) >= nbytes && ((uintptr_t)gex_AM_SrcDescAddr(sd) & 15u) == 0);
  if (g_reply_between)
    gex_AM_ReplyMedium2(t, IDX(H_REP_MED), NULL, 0, GEX_EVENT_NOW, 0, 0, salt); /* fatal */
  fill(gex_AM_SrcDescAddr(sd), nbytes, me, 200 + salt);
  if (is_long)
    gex_AM_CommitReplyLong2(sd, IDX(H_REP_LONG), nbytes, slot_of(src, me) + SLOT / 2 + region(salt),
                            (gex_AM_Arg_t)nbytes, salt);
  else
    gex_AM_CommitReplyMedium(sd, IDX(H_REP_MED), nbytes, (gex_AM_Arg_t)nbytes, salt);
}
static void rep_med(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t want, gex_AM_Arg_t salt) {
  CHECK(nbytes == (size_t)want);
  check_bytes(buf, nbytes, source(t), 200 + salt);
  __atomic_fetch_add(&got_replies, 1, __ATOMIC_SEQ_CST);
}
static void rep_long(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t want, gex_AM_Arg_t salt) {
  gex_Rank_t src = source(t);
  CHECK(nbytes == (size_t)want);
  CHECK(buf == slot_of(me, src) + SLOT / 2 + region(salt));
  check_bytes(buf, nbytes, src, 200 + salt);
  __atomic_fetch_add(&got_replies, 1, __ATOMIC_SEQ_CST);
}
static void req_med0(gex_Token_t t, void *buf, size_t nbytes) {
  CHECK(nbytes == 777);
  CHECK(((uintptr_t)buf & 7u) == 0);
  check_bytes(buf, nbytes, source(t), 1);
  __atomic_fetch_add(&got_requests, 1, __ATOMIC_SEQ_CST);
  reply(t, 5000, 1, 0);
}
static void req_med3(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2) {
  CHECK(a0 == 10 && a1 == -11 && a2 == (gex_AM_Arg_t)source(t));
  CHECK(nbytes == 100);
  check_bytes(buf, nbytes, source(t), 2);
  __atomic_fetch_add(&got_requests, 1, __ATOMIC_SEQ_CST);
  reply(t, 0, 2, 0);
}
static void req_med16(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2,
                      gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5, gex_AM_Arg_t a6, gex_AM_Arg_t a7,
                      gex_AM_Arg_t a8, gex_AM_Arg_t a9, gex_AM_Arg_t a10, gex_AM_Arg_t a11, gex_AM_Arg_t a12,
                      gex_AM_Arg_t a13, gex_AM_Arg_t a14, gex_AM_Arg_t a15) {
  gex_AM_Arg_t a[16] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15};
  for (int i = 0; i < 16; ++i)
    CHECK(a[i] == (gex_AM_Arg_t)(i * 1000 + (int)source(t)));
  CHECK(nbytes == gex_AM_LUBRequestMedium());
  check_bytes(buf, nbytes, source(t), 3);
  __atomic_fetch_add(&got_requests, 1, __ATOMIC_SEQ_CST);
  reply(t, 4096 + 3, 3, 1);
}
static void req_long2(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t want, gex_AM_Arg_t salt) {
  gex_Rank_t src = source(t);
  CHECK(nbytes == (size_t)want);
  CHECK(buf == slot_of(me, src) + region(salt));
  check_bytes(buf, nbytes, src, salt);
  __atomic_fetch_add(&got_requests, 1, __ATOMIC_SEQ_CST);
  reply(t, nbytes / 2 + 1, salt, 1);
}

static void entry(int h, void (*fn)(), gex_Flags_t flags, unsigned nargs) {
  table[h].gex_index = 0;
  table[h].gex_fnptr = (gex_AM_Fn_t)fn;
  table[h].gex_flags = flags;
  table[h].gex_nargs = nargs;
  table[h].gex_cdata = NULL;
  table[h].gex_name = NULL;
}
static void barrier(void) { gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); }
static void wait_counter(volatile int *c, int want) {
  GASNET_BLOCKUNTIL(__atomic_load_n(c, __ATOMIC_SEQ_CST) >= want);
  CHECK(*c == want);
}

/* The requests of one round to `peer`; returns how many were sent (each gets one reply). */
static int send_all(gex_Rank_t peer) {
  const size_t lub = gex_AM_LUBRequestMedium();
  /* Medium, library buffer, more than the most a Medium carries asked for: the size is clamped
   * to the Medium maximum, and a shorter commit is allowed. */
  gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(tm, peer, NULL, 1, (size_t)1 << 30, NULL, 0, 0);
  CHECK(sd != GEX_AM_SRCDESC_NO_OP);
  CHECK(gex_AM_SrcDescSize(sd) == gex_AM_MaxRequestMedium(tm, peer, NULL, 0, 0));
  CHECK(((uintptr_t)gex_AM_SrcDescAddr(sd) & 15u) == 0);
  fill(gex_AM_SrcDescAddr(sd), 777, me, 1);
  gex_AM_CommitRequestMedium0(sd, IDX(H_MED0), 777);

  /* Medium, the client's buffer (least = most = 100), lc_opt an event; IMMEDIATE accepted. */
  unsigned char mine[128];
  fill(mine, sizeof mine, me, 2);
  gex_Event_t lc = GEX_EVENT_NO_OP;
  sd = gex_AM_PrepareRequestMedium(tm, peer, mine, 100, 100, &lc, GEX_FLAG_IMMEDIATE, 3);
  CHECK(sd != GEX_AM_SRCDESC_NO_OP && gex_AM_SrcDescAddr(sd) == mine && gex_AM_SrcDescSize(sd) == 100);
  gex_AM_CommitRequestMedium(sd, IDX(H_MED3), 100, 10, -11, me); /* the count-less name */
  gex_Event_Wait(lc);
  memset(mine, 0, sizeof mine); /* locally complete: the request must not see this */

  /* Medium with 16 arguments, the full LUB payload. */
  sd = gex_AM_PrepareRequestMedium(tm, peer, NULL, lub, lub, NULL, 0, 16);
  CHECK(gex_AM_SrcDescSize(sd) == lub);
  fill(gex_AM_SrcDescAddr(sd), lub, me, 3);
  gex_AM_CommitRequestMedium16(sd, IDX(H_MED16), lub, 0 + me, 1000 + me, 2000 + me, 3000 + me, 4000 + me, 5000 + me,
                               6000 + me, 7000 + me, 8000 + me, 9000 + me, 10000 + me, 11000 + me, 12000 + me,
                               13000 + me, 14000 + me, 15000 + me);

  /* Long, library buffer, destination chosen only at Commit. */
  sd = gex_AM_PrepareRequestLong(tm, peer, NULL, 64, SLOT / 8, NULL, NULL, 0, 2);
  CHECK(gex_AM_SrcDescSize(sd) >= 64 && gex_AM_SrcDescSize(sd) <= SLOT / 8);
  const size_t nlong = gex_AM_SrcDescSize(sd) - 1;
  fill(gex_AM_SrcDescAddr(sd), nlong, me, 4);
  gex_AM_CommitRequestLong2(sd, IDX(H_LONG2), nlong, slot_of(peer, me) + region(4), (gex_AM_Arg_t)nlong, 4);

  /* Long, the client's buffer and the destination named at Prepare (and again at Commit). */
  static unsigned char big[SLOT / 8];
  fill(big, sizeof big, me, 5);
  char *dest = slot_of(peer, me) + region(5);
  sd = gex_AM_PrepareRequestLong(tm, peer, big, 1, sizeof big, dest, GEX_EVENT_NOW, 0, 2);
  CHECK(gex_AM_SrcDescAddr(sd) == big && gex_AM_SrcDescSize(sd) == sizeof big);
  gex_AM_CommitRequestLong(sd, IDX(H_LONG2), sizeof big, dest, (gex_AM_Arg_t)sizeof big, 5);
  return 5;
}

int main(int argc, char **argv) {
  const char *scene = argc > 1 ? argv[1] : "";
  OK(gex_Client_Init(&client, &ep, &tm, "NPAMTEST", &argc, &argv, 0));
  me = gex_TM_QueryRank(tm);
  n = gex_TM_QuerySize(tm);
  CHECK(n <= MAXR);
  entry(H_MED0, (void (*)())req_med0, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 0);
  entry(H_MED3, (void (*)())req_med3, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 3);
  entry(H_MED16, (void (*)())req_med16, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 16);
  entry(H_LONG2, (void (*)())req_long2, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 2);
  entry(H_REP_MED, (void (*)())rep_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 2);
  entry(H_REP_LONG, (void (*)())rep_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 2);
  OK(gex_EP_RegisterHandlers(ep, table, H_COUNT));
  OK(gex_Segment_Attach(&seg, tm, SEG_SIZE));
  barrier();

  /* A library-allocated Long may be asked for up to what the LEAST_ALLOC query answers. */
  const size_t alloc_max = gex_AM_MaxRequestLong(tm, me, NULL, GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 2);
  CHECK(alloc_max >= 65536 && alloc_max <= gex_AM_MaxRequestLong(tm, me, NULL, 0, 2));
  gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestLong(tm, me, NULL, alloc_max, alloc_max, NULL, NULL, 0, 2);
  CHECK(gex_AM_SrcDescSize(sd) == alloc_max);
  fill(gex_AM_SrcDescAddr(sd), alloc_max, me, 6); /* all of it is writable */
  gex_AM_CommitRequestLong2(sd, IDX(H_LONG2), 16, slot_of(me, me) + region(6), 16, 6);
  wait_counter(&got_replies, 1);
  barrier();
  __atomic_store_n(&got_requests, 0, __ATOMIC_SEQ_CST);
  __atomic_store_n(&got_replies, 0, __ATOMIC_SEQ_CST);
  barrier();

  /* Every rank to every rank, in a different order on each. */
  int sent = 0;
  for (gex_Rank_t i = 0; i < n; ++i) {
    sent += send_all((me + i) % n);
    wait_counter(&got_replies, sent); /* one Long slot per sender and peer: one round at a time */
  }
  wait_counter(&got_requests, sent);
  barrier();

  if (me == 0 && strcmp(scene, "nest") == 0) {
    (void)gex_AM_PrepareRequestMedium(tm, 0, NULL, 8, 8, NULL, 0, 0);
    (void)gex_AM_PrepareRequestMedium(tm, 0, NULL, 8, 8, NULL, 0, 0); /* fatal */
  }
  if (me == 0 && strcmp(scene, "toolong") == 0) {
    sd = gex_AM_PrepareRequestMedium(tm, 0, NULL, 8, 8, NULL, 0, 0);
    gex_AM_CommitRequestMedium0(sd, IDX(H_MED0), 9); /* fatal */
  }
  if (me == 0 && strcmp(scene, "nargs") == 0) {
    sd = gex_AM_PrepareRequestMedium(tm, 0, NULL, 8, 8, NULL, 0, 3);
    gex_AM_CommitRequestMedium0(sd, IDX(H_MED3), 8); /* fatal */
  }
  if (me == 0 && strcmp(scene, "betweenput") == 0) {
    static char src[8];
    (void)gex_AM_PrepareRequestMedium(tm, 0, NULL, 8, 8, NULL, 0, 0);
    (void)gex_RMA_PutBlocking(tm, (me + 1) % n, slot_of((me + 1) % n, me), src, sizeof src, 0); /* fatal */
  }
  if (me == 0 && strcmp(scene, "betweenbarrier") == 0) {
    (void)gex_AM_PrepareRequestMedium(tm, 0, NULL, 8, 8, NULL, 0, 0);
    (void)gex_Coll_BarrierNB(tm, 0); /* fatal */
  }
  if (me == 0 && strcmp(scene, "betweenreply") == 0) {
    g_reply_between = 1;
    sd = gex_AM_PrepareRequestMedium(tm, 0, NULL, 777, 777, NULL, 0, 0);
    fill(gex_AM_SrcDescAddr(sd), 777, me, 1);
    gex_AM_CommitRequestMedium0(sd, IDX(H_MED0), 777); /* to itself: its handler runs here, and replies */
  }
  if (me == 0 && (strcmp(scene, "stalereply") == 0 || strcmp(scene, "stalemax") == 0))
    CHECK(g_stale_token != NULL); /* a request handler ran here (one from every rank, itself too) */
  if (me == 0 && strcmp(scene, "stalereply") == 0)
    (void)gex_AM_PrepareReplyMedium(g_stale_token, NULL, 8, 8, NULL, 0, 0); /* fatal */
  if (me == 0 && strcmp(scene, "stalemax") == 0)
    (void)gex_Token_MaxReplyMedium(g_stale_token, NULL, 0, 0); /* fatal */
  barrier();
  if (me == 0) {
    printf("SUCCESS gex_npam\n");
    fflush(stdout);
  }
  gasnet_exit(0);
  return 0;
}
