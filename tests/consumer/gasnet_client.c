/*
 * A GASNet-1 client as a GASNet user writes it, built from outside the HyGASPI tree against the
 * installed headers and libraries, with the flags of pkg-config gasnet-hygaspi-<mode> or of the
 * hygaspi-conduit/hygaspi-<mode>.mak fragment (which define GASNET_SEQ, GASNET_PARSYNC or
 * GASNET_PAR). Every node: attaches a 1 MiB segment, makes one AM Short round trip to itself,
 * puts to and gets from its own segment, puts into its right neighbour's segment and, after a
 * barrier, checks what its left neighbour put. It also calls two of GASNet's tools that live in
 * the library (gasnett_parse_int, gasnett_checksum), so that linking with GASNET_LIBS alone must
 * bring them in. Each node prints one "gasnet_client: node" line, node 0 then
 * "SUCCESS gasnet_client".
 */
#include <gasnet.h>
#include <gasnet_tools.h> /* after gasnet.h, as the tools spec asks of GASNet clients */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(...)                                                                                                      \
  do {                                                                                                                 \
    fprintf(stderr, "gasnet_client: " __VA_ARGS__);                                                                    \
    fputc('\n', stderr);                                                                                               \
    gasnet_exit(1);                                                                                                    \
  } while (0)

#define CHECK(call)                                                                                                    \
  do {                                                                                                                 \
    int check_ret_ = (call);                                                                                           \
    if (check_ret_ != GASNET_OK)                                                                                       \
      FAIL("%s failed at line %d: %s", #call, __LINE__, gasnet_ErrorName(check_ret_));                                 \
  } while (0)

enum { H_PING = 201, H_PONG = 202, SEG_SIZE = 1 << 20, SLOT = 4096 };

static volatile int g_pong; /* set by the reply handler */

static void h_ping(gasnet_token_t token, gasnet_handlerarg_t value) {
  gasnet_node_t src = 0;
  if (gasnet_AMGetMsgSource(token, &src) != GASNET_OK || src != gasnet_mynode())
    abort(); /* the round trip is to this node itself */
  if (gasnet_AMReplyShort1(token, H_PONG, value + 1) != GASNET_OK)
    abort();
}

static void h_pong(gasnet_token_t token, gasnet_handlerarg_t value) {
  (void)token;
  g_pong = value;
}

static void barrier(void) {
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS));
}

int main(int argc, char **argv) {
  CHECK(gasnet_init(&argc, &argv));
  gasnet_handlerentry_t table[] = {{H_PING, (void (*)())h_ping}, {H_PONG, (void (*)())h_pong}};
  CHECK(gasnet_attach(table, 2, SEG_SIZE, 0));
  const gasnet_node_t me = gasnet_mynode();
  const gasnet_node_t nodes = gasnet_nodes();
  if (me >= nodes)
    FAIL("gasnet_mynode() = %u of %u", (unsigned)me, (unsigned)nodes);

  gasnet_seginfo_t *seg = malloc(nodes * sizeof *seg);
  if (seg == NULL)
    FAIL("out of memory");
  CHECK(gasnet_getSegmentInfo(seg, (int)nodes));
  if (seg[me].addr == NULL || seg[me].size < SEG_SIZE)
    FAIL("own segment %p of %lu bytes", seg[me].addr, (unsigned long)seg[me].size);

  /* AM Short round trip to this node. */
  const gasnet_handlerarg_t ping = (gasnet_handlerarg_t)(1000 + me);
  CHECK(gasnet_AMRequestShort1(me, H_PING, ping));
  GASNET_BLOCKUNTIL(g_pong == ping + 1);

  /* put to and get from this node's own segment. */
  unsigned char out[SLOT], back[SLOT];
  for (size_t i = 0; i < SLOT; ++i)
    out[i] = (unsigned char)(me * 31u + i * 7u);
  gasnet_put(me, seg[me].addr, out, SLOT);
  memset(back, 0, SLOT);
  gasnet_get(back, me, seg[me].addr, SLOT);
  if (memcmp(out, back, SLOT) != 0)
    FAIL("gasnet_get did not read back what gasnet_put wrote");

  /* The out-of-line tools: a memory size with a suffix, and FNV-1a 64's published value of "a". */
  if (gasnett_parse_int("4K", 1) != 4096 || gasnett_checksum("a", 1) != UINT64_C(0xaf63dc4c8601ec8c))
    FAIL("gasnett_parse_int or gasnett_checksum gave a wrong value");

  /* put into the right neighbour's second slot; after the barrier, check the left neighbour's. */
  const gasnet_node_t right = (me + 1) % nodes, left = (me + nodes - 1) % nodes;
  barrier(); /* everyone checked its own first slot before anyone writes */
  gasnet_put(right, (unsigned char *)seg[right].addr + SLOT, out, SLOT);
  barrier();
  const unsigned char *mine = (const unsigned char *)seg[me].addr + SLOT;
  for (size_t i = 0; i < SLOT; ++i)
    if (mine[i] != (unsigned char)(left * 31u + i * 7u))
      FAIL("byte %zu from node %u is %u", i, (unsigned)left, mine[i]);

  printf("gasnet_client: node %u of %u (%s, %s): AM round trip, put/get and barrier OK\n", (unsigned)me,
         (unsigned)nodes, GASNET_CONDUIT_NAME_STR, GASNET_THREADMODEL_STR);
  fflush(stdout);
  barrier();
  if (me == 0) {
    printf("SUCCESS gasnet_client\n");
    fflush(stdout);
  }
  free(seg);
  gasnet_exit(0);
  return 0;
}
