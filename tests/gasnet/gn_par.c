/* GASNET_PAR [G1 §1.5]: every node runs NT threads at once, and each of them, round after round,
 *  - sends Short, Medium and Long requests to every node (self included), two of each with a reply
 *    of the same category and one Short with none, then waits for its replies in
 *    GASNET_BLOCKUNTIL: every argument and payload byte is checked by the handler that gets it,
 *    and every message is marked in a bitmap (a second arrival is a duplicate; a bit still clear at
 *    the end is a lost message);
 *  - puts and gets, blocking, with explicit handles (try and wait, one and many) and implicit ones
 *    (NBI, and an NBI access region of its own), and value puts and gets, into its own slot of
 *    every node's segment, checking each get;
 *  - adds to a counter under a handler-safe lock that every request handler also takes.
 * The main thread then joins its threads and calls the barrier; afterwards every node checks its
 * segment (the last round of every thread of every node, and the Long payloads), the bitmaps, and
 * the locked counter, which must be exact. */
#define _GNU_SOURCE
#include "gn_util.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define NT 4          /* threads per node */
#define MAX_ROUNDS 40 /* rounds per thread; GN_PAR_ROUNDS asks for fewer (the TSan pass) */
#define PER_ROUND 2   /* requests of each category with a reply, per destination and round */
#define MAX_SEQS (MAX_ROUNDS * PER_ROUND)
#define MAXN 16    /* nodes the bitmaps cover */
#define PART 65536 /* the parts of a slot */
#define SLOT (5 * PART)
#define LONG_STRIDE 20480 /* a Long request (or its reply) k of a round lands at k * LONG_STRIDE */
#define THREAD_ADDS 200   /* locked additions per thread and round */

/* Each (node s, thread t) owns slot s * NT + t of every node's segment. Its parts: */
enum { P_PUT, P_NBI, P_REGION, P_LONG, P_LREPLY };
/* P_PUT, P_NBI, P_REGION: written by (s, t)'s puts; P_LONG: where (s, t)'s Long requests land;
 * P_LREPLY: in s's own segment, slot (d, t): where node d's Long replies to s's thread t land. */

enum { C_SHORT, C_MEDIUM, C_LONG, C_NOTE, NCAT };
enum { H_SHORT = 200, H_MEDIUM, H_LONG, H_NOTE, H_R_SHORT, H_R_MEDIUM, H_R_LONG };

static gasnet_seginfo_t g_seg[MAXN];
static unsigned g_me, g_n;
static unsigned g_rounds = MAX_ROUNDS, g_seqs = MAX_SEQS; /* this run's, set before gasnet_attach */

/* Under g_lock: what the request handlers saw, and the counter that handlers and threads add to. */
static gasnet_hsl_t g_lock = GASNET_HSL_INITIALIZER;
static unsigned char g_req_seen[NCAT][MAXN][NT][MAX_SEQS];
static long g_locked;       /* one per request handled, THREAD_ADDS per thread and round */
static int g_inside;        /* 1 while a holder is in the critical section */
static atomic_long g_notes; /* H_NOTE requests handled */

/* Replies, per thread of this node (reply handlers run on whichever thread polls). */
static atomic_uchar g_rep_seen[NCAT][MAXN][NT][MAX_SEQS];
static atomic_int g_replies[NT];

static size_t slot_at(unsigned s, unsigned t) { return ((size_t)s * NT + t) * SLOT; }
static char *part_of(unsigned node, unsigned s, unsigned t, unsigned part) {
  return (char *)g_seg[node].addr + slot_at(s, t) + (size_t)part * PART;
}

/* The byte j that (s, t) leaves in part `part` in round r. */
static unsigned char pat(unsigned s, unsigned t, unsigned r, unsigned part, size_t j) {
  return (unsigned char)((s * 97u + t * 31u + r * 7u + part * 53u + j * 13u + (j >> 8) * 3u) ^ 0x5Au);
}
/* The byte j of a payload of `len` bytes sent by `src` for (thread t, seq) in category c. */
static unsigned char am_pat(unsigned src, unsigned t, unsigned seq, unsigned c, size_t len, size_t j) {
  return (unsigned char)(src * 131u + t * 17u + seq * 5u + c * 71u + len * 7u + j * 13u + (j >> 8));
}
/* The check argument of a message from `src` for (t, seq): sign bit set in some. */
static gasnet_handlerarg_t mix(unsigned src, unsigned t, unsigned seq) {
  return (gasnet_handlerarg_t)(0x9E3779B9u * (src + 1) ^ (t << 24) ^ (seq * 0x01010101u));
}

/* Payload sizes by seq and thread: empty, tiny, the Medium maximum, and (Long) past it. */
static size_t medium_len(unsigned t, unsigned seq, unsigned reply) {
  const size_t sizes[] = {0, 1, 7, 512, 4095, 16384};
  const size_t len = sizes[(seq + t + reply) % 6];
  return len < gasnet_AMMaxMedium() ? len : gasnet_AMMaxMedium();
}
static size_t long_len(unsigned t, unsigned seq, unsigned reply) {
  const size_t sizes[] = {0, 1, 100, 4096, 16385, LONG_STRIDE};
  return sizes[(seq + t + reply) % 6];
}

static void fill_am(char *buf, unsigned src, unsigned t, unsigned seq, unsigned c, size_t len) {
  for (size_t j = 0; j < len; ++j)
    buf[j] = (char)am_pat(src, t, seq, c, len, j);
}
static void check_am(const void *buf, unsigned src, unsigned t, unsigned seq, unsigned c, size_t len) {
  const unsigned char *p = (const unsigned char *)buf;
  for (size_t j = 0; j < len; ++j)
    GN_CHECK(p[j] == am_pat(src, t, seq, c, len, j));
}

/* A request from `src` for (t, seq): its arguments are sound and it is the first of its kind. */
static unsigned arrived(gasnet_token_t token, unsigned c, gasnet_handlerarg_t t, gasnet_handlerarg_t seq,
                        gasnet_handlerarg_t check) {
  gasnet_node_t src = 9999;
  GN_OK(gasnet_AMGetMsgSource(token, &src));
  GN_CHECK(src < g_n && t >= 0 && t < NT && seq >= 0 && seq < (int)g_seqs);
  GN_CHECK(check == mix(src, (unsigned)t, (unsigned)seq));
  gasnet_hsl_lock(&g_lock);
  GN_CHECK(g_inside == 0);
  g_inside = 1;
  GN_CHECK(g_req_seen[c][src][t][seq] == 0); /* no duplicate */
  g_req_seen[c][src][t][seq] = 1;
  ++g_locked;
  g_inside = 0;
  gasnet_hsl_unlock(&g_lock); /* before the reply [G1 §2.4.4] */
  return src;
}

static void replied(gasnet_token_t token, unsigned c, gasnet_handlerarg_t t, gasnet_handlerarg_t seq,
                    gasnet_handlerarg_t check) {
  gasnet_node_t src = 9999;
  GN_OK(gasnet_AMGetMsgSource(token, &src));
  GN_CHECK(src < g_n && t >= 0 && t < NT && seq >= 0 && seq < (int)g_seqs);
  GN_CHECK(check == mix(src, (unsigned)t, (unsigned)seq));
  GN_CHECK(atomic_exchange(&g_rep_seen[c][src][t][seq], 1) == 0);
  atomic_fetch_add(&g_replies[t], 1);
}

/* Handlers: arguments (thread, seq, check). */
static void h_short(gasnet_token_t tk, gasnet_handlerarg_t t, gasnet_handlerarg_t seq, gasnet_handlerarg_t check) {
  arrived(tk, C_SHORT, t, seq, check);
  GN_OK(gasnet_AMReplyShort3(tk, H_R_SHORT, t, seq, mix(g_me, (unsigned)t, (unsigned)seq)));
}
static void h_note(gasnet_token_t tk, gasnet_handlerarg_t t, gasnet_handlerarg_t seq, gasnet_handlerarg_t check) {
  arrived(tk, C_NOTE, t, seq, check);
  atomic_fetch_add(&g_notes, 1);
}
static _Thread_local char t_reply[LONG_STRIDE]; /* handlers run on several threads at once */
static void h_medium(gasnet_token_t tk, void *buf, size_t nbytes, gasnet_handlerarg_t t, gasnet_handlerarg_t seq,
                     gasnet_handlerarg_t check) {
  const unsigned src = arrived(tk, C_MEDIUM, t, seq, check);
  GN_CHECK(nbytes == medium_len((unsigned)t, (unsigned)seq, 0));
  check_am(buf, src, (unsigned)t, (unsigned)seq, C_MEDIUM, nbytes);
  const size_t len = medium_len((unsigned)t, (unsigned)seq, 1);
  fill_am(t_reply, g_me, (unsigned)t, (unsigned)seq, C_MEDIUM, len);
  GN_OK(gasnet_AMReplyMedium3(tk, H_R_MEDIUM, t_reply, len, t, seq, mix(g_me, (unsigned)t, (unsigned)seq)));
}
static void h_long(gasnet_token_t tk, void *buf, size_t nbytes, gasnet_handlerarg_t t, gasnet_handlerarg_t seq,
                   gasnet_handlerarg_t check) {
  const unsigned src = arrived(tk, C_LONG, t, seq, check);
  const unsigned k = (unsigned)seq % PER_ROUND;
  GN_CHECK(nbytes == long_len((unsigned)t, (unsigned)seq, 0));
  /* Where the payload landed (undefined for an empty one [G1 §2.3.3.3]). */
  GN_CHECK(nbytes == 0 || (char *)buf == part_of(g_me, src, (unsigned)t, P_LONG) + k * LONG_STRIDE);
  check_am(buf, src, (unsigned)t, (unsigned)seq, C_LONG, nbytes);
  const size_t len = long_len((unsigned)t, (unsigned)seq, 1);
  fill_am(t_reply, g_me, (unsigned)t, (unsigned)seq, C_LONG, len);
  char *dest = part_of(src, g_me, (unsigned)t, P_LREPLY) + k * LONG_STRIDE;
  GN_OK(gasnet_AMReplyLong3(tk, H_R_LONG, t_reply, len, dest, t, seq, mix(g_me, (unsigned)t, (unsigned)seq)));
}
static void h_r_short(gasnet_token_t tk, gasnet_handlerarg_t t, gasnet_handlerarg_t seq, gasnet_handlerarg_t check) {
  replied(tk, C_SHORT, t, seq, check);
}
static void h_r_medium(gasnet_token_t tk, void *buf, size_t nbytes, gasnet_handlerarg_t t, gasnet_handlerarg_t seq,
                       gasnet_handlerarg_t check) {
  gasnet_node_t src = 0;
  GN_OK(gasnet_AMGetMsgSource(tk, &src));
  GN_CHECK(src < g_n && t >= 0 && t < NT && seq >= 0 && seq < (int)g_seqs);
  GN_CHECK(nbytes == medium_len((unsigned)t, (unsigned)seq, 1));
  check_am(buf, src, (unsigned)t, (unsigned)seq, C_MEDIUM, nbytes);
  replied(tk, C_MEDIUM, t, seq, check);
}
static void h_r_long(gasnet_token_t tk, void *buf, size_t nbytes, gasnet_handlerarg_t t, gasnet_handlerarg_t seq,
                     gasnet_handlerarg_t check) {
  gasnet_node_t src = 0;
  GN_OK(gasnet_AMGetMsgSource(tk, &src));
  GN_CHECK(src < g_n && t >= 0 && t < NT && seq >= 0 && seq < (int)g_seqs);
  GN_CHECK(nbytes == long_len((unsigned)t, (unsigned)seq, 1));
  GN_CHECK(nbytes == 0 ||
           (char *)buf == part_of(g_me, src, (unsigned)t, P_LREPLY) + ((unsigned)seq % PER_ROUND) * LONG_STRIDE);
  check_am(buf, src, (unsigned)t, (unsigned)seq, C_LONG, nbytes);
  replied(tk, C_LONG, t, seq, check);
}

/* ---- the work of one thread ---- */

static void fill_part(char *buf, unsigned t, unsigned r, unsigned part, size_t from, size_t to) {
  for (size_t j = from; j < to; ++j)
    buf[j - from] = (char)pat(g_me, t, r, part, j);
}
static void check_part(const char *buf, unsigned s, unsigned t, unsigned r, unsigned part, size_t from, size_t to) {
  for (size_t j = from; j < to; ++j)
    GN_CHECK((unsigned char)buf[j - from] == pat(s, t, r, part, j));
}
/* P_REGION: its first quarter is a memset, of this value. */
static int region_fill(unsigned s, unsigned t, unsigned r) { return (int)((s * 5u + t * 3u + r) & 0xffu); }
static void check_region(const char *buf, unsigned s, unsigned t, unsigned r) {
  for (size_t j = 0; j < PART / 4; ++j)
    GN_CHECK((unsigned char)buf[j] == (unsigned char)region_fill(s, t, r));
  check_part(buf + PART / 4, s, t, r, P_REGION, PART / 4, PART);
}

static void add_locked(unsigned i) {
  if (i & 1) {
    int rc;
    while ((rc = gasnet_hsl_trylock(&g_lock)) != GASNET_OK) {
      GN_CHECK(rc == GASNET_ERR_NOT_READY);
      GN_OK(gasnet_AMPoll()); /* not holding the lock here: polling is allowed */
    }
  } else {
    gasnet_hsl_lock(&g_lock);
  }
  GN_CHECK(g_inside == 0);
  g_inside = 1;
  ++g_locked;
  g_inside = 0;
  gasnet_hsl_unlock(&g_lock);
}

/* One round's requests to d; returns how many replies they ask for. `async` is d's own buffer of
 * the LongAsync source, which stays untouched until the round's replies are in [G1 §2.3.3.4]. */
static int send_requests(unsigned t, unsigned r, unsigned d, char *buf, char *async) {
  for (unsigned k = 0; k < PER_ROUND; ++k) {
    const unsigned seq = r * PER_ROUND + k;
    const gasnet_handlerarg_t check = mix(g_me, t, seq);
    GN_OK(gasnet_AMRequestShort3(d, H_SHORT, (gasnet_handlerarg_t)t, (gasnet_handlerarg_t)seq, check));
    size_t len = medium_len(t, seq, 0);
    fill_am(buf, g_me, t, seq, C_MEDIUM, len);
    GN_OK(gasnet_AMRequestMedium3(d, H_MEDIUM, buf, len, (gasnet_handlerarg_t)t, (gasnet_handlerarg_t)seq, check));
    memset(buf, 0xA5, len); /* the source is the caller's again once the request returns */
    len = long_len(t, seq, 0);
    char *dest = part_of(d, g_me, t, P_LONG) + k * LONG_STRIDE;
    if (k == 0) {
      fill_am(buf, g_me, t, seq, C_LONG, len);
      GN_OK(gasnet_AMRequestLong3(d, H_LONG, buf, len, dest, (gasnet_handlerarg_t)t, (gasnet_handlerarg_t)seq, check));
      memset(buf, 0xA5, len);
    } else {
      fill_am(async, g_me, t, seq, C_LONG, len);
      GN_OK(gasnet_AMRequestLongAsync3(d, H_LONG, async, len, dest, (gasnet_handlerarg_t)t, (gasnet_handlerarg_t)seq,
                                       check));
    }
  }
  /* A request with no reply: counted at the target. */
  GN_OK(gasnet_AMRequestShort3(d, H_NOTE, (gasnet_handlerarg_t)t, (gasnet_handlerarg_t)r, mix(g_me, t, r)));
  return 3 * PER_ROUND;
}

/* One round's puts and gets to d, in (g_me, t)'s slot of d's segment. */
static void transfer(unsigned t, unsigned r, unsigned d, char *src, char *got) {
  const size_t half = PART / 2, quarter = PART / 4;
  char *put = part_of(d, g_me, t, P_PUT), *nbi = part_of(d, g_me, t, P_NBI), *reg = part_of(d, g_me, t, P_REGION);

  /* Blocking: half of P_PUT, then read it back. */
  fill_part(src, t, r, P_PUT, 0, half);
  gasnet_put(d, put, src, half);
  memset(got, 0, half);
  gasnet_get(got, d, put, half);
  check_part(got, g_me, t, r, P_PUT, 0, half);

  /* Explicit handles: a non-bulk put (its source reusable at once), synced by wait; the whole part
   * back with a bulk get, synced by try; then by quarters with four handles, synced all at once. */
  fill_part(src, t, r, P_PUT, half, PART);
  gasnet_handle_t h = gasnet_put_nb(d, put + half, src, half);
  memset(src, 0xC3, half);
  gasnet_wait_syncnb(h);
  memset(got, 0, PART);
  h = gasnet_get_nb_bulk(got, d, put, PART);
  int rc;
  while ((rc = gasnet_try_syncnb(h)) != GASNET_OK) {
    GN_CHECK(rc == GASNET_ERR_NOT_READY);
    GN_OK(gasnet_AMPoll());
  }
  check_part(got, g_me, t, r, P_PUT, 0, PART);
  gasnet_handle_t hs[4];
  memset(got, 0, PART);
  for (unsigned q = 0; q < 4; ++q)
    hs[q] = (q & 1) ? gasnet_get_nb(got + q * quarter, d, put + q * quarter, quarter)
                    : gasnet_get_nb_bulk(got + q * quarter, d, put + q * quarter, quarter);
  if (r & 1)
    gasnet_wait_syncnb_all(hs, 4);
  else
    while (gasnet_try_syncnb_all(hs, 4) != GASNET_OK)
      GN_OK(gasnet_AMPoll());
  for (unsigned q = 0; q < 4; ++q)
    GN_CHECK(hs[q] == GASNET_INVALID_HANDLE);
  check_part(got, g_me, t, r, P_PUT, 0, PART);

  /* Values: one word of P_PUT, written with what it holds already (the part stays the pattern). */
  gasnet_register_value_t v = 0;
  for (unsigned b = 0; b < 8; ++b)
    v |= (gasnet_register_value_t)pat(g_me, t, r, P_PUT, 64 + b) << (8 * b);
  gasnet_put_val(d, put + 64, v, 8);
  GN_CHECK(gasnet_get_val(d, put + 64, 8) == v);
  GN_CHECK(gasnet_get_val(d, put + 64, 2) == (v & 0xffff));

  /* NBI: a non-bulk put (source reused at once) and a bulk one; then the part back by quarters. */
  fill_part(src, t, r, P_NBI, 0, half);
  gasnet_put_nbi(d, nbi, src, half);
  memset(src, 0x3C, half);
  fill_part(src + half, t, r, P_NBI, half, PART);
  gasnet_put_nbi_bulk(d, nbi + half, src + half, half);
  if (r & 1)
    gasnet_wait_syncnbi_puts();
  else
    while (gasnet_try_syncnbi_puts() != GASNET_OK)
      GN_OK(gasnet_AMPoll());
  memset(got, 0, PART);
  for (unsigned q = 0; q < 4; ++q)
    gasnet_get_nbi_bulk(got + q * quarter, d, nbi + q * quarter, quarter);
  if (r & 1)
    gasnet_wait_syncnbi_gets();
  else
    while (gasnet_try_syncnbi_all() != GASNET_OK)
      GN_OK(gasnet_AMPoll());
  check_part(got, g_me, t, r, P_NBI, 0, PART);

  /* An access region of this thread: a memset and three puts, synced by the region's handle. An
   * NBI put outside the region (to P_NBI, the same bytes again) stays in the thread's NBI set. */
  gasnet_begin_nbi_accessregion();
  gasnet_memset_nbi(d, reg, region_fill(g_me, t, r), quarter);
  fill_part(src, t, r, P_REGION, quarter, PART);
  for (unsigned q = 1; q < 4; ++q)
    gasnet_put_nbi_bulk(d, reg + q * quarter, src + (q - 1) * quarter, quarter);
  h = gasnet_end_nbi_accessregion();
  fill_part(got, t, r, P_NBI, 0, quarter);
  gasnet_put_nbi(d, nbi, got, quarter);
  if (r & 1)
    gasnet_wait_syncnb(h);
  else
    while (gasnet_try_syncnb(h) != GASNET_OK)
      GN_OK(gasnet_AMPoll());
  gasnet_wait_syncnbi_puts();
  /* Back through a second region, of gets. */
  memset(got, 0, PART);
  gasnet_begin_nbi_accessregion();
  gasnet_get_nbi(got, d, reg, half);
  gasnet_get_nbi_bulk(got + half, d, reg + half, half);
  h = gasnet_end_nbi_accessregion();
  gasnet_wait_syncnb(h);
  check_region(got, g_me, t, r);
}

struct worker {
  unsigned t;
  pthread_t id;
};

static void *work(void *arg) {
  const unsigned t = ((struct worker *)arg)->t;
  char *buf = malloc(LONG_STRIDE), *async = malloc((size_t)g_n * LONG_STRIDE), *src = malloc(PART), *got = malloc(PART);
  GN_CHECK(buf != NULL && async != NULL && src != NULL && got != NULL);
  int expect = 0;
  for (unsigned r = 0; r < g_rounds; ++r) {
    for (unsigned i = 0; i < g_n; ++i) /* threads start at different nodes */
    {
      const unsigned d = (g_me + t + i) % g_n;
      expect += send_requests(t, r, d, buf, async + (size_t)d * LONG_STRIDE);
    }
    for (unsigned i = 0; i < g_n; ++i)
      transfer(t, r, (g_me + t + r + i) % g_n, src, got);
    for (unsigned i = 0; i < THREAD_ADDS; ++i)
      add_locked(i);
    GASNET_BLOCKUNTIL(atomic_load(&g_replies[t]) == expect);
  }
  free(buf);
  free(async);
  free(src);
  free(got);
  return NULL;
}

int main(int argc, char **argv) {
  GN_OK(gasnet_init(&argc, &argv));
  const char *rounds = getenv("GN_PAR_ROUNDS"); /* read before attach: no handler runs before it */
  if (rounds) {
    g_rounds = (unsigned)atoi(rounds);
    GN_CHECK(g_rounds >= 1 && g_rounds <= MAX_ROUNDS);
    g_seqs = g_rounds * PER_ROUND;
  }
  g_me = gasnet_mynode();
  g_n = gasnet_nodes();
  GN_CHECK(g_n <= MAXN);
  gasnet_handlerentry_t table[] = {
      {H_SHORT, (void (*)())h_short},   {H_MEDIUM, (void (*)())h_medium},   {H_LONG, (void (*)())h_long},
      {H_NOTE, (void (*)())h_note},     {H_R_SHORT, (void (*)())h_r_short}, {H_R_MEDIUM, (void (*)())h_r_medium},
      {H_R_LONG, (void (*)())h_r_long},
  };
  const uintptr_t segsize = (uintptr_t)g_n * NT * SLOT;
  GN_OK(gasnet_attach(table, (int)(sizeof table / sizeof table[0]), segsize, 0));
  GN_OK(gasnet_getSegmentInfo(g_seg, (int)g_n));
  for (unsigned i = 0; i < g_n; ++i)
    GN_CHECK(g_seg[i].size >= segsize);

  struct worker w[NT];
  for (unsigned t = 0; t < NT; ++t) {
    w[t].t = t;
    GN_CHECK(pthread_create(&w[t].id, NULL, work, &w[t]) == 0);
  }
  for (unsigned t = 0; t < NT; ++t)
    GN_CHECK(pthread_join(w[t].id, NULL) == 0);
  /* Every thread of every node has its replies, so every request with a reply ran; the notes may
   * still be on their way. */
  GN_OK(gasnet_barrier(1, 0));
  const long notes = (long)g_n * NT * g_rounds;
  GASNET_BLOCKUNTIL(atomic_load(&g_notes) == notes);
  GN_OK(gasnet_barrier(2, 0));

  /* Exact counts: every request and reply once (duplicates failed at arrival). */
  for (unsigned s = 0; s < g_n; ++s)
    for (unsigned t = 0; t < NT; ++t) {
      for (unsigned seq = 0; seq < g_seqs; ++seq)
        for (unsigned c = C_SHORT; c <= C_LONG; ++c) {
          GN_CHECK(g_req_seen[c][s][t][seq] == 1);
          GN_CHECK(atomic_load(&g_rep_seen[c][s][t][seq]) == 1);
        }
      for (unsigned r = 0; r < g_rounds; ++r)
        GN_CHECK(g_req_seen[C_NOTE][s][t][r] == 1);
    }
  for (unsigned t = 0; t < NT; ++t)
    GN_CHECK(atomic_load(&g_replies[t]) == (int)(3 * g_seqs * g_n));
  gasnet_hsl_lock(&g_lock);
  const long locked = g_locked;
  gasnet_hsl_unlock(&g_lock);
  GN_CHECK(locked == (long)g_n * NT * (3 * g_seqs + g_rounds) + (long)NT * g_rounds * THREAD_ADDS);

  /* This node's segment: every (s, t) slot holds s's thread t's last round, and the last Long
   * requests and replies it got. */
  const unsigned last = g_rounds - 1;
  for (unsigned s = 0; s < g_n; ++s)
    for (unsigned t = 0; t < NT; ++t) {
      const char *slot = (const char *)g_seg[g_me].addr + slot_at(s, t);
      check_part(slot + P_PUT * PART, s, t, last, P_PUT, 0, PART);
      check_part(slot + P_NBI * PART, s, t, last, P_NBI, 0, PART);
      check_region(slot + P_REGION * PART, s, t, last);
      for (unsigned k = 0; k < PER_ROUND; ++k) {
        const unsigned seq = last * PER_ROUND + k;
        check_am(slot + P_LONG * PART + k * LONG_STRIDE, s, t, seq, C_LONG, long_len(t, seq, 0));
        check_am(slot + P_LREPLY * PART + k * LONG_STRIDE, s, t, seq, C_LONG, long_len(t, seq, 1));
      }
    }
  GN_SUCCESS("gn_par");
  gasnet_exit(0);
  return 0;
}
