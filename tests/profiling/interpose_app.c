/* The program under a profiling tool (spec §14.2). Every rank writes kWrites blocks to its right
 * neighbour and passes two barriers, then checks that the data arrived and asks the tool, found
 * with dlsym, how many calls it saw. "intercepted": the tool must be there (preloaded or linked
 * first) and must have seen exactly these calls; "plain": no tool, the calls still work.
 * Rank 0 prints "SUCCESS interpose" (tests/run_mr.sh). */
#define _GNU_SOURCE
#include <GASPI.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define kWrites 5
#define kBlock 64

static gaspi_rank_t g_rank;

static void check(int ok, const char *what, int line) {
  if (!ok) {
    fprintf(stderr, "FAIL rank %u interpose_app.c:%d: %s\n", g_rank, line, what);
    exit(1);
  }
}
#define CHECK(cond) check((cond), #cond, __LINE__)
#define OK(call) CHECK((call) == GASPI_SUCCESS)

typedef void (*counts_fn)(unsigned long *, unsigned long *);

int main(int argc, char **argv) {
  CHECK(argc == 2 && (strcmp(argv[1], "intercepted") == 0 || strcmp(argv[1], "plain") == 0));
  const int want_tool = strcmp(argv[1], "intercepted") == 0;
  gaspi_rank_t n = 0;
  OK(gaspi_proc_init(GASPI_BLOCK));
  OK(gaspi_proc_rank(&g_rank));
  OK(gaspi_proc_num(&n));
  OK(gaspi_segment_create(0, 2 * kWrites * kBlock, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  unsigned char *seg = NULL;
  OK(gaspi_segment_ptr(0, (gaspi_pointer_t *)&seg));
  const gaspi_rank_t to = (gaspi_rank_t)((g_rank + 1) % n);
  const gaspi_rank_t from = (gaspi_rank_t)((g_rank + n - 1) % n);
  for (int i = 0; i < kWrites; ++i) {
    memset(seg + i * kBlock, (unsigned char)(g_rank * 16 + i + 1), kBlock);
    OK(gaspi_write(0, (gaspi_offset_t)i * kBlock, to, 0, (gaspi_offset_t)(kWrites + i) * kBlock, kBlock, 0,
                   GASPI_BLOCK));
  }
  OK(gaspi_wait(0, GASPI_BLOCK));
  OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  for (int i = 0; i < kWrites; ++i)
    for (int b = 0; b < kBlock; ++b)
      CHECK(seg[(kWrites + i) * kBlock + b] == (unsigned char)(from * 16 + i + 1));
  OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));

  void *sym = dlsym(RTLD_DEFAULT, "hygaspi_interpose_counts");
  counts_fn counts = NULL;
  memcpy(&counts, &sym, sizeof counts); /* POSIX: a function's address, as data */
  if (want_tool) {
    CHECK(counts != NULL);
    unsigned long writes = 0, barriers = 0;
    counts(&writes, &barriers);
    printf("[rank %u] tool saw %lu gaspi_write and %lu gaspi_barrier calls\n", g_rank, writes, barriers);
    CHECK(writes == kWrites);
    CHECK(barriers == 2);
  } else {
    CHECK(counts == NULL);
  }
  OK(gaspi_proc_term(GASPI_BLOCK));
  if (g_rank == 0)
    printf("SUCCESS interpose\n");
  return 0;
}
