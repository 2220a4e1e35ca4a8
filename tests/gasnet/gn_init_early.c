/* gasnet_getNodeInfo answers from gasnet_init on, as GASNet 1.x does (clients ask before
 * gasnet_attach), and GASNET_ERR_NOT_INIT before gasnet_init:
 *   - before init: GASNET_ERR_NOT_INIT;
 *   - after init, before attach: every node's supernode is the lowest node of its group, and a
 *     supernode lies on one host;
 *   - after attach: the same host and supernode for every node, and each node of my supernode shows
 *     the word it wrote into its segment at addr + offset. Under hygaspi-run all nodes are one
 *     supernode; under mpirun with HYGASPI_NODE_SIZE=k none has more than k nodes. */
#include "gn_util.h"

#include <stdint.h>

#define MAX_NODES 64

int main(int argc, char **argv) {
  static gasnet_nodeinfo_t early[MAX_NODES], late[MAX_NODES];
  GN_CHECK(gasnet_getNodeInfo(early, 1) == GASNET_ERR_NOT_INIT);
  GN_OK(gasnet_init(&argc, &argv));
  const gasnet_node_t me = gasnet_mynode(), nn = gasnet_nodes();
  GN_CHECK(nn <= MAX_NODES && me < nn);

  GN_OK(gasnet_getNodeInfo(early, (int)nn));
  for (gasnet_node_t i = 0; i < nn; ++i) {
    const gasnet_node_t sn = early[i].supernode;
    GN_CHECK(sn <= i && early[sn].supernode == sn && early[i].host < nn);
    for (gasnet_node_t j = 0; j < nn; ++j)
      if (early[j].supernode == sn)
        GN_CHECK(early[j].host == early[i].host && j >= sn);
  }

  GN_OK(gasnet_attach(NULL, 0, GASNET_PAGESIZE, 0));
  gasnet_seginfo_t seg[MAX_NODES];
  GN_OK(gasnet_getSegmentInfo(seg, (int)nn));
  const uint64_t mine = 0x1000 + me;
  memcpy(seg[me].addr, &mine, sizeof mine);
  GN_OK(gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS));

  GN_OK(gasnet_getNodeInfo(late, (int)nn));
  unsigned mates = 0;
  for (gasnet_node_t i = 0; i < nn; ++i) {
    GN_CHECK(late[i].host == early[i].host && late[i].supernode == early[i].supernode);
    if (late[i].supernode != late[me].supernode)
      continue;
    ++mates;
    uint64_t word;
    memcpy(&word, (const char *)seg[i].addr + late[i].offset, sizeof word);
    GN_CHECK(word == 0x1000 + (uint64_t)i);
  }
  const char *ns = getenv("HYGASPI_NODE_SIZE");
  if (getenv("OMPI_COMM_WORLD_SIZE") == NULL)
    GN_CHECK(mates == nn); /* hygaspi-run, or alone: one node */
  else if (ns != NULL && atoi(ns) >= 1)
    GN_CHECK(mates >= 1 && mates <= (unsigned)atoi(ns));
  GN_SUCCESS("gn_init_early");
  gasnet_exit(0);
  return 0;
}
