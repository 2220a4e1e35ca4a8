/*
 * GASPI_Ext.h -- HyGASPI
 *
 * GPI-2 extensions to the GASPI API (GPI-2 1.6.0 names and signatures, listed in
 * HyGASPI's docs/COMPATIBILITY.md). None of these is part of the GASPI specification.
 */
#ifndef HYGASPI_GASPI_EXT_H
#define HYGASPI_GASPI_EXT_H

#include "GASPI.h"

#if defined(__GNUC__)
#define HYGASPI_PRINTF_FORMAT(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define HYGASPI_PRINTF_FORMAT(fmt_index, first_arg)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Process information (extends spec §5). gaspi_cpu_frequency may be called
 * before gaspi_proc_init.
 * ------------------------------------------------------------------------- */
HYGASPI_API gaspi_return_t gaspi_initialized(gaspi_number_t *const initialized);
HYGASPI_API gaspi_return_t gaspi_proc_local_rank(gaspi_rank_t *const local_rank);
HYGASPI_API gaspi_return_t gaspi_proc_local_num(gaspi_rank_t *const local_num);
HYGASPI_API gaspi_return_t gaspi_proc_ping(const gaspi_rank_t rank, const gaspi_timeout_t timeout);
HYGASPI_API gaspi_return_t gaspi_cpu_frequency(gaspi_float *const cpu_mhz);

/* ---------------------------------------------------------------------------
 * NUMA placement and affinity.
 * ------------------------------------------------------------------------- */
HYGASPI_API gaspi_return_t gaspi_numa_socket(gaspi_uchar *const socket);
HYGASPI_API gaspi_return_t gaspi_set_socket_affinity(const gaspi_uchar socket);
HYGASPI_API void gaspi_print_affinity_mask(void);

/* ---------------------------------------------------------------------------
 * Output and errors (extends spec §13). gaspi_printf prints with the rank in
 * front; gaspi_printf_to sends the text to be printed by the given rank.
 * The string from gaspi_error_str is static: never free it.
 * ------------------------------------------------------------------------- */
HYGASPI_API void gaspi_printf(const char *fmt, ...) HYGASPI_PRINTF_FORMAT(1, 2);
HYGASPI_API void gaspi_printf_to(gaspi_rank_t rank, const char *fmt, ...) HYGASPI_PRINTF_FORMAT(2, 3);
HYGASPI_API gaspi_string_t gaspi_error_str(gaspi_return_t error_code);

/* ---------------------------------------------------------------------------
 * Segments (extends spec §7.2).
 * ------------------------------------------------------------------------- */
HYGASPI_API gaspi_return_t gaspi_segment_avail_local(gaspi_segment_id_t *const avail_seg_id);
HYGASPI_API gaspi_return_t gaspi_segment_size(const gaspi_segment_id_t segment_id, const gaspi_rank_t rank,
                                              gaspi_size_t *const size);

/* ---------------------------------------------------------------------------
 * Device segments (a HyGASPI extension). GASPI 17.1 §4.1 leaves the meaning
 * of gaspi_memory_description_t to the implementation ("e.g. MEMORY_GPU or
 * MEMORY_HOST might be relevant"). In HyGASPI:
 *  - a value with bit 30 clear (0, and whatever GPI-2 code passes: GPI-2
 *    ignores the argument) describes host memory;
 *  - HYGASPI_MEMORY_CUDA(ordinal) describes memory of CUDA device `ordinal`
 *    (cuMemAlloc or cudaMalloc; not managed memory), which
 *    gaspi_segment_bind and gaspi_segment_use then bind as the segment.
 *    The CUDA driver (libcuda.so.1, or the file HYGASPI_CUDA_LIBRARY names) is
 *    loaded at run time; the device must support unified addressing.
 *  - any other value with bit 30 set names a memory class this build does not
 *    serve: the call returns GASPI_ERROR, with a message.
 * On a device segment gaspi_write, gaspi_read, their list and _notify forms
 * move device data: by one driver copy within a node (this rank's memory, a
 * node peer's mapped segment, a peer's device segment through CUDA IPC), left
 * in flight on the queue until gaspi_wait (as the spec allows for every
 * transfer: the local buffer may change only after it), and served by the
 * owner across nodes, also left in flight until gaspi_wait: the call returns
 * before the owner serves it, and any GASPI call that waits (gaspi_wait,
 * barriers, notify_waitsome) moves it on; a gaspi_write_notify there carries
 * its notification with the data, and the owner sets it once the data is in,
 * so that call returns at once too (and so does a gaspi_notify into such a
 * segment while its queue carries device transfers). A notification posted
 * to the queue after such copies comes after their data (spec 8.3.2). Its
 * notifications stay in host memory. gaspi_segment_ptr returns the device
 * address. Global atomics and passive messages on it return GASPI_ERROR,
 * with a message that says why.
 * ------------------------------------------------------------------------- */
#define HYGASPI_MEMORY_HOST ((gaspi_memory_description_t)0)
#define HYGASPI_MEMORY_CLASS_BIT 0x40000000
#define HYGASPI_MEMORY_CLASS_CUDA 1
#define HYGASPI_MEMORY_CUDA(ordinal)                                                                                   \
  ((gaspi_memory_description_t)(HYGASPI_MEMORY_CLASS_BIT | (HYGASPI_MEMORY_CLASS_CUDA << 16) | ((ordinal)&0xffff)))

/* ---------------------------------------------------------------------------
 * Limits (extends spec §12). GPI-2 lists gaspi_rw_list_elem_max among its
 * extensions; it is declared once, in GASPI.h, which this header includes
 * (a second declaration would trip -Wredundant-decls in client builds).
 * ------------------------------------------------------------------------- */
HYGASPI_API gaspi_return_t gaspi_transfer_size_min(gaspi_size_t *const transfer_size_min);
HYGASPI_API gaspi_return_t gaspi_passive_transfer_size_min(gaspi_size_t *const passive_transfer_size_min);

/* ---------------------------------------------------------------------------
 * Busy-wait helper: a short CPU pause for polling loops.
 * ------------------------------------------------------------------------- */
HYGASPI_API void gaspi_delay(void);

#ifdef __cplusplus
}
#endif

#endif /* HYGASPI_GASPI_EXT_H */
