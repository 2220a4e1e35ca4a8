/* A halo exchange in GPU memory through GASNet-EX memory kinds. Each rank keeps a 1-D block of
 * cells with a ghost cell at each end in a CUDA device segment, bound to an endpoint of its own
 * and published to every rank. Every step each rank copies its edge cells straight from its device
 * memory into its neighbours' ghost cells (device -> device puts through a TM-pair), waits for the
 * step's barrier, and reads its ghost cells back to check them. The cells themselves are written
 * from host memory (host -> device puts); a real code would update them with its own kernels.
 *
 * The routes the library takes: a neighbour in the same process or on the same node is reached
 * through CUDA IPC (a copy on the device); one on another node is served by its owner (the bytes
 * travel over MPI and land through a host buffer). Run on a GPU machine as
 *   hygaspi-run -n 4 ./mk_halo          (or mpirun -np 4 ./mk_halo)
 * and anywhere else on the project's fake driver (scripts/demo.sh does this when there is no GPU):
 *   HYGASPI_CUDA_LIBRARY=build/tests/fake_cuda/libcuda.so.1 hygaspi-run -n 4 ./mk_halo */
#if !defined(GASNET_SEQ) && !defined(GASNET_PARSYNC) && !defined(GASNET_PAR)
#define GASNET_PAR
#endif
#include <gasnet_mk.h>
#include <gasnetex.h>
#include <stdio.h>
#include <string.h>

#define CELLS 1024 /* per rank */
#define STEPS 20

static gex_Rank_t me, n;

static void die(const char *what) {
  fprintf(stderr, "[%u] mk_halo: %s\n", (unsigned)me, what);
  gasnet_exit(1);
}
/* The value of global cell `g` at step `s` (cells outside the domain are 0). */
static double value(long g, int s, gex_Rank_t ranks) {
  return g < 0 || g >= (long)ranks * CELLS ? 0.0 : (double)(g % 97) + 1000.0 * s;
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep0, dev_ep;
  gex_TM_t tm;
  if (gex_Client_Init(&client, &ep0, &tm, "MKHALO", &argc, &argv, 0) != GASNET_OK)
    die("gex_Client_Init failed");
  me = gex_TM_QueryRank(tm);
  n = gex_TM_QuerySize(tm);

  /* The kind of CUDA device 0, an endpoint for it, and a library-allocated device segment. */
  gex_MK_Create_args_t args;
  memset(&args, 0, sizeof args);
  args.gex_class = GEX_MK_CLASS_CUDA_UVA;
  args.gex_args.gex_class_cuda_uva.gex_CUdevice = 0;
  gex_MK_t kind;
  if (gex_MK_Create(&kind, client, &args, 0) != GASNET_OK)
    die("no CUDA device this build can use (see the message above, and hygaspi-info)");
  gex_Segment_t seg;
  if (gex_EP_Create(&dev_ep, client, GEX_EP_CAPABILITY_RMA, 0) != GASNET_OK ||
      gex_Segment_Create(&seg, client, NULL, (CELLS + 2) * sizeof(double), kind, 0) != GASNET_OK ||
      gex_EP_BindSegment(dev_ep, seg, 0) != GASNET_OK || gex_EP_PublishBoundSegment(tm, &dev_ep, 1, 0) != GASNET_OK)
    die("the device segment could not be set up");
  const gex_EP_Index_t idx = gex_EP_QueryIndex(dev_ep);
  double *cells = gex_Segment_QueryAddr(seg); /* device memory: never touched by the CPU here */

  /* Where the neighbours' segments are, in their owners' address spaces. */
  const gex_Rank_t left = (me + n - 1) % n, right = (me + 1) % n;
  double *left_cells = NULL, *right_cells = NULL;
  gex_TM_t from_host = gex_TM_Pair(ep0, idx), from_device = gex_TM_Pair(dev_ep, idx);
  if (gex_Segment_QueryBound(from_host, left, (void **)&left_cells, NULL, NULL) != GASNET_OK ||
      gex_Segment_QueryBound(from_host, right, (void **)&right_cells, NULL, NULL) != GASNET_OK)
    die("a neighbour published no segment");

  static double host[CELLS];
  long wrong = 0;
  for (int s = 0; s < STEPS; ++s) {
    for (long i = 0; i < CELLS; ++i) /* this step's cells, into device memory */
      host[i] = value((long)me * CELLS + i, s, n);
    gex_RMA_PutBlocking(from_host, me, cells + 1, host, sizeof host, 0);
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); /* every rank's cells are written */
    /* Edge cells device -> device into the neighbours' ghosts (the domain does not wrap: the first
     * and last ranks send nothing outwards), both in flight, then waited for. */
    gex_Event_t sent[2] = {GEX_EVENT_INVALID, GEX_EVENT_INVALID};
    if (me > 0)
      sent[0] = gex_RMA_PutNB(from_device, left, left_cells + CELLS + 1, cells + 1, sizeof(double), GEX_EVENT_DEFER, 0);
    if (me + 1 < n)
      sent[1] = gex_RMA_PutNB(from_device, right, right_cells, cells + CELLS, sizeof(double), GEX_EVENT_DEFER, 0);
    gex_Event_WaitAll(sent, 2, 0);
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); /* every halo has landed */
    double ghosts[2] = {-1.0, -1.0};
    gex_RMA_GetBlocking(from_host, &ghosts[0], me, cells, sizeof(double), 0);
    gex_RMA_GetBlocking(from_host, &ghosts[1], me, cells + CELLS + 1, sizeof(double), 0);
    if (me > 0 && ghosts[0] != value((long)me * CELLS - 1, s, n))
      ++wrong;
    if (me + 1 < n && ghosts[1] != value((long)(me + 1) * CELLS, s, n))
      ++wrong;
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); /* ghosts read before the next step writes them */
  }
  long total = 0;
  gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, &total, &wrong, GEX_DT_I64, sizeof total, 1, GEX_OP_ADD, NULL, NULL, 0));
  if (me == 0)
    printf("mk_halo: %u ranks, %d cells each in device memory, %d steps: %s\n", (unsigned)n, CELLS, STEPS,
           total == 0 ? "correct" : "WRONG");
  gex_Segment_Destroy(seg, 0);
  gex_MK_Destroy(kind, 0);
  gasnet_exit(total == 0 ? 0 : 1);
  return 0;
}
