/* The heat equation in 1-D on GASNet-EX: each rank owns a block of cells in its bound segment and
 * sends its edge cells to its neighbours every step as an AM Long, which carries the data into the
 * neighbour's ghost cell and runs a handler that counts the arrival (the GASNet idiom for "data and
 * signal in one message"). At the end rank 0 gathers every block with gex_RMA_GetNB and compares it,
 * bit for bit, with a serial run.
 * Run: hygaspi-run -n 4 ./ex_heat   (or mpirun -np 4 ./ex_heat, or ./ex_heat alone) */
#if !defined(GASNET_SEQ) && !defined(GASNET_PARSYNC) && !defined(GASNET_PAR)
#define GASNET_PAR /* unless the build names the mode, as GASNet's makefile fragments do */
#endif
#include <gasnetex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CELLS 4096 /* per rank */
#define STEPS 500

static gex_TM_t tm;
static gex_Rank_t me, n;
/* This rank's segment: two generations of [left ghost, CELLS cells, right ghost]. */
static double *grid[2];
static volatile int arrived[2]; /* halo messages received for steps of each parity */

static void die(const char *what) {
  fprintf(stderr, "[%u] ex_heat: %s\n", (unsigned)me, what);
  gasnet_exit(1);
}

static double initial(size_t global) { return (double)((global * 7919u) % 1000u) / 10.0; }
static void step(const double *u, double *v, size_t cells) {
  for (size_t i = 1; i <= cells; ++i)
    v[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
}

/* A neighbour's edge cell for step `s` has landed in our ghost cell of generation s % 2. */
static void on_halo(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t s) {
  (void)t, (void)buf, (void)nbytes;
  __atomic_fetch_add(&arrived[s % 2], 1, __ATOMIC_RELEASE);
}
static gex_AM_Entry_t handlers[] = {{0, (gex_AM_Fn_t)on_halo, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 1, NULL, "halo"}};

/* Where cell `i` (0 = left ghost) of generation `g` of `rank`'s grid is, as that rank mapped it. */
static double *remote_cell(gex_Rank_t rank, int g, size_t i) {
  void *base;
  if (gex_Segment_QueryBound(tm, rank, &base, NULL, NULL) != GASNET_OK)
    die("a neighbour has no segment");
  return (double *)base + (size_t)g * (CELLS + 2) + i;
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_Segment_t seg;
  if (gex_Client_Init(&client, &ep, &tm, "EXHEAT", &argc, &argv, 0) != GASNET_OK)
    return 1;
  me = gex_TM_QueryRank(tm);
  n = gex_TM_QuerySize(tm);
  const size_t bytes = 2 * (CELLS + 2) * sizeof(double);
  const size_t page = GASNET_PAGESIZE;
  if (gex_EP_RegisterHandlers(ep, handlers, 1) != GASNET_OK ||
      gex_Segment_Attach(&seg, tm, (bytes + n * CELLS * sizeof(double) + page - 1) / page * page) != GASNET_OK)
    die("no segment or no handlers");
  grid[0] = (double *)gex_Segment_QueryAddr(seg);
  grid[1] = grid[0] + CELLS + 2;
  /* Cell i of this block (0 and CELLS + 1: the ghosts) is cell me * CELLS + i of the serial run,
   * whose cells 0 and n * CELLS + 1 are the fixed outer boundary. */
  for (size_t i = 0; i < CELLS + 2; ++i)
    grid[0][i] = grid[1][i] = initial((size_t)me * CELLS + i);
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); /* every ghost is initialised before any halo lands */

  const gex_AM_Index_t h_halo = handlers[0].gex_index;
  for (int s = 0; s < STEPS; ++s) {
    double *u = grid[s % 2], *v = grid[(s + 1) % 2];
    /* Send the edges of generation s into the neighbours' ghosts of generation s. */
    int expect = 0;
    if (me > 0) {
      gex_AM_RequestLong1(tm, me - 1, h_halo, &u[1], sizeof(double), remote_cell(me - 1, s % 2, CELLS + 1),
                          GEX_EVENT_NOW, 0, s);
      ++expect;
    }
    if (me + 1 < n) {
      gex_AM_RequestLong1(tm, me + 1, h_halo, &u[CELLS], sizeof(double), remote_cell(me + 1, s % 2, 0), GEX_EVENT_NOW,
                          0, s);
      ++expect;
    }
    /* A neighbour is at most one step ahead, so generation s % 2 gets only step s's halos now. */
    const int want = expect * (s / 2 + 1);
    GASNET_BLOCKUNTIL(__atomic_load_n(&arrived[s % 2], __ATOMIC_ACQUIRE) >= want);
    step(u, v, CELLS); /* never writes a ghost: the outer boundary stays as initialised */
  }
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));

  if (me == 0) {
    /* Gather every block (the last generation) into the spare part of rank 0's segment. */
    double *all = grid[1] + CELLS + 2;
    gex_Event_t *ev = malloc(n * sizeof *ev);
    for (gex_Rank_t r = 0; r < n; ++r)
      ev[r] = gex_RMA_GetNB(tm, all + (size_t)r * CELLS, r, remote_cell(r, STEPS % 2, 1), CELLS * sizeof(double), 0);
    gex_Event_WaitAll(ev, n, 0);
    free(ev);
    /* The serial run. */
    const size_t total = (size_t)n * CELLS;
    double *a = malloc((total + 2) * sizeof *a), *b = malloc((total + 2) * sizeof *b);
    for (size_t i = 0; i < total + 2; ++i)
      a[i] = b[i] = initial(i);
    for (int s = 0; s < STEPS; ++s) {
      step(a, b, total);
      double *t = a;
      a = b, b = t;
    }
    size_t wrong = 0;
    for (size_t i = 0; i < total; ++i)
      wrong += memcmp(&all[i], &a[i + 1], sizeof(double)) != 0;
    printf("ex_heat: %u ranks, %zu cells, %d steps: %s (%zu cells differ from the serial run)\n", (unsigned)n, total,
           STEPS, wrong == 0 ? "correct" : "WRONG", wrong);
    fflush(stdout);
    free(a), free(b);
    if (wrong != 0)
      gasnet_exit(1);
  }
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  gasnet_exit(0);
  return 0;
}
