/* The halo exchange of mk_halo.c, through GASPI device segments (GASPI_Ext.h, "Device
 * segments"). Each rank keeps a 1-D block of cells with a ghost cell at each end in CUDA device
 * memory, bound as segment 0 with gaspi_segment_use and HYGASPI_MEMORY_CUDA(0). Every step each
 * rank writes its cells from host memory into its device segment (host -> device, to itself),
 * sends its edge cells straight from device memory into its neighbours' ghost cells with
 * gaspi_write_notify (device -> device), waits for its own ghosts' notifications, which stay in
 * host memory, and reads the ghosts back into host memory (device -> host) to check them.
 *
 * The program allocates its device memory with the CUDA driver, which it loads at run time so that
 * it builds without CUDA; a CUDA program would call cudaMalloc. Run on a GPU machine as
 *   hygaspi-run -n 4 ./mk_halo_gaspi          (or mpirun -np 4 ./mk_halo_gaspi)
 * and anywhere else on the project's fake driver (scripts/demo.sh does this when there is no GPU):
 *   HYGASPI_CUDA_LIBRARY=build/tests/fake_cuda/libcuda.so.1 hygaspi-run -n 4 ./mk_halo_gaspi */
#include <GASPI.h>
#include <GASPI_Ext.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CELLS 1024 /* per rank */
#define STEPS 20

static gaspi_rank_t me, n;

static void die(const char *what) {
  fprintf(stderr, "[%u] mk_halo_gaspi: %s\n", (unsigned)me, what);
  exit(1);
}
#define OK(call)                                                                                                       \
  do {                                                                                                                 \
    if ((call) != GASPI_SUCCESS)                                                                                       \
      die(#call " failed");                                                                                            \
  } while (0)

/* The value of global cell `g` at step `s` (cells outside the domain are 0). */
static double value(long g, int s) { return g < 0 || g >= (long)n * CELLS ? 0.0 : (double)(g % 97) + 1000.0 * s; }

/* `bytes` of memory on CUDA device 0, through the driver HYGASPI_CUDA_LIBRARY names (libcuda.so.1
 * by default), with the device's primary context made current. */
static void *device_memory(size_t bytes) {
  const char *path = getenv("HYGASPI_CUDA_LIBRARY");
  void *lib = dlopen(path != NULL ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL)
    die("no CUDA driver (libcuda.so.1) on this machine");
  typedef int (*getproc_t)(const char *, void **, int, unsigned long long, int *);
  getproc_t getproc = NULL;
  *(void **)&getproc = dlsym(lib, "cuGetProcAddress_v2"); /* POSIX: dlsym gives functions this way */
  int (*init)(unsigned) = NULL, (*get)(int *, int) = NULL, (*retain)(void **, int) = NULL;
  int (*push)(void *) = NULL, (*alloc)(unsigned long long *, size_t) = NULL;
  int found = 0;
  if (getproc == NULL || getproc("cuInit", (void **)&init, 2000, 0, &found) != 0 ||
      getproc("cuDeviceGet", (void **)&get, 2000, 0, &found) != 0 ||
      getproc("cuDevicePrimaryCtxRetain", (void **)&retain, 7000, 0, &found) != 0 ||
      getproc("cuCtxPushCurrent", (void **)&push, 4000, 0, &found) != 0 ||
      getproc("cuMemAlloc", (void **)&alloc, 3020, 0, &found) != 0)
    die("the CUDA driver lacks a call this example needs");
  int dev = 0;
  void *ctx = NULL;
  unsigned long long p = 0;
  if (init(0) != 0 || get(&dev, 0) != 0 || retain(&ctx, dev) != 0 || push(ctx) != 0 || alloc(&p, bytes) != 0)
    die("no CUDA device 0 to allocate on");
  return (void *)(uintptr_t)p;
}

int main(void) {
  OK(gaspi_proc_init(GASPI_BLOCK));
  OK(gaspi_proc_rank(&me));
  OK(gaspi_proc_num(&n));
  const gaspi_segment_id_t dev = 0, host = 1;
  const gaspi_queue_id_t q = 0;
  /* Segment 0: ghost, CELLS cells, ghost, in device memory. Segment 1: the same in host memory. */
  const gaspi_size_t bytes = (CELLS + 2) * sizeof(double);
  if (gaspi_segment_use(dev, device_memory(bytes), bytes, GASPI_GROUP_ALL, GASPI_BLOCK, HYGASPI_MEMORY_CUDA(0)) !=
      GASPI_SUCCESS)
    die("the device segment could not be bound (see the message above, and hygaspi-info)");
  OK(gaspi_segment_create(host, bytes, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  double *cells = NULL;
  OK(gaspi_segment_ptr(host, (gaspi_pointer_t *)&cells));

  const gaspi_notification_id_t from_left = 0, from_right = 1;
  long wrong = 0;
  for (int s = 0; s < STEPS; ++s) {
    for (long i = 0; i < CELLS; ++i) /* this step's cells, into device memory */
      cells[i + 1] = value((long)me * CELLS + i, s);
    OK(gaspi_write(host, sizeof(double), me, dev, sizeof(double), CELLS * sizeof(double), q, GASPI_BLOCK));
    /* Edge cells device -> device into the neighbours' ghosts, each with its notification (the
     * domain does not wrap: the first and last ranks send nothing outwards). */
    if (me > 0)
      OK(gaspi_write_notify(dev, sizeof(double), me - 1, dev, (CELLS + 1) * sizeof(double), sizeof(double), from_right,
                            s + 1, q, GASPI_BLOCK));
    if (me + 1 < n)
      OK(gaspi_write_notify(dev, CELLS * sizeof(double), me + 1, dev, 0, sizeof(double), from_left, s + 1, q,
                            GASPI_BLOCK));
    OK(gaspi_wait(q, GASPI_BLOCK));
    /* Each ghost has arrived when its notification has: no barrier needed. */
    for (int side = 0; side < 2; ++side) {
      if ((side == 0 && me == 0) || (side == 1 && me + 1 == n))
        continue;
      gaspi_notification_id_t got = 0;
      gaspi_notification_t val = 0;
      OK(gaspi_notify_waitsome(dev, side == 0 ? from_left : from_right, 1, &got, GASPI_BLOCK));
      OK(gaspi_notify_reset(dev, got, &val));
      if (val != (gaspi_notification_t)(s + 1))
        ++wrong;
    }
    /* The ghosts back into host memory (device -> host), to check them. */
    OK(gaspi_read(host, 0, me, dev, 0, sizeof(double), q, GASPI_BLOCK));
    OK(gaspi_read(host, (CELLS + 1) * sizeof(double), me, dev, (CELLS + 1) * sizeof(double), sizeof(double), q,
                  GASPI_BLOCK));
    OK(gaspi_wait(q, GASPI_BLOCK));
    if (me > 0 && cells[0] != value((long)me * CELLS - 1, s))
      ++wrong;
    if (me + 1 < n && cells[CELLS + 1] != value((long)(me + 1) * CELLS, s))
      ++wrong;
    OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK)); /* ghosts checked before the next step sends */
  }
  long total = 0;
  OK(gaspi_allreduce(&wrong, &total, 1, GASPI_OP_SUM, GASPI_TYPE_LONG, GASPI_GROUP_ALL, GASPI_BLOCK));
  if (me == 0)
    printf("mk_halo_gaspi: %u ranks, %d cells each in device memory, %d steps: %s\n", (unsigned)n, CELLS, STEPS,
           total == 0 ? "correct" : "WRONG");
  OK(gaspi_segment_delete(dev));
  OK(gaspi_proc_term(GASPI_BLOCK));
  return total == 0 ? 0 : 1;
}
