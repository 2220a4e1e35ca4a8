/*
 * A GASPI program as a GPI-2 user writes it, built from outside the HyGASPI tree against the
 * installed headers and library (pkg-config GPI2 / hygaspi, -lGPI2-dbg, find_package(HyGASPI)).
 * Every rank writes its rank number into its right neighbour's segment with write_notify and
 * checks what its left neighbour wrote. Rank 0 prints "SUCCESS consumer" at the end.
 */
#include <GASPI.h>
#include <GASPI_Ext.h>
#include <GPI2_VERSION.h>

#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                                    \
  do {                                                                                                                 \
    gaspi_return_t check_ret_ = (call);                                                                                \
    if (check_ret_ != GASPI_SUCCESS) {                                                                                 \
      fprintf(stderr, "consumer: %s failed at line %d: %s\n", #call, __LINE__, gaspi_error_str(check_ret_));           \
      exit(EXIT_FAILURE);                                                                                              \
    }                                                                                                                  \
  } while (0)

#define FAIL(...)                                                                                                      \
  do {                                                                                                                 \
    fprintf(stderr, "consumer: " __VA_ARGS__);                                                                         \
    fputc('\n', stderr);                                                                                               \
    exit(EXIT_FAILURE);                                                                                                \
  } while (0)

enum { SEG = 0, SEG_SIZE = 1 << 20, SLOT = 4096, NOTIFY = 7 };

int main(void) {
  gaspi_float mhz = 0.0f;
  gaspi_return_t ret = gaspi_cpu_frequency(&mhz); /* allowed before gaspi_proc_init */
  if (ret == GASPI_ERR_NOINIT)
    FAIL("gaspi_cpu_frequency needs gaspi_proc_init");
  if (ret == GASPI_SUCCESS && !(mhz > 0.0f))
    FAIL("gaspi_cpu_frequency gave %f MHz", (double)mhz);

  CHECK(gaspi_proc_init(GASPI_BLOCK));
  gaspi_rank_t rank, nranks;
  CHECK(gaspi_proc_rank(&rank));
  CHECK(gaspi_proc_num(&nranks));
  gaspi_printf("consumer: rank %u of %u, GPI-2 %d.%d.%d interface, cpu %.0f MHz\n", rank, nranks, GASPI_MAJOR_VERSION,
               GASPI_MINOR_VERSION, GASPI_REVISION, (double)mhz);

  if (gaspi_error_str(GASPI_ERR_INV_RANK) == NULL)
    FAIL("gaspi_error_str returned NULL");

  gaspi_number_t queue_max = 0;
  CHECK(gaspi_queue_max(&queue_max));
  if (queue_max < 1)
    FAIL("gaspi_queue_max = %u", queue_max);

  gaspi_segment_id_t avail = 255;
  CHECK(gaspi_segment_avail_local(&avail));
  if (avail != SEG)
    FAIL("gaspi_segment_avail_local = %u before any segment", avail);

  CHECK(gaspi_segment_create(SEG, SEG_SIZE, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  gaspi_pointer_t ptr;
  CHECK(gaspi_segment_ptr(SEG, &ptr));
  unsigned char *seg = (unsigned char *)ptr;
  for (size_t i = 0; i < SEG_SIZE; ++i)
    if (seg[i] != 0)
      FAIL("GASPI_MEM_INITIALIZED segment has byte %zu = %u", i, seg[i]);
  CHECK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK)); /* everyone checked before anyone writes */

  const gaspi_rank_t right = (gaspi_rank_t)((rank + 1) % nranks);
  const gaspi_rank_t left = (gaspi_rank_t)((rank + nranks - 1) % nranks);
  gaspi_size_t size = 0;
  CHECK(gaspi_segment_size(SEG, right, &size));
  if (size != SEG_SIZE)
    FAIL("gaspi_segment_size(right) = %lu", size);
  CHECK(gaspi_proc_ping(right, GASPI_BLOCK));

  /* Slot 0 is the source, slot 1 receives the left neighbour's data. */
  for (size_t i = 0; i < SLOT; ++i)
    seg[i] = (unsigned char)(rank * 31 + i);
  CHECK(gaspi_write_notify(SEG, 0, right, SEG, SLOT, SLOT, NOTIFY, (gaspi_notification_t)(rank + 1), 0, GASPI_BLOCK));
  CHECK(gaspi_wait(0, GASPI_BLOCK));

  gaspi_notification_id_t first;
  gaspi_notification_t value;
  CHECK(gaspi_notify_waitsome(SEG, NOTIFY, 1, &first, GASPI_BLOCK));
  CHECK(gaspi_notify_reset(SEG, first, &value));
  if (first != NOTIFY || value != (gaspi_notification_t)(left + 1))
    FAIL("notification %u = %u, expected %u = %u", first, value, NOTIFY, left + 1);
  for (size_t i = 0; i < SLOT; ++i)
    if (seg[SLOT + i] != (unsigned char)(left * 31 + i))
      FAIL("byte %zu from rank %u is %u", i, left, seg[SLOT + i]);

  CHECK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  gaspi_printf("consumer: got %d bytes and notification %u from rank %u\n", SLOT, value, left);
  CHECK(gaspi_segment_delete(SEG));
  CHECK(gaspi_proc_term(GASPI_BLOCK));
  if (rank == 0)
    printf("SUCCESS consumer\n");
  return EXIT_SUCCESS;
}
