/* gasnet_exit ends the whole job with its code [G1 §2.2.4], from any node, however the others are
 * occupied. argv[1] picks the scene, argv[2] the code; run_exit.sh checks the job's exit code and
 * that it ended promptly.
 *   main       the last node calls gasnet_exit(code) while the others poll in GASNET_BLOCKUNTIL
 *   handler    a request handler on the last node calls gasnet_exit(code)
 *   compute    the last node exits while the others compute without any GASNet call
 *   preattach  node 0 exits before gasnet_attach; the others wait in gasnet_attach
 *   collective every node calls gasnet_exit(code) after a barrier, and says "bye" first
 *   gaspi      as collective with GASPI initialised too and never terminated: the job ends
 *              together, so GASPI's "exit without term means dead" must not turn its code into 1
 *   allpre     every node calls gasnet_exit(code) before gasnet_attach
 *   return     every node returns code from main after a barrier, without gasnet_exit
 *   returnone  the last node returns code from main while the others poll in GASNET_BLOCKUNTIL
 *   mixed      the last node calls gasnet_exit(code) while the others return 0 from main at once:
 *              codes asked for together, of which the job's is "one ... chosen arbitrarily"
 *              [G1 §2.1.5]; a non-zero one must win, or a failure would pass for success
 *   quit       every node catches SIGQUIT, says "bye" in the handler and calls gasnet_exit(code);
 *              the last node calls gasnet_exit(code) while the others wait in a barrier: each of
 *              them must get SIGQUIT [G1 §2.1.5]
 *   sigint     the same handlers; the last node gets SIGINT while the others wait in a barrier:
 *              every node, that one too, must get SIGQUIT
 *   busy       on every node two threads put, get and send requests to every node without pause;
 *              once its own threads have made 2000 round trips, the last node's main thread calls
 *              gasnet_exit(code) while they go on */
#include <GASPI.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include "gn_util.h"

static int g_code;
static volatile int g_never;
static gasnet_seginfo_t g_seg[64];
static volatile int g_ops;

static void on_sigquit(int sig) {
  char line[32];
  (void)sig;
  const int len = snprintf(line, sizeof line, "bye from %u\n", (unsigned)gasnet_mynode());
  if (write(STDOUT_FILENO, line, (size_t)len) < 0)
    _exit(98);
  gasnet_exit(g_code);
}

static void h_ping(gasnet_token_t t) { GN_OK(gasnet_AMReplyShort0(t, 202)); }
static void h_pong(gasnet_token_t t) {
  (void)t;
  __atomic_fetch_add(&g_ops, 1, __ATOMIC_RELAXED);
}

/* Puts, gets and request/reply round trips to every node, until the process ends. */
static void *hammer(void *arg) {
  const unsigned me = gasnet_mynode(), n = gasnet_nodes();
  long buf[64] = {0};
  for (unsigned i = (unsigned)(size_t)arg;; ++i) {
    const unsigned to = i % n;
    char *base = (char *)g_seg[to].addr + 64 * sizeof(long) * (1 + me % 8);
    gasnet_put(to, base, buf, sizeof buf);
    gasnet_get(buf, to, base, sizeof buf);
    GN_OK(gasnet_AMRequestShort0(to, 201));
    gasnet_AMPoll();
  }
  return NULL;
}

static void h_exit(gasnet_token_t t) {
  (void)t;
  gasnet_exit(g_code);
}

int main(int argc, char **argv) {
  GN_OK(gasnet_init(&argc, &argv));
  GN_CHECK(argc == 3);
  const char *scene = argv[1];
  g_code = atoi(argv[2]);
  const unsigned me = gasnet_mynode(), last = gasnet_nodes() - 1;
  if ((strcmp(scene, "preattach") == 0 && me == 0) || strcmp(scene, "allpre") == 0)
    gasnet_exit(g_code);
  gasnet_handlerentry_t table[] = {{200, (void (*)())h_exit}, {201, (void (*)())h_ping}, {202, (void (*)())h_pong}};
  GN_OK(gasnet_attach(table, 3, 16 * GASNET_PAGESIZE, 0));
  GN_OK(gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS));
  if (strcmp(scene, "quit") == 0 || strcmp(scene, "sigint") == 0) {
    signal(SIGQUIT, on_sigquit);
    GN_OK(gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS));
    if (me == last) {
      if (strcmp(scene, "quit") == 0)
        gasnet_exit(g_code);
      kill(getpid(), SIGINT);
      for (;;)
        sched_yield(); /* the signal's delivery ends this node */
    }
    GN_OK(gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS));
    return 98; /* never reached: the barrier cannot complete */
  }
  if (strcmp(scene, "busy") == 0) {
    GN_CHECK(gasnet_nodes() <= 64);
    GN_OK(gasnet_getSegmentInfo(g_seg, (int)gasnet_nodes()));
    pthread_t threads[2];
    for (size_t t = 0; t < 2; ++t)
      GN_CHECK(pthread_create(&threads[t], NULL, hammer, (void *)t) == 0);
    if (me == last) {
      GASNET_BLOCKUNTIL(g_ops >= 2000);
      gasnet_exit(g_code);
    }
    GASNET_BLOCKUNTIL(g_never);
  }
  if (strcmp(scene, "gaspi") == 0) {
    GN_CHECK(gaspi_proc_init(GASPI_BLOCK) == GASPI_SUCCESS);
    GN_CHECK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK) == GASPI_SUCCESS);
  }
  if (strcmp(scene, "collective") == 0 || strcmp(scene, "gaspi") == 0) {
    printf("bye from %u\n", me);
    gasnet_exit(g_code);
  }
  if (strcmp(scene, "mixed") == 0 && me != last)
    return 0;
  if (strcmp(scene, "return") == 0 || (strcmp(scene, "returnone") == 0 && me == last))
    return g_code; /* calling gasnet_exit first "is not required" [G1 §2.1.5] */
  if (strcmp(scene, "handler") == 0) {
    if (me == 0)
      GN_OK(gasnet_AMRequestShort0(last, 200));
    GASNET_BLOCKUNTIL(g_never);
  }
  if (me == last)
    gasnet_exit(g_code);
  if (strcmp(scene, "compute") == 0)
    for (;;)
      g_never += 1; /* no GASNet call: the exiting node must end this one */
  GASNET_BLOCKUNTIL(g_never);
  return 99; /* never reached */
}
