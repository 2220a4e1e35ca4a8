/* A request a node sends to itself runs its handler inside the request call, as GASNet runs it:
 * the sender may then wait for the handler's effect without polling. Every wait below is a spin
 * on a flag that calls only gasnet_put (to the next node: inline on a node, MPI RMA across nodes;
 * neither polls) or nothing at all, so it ends only if the handler already ran.
 *   - Short, Medium (the handler gets an aligned buffer it may write to, holding the payload),
 *     Long and LongAsync (the payload is in this node's segment), each with arguments checked.
 *   - A loopback request whose handler replies: the reply handler runs inside the reply call.
 *   - Handlers that take a handler-safe lock, and that query their source (this node).
 *   - GASNET_PAR: every thread of THREADS does all of the above at once, each on flags of its own,
 *     and the counter the handlers share under an HSL ends exact.
 *   - The puts of the waits arrive: each thread's word at the next node holds its last value.
 * Built twice: gn_loopback_seq (GASNET_SEQ, the main thread only) and gn_loopback_par. */
#include "gn_util.h"

#include <stddef.h>
#include <stdint.h>

#ifdef GASNET_PAR
#include <pthread.h>
#define THREADS 4
#define NAME "gn_loopback_par"
#else
#define THREADS 1
#define NAME "gn_loopback_seq"
#endif
#define ROUNDS 200
#define SLOT 256 /* bytes of the segment per thread for Long payloads */

enum { H_SHORT = 200, H_MEDIUM, H_LONG, H_ASK, H_ANSWER };

static gasnet_node_t me, next;
static char *my_seg, *next_seg;
static volatile int g_flag[THREADS];     /* set by the handlers: the round they ran for */
static volatile int g_answered[THREADS]; /* set by the reply handler */
static gasnet_hsl_t g_lock = GASNET_HSL_INITIALIZER;
static long g_count; /* handlers run, under g_lock */

static void count_one(gasnet_token_t t) {
  gasnet_node_t src = 0;
  GN_OK(gasnet_AMGetMsgSource(t, &src));
  GN_CHECK(src == me);
  gasnet_hsl_lock(&g_lock);
  ++g_count;
  gasnet_hsl_unlock(&g_lock);
}

static void h_short(gasnet_token_t t, gasnet_handlerarg_t thread, gasnet_handlerarg_t round, gasnet_handlerarg_t x) {
  count_one(t);
  GN_CHECK(x == (gasnet_handlerarg_t)(round * 7 + thread));
  g_flag[thread] = round;
}

static void h_medium(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t thread, gasnet_handlerarg_t tag) {
  count_one(t);
  GN_CHECK(((uintptr_t)buf % _Alignof(max_align_t)) == 0);
  GN_CHECK(n == 64);
  const unsigned char *p = (const unsigned char *)buf;
  for (size_t i = 0; i < n; ++i)
    GN_CHECK(p[i] == (unsigned char)(tag + thread + (int)i));
  memset(buf, 0xee, n); /* the handler's own buffer: the sender's stays as it was */
  g_flag[thread] = tag;
}

static void h_long(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t thread, gasnet_handlerarg_t tag) {
  count_one(t);
  GN_CHECK((char *)buf == my_seg + (size_t)thread * SLOT && n == SLOT);
  const unsigned char *p = (const unsigned char *)buf;
  for (size_t i = 0; i < n; ++i)
    GN_CHECK(p[i] == (unsigned char)(tag * 3 + thread + (int)i));
  g_flag[thread] = tag;
}

static void h_answer(gasnet_token_t t, gasnet_handlerarg_t thread, gasnet_handlerarg_t round) {
  count_one(t);
  g_answered[thread] = round;
}

static void h_ask(gasnet_token_t t, gasnet_handlerarg_t thread, gasnet_handlerarg_t round) {
  count_one(t);
  GN_OK(gasnet_AMReplyShort2(t, H_ANSWER, thread, round));
  /* The reply to this node ran inside the reply call. */
  GN_CHECK(g_answered[thread] == round);
  g_flag[thread] = round;
}

/* Puts `v` to this thread's word of the next node's segment, past the Long slots. */
static void put_next(int thread, int v) {
  const uint64_t w = (uint64_t)(int64_t)v;
  gasnet_put(next, next_seg + (size_t)THREADS * SLOT + (size_t)thread * 8, (void *)&w, 8);
}

/* Waits for g_flag[thread] == tag, calling only gasnet_put (with_put) or nothing. */
static void spin(int thread, int tag, int with_put) {
  if (with_put) {
    do
      put_next(thread, tag);
    while (g_flag[thread] != tag);
  } else {
    while (g_flag[thread] != tag) {
    }
  }
}

static void fill(unsigned char *buf, size_t n, int base) {
  for (size_t i = 0; i < n; ++i)
    buf[i] = (unsigned char)(base + (int)i);
}

#define LAST_PUT (ROUNDS - 1 + 400000) /* the tag of the last wait with puts (ROUNDS is even) */

static void work(int thread) {
  unsigned char buf[SLOT];
  for (int round = 1; round <= ROUNDS; ++round) {
    const int with_put = round % 2;
    GN_OK(gasnet_AMRequestShort3(me, H_SHORT, thread, round, round * 7 + thread));
    spin(thread, round, with_put);

    const int medium = round + 100000;
    fill(buf, 64, medium + thread);
    GN_OK(gasnet_AMRequestMedium2(me, H_MEDIUM, buf, 64, thread, medium));
    spin(thread, medium, with_put);
    for (size_t i = 0; i < 64; ++i)
      GN_CHECK(buf[i] == (unsigned char)(medium + thread + (int)i));

    /* Long and LongAsync: the payload lands in this thread's slot of this node's segment. */
    const int lng = round + 200000, async = round + 300000;
    fill(buf, SLOT, lng * 3 + thread);
    GN_OK(gasnet_AMRequestLong2(me, H_LONG, buf, SLOT, my_seg + (size_t)thread * SLOT, thread, lng));
    spin(thread, lng, with_put);
    fill(buf, SLOT, async * 3 + thread);
    GN_OK(gasnet_AMRequestLongAsync2(me, H_LONG, buf, SLOT, my_seg + (size_t)thread * SLOT, thread, async));
    spin(thread, async, with_put);

    const int ask = round + 400000;
    GN_OK(gasnet_AMRequestShort2(me, H_ASK, thread, ask));
    spin(thread, ask, with_put);
    GN_CHECK(g_answered[thread] == ask);
  }
}

#ifdef GASNET_PAR
static void *thread_main(void *arg) {
  work((int)(intptr_t)arg);
  return NULL;
}
#endif

int main(int argc, char **argv) {
  GN_OK(gasnet_init(&argc, &argv));
  gasnet_handlerentry_t table[] = {{H_SHORT, (void (*)())h_short},
                                   {H_MEDIUM, (void (*)())h_medium},
                                   {H_LONG, (void (*)())h_long},
                                   {H_ASK, (void (*)())h_ask},
                                   {H_ANSWER, (void (*)())h_answer}};
  GN_OK(gasnet_attach(table, 5, GASNET_PAGESIZE, 0));
  me = gasnet_mynode();
  next = (gasnet_node_t)((me + 1) % gasnet_nodes());
  gasnet_seginfo_t seg[64];
  GN_CHECK(gasnet_nodes() <= 64);
  GN_OK(gasnet_getSegmentInfo(seg, (int)gasnet_nodes()));
  my_seg = (char *)seg[me].addr;
  next_seg = (char *)seg[next].addr;
  GN_CHECK((size_t)THREADS * (SLOT + 8) <= seg[me].size);
#ifdef GASNET_PAR
  pthread_t threads[THREADS];
  for (int i = 1; i < THREADS; ++i)
    GN_CHECK(pthread_create(&threads[i], NULL, thread_main, (void *)(intptr_t)i) == 0);
  work(0);
  for (int i = 1; i < THREADS; ++i)
    GN_CHECK(pthread_join(threads[i], NULL) == 0);
#else
  work(0);
#endif
  /* Every handler ran once: Short, Medium, Long, LongAsync, the request that replies and its reply. */
  gasnet_hsl_lock(&g_lock);
  GN_CHECK(g_count == (long)THREADS * ROUNDS * 6);
  gasnet_hsl_unlock(&g_lock);
  /* The puts of the waits reached the next node: each thread's word holds its last one. */
  GN_OK(gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS));
  for (int i = 0; i < THREADS; ++i) {
    uint64_t w;
    memcpy(&w, my_seg + (size_t)THREADS * SLOT + (size_t)i * 8, 8);
    GN_CHECK(w == (uint64_t)LAST_PUT);
  }
  GN_SUCCESS(NAME);
  gasnet_exit(0);
  return 0;
}
