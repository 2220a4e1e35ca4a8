/* Active messages [G1 §2.3]: every category (Short, Medium, Long, LongAsync), every argument count
 * 0..16, payloads at 0, 1, 512 and the maximum, requests and replies, each argument and payload byte
 * checked at the handler; loopback; a many-to-one flood with no loss and no duplicate (counts per
 * sender and in-order sequence numbers); gasnet_AMGetMsgSource; handler index assignment. */
#include "gn_util.h"

#define H_SHORT 200
#define H_MEDIUM 201
#define H_LONG 202
#define H_REPLY_SHORT 203
#define H_ACK 210
#define H_REPLY_MEDIUM 204
#define H_REPLY_LONG 205
#define H_FLOOD 206
#define H_FLOOD_PAYLOAD 207

static volatile int g_replies;      /* reply handlers run so far (changed only in handlers) */
static volatile int g_received;     /* request handlers run so far */
static gasnet_seginfo_t *g_seg;     /* every node's segment */
static unsigned g_flood_next[1024]; /* next expected sequence number per sender */
static volatile unsigned g_flood_count;

/* Argument i of a message with `m` arguments from `src`: distinct, with the sign bit set in some. */
static gasnet_handlerarg_t arg_value(unsigned src, unsigned m, unsigned i) {
  return (gasnet_handlerarg_t)(0x9E3779B9u * (src + 1) ^ (m << 8) ^ (i * 0x01010101u));
}
static unsigned char byte_value(unsigned src, size_t nbytes, size_t j) {
  return (unsigned char)(src * 131u + nbytes * 7u + j * 13u + (j >> 8));
}

static void check_args(gasnet_token_t token, unsigned m, const gasnet_handlerarg_t *a) {
  gasnet_node_t src = 9999;
  GN_OK(gasnet_AMGetMsgSource(token, &src));
  GN_CHECK(src < gasnet_nodes());
  for (unsigned i = 0; i < m; ++i)
    GN_CHECK(a[i] == arg_value(src, m, i));
}

static void check_payload(gasnet_token_t token, const void *buf, size_t nbytes) {
  gasnet_node_t src = 0;
  GN_OK(gasnet_AMGetMsgSource(token, &src));
  const unsigned char *p = (const unsigned char *)buf;
  for (size_t j = 0; j < nbytes; ++j)
    GN_CHECK(p[j] == byte_value(src, nbytes, j));
}

/* Handlers take up to 16 arguments; one function per prototype is enough: the test sends the
 * argument count as part of the message category's fixed arguments below. Each handler checks
 * what arrived and replies with the same category and count. */
#define ARGS16                                                                                                         \
  gasnet_handlerarg_t a0, gasnet_handlerarg_t a1, gasnet_handlerarg_t a2, gasnet_handlerarg_t a3,                      \
      gasnet_handlerarg_t a4, gasnet_handlerarg_t a5, gasnet_handlerarg_t a6, gasnet_handlerarg_t a7,                  \
      gasnet_handlerarg_t a8, gasnet_handlerarg_t a9, gasnet_handlerarg_t a10, gasnet_handlerarg_t a11,                \
      gasnet_handlerarg_t a12, gasnet_handlerarg_t a13, gasnet_handlerarg_t a14, gasnet_handlerarg_t a15
#define PACK16                                                                                                         \
  { a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15 }

/* The 16-argument forms: every count below 16 is tested with its own handler further down. */
static void h_short16(gasnet_token_t t, ARGS16) {
  const gasnet_handlerarg_t a[16] = PACK16;
  check_args(t, 16, a);
  ++g_received;
  gasnet_node_t src;
  gasnet_AMGetMsgSource(t, &src);
  GN_OK(gasnet_AMReplyShort16(
      t, H_REPLY_SHORT, arg_value(gasnet_mynode(), 16, 0), arg_value(gasnet_mynode(), 16, 1),
      arg_value(gasnet_mynode(), 16, 2), arg_value(gasnet_mynode(), 16, 3), arg_value(gasnet_mynode(), 16, 4),
      arg_value(gasnet_mynode(), 16, 5), arg_value(gasnet_mynode(), 16, 6), arg_value(gasnet_mynode(), 16, 7),
      arg_value(gasnet_mynode(), 16, 8), arg_value(gasnet_mynode(), 16, 9), arg_value(gasnet_mynode(), 16, 10),
      arg_value(gasnet_mynode(), 16, 11), arg_value(gasnet_mynode(), 16, 12), arg_value(gasnet_mynode(), 16, 13),
      arg_value(gasnet_mynode(), 16, 14), arg_value(gasnet_mynode(), 16, 15)));
}
static void h_reply_short16(gasnet_token_t t, ARGS16) {
  const gasnet_handlerarg_t a[16] = PACK16;
  check_args(t, 16, a);
  ++g_replies;
}

static char g_reply_buf[16384];

static void h_medium16(gasnet_token_t t, void *buf, size_t nbytes, ARGS16) {
  const gasnet_handlerarg_t a[16] = PACK16;
  check_args(t, 16, a);
  check_payload(t, buf, nbytes);
  GN_CHECK(((uintptr_t)buf % 8) == 0); /* aligned for any type */
  ++g_received;
  /* Reply with a Medium of the same size, built from this node's pattern. */
  for (size_t j = 0; j < nbytes; ++j)
    g_reply_buf[j] = (char)byte_value(gasnet_mynode(), nbytes, j);
  const unsigned me = gasnet_mynode();
  GN_OK(gasnet_AMReplyMedium16(t, H_REPLY_MEDIUM, g_reply_buf, nbytes, arg_value(me, 16, 0), arg_value(me, 16, 1),
                               arg_value(me, 16, 2), arg_value(me, 16, 3), arg_value(me, 16, 4), arg_value(me, 16, 5),
                               arg_value(me, 16, 6), arg_value(me, 16, 7), arg_value(me, 16, 8), arg_value(me, 16, 9),
                               arg_value(me, 16, 10), arg_value(me, 16, 11), arg_value(me, 16, 12),
                               arg_value(me, 16, 13), arg_value(me, 16, 14), arg_value(me, 16, 15)));
}
static void h_reply_medium16(gasnet_token_t t, void *buf, size_t nbytes, ARGS16) {
  const gasnet_handlerarg_t a[16] = PACK16;
  check_args(t, 16, a);
  check_payload(t, buf, nbytes);
  ++g_replies;
}

/* Long: the payload lands at the given address of the receiver's segment; the region is chosen by
 * the sender (its rank's slot), so concurrent senders do not overlap. */
static void h_long16(gasnet_token_t t, void *buf, size_t nbytes, ARGS16) {
  const gasnet_handlerarg_t a[16] = PACK16;
  check_args(t, 16, a);
  gasnet_node_t src;
  gasnet_AMGetMsgSource(t, &src);
  char *seg = (char *)g_seg[gasnet_mynode()].addr;
  GN_CHECK((char *)buf >= seg && (char *)buf + nbytes <= seg + g_seg[gasnet_mynode()].size);
  check_payload(t, buf, nbytes);
  ++g_received;
  /* Reply Long into the requester's slot for replies from us (second half of its segment). */
  const size_t half = g_seg[src].size / 2;
  char *dest = (char *)g_seg[src].addr + half + (size_t)gasnet_mynode() * (half / gasnet_nodes());
  for (size_t j = 0; j < nbytes; ++j)
    g_reply_buf[j] = (char)byte_value(gasnet_mynode(), nbytes, j);
  const unsigned me = gasnet_mynode();
  GN_OK(gasnet_AMReplyLong16(t, H_REPLY_LONG, g_reply_buf, nbytes, dest, arg_value(me, 16, 0), arg_value(me, 16, 1),
                             arg_value(me, 16, 2), arg_value(me, 16, 3), arg_value(me, 16, 4), arg_value(me, 16, 5),
                             arg_value(me, 16, 6), arg_value(me, 16, 7), arg_value(me, 16, 8), arg_value(me, 16, 9),
                             arg_value(me, 16, 10), arg_value(me, 16, 11), arg_value(me, 16, 12), arg_value(me, 16, 13),
                             arg_value(me, 16, 14), arg_value(me, 16, 15)));
}
static void h_reply_long16(gasnet_token_t t, void *buf, size_t nbytes, ARGS16) {
  const gasnet_handlerarg_t a[16] = PACK16;
  check_args(t, 16, a);
  check_payload(t, buf, nbytes);
  ++g_replies;
}

/* Counts 0..15: one Short handler per count, each checking its arguments; no reply (replying is
 * optional [G1 §2.3.3]), the sender counts acknowledgements with a second Short request instead. */
#define A(i) gasnet_handlerarg_t a##i
static void count_in(gasnet_token_t t, unsigned m, const gasnet_handlerarg_t *a) {
  check_args(t, m, a);
  ++g_received;
  GN_OK(gasnet_AMReplyShort0(t, H_ACK)); /* a Short reply with no argument */
}
static void h_s0(gasnet_token_t t) { count_in(t, 0, NULL); }
static void h_s1(gasnet_token_t t, A(0)) {
  gasnet_handlerarg_t a[] = {a0};
  count_in(t, 1, a);
}
static void h_s2(gasnet_token_t t, A(0), A(1)) {
  gasnet_handlerarg_t a[] = {a0, a1};
  count_in(t, 2, a);
}
static void h_s3(gasnet_token_t t, A(0), A(1), A(2)) {
  gasnet_handlerarg_t a[] = {a0, a1, a2};
  count_in(t, 3, a);
}
static void h_s4(gasnet_token_t t, A(0), A(1), A(2), A(3)) {
  gasnet_handlerarg_t a[] = {a0, a1, a2, a3};
  count_in(t, 4, a);
}
static void h_s7(gasnet_token_t t, A(0), A(1), A(2), A(3), A(4), A(5), A(6)) {
  gasnet_handlerarg_t a[] = {a0, a1, a2, a3, a4, a5, a6};
  count_in(t, 7, a);
}
static void h_s8(gasnet_token_t t, A(0), A(1), A(2), A(3), A(4), A(5), A(6), A(7)) {
  gasnet_handlerarg_t a[] = {a0, a1, a2, a3, a4, a5, a6, a7};
  count_in(t, 8, a);
}
static void h_s15(gasnet_token_t t, A(0), A(1), A(2), A(3), A(4), A(5), A(6), A(7), A(8), A(9), A(10), A(11), A(12),
                  A(13), A(14)) {
  gasnet_handlerarg_t a[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14};
  count_in(t, 15, a);
}
static void h_m2(gasnet_token_t t, void *buf, size_t n, A(0), A(1)) {
  gasnet_handlerarg_t a[] = {a0, a1};
  check_payload(t, buf, n);
  count_in(t, 2, a);
}
static void h_l5(gasnet_token_t t, void *buf, size_t n, A(0), A(1), A(2), A(3), A(4)) {
  gasnet_handlerarg_t a[] = {a0, a1, a2, a3, a4};
  check_payload(t, buf, n);
  count_in(t, 5, a);
}
static void h_ack(gasnet_token_t t) {
  gasnet_node_t src;
  GN_OK(gasnet_AMGetMsgSource(t, &src));
  ++g_replies;
}
static void h_flood(gasnet_token_t t, A(0)) {
  gasnet_node_t src;
  GN_OK(gasnet_AMGetMsgSource(t, &src));
  GN_CHECK((unsigned)a0 == g_flood_next[src]); /* per-sender order, no loss, no duplicate */
  g_flood_next[src]++;
  g_flood_count++;
}
/* A Medium or Long of the flood: in the same per-sender order as the Shorts around it, whatever
 * path its size takes (across nodes, one above 1 KiB goes on MPI's large tag behind an
 * announcement); first and last payload bytes carry the sequence number. */
static void h_flood_payload(gasnet_token_t t, void *buf, size_t n, A(0)) {
  GN_CHECK(n >= 1 && ((unsigned char *)buf)[0] == (unsigned char)a0 && ((unsigned char *)buf)[n - 1] == (unsigned char)~a0);
  h_flood(t, a0);
}

enum { H_S0 = 130, H_S1, H_S2, H_S3, H_S4, H_S7, H_S8, H_S15, H_M2, H_L5 };

#define AV(i) arg_value(me, m, i)

static void wait_replies(int target) { GASNET_BLOCKUNTIL(g_replies == target); }

int main(int argc, char **argv) {
  GN_OK(gasnet_init(&argc, &argv));
  gasnet_handlerentry_t table[] = {
      {H_SHORT, (void (*)())h_short16},
      {H_MEDIUM, (void (*)())h_medium16},
      {H_LONG, (void (*)())h_long16},
      {H_REPLY_SHORT, (void (*)())h_reply_short16},
      {H_REPLY_MEDIUM, (void (*)())h_reply_medium16},
      {H_REPLY_LONG, (void (*)())h_reply_long16},
      {H_FLOOD, (void (*)())h_flood},
      {H_FLOOD_PAYLOAD, (void (*)())h_flood_payload},
      {H_ACK, (void (*)())h_ack},
      {H_S0, (void (*)())h_s0},
      {H_S1, (void (*)())h_s1},
      {H_S2, (void (*)())h_s2},
      {H_S3, (void (*)())h_s3},
      {H_S4, (void (*)())h_s4},
      {H_S7, (void (*)())h_s7},
      {H_S8, (void (*)())h_s8},
      {H_S15, (void (*)())h_s15},
      {H_M2, (void (*)())h_m2},
      {H_L5, (void (*)())h_l5},
      {0, (void (*)())h_ack}, /* "don't care": gets the lowest free client index, 128 */
      {0, (void (*)())h_ack}, /* then 129 */
  };
  const int entries = (int)(sizeof table / sizeof table[0]);
  const uintptr_t segsize = 4u << 20;
  GN_OK(gasnet_attach(table, entries, segsize, 0));
  GN_CHECK(table[entries - 2].index == 128 && table[entries - 1].index == 129);
  const unsigned me = gasnet_mynode(), n = gasnet_nodes();
  GN_CHECK(gasnet_AMMaxArgs() == 16);
  GN_CHECK(gasnet_AMMaxMedium() >= 512 && gasnet_AMMaxLongRequest() >= 512 && gasnet_AMMaxLongReply() >= 512);
  gasnet_seginfo_t seg[1024];
  GN_CHECK(n <= 1024);
  GN_OK(gasnet_getSegmentInfo(seg, (int)n));
  g_seg = seg;
  for (unsigned i = 0; i < n; ++i)
    GN_CHECK(seg[i].size == segsize && seg[i].addr != NULL && (uintptr_t)seg[i].addr % GASNET_PAGESIZE == 0);

  static char src[16384];
  const size_t max_medium = gasnet_AMMaxMedium();
  const size_t sizes[] = {0, 1, 512, 4096, max_medium};
  int replies = 0;
  /* Every category with 16 arguments, every payload size, to every node (self included). */
  for (unsigned d = 0; d < n; ++d) {
    const unsigned m = 16;
    GN_OK(gasnet_AMRequestShort16(d, H_SHORT, AV(0), AV(1), AV(2), AV(3), AV(4), AV(5), AV(6), AV(7), AV(8), AV(9),
                                  AV(10), AV(11), AV(12), AV(13), AV(14), AV(15)));
    wait_replies(++replies);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
      const size_t nb = sizes[k];
      for (size_t j = 0; j < nb; ++j)
        src[j] = (char)byte_value(me, nb, j);
      GN_OK(gasnet_AMRequestMedium16(d, H_MEDIUM, src, nb, AV(0), AV(1), AV(2), AV(3), AV(4), AV(5), AV(6), AV(7),
                                     AV(8), AV(9), AV(10), AV(11), AV(12), AV(13), AV(14), AV(15)));
      memset(src, 0x5A, nb); /* the source is reusable once the request returns */
      wait_replies(++replies);
      /* Long into our slot of d's first half. */
      const size_t half = seg[d].size / 2;
      char *dest = (char *)seg[d].addr + (size_t)me * (half / n);
      const size_t lb = nb <= half / n ? nb : half / n;
      for (size_t j = 0; j < lb; ++j)
        src[j] = (char)byte_value(me, lb, j);
      if ((k & 1) == 0)
        GN_OK(gasnet_AMRequestLong16(d, H_LONG, src, lb, dest, AV(0), AV(1), AV(2), AV(3), AV(4), AV(5), AV(6), AV(7),
                                     AV(8), AV(9), AV(10), AV(11), AV(12), AV(13), AV(14), AV(15)));
      else
        GN_OK(gasnet_AMRequestLongAsync16(d, H_LONG, src, lb, dest, AV(0), AV(1), AV(2), AV(3), AV(4), AV(5), AV(6),
                                          AV(7), AV(8), AV(9), AV(10), AV(11), AV(12), AV(13), AV(14), AV(15)));
      wait_replies(++replies);
    }
  }
  /* Argument counts below 16, Short, Medium and Long. */
  for (unsigned d = 0; d < n; ++d) {
    unsigned m;
    m = 0;
    GN_OK(gasnet_AMRequestShort0(d, H_S0));
    wait_replies(++replies);
    m = 1;
    GN_OK(gasnet_AMRequestShort1(d, H_S1, AV(0)));
    wait_replies(++replies);
    m = 2;
    GN_OK(gasnet_AMRequestShort2(d, H_S2, AV(0), AV(1)));
    wait_replies(++replies);
    m = 3;
    GN_OK(gasnet_AMRequestShort3(d, H_S3, AV(0), AV(1), AV(2)));
    wait_replies(++replies);
    m = 4;
    GN_OK(gasnet_AMRequestShort4(d, H_S4, AV(0), AV(1), AV(2), AV(3)));
    wait_replies(++replies);
    m = 7;
    GN_OK(gasnet_AMRequestShort7(d, H_S7, AV(0), AV(1), AV(2), AV(3), AV(4), AV(5), AV(6)));
    wait_replies(++replies);
    m = 8;
    GN_OK(gasnet_AMRequestShort8(d, H_S8, AV(0), AV(1), AV(2), AV(3), AV(4), AV(5), AV(6), AV(7)));
    wait_replies(++replies);
    m = 15;
    GN_OK(gasnet_AMRequestShort15(d, H_S15, AV(0), AV(1), AV(2), AV(3), AV(4), AV(5), AV(6), AV(7), AV(8), AV(9),
                                  AV(10), AV(11), AV(12), AV(13), AV(14)));
    wait_replies(++replies);
    m = 2;
    for (size_t j = 0; j < 100; ++j)
      src[j] = (char)byte_value(me, 100, j);
    GN_OK(gasnet_AMRequestMedium2(d, H_M2, src, 100, AV(0), AV(1)));
    wait_replies(++replies);
    m = 5;
    char *dest = (char *)seg[d].addr + (size_t)me * ((seg[d].size / 2) / n);
    GN_OK(gasnet_AMRequestLong5(d, H_L5, src, 100, dest, AV(0), AV(1), AV(2), AV(3), AV(4)));
    wait_replies(++replies);
  }
  GN_OK(gasnet_barrier(1, 0));

  /* Many-to-one flood: every node sends 20000 requests to node 0 without waiting, mostly Shorts,
   * with Mediums of 8 B and of the maximum and Longs of 2 KiB among them; node 0 sees each
   * sender's sequence numbers in order, none lost or repeated. */
  const unsigned flood = 20000;
  if (me != 0 || n == 1) {
    /* Each Long lands in a 2 KiB slot of its own in our part of node 0's second half (node 0
     * may run its handler long after later Longs have landed). */
    char *region = (char *)seg[0].addr + seg[0].size / 2 + (size_t)me * ((seg[0].size / 2) / n);
    const unsigned longs = (unsigned)(((seg[0].size / 2) / n) / 2048);
    for (unsigned i = 0; i < flood; ++i) {
      const int is_long = i % 32 == 7 && i / 32 < longs;
      const size_t bytes = i % 64 == 13 ? max_medium : is_long ? 2048 : 8;
      src[0] = (char)i;
      src[bytes - 1] = (char)~i;
      if (i % 64 == 13 || i % 16 == 5)
        GN_OK(gasnet_AMRequestMedium1(0, H_FLOOD_PAYLOAD, src, bytes, (gasnet_handlerarg_t)i));
      else if (is_long)
        GN_OK(gasnet_AMRequestLong1(0, H_FLOOD_PAYLOAD, src, bytes, region + (size_t)(i / 32) * 2048,
                                    (gasnet_handlerarg_t)i));
      else
        GN_OK(gasnet_AMRequestShort1(0, H_FLOOD, (gasnet_handlerarg_t)i));
    }
  }
  if (me == 0) {
    const unsigned expect = (n == 1 ? 1 : n - 1) * flood;
    GASNET_BLOCKUNTIL(g_flood_count == expect);
    for (unsigned s = (n == 1 ? 0 : 1); s < n; ++s)
      GN_CHECK(g_flood_next[s] == flood);
  }
  GN_SUCCESS("gn_am");
  gasnet_exit(0);
  return 0;
}
