/* gasnet_AMPoll that finds nothing gives the core away where the wait policy does not spin (more
 * ranks than cores on the node, or HYGASPI_SPIN=0, as this test sets): a client that polls in a
 * loop of its own for a reply would otherwise keep the core from the threads and ranks that send
 * it (3 ranks of 6 threads exchanging EX AMs on 2 cores took 9 s instead of 0.7 s). This program
 * counts the library's sched_yield calls (it defines sched_yield, which the library's calls then
 * reach) over 200 idle polls, then checks that a poll loop still gets every reply. */
#define _GNU_SOURCE
#include "gn_util.h"

#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

static atomic_long g_yields;
int sched_yield(void) {
  atomic_fetch_add(&g_yields, 1);
  return (int)syscall(SYS_sched_yield);
}

#define H_REQUEST 200
#define H_REPLY 201
static atomic_int g_replies;
static void h_request(gasnet_token_t t) { GN_OK(gasnet_AMReplyShort0(t, H_REPLY)); }
static void h_reply(gasnet_token_t t) {
  (void)t;
  atomic_fetch_add(&g_replies, 1);
}

int main(int argc, char **argv) {
  GN_OK(gasnet_init(&argc, &argv));
  gasnet_handlerentry_t table[] = {{H_REQUEST, (void (*)())h_request}, {H_REPLY, (void (*)())h_reply}};
  GN_OK(gasnet_attach(table, 2, GASNET_PAGESIZE, 0));
  const gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  GN_OK(gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS));
  /* Idle polls: nothing is in flight to this node until the next barrier. */
  const long before = atomic_load(&g_yields);
  for (int i = 0; i < 200; ++i)
    GN_OK(gasnet_AMPoll());
  GN_CHECK(atomic_load(&g_yields) - before >= 200);
  GN_OK(gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS));
  /* A client's own poll loop for its replies. */
  for (int i = 0; i < 100; ++i) {
    GN_OK(gasnet_AMRequestShort0((me + 1) % n, H_REQUEST));
    while (atomic_load(&g_replies) < i + 1)
      GN_OK(gasnet_AMPoll());
  }
  GN_SUCCESS("gn_poll_yield");
  gasnet_exit(0);
  return 1;
}
