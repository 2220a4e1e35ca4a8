/* GASPI and GASNet in one program, on one engine, in alternating phases: GASNet starts the engine
 * (gasnet_init + attach) and GASPI joins it (gaspi_proc_init); then a GASPI phase (write_notify
 * around a ring, data checked at the notification), a GASNet phase (AM round trips and puts around
 * the ring), a GASPI phase again (allreduce of what the GASNet phase delivered), gaspi_proc_term,
 * and a last GASNet phase on the engine GASPI left running; gasnet_exit ends the job. */
#include <GASPI.h>

#include "gn_util.h"

#define GASPI_OK_(call) GN_CHECK((call) == GASPI_SUCCESS)

static volatile int g_pongs;
static volatile unsigned g_pings;

static void h_ping(gasnet_token_t t, gasnet_handlerarg_t v) {
  g_pings += (unsigned)v;
  GN_OK(gasnet_AMReplyShort1(t, 201, v + 1));
}
static void h_pong(gasnet_token_t t, gasnet_handlerarg_t v) {
  (void)t;
  GN_CHECK(v > 0);
  ++g_pongs;
}

int main(int argc, char **argv) {
  GN_OK(gasnet_init(&argc, &argv));
  gasnet_handlerentry_t table[] = {{200, (void (*)())h_ping}, {201, (void (*)())h_pong}};
  GN_OK(gasnet_attach(table, 2, 1 << 20, 0));
  GASPI_OK_(gaspi_proc_init(GASPI_BLOCK));
  gaspi_rank_t rank, nranks;
  GASPI_OK_(gaspi_proc_rank(&rank));
  GASPI_OK_(gaspi_proc_num(&nranks));
  GN_CHECK(rank == gasnet_mynode() && nranks == gasnet_nodes());
  const unsigned me = rank, n = nranks, right = (me + 1) % n, left = (me + n - 1) % n;

  /* GASPI phase: each rank writes 4 KiB to its right neighbour with a notification. */
  GASPI_OK_(gaspi_segment_create(0, 1 << 16, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  unsigned char *g;
  GASPI_OK_(gaspi_segment_ptr(0, (gaspi_pointer_t *)&g));
  for (int i = 0; i < 4096; ++i)
    g[i] = (unsigned char)(me * 7 + i);
  GASPI_OK_(
      gaspi_write_notify(0, 0, (gaspi_rank_t)right, 0, 8192, 4096, 0, (gaspi_notification_t)(me + 1), 0, GASPI_BLOCK));
  gaspi_notification_id_t id;
  gaspi_notification_t val;
  GASPI_OK_(gaspi_notify_waitsome(0, 0, 1, &id, GASPI_BLOCK));
  GASPI_OK_(gaspi_notify_reset(0, id, &val));
  GN_CHECK(val == left + 1);
  for (int i = 0; i < 4096; ++i)
    GN_CHECK(g[8192 + i] == (unsigned char)(left * 7 + i));
  GASPI_OK_(gaspi_wait(0, GASPI_BLOCK));
  GASPI_OK_(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));

  /* GASNet phase: 100 AM round trips to the right, and a put into the right's segment. */
  gasnet_seginfo_t seg[64];
  GN_CHECK(n <= 64);
  GN_OK(gasnet_getSegmentInfo(seg, (int)n));
  for (int i = 1; i <= 100; ++i) {
    GN_OK(gasnet_AMRequestShort1(right, 200, i));
    GASNET_BLOCKUNTIL(g_pongs == i);
  }
  unsigned long long word = 1000ull + me;
  gasnet_put(right, (char *)seg[right].addr + 64, &word, sizeof word);
  GN_OK(gasnet_barrier(5, 0));
  GN_CHECK(g_pings == 5050);
  unsigned long long got = 0;
  memcpy(&got, (char *)seg[me].addr + 64, sizeof got);
  GN_CHECK(got == 1000ull + left);

  /* GASPI phase again: the sum of what the GASNet phase delivered. */
  gaspi_operation_t op = GASPI_OP_SUM;
  unsigned long sum = 0, mine = (unsigned long)got;
  GASPI_OK_(gaspi_allreduce(&mine, &sum, 1, op, GASPI_TYPE_ULONG, GASPI_GROUP_ALL, GASPI_BLOCK));
  GN_CHECK(sum == 1000ul * n + (unsigned long)n * (n - 1) / 2);
  GASPI_OK_(gaspi_proc_term(GASPI_BLOCK));

  /* GASNet after GASPI has left: the engine still serves it. */
  GN_OK(gasnet_AMRequestShort1(left, 200, 1));
  GASNET_BLOCKUNTIL(g_pongs == 101);
  GN_SUCCESS("gn_mixed");
  gasnet_exit(0);
  return 0;
}
