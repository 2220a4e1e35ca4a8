/* Barriers [G1 §3.5]: named barriers with equal ids; anonymous notifies mixed with named ones;
 * different ids, or GASNET_BARRIERFLAG_MISMATCH on one node, give GASNET_ERR_BARRIER_MISMATCH on
 * every node; a wait whose id or flags differ from its own notify gives a mismatch there only;
 * gasnet_barrier_try says GASNET_ERR_NOT_READY while a node has not notified (that node holds
 * back until every other node told it, by an AM, that it is trying), then completes; 1000
 * barriers in a row with alternating ids and forms, each one checked to order a put before it
 * against a read after it; the blocking gasnet_barrier and gasnet_barrier_result.
 * With the argument two_threads (2 nodes) it runs a breach of [G1 §3.5] instead, "only one thread
 * is ever inside a GASNet barrier function at a time": node 0's second thread calls
 * gasnet_barrier_result while its main thread waits in gasnet_barrier_wait (for node 1, which never
 * notifies). That is fatal, naming the call (CMakeLists.txt checks the message). */
#include "gn_util.h"

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define H_TRYING 200
#define H_INSIDE 201
#define ROUNDS 8

static volatile int g_trying[ROUNDS]; /* per round: nodes that said they are trying */

static void h_trying(gasnet_token_t t, gasnet_handlerarg_t round) {
  (void)t;
  GN_CHECK(round >= 0 && round < ROUNDS);
  g_trying[round]++;
}

/* two_threads: set by a handler that node 0's main thread runs inside its barrier wait. */
static int g_inside;
static void h_inside(gasnet_token_t t) {
  (void)t;
  __atomic_store_n(&g_inside, 1, __ATOMIC_RELEASE);
}
static void *second_thread(void *arg) {
  (void)arg;
  while (!__atomic_load_n(&g_inside, __ATOMIC_ACQUIRE))
    sched_yield();
  int id = 0;
  (void)gasnet_barrier_result(&id); /* the main thread is inside gasnet_barrier_wait: fatal */
  printf("gn_barrier two_threads: a second thread was let into the barrier functions\n");
  exit(1);
}
static int two_threads(unsigned node) {
  if (node == 0) {
    pthread_t t;
    GN_CHECK(pthread_create(&t, NULL, second_thread, NULL) == 0);
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    (void)gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS); /* node 1 never notifies */
    printf("gn_barrier two_threads: the barrier completed\n");
    return 1;
  }
  GN_OK(gasnet_AMRequestShort0(0, H_INSIDE));
  for (;;) { /* until node 0's fatal error ends the job */
    GN_OK(gasnet_AMPoll());
    sched_yield();
  }
}

static unsigned me, nn;
static gasnet_seginfo_t g_seg[1024];

static int wait_rc(int id, int flags) {
  const int rc = gasnet_barrier_wait(id, flags);
  GN_CHECK(rc == GASNET_OK || rc == GASNET_ERR_BARRIER_MISMATCH);
  return rc;
}

/* A whole barrier, split phase, with a given verdict expected. */
static void expect(int nid, int nflags, int wid, int wflags, int want) {
  gasnet_barrier_notify(nid, nflags);
  const int rc = wait_rc(wid, wflags);
  if (rc != want)
    fprintf(stderr, "[%u] notify(%d, %d) wait(%d, %d) gave %s, not %s\n", me, nid, nflags, wid, wflags,
            gasnet_ErrorName(rc), gasnet_ErrorName(want));
  GN_CHECK(rc == want);
}

static int try_until_done(int id, int flags) {
  int rc;
  long spins = 0;
  while ((rc = gasnet_barrier_try(id, flags)) == GASNET_ERR_NOT_READY) {
    GN_CHECK(++spins < 100000000L);
    sched_yield(); /* nodes share cores here: a try loop that never yields starves the others */
  }
  GN_CHECK(rc == GASNET_OK || rc == GASNET_ERR_BARRIER_MISMATCH);
  return rc;
}

int main(int argc, char **argv) {
  GN_OK(gasnet_init(&argc, &argv));
  gasnet_handlerentry_t table[] = {{H_TRYING, (void (*)())h_trying}, {H_INSIDE, (void (*)())h_inside}};
  GN_OK(gasnet_attach(table, 2, GASNET_PAGESIZE, 0));
  me = gasnet_mynode();
  nn = gasnet_nodes();
  if (argc == 2 && strcmp(argv[1], "two_threads") == 0)
    return two_threads(me);
  GN_CHECK(nn <= 1024);
  GN_OK(gasnet_getSegmentInfo(g_seg, (int)nn));
  const int many = nn > 1; /* a mismatch between nodes needs two of them */
  const int across = many ? GASNET_ERR_BARRIER_MISMATCH : GASNET_OK;
  int id = 0;

  /* Named, equal ids, including the extremes. */
  static const int ids[] = {0, 1, -1, 12345, INT_MAX, INT_MIN};
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; ++i) {
    expect(ids[i], 0, ids[i], 0, GASNET_OK);
    GN_CHECK(gasnet_barrier_result(&id) == 0 && id == ids[i]);
    GN_OK(gasnet_barrier(ids[i], 0));
    GN_CHECK(gasnet_barrier_result(&id) == 0 && id == ids[i]);
  }

  /* Anonymous mixed with named: odd nodes name 4242, even ones are anonymous (with junk ids). */
  if (me % 2)
    expect(4242, 0, 4242, 0, GASNET_OK);
  else
    expect((int)me * 1000 + 7, GASNET_BARRIERFLAG_ANONYMOUS, -5, GASNET_BARRIERFLAG_ANONYMOUS, GASNET_OK);
  if (many)
    GN_CHECK(gasnet_barrier_result(&id) == 0 && id == 4242);
  else
    GN_CHECK(gasnet_barrier_result(&id) == GASNET_BARRIERFLAG_ANONYMOUS);
  /* Only the last node names one. */
  if (me == nn - 1)
    expect(-77, 0, -77, 0, GASNET_OK);
  else
    expect((int)me, GASNET_BARRIERFLAG_ANONYMOUS, (int)me, GASNET_BARRIERFLAG_ANONYMOUS, GASNET_OK);
  GN_CHECK(gasnet_barrier_result(&id) == 0 && id == -77);
  /* All anonymous, every id different. */
  expect((int)me * 3 + 1, GASNET_BARRIERFLAG_ANONYMOUS, (int)me * 5 + 2, GASNET_BARRIERFLAG_ANONYMOUS, GASNET_OK);
  GN_CHECK(gasnet_barrier_result(&id) == GASNET_BARRIERFLAG_ANONYMOUS);
  GN_OK(gasnet_barrier(99, GASNET_BARRIERFLAG_ANONYMOUS));
  GN_CHECK(gasnet_barrier_result(&id) == GASNET_BARRIERFLAG_ANONYMOUS);

  /* Different ids on different nodes: a mismatch on every node. */
  expect((int)me, 0, (int)me, 0, across);
  GN_OK(gasnet_barrier(5, 0)); /* and the next barrier is fine again */
  /* Two named nodes that differ, the others anonymous. */
  if (me == 0)
    expect(1, 0, 1, 0, across);
  else if (me == nn - 1)
    expect(2, 0, 2, 0, across);
  else
    expect(0, GASNET_BARRIERFLAG_ANONYMOUS, 0, GASNET_BARRIERFLAG_ANONYMOUS, across);
  /* The blocking form sees it too. */
  {
    const int rc = gasnet_barrier((int)me + 100, 0);
    GN_CHECK(rc == across);
  }
  GN_OK(gasnet_barrier(6, 0));

  /* GASNET_BARRIERFLAG_MISMATCH on one node: a mismatch on every node, that one included. */
  for (unsigned culprit = 0; culprit < nn; culprit += (nn > 1 ? nn - 1 : 1)) {
    if (me == culprit)
      expect(0, GASNET_BARRIERFLAG_MISMATCH, 0, GASNET_BARRIERFLAG_MISMATCH, GASNET_ERR_BARRIER_MISMATCH);
    else if (me % 2)
      expect(9, 0, 9, 0, GASNET_ERR_BARRIER_MISMATCH);
    else
      expect(9, GASNET_BARRIERFLAG_ANONYMOUS, 9, GASNET_BARRIERFLAG_ANONYMOUS, GASNET_ERR_BARRIER_MISMATCH);
    GN_OK(gasnet_barrier(7, 0));
  }

  /* A wait that differs from its own notify: a mismatch on that node only. */
  if (me == nn - 1)
    expect(11, 0, 12, 0, GASNET_ERR_BARRIER_MISMATCH); /* another id */
  else
    expect(11, 0, 11, 0, GASNET_OK);
  if (me == 0)
    expect(11, 0, 11, GASNET_BARRIERFLAG_ANONYMOUS, GASNET_ERR_BARRIER_MISMATCH); /* other flags */
  else
    expect(11, 0, 11, 0, GASNET_OK);
  if (me == 0)
    expect(13, GASNET_BARRIERFLAG_ANONYMOUS, 13, 0, GASNET_ERR_BARRIER_MISMATCH); /* named wait */
  else
    expect(13, 0, 13, 0, GASNET_OK);
  expect(14, GASNET_BARRIERFLAG_ANONYMOUS, 15, GASNET_BARRIERFLAG_ANONYMOUS, GASNET_OK); /* id ignored */
  GN_OK(gasnet_barrier(8, 0));

  /* Split phase: the held-back node (0, then the last) notifies only once every other node has
   * notified, found the barrier not ready, and said so by an AM; then all try until it completes.
   * Round 2 holds back the last node and tries with a wrong id on it: a mismatch there only. */
  for (int round = 0; round < 3; ++round) {
    const unsigned held = round == 0 ? 0 : nn - 1;
    const int bid = 1000 + round;
    const int wrong = round == 2 && me == held;
    if (me != held) {
      gasnet_barrier_notify(bid, 0);
      for (int i = 0; i < 100; ++i)
        GN_CHECK(gasnet_barrier_try(bid, 0) == GASNET_ERR_NOT_READY); /* and a no-op */
      GN_OK(gasnet_AMRequestShort1(held, H_TRYING, round));
      GN_CHECK(try_until_done(bid, 0) == GASNET_OK);
    } else {
      GASNET_BLOCKUNTIL(g_trying[round] == (int)nn - 1);
      gasnet_barrier_notify(bid, 0);
      GN_CHECK(try_until_done(wrong ? bid + 1 : bid, 0) == (wrong ? GASNET_ERR_BARRIER_MISMATCH : GASNET_OK));
    }
    GN_CHECK(gasnet_barrier_result(&id) == 0 && id == bid);
  }
  /* The same with an anonymous try on every node, and a plain wait on the held-back one. */
  {
    const unsigned held = nn / 2;
    if (me != held) {
      gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
      GN_CHECK(gasnet_barrier_try(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_ERR_NOT_READY);
      GN_OK(gasnet_AMRequestShort1(held, H_TRYING, 3));
      GN_CHECK(try_until_done(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK);
    } else {
      GASNET_BLOCKUNTIL(g_trying[3] == (int)nn - 1);
      expect(0, GASNET_BARRIERFLAG_ANONYMOUS, 0, GASNET_BARRIERFLAG_ANONYMOUS, GASNET_OK);
    }
  }

  /* 1000 barriers in a row: alternating ids (and forms). Before each, a blocking put of the
   * barrier's number to the next node; after it, the number from the previous node must be there
   * (two cells by parity: a node can be one barrier ahead, never two). */
  volatile int *cells = (volatile int *)g_seg[me].addr;
  cells[0] = cells[1] = -1;
  GN_OK(gasnet_barrier(9, 0));
  const unsigned next = (me + 1) % nn;
  for (int i = 0; i < 1000; ++i) {
    const int bid = (i & 1) ? (int)(0x5A5A0000u + (unsigned)i) : -i;
    int value = i;
    gasnet_put(next, (int *)g_seg[next].addr + (i & 1), &value, sizeof value);
    switch (i % 3) {
    case 0:
      GN_OK(gasnet_barrier(bid, 0));
      break;
    case 1:
      gasnet_barrier_notify(bid, 0);
      GN_OK(gasnet_barrier_wait(bid, 0));
      break;
    default:
      gasnet_barrier_notify(bid, 0);
      GN_CHECK(try_until_done(bid, 0) == GASNET_OK);
      break;
    }
    if (cells[i & 1] != i)
      fprintf(stderr, "[%u] barrier %d: the cell holds %d\n", me, i, cells[i & 1]);
    GN_CHECK(cells[i & 1] == i);
    if (i % 100 == 99)
      GN_CHECK(gasnet_barrier_result(&id) == 0 && id == bid);
  }

  /* The blocking form, anonymous and named, and the last result. */
  GN_OK(gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS));
  GN_CHECK(gasnet_barrier_result(&id) == GASNET_BARRIERFLAG_ANONYMOUS);
  GN_OK(gasnet_barrier(31337, 0));
  GN_CHECK(gasnet_barrier_result(&id) == 0 && id == 31337);

  GN_SUCCESS("gn_barrier");
  gasnet_exit(0);
  return 0;
}
