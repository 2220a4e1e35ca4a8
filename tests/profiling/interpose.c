/* A profiling tool (spec §14.2): defines gaspi_write and gaspi_barrier, counts the calls and
 * forwards them to the implementation's pgaspi_ names. Used two ways by the interpose tests:
 * preloaded (LD_PRELOAD=libhygaspi_interpose.so) into a program that only links libhygaspi, and
 * linked into a program before -lhygaspi. In both, the dynamic linker finds these definitions
 * before libhygaspi's weak gaspi_write / gaspi_barrier aliases. */
#include <GASPI.h>
#include <PGASPI.h>

static unsigned long g_writes;
static unsigned long g_barriers;

__attribute__((visibility("default"))) gaspi_return_t
gaspi_write(const gaspi_segment_id_t segment_id_local, const gaspi_offset_t offset_local, const gaspi_rank_t rank,
            const gaspi_segment_id_t segment_id_remote, const gaspi_offset_t offset_remote, const gaspi_size_t size,
            const gaspi_queue_id_t queue, const gaspi_timeout_t timeout) {
  __atomic_fetch_add(&g_writes, 1, __ATOMIC_RELAXED);
  return pgaspi_write(segment_id_local, offset_local, rank, segment_id_remote, offset_remote, size, queue, timeout);
}

__attribute__((visibility("default"))) gaspi_return_t gaspi_barrier(const gaspi_group_t group,
                                                                    const gaspi_timeout_t timeout) {
  __atomic_fetch_add(&g_barriers, 1, __ATOMIC_RELAXED);
  return pgaspi_barrier(group, timeout);
}

/* The tool's own query, found by the program with dlsym(RTLD_DEFAULT, ...). */
__attribute__((visibility("default"))) void hygaspi_interpose_counts(unsigned long *writes, unsigned long *barriers) {
  *writes = __atomic_load_n(&g_writes, __ATOMIC_RELAXED);
  *barriers = __atomic_load_n(&g_barriers, __ATOMIC_RELAXED);
}
