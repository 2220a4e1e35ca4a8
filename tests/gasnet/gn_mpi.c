/* A GASNet client that started MPI itself (GASNet's testmpi does so): MPI and GASNet side by side,
 * then gasnet_exit(0). gasnet_exit never returns, so the client cannot finalize MPI: the library
 * must, or mpirun reports a process that ended without MPI_Finalize (exit code 1). Every node
 * checks an MPI_Allreduce and a gasnet_put ring, and node 0 prints "SUCCESS gn_mpi".
 * With argv[1] "finalize" the client finalizes MPI itself while GASNet is up and returns 0 from
 * main: GASNet leaves with MPI_Finalize, and the job ends with 0, no MPI call after the finalize. */
#include <mpi.h>

#include "gn_util.h"

int main(int argc, char **argv) {
  int provided = 0;
  GN_CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS);
  GN_OK(gasnet_init(&argc, &argv));
  GN_OK(gasnet_attach(NULL, 0, GASNET_PAGESIZE, 0));
  const gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  gasnet_seginfo_t *seg = malloc(n * sizeof *seg);
  GN_CHECK(seg != NULL);
  GN_OK(gasnet_getSegmentInfo(seg, (int)n));
  long mine = (long)me + 1, sum = 0;
  GN_CHECK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  GN_CHECK(sum == (long)n * (n + 1) / 2);
  gasnet_put((me + 1) % n, seg[(me + 1) % n].addr, &mine, sizeof mine);
  GN_OK(gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS));
  GN_CHECK(*(long *)seg[me].addr == (long)((me + n - 1) % n) + 1);
  GN_CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
  free(seg);
  GN_SUCCESS("gn_mpi");
  if (argc > 1 && strcmp(argv[1], "finalize") == 0) {
    GN_CHECK(MPI_Finalize() == MPI_SUCCESS);
    return 0;
  }
  gasnet_exit(0);
  return 1; /* never reached */
}
