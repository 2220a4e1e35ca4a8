/* Handler-safe locks [G1 §2.4.4] under contention: every node floods node 0 with Short requests
 * whose handlers add to a counter under an HSL (half of them with gasnet_hsl_lock, half with
 * gasnet_hsl_trylock first), while node 0's main thread and, under GASNET_PAR, two more threads
 * (which also run handlers, through gasnet_AMPoll) add to the same counter under the same lock;
 * the total must be exact and no two holders may ever overlap. gasnet_hsl_trylock gives
 * GASNET_ERR_NOT_READY while another thread holds the lock, and gasnet_hsl_lock blocks until the
 * holder lets go. Both a static (GASNET_HSL_INITIALIZER) and a gasnet_hsl_init lock. */
#define _GNU_SOURCE /* usleep, sched_yield */
#include "gn_util.h"

#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>
#ifdef GASNET_PAR
#include <pthread.h>
#endif

#define H_INC 200
#define FLOOD 20000 /* requests from each node */
#define MAIN_ADDS 100000
#define THREAD_ADDS 100000

static gasnet_hsl_t g_lock = GASNET_HSL_INITIALIZER;
static long g_counter;           /* under g_lock */
static int g_inside;             /* under g_lock: 1 while a holder is in the critical section */
static atomic_long g_handled;    /* requests whose handler ran */
static atomic_long g_not_ready;  /* trylock refusals seen (contention happened) */
static atomic_long g_on_helpers; /* handlers that ran on a helper thread */
static _Thread_local int t_helper;

/* The critical section: a read-modify-write spread over a few instructions, with an overlap check. */
static void critical(void) {
  GN_CHECK(g_inside == 0);
  g_inside = 1;
  const long c = g_counter;
  for (volatile int k = 0; k < 8; ++k) {
  }
  g_counter = c + 1;
  g_inside = 0;
}

static void lock_by_trying(gasnet_hsl_t *l) {
  int rc;
  while ((rc = gasnet_hsl_trylock(l)) != GASNET_OK) {
    GN_CHECK(rc == GASNET_ERR_NOT_READY);
    atomic_fetch_add(&g_not_ready, 1);
    sched_yield();
  }
}

static void h_inc(gasnet_token_t t, gasnet_handlerarg_t seq) {
  (void)t;
  /* A handler may try once, but must not spin on trylock [G1 §2.4.4.3]: it falls back to lock. */
  int rc = GASNET_ERR_NOT_READY;
  if (seq & 1) {
    rc = gasnet_hsl_trylock(&g_lock);
    GN_CHECK(rc == GASNET_OK || rc == GASNET_ERR_NOT_READY);
    if (rc != GASNET_OK)
      atomic_fetch_add(&g_not_ready, 1);
  }
  if (rc != GASNET_OK)
    gasnet_hsl_lock(&g_lock);
  critical();
  gasnet_hsl_unlock(&g_lock);
  atomic_fetch_add(&g_handled, 1);
  if (t_helper)
    atomic_fetch_add(&g_on_helpers, 1);
}

#ifdef GASNET_PAR
/* A helper thread of node 0: adds under the lock (both ways) and runs handlers. */
static void *adder(void *arg) {
  (void)arg;
  t_helper = 1;
  for (long i = 0; i < THREAD_ADDS; ++i) {
    if (i & 1)
      lock_by_trying(&g_lock);
    else
      gasnet_hsl_lock(&g_lock);
    critical();
    gasnet_hsl_unlock(&g_lock);
    if (i % 16 == 0) /* concurrent pollers are slow over MPI: not every turn */
      GN_OK(gasnet_AMPoll());
  }
  return NULL;
}

/* The trylock and blocking checks: a second thread takes the lock and holds it until told. */
static gasnet_hsl_t g_lock2;
static atomic_int g_phase;
static void wait_phase(int p) {
  while (atomic_load(&g_phase) != p)
    sched_yield();
}
static void *holder(void *arg) {
  (void)arg;
  gasnet_hsl_lock(&g_lock2);
  atomic_store(&g_phase, 1);
  wait_phase(2);
  gasnet_hsl_unlock(&g_lock2);
  atomic_store(&g_phase, 3);
  /* Now the other way round: the main thread holds it; this thread's lock must wait. */
  wait_phase(4);
  atomic_store(&g_phase, 5);
  gasnet_hsl_lock(&g_lock2);
  atomic_store(&g_phase, 6);
  gasnet_hsl_unlock(&g_lock2);
  return NULL;
}

static void exclusion_checks(void) {
  gasnet_hsl_init(&g_lock2);
  atomic_store(&g_phase, 0);
  pthread_t th;
  GN_CHECK(pthread_create(&th, NULL, holder, NULL) == 0);
  wait_phase(1);
  for (int i = 0; i < 100; ++i)
    GN_CHECK(gasnet_hsl_trylock(&g_lock2) == GASNET_ERR_NOT_READY);
  atomic_store(&g_phase, 2);
  wait_phase(3);
  GN_OK(gasnet_hsl_trylock(&g_lock2)); /* free again */
  atomic_store(&g_phase, 4);
  wait_phase(5);
  usleep(50000);
  GN_CHECK(atomic_load(&g_phase) == 5); /* the other thread still waits for the lock */
  gasnet_hsl_unlock(&g_lock2);
  wait_phase(6);
  GN_CHECK(pthread_join(th, NULL) == 0);
  GN_OK(gasnet_hsl_trylock(&g_lock2));
  gasnet_hsl_unlock(&g_lock2);
  gasnet_hsl_destroy(&g_lock2);
}
#endif

int main(int argc, char **argv) {
  GN_OK(gasnet_init(&argc, &argv));
  gasnet_handlerentry_t table[] = {{H_INC, (void (*)())h_inc}};
  GN_OK(gasnet_attach(table, 1, GASNET_PAGESIZE, 0));
  const unsigned me = gasnet_mynode(), n = gasnet_nodes();

  /* One thread alone: lock, trylock, unlock, on both kinds of lock. */
  gasnet_hsl_t dyn;
  gasnet_hsl_init(&dyn);
  gasnet_hsl_lock(&dyn);
  gasnet_hsl_unlock(&dyn);
  GN_OK(gasnet_hsl_trylock(&dyn));
  gasnet_hsl_unlock(&dyn);
  gasnet_hsl_destroy(&dyn);
#ifdef GASNET_PAR
  exclusion_checks();
#endif
  GN_OK(gasnet_barrier(1, 0));

  /* The flood, node 0 included (loopback), while node 0 adds from its threads. */
#ifdef GASNET_PAR
  pthread_t th[2];
  if (me == 0)
    for (int i = 0; i < 2; ++i)
      GN_CHECK(pthread_create(&th[i], NULL, adder, NULL) == 0);
#endif
  long main_adds = 0;
  for (int i = 0; i < FLOOD; ++i) {
    GN_OK(gasnet_AMRequestShort1(0, H_INC, (gasnet_handlerarg_t)i));
    if (me == 0) { /* interleave the main thread's own adds with its sends */
      for (int k = 0; k < MAIN_ADDS / FLOOD; ++k, ++main_adds) {
        if (k & 1)
          lock_by_trying(&g_lock);
        else
          gasnet_hsl_lock(&g_lock);
        critical();
        gasnet_hsl_unlock(&g_lock);
      }
    }
  }
  if (me == 0) {
    GN_CHECK(main_adds == MAIN_ADDS);
    GASNET_BLOCKUNTIL(atomic_load(&g_handled) == (long)n * FLOOD);
    long threads = 0;
#ifdef GASNET_PAR
    for (int i = 0; i < 2; ++i)
      GN_CHECK(pthread_join(th[i], NULL) == 0);
    threads = 2L * THREAD_ADDS;
#endif
    gasnet_hsl_lock(&g_lock);
    const long total = g_counter;
    gasnet_hsl_unlock(&g_lock);
    if (total != (long)n * FLOOD + MAIN_ADDS + threads)
      fprintf(stderr, "[0] counter %ld, expected %ld\n", total, (long)n * FLOOD + MAIN_ADDS + threads);
    GN_CHECK(total == (long)n * FLOOD + MAIN_ADDS + threads);
    GN_CHECK(atomic_load(&g_handled) == (long)n * FLOOD);
    printf("gn_hsl: %ld adds, %ld trylock refusals, %ld handlers on helper threads\n", total,
           (long)atomic_load(&g_not_ready), (long)atomic_load(&g_on_helpers));
  }
  GN_SUCCESS("gn_hsl");
  gasnet_exit(0);
  return 0;
}
