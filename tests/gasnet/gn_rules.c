/* Breaches of [G1 §2.4] and of the segment end the job with a message naming the call: argv[1]
 * picks the breach. The target is node (mynode + 1) % nodes: this node in a 1-node job, another
 * node over MPI (mpi), and in pairs (hybrid) a node peer from even nodes, a remote one from odd.
 * Put and get to a mapped segment run inline in this program (gasnet_inline.h), so these also
 * check that the inline path hands every breach to the library.
 *   memset_in_handler    gasnet_memset from inside a request handler
 *   put_in_handler       gasnet_put from inside a request handler
 *   poll_holding_hsl     gasnet_AMPoll while holding a handler-safe lock
 *   put_val_holding_hsl  gasnet_put_val while holding a handler-safe lock
 *   poll_in_nis          gasnet_AMPoll inside a no-interrupt section
 *   get_in_nis           gasnet_get inside a no-interrupt section
 *   put_past_end         gasnet_put of 8 bytes at the segment's last 4
 *   put_below            gasnet_put of 8 bytes one byte below the segment
 *   get_size_max         gasnet_get_bulk of SIZE_MAX bytes from inside the segment
 *   put_nbi_bad_node     gasnet_put_nbi to a node that is not in the job
 *   get_val_9            gasnet_get_val of 9 bytes
 *   put_before_attach    gasnet_put before gasnet_attach
 *   put_null_src, get_null_dst, put_nbi_null_src
 *                        a null local buffer (inline on a node: the library's check, not a fault)
 *   put_wrap_src, get_wrap_dst
 *                        a local buffer of 16 bytes at UINTPTR_MAX - 4, which wraps around the
 *                        address space (inline on a node too: the library's check, not a fault)
 *   reply_0, reply_seginfo, reply_barrier, reply_exit, reply_127
 *                        a request handler replies to a handler index the client cannot register
 *                        (0..127): 0; 1, 2 and 3 with what the library's attach, barrier and exit
 *                        messages carry (a segment of 1 MiB, a barrier round, exit code 42); 127.
 *                        The requester then waits for a second reply, checks that the target's
 *                        segment bounds are unchanged and puts past the segment's real end.
 *   reply_unregistered   a request handler replies to 250, which no node registered
 * ctest requires the call's name and "fatal" in the output, and no "was not stopped". */
#include "gn_util.h"

#include <stdint.h>

static gasnet_hsl_t g_lock = GASNET_HSL_INITIALIZER;
static char *g_base; /* the target's segment */
static uintptr_t g_size;
static gasnet_node_t g_target;

static void h_memset(gasnet_token_t t) {
  (void)t;
  gasnet_memset(g_target, g_base, 0, 8);
}

static void h_put(gasnet_token_t t) {
  uint64_t v = 1;
  (void)t;
  gasnet_put(g_target, g_base, &v, 8);
}

/* The reply scenes: h_forge replies as g_forge says, h_ack replies to h_acked. */
static const char *g_forge = "";
static char *g_own_base; /* this node's segment */
static volatile int g_acked = 0;

static gasnet_handlerarg_t hi(uint64_t v) { return (gasnet_handlerarg_t)(uint32_t)(v >> 32); }
static gasnet_handlerarg_t lo(uint64_t v) { return (gasnet_handlerarg_t)(uint32_t)v; }

static void h_forge(gasnet_token_t t) {
  const uint64_t base = (uint64_t)(uintptr_t)g_own_base, huge = 1u << 20;
  char buf[8] = {0};
  if (strcmp(g_forge, "reply_0") == 0)
    gasnet_AMReplyShort0(t, 0);
  else if (strcmp(g_forge, "reply_seginfo") == 0)
    gasnet_AMReplyShort5(t, 1, hi(base), lo(base), hi(huge), lo(huge), 0);
  else if (strcmp(g_forge, "reply_barrier") == 0)
    gasnet_AMReplyShort5(t, 2, 0, 0, 0, 0, 0);
  else if (strcmp(g_forge, "reply_exit") == 0)
    gasnet_AMReplyShort1(t, 3, 42);
  else if (strcmp(g_forge, "reply_127") == 0)
    gasnet_AMReplyMedium0(t, 127, buf, sizeof buf);
  else if (strcmp(g_forge, "reply_unregistered") == 0)
    gasnet_AMReplyShort2(t, 250, 1, 2);
}

static void h_acked(gasnet_token_t t) {
  (void)t;
  g_acked = 1;
}

static void h_ack(gasnet_token_t t) { gasnet_AMReplyShort0(t, 202); }

int main(int argc, char **argv) {
  gasnet_seginfo_t seg[8];
  uint64_t v = 7;
  const char *scene = argc == 2 ? argv[1] : "";
  GN_OK(gasnet_init(&argc, &argv));
  GN_CHECK(argc == 2 && gasnet_nodes() <= 8);
  if (strcmp(scene, "put_before_attach") == 0)
    gasnet_put(0, &v, &v, 8);
  gasnet_handlerentry_t table[] = {{200, (void (*)())h_memset},
                                   {201, (void (*)())h_put},
                                   {202, (void (*)())h_acked},
                                   {203, (void (*)())h_forge},
                                   {204, (void (*)())h_ack}};
  g_forge = scene;
  GN_OK(gasnet_attach(table, 5, GASNET_PAGESIZE, 0));
  GN_OK(gasnet_getSegmentInfo(seg, (int)gasnet_nodes()));
  g_target = (gasnet_node_t)((gasnet_mynode() + 1) % gasnet_nodes());
  g_base = (char *)seg[g_target].addr;
  g_size = seg[g_target].size;
  g_own_base = (char *)seg[gasnet_mynode()].addr;
  GN_CHECK(g_size == GASNET_PAGESIZE);
  /* The same calls within the rules and the segment work. */
  gasnet_put(g_target, g_base + g_size - 8, &v, 8);
  v = 0;
  gasnet_get(&v, g_target, g_base + g_size - 8, 8);
  GN_CHECK(v == 7);
  GN_OK(gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS));

  if (strcmp(scene, "memset_in_handler") == 0 || strcmp(scene, "put_in_handler") == 0) {
    GN_OK(gasnet_AMRequestShort0(gasnet_mynode(), scene[0] == 'm' ? 200 : 201));
    GASNET_BLOCKUNTIL(0);
  } else if (strcmp(scene, "poll_holding_hsl") == 0) {
    gasnet_hsl_lock(&g_lock);
    gasnet_AMPoll();
  } else if (strcmp(scene, "put_val_holding_hsl") == 0) {
    gasnet_hsl_lock(&g_lock);
    gasnet_put_val(g_target, g_base, 1, 8);
  } else if (strcmp(scene, "poll_in_nis") == 0) {
    gasnet_hold_interrupts();
    gasnet_AMPoll();
  } else if (strcmp(scene, "get_in_nis") == 0) {
    gasnet_hold_interrupts();
    gasnet_get(&v, g_target, g_base, 8);
  } else if (strcmp(scene, "put_past_end") == 0) {
    gasnet_put(g_target, g_base + g_size - 4, &v, 8);
  } else if (strcmp(scene, "put_null_src") == 0) {
    gasnet_put(g_target, g_base, NULL, 8);
  } else if (strcmp(scene, "get_null_dst") == 0) {
    gasnet_get(NULL, g_target, g_base, 8);
  } else if (strcmp(scene, "put_wrap_src") == 0) {
    gasnet_put(g_target, g_base, (void *)(UINTPTR_MAX - 4), 16);
  } else if (strcmp(scene, "get_wrap_dst") == 0) {
    gasnet_get((void *)(UINTPTR_MAX - 4), g_target, g_base, 16);
  } else if (strcmp(scene, "put_nbi_null_src") == 0) {
    gasnet_put_nbi(g_target, g_base, NULL, 8);
  } else if (strcmp(scene, "put_below") == 0) {
    gasnet_put(g_target, g_base - 1, &v, 8);
  } else if (strcmp(scene, "get_size_max") == 0) {
    gasnet_get_bulk(&v, g_target, g_base + 8, SIZE_MAX);
  } else if (strcmp(scene, "put_nbi_bad_node") == 0) {
    gasnet_put_nbi(gasnet_nodes(), g_base, &v, 8);
  } else if (strcmp(scene, "get_val_9") == 0) {
    v = gasnet_get_val(g_target, g_base, 9);
  } else if (strncmp(scene, "reply_", 6) == 0) {
    GN_OK(gasnet_AMRequestShort0(g_target, 203));
    GN_OK(gasnet_AMRequestShort0(g_target, 204));
    GASNET_BLOCKUNTIL(g_acked);
    /* The forged reply changed nothing: the target's segment bounds are those attach reported. */
    gasnet_seginfo_t now[8];
    GN_OK(gasnet_getSegmentInfo(now, (int)gasnet_nodes()));
    GN_CHECK((char *)now[g_target].addr == g_base && now[g_target].size == g_size);
    gasnet_put(g_target, g_base + g_size - 4, &v, 8);
  }
  printf("gn_rules: %s was not stopped\n", scene);
  gasnet_exit(0);
  return 0;
}
