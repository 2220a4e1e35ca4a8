/* The rules of [G1 §2.4] end the job with a message naming the call: argv[1] picks the breach.
 *   memset_in_handler   gasnet_memset from inside a request handler
 *   poll_holding_hsl    gasnet_AMPoll while holding a handler-safe lock
 *   poll_in_nis         gasnet_AMPoll inside a no-interrupt section
 * run by ctest with WILL_FAIL-free expectations: the output must name the call and "fatal". */
#include "gn_util.h"

static gasnet_hsl_t g_lock = GASNET_HSL_INITIALIZER;
static gasnet_seginfo_t g_seg[1];

static void h_memset(gasnet_token_t t) {
  (void)t;
  gasnet_memset(0, g_seg[0].addr, 0, 8);
}

int main(int argc, char **argv) {
  GN_OK(gasnet_init(&argc, &argv));
  gasnet_handlerentry_t table[] = {{200, (void (*)())h_memset}};
  GN_OK(gasnet_attach(table, 1, GASNET_PAGESIZE, 0));
  GN_OK(gasnet_getSegmentInfo(g_seg, 1));
  GN_CHECK(argc == 2);
  if (strcmp(argv[1], "memset_in_handler") == 0) {
    GN_OK(gasnet_AMRequestShort0(0, 200));
    GASNET_BLOCKUNTIL(0);
  } else if (strcmp(argv[1], "poll_holding_hsl") == 0) {
    gasnet_hsl_lock(&g_lock);
    gasnet_AMPoll();
  } else if (strcmp(argv[1], "poll_in_nis") == 0) {
    gasnet_hold_interrupts();
    gasnet_AMPoll();
  }
  printf("gn_rules: %s was not stopped\n", argv[1]);
  gasnet_exit(0);
  return 0;
}
