/*
 * header_check.c -- compile-only check that the public headers are valid,
 * warning-free C11:
 *   gcc -std=c11 -Wall -Wextra -pedantic -Werror -Iinclude -c tests/header_check.c
 */
#include <GASPI.h>
#include <GASPI_Ext.h>
#include <GASPI_Threads.h>
#include <GASPI_types.h>
#include <GPI2_VERSION.h>
#include <PGASPI.h>

/* Include guards: a second inclusion must be harmless. */
#include <GASPI.h>
#include <GASPI_Ext.h>
#include <GASPI_Threads.h>
#include <PGASPI.h>

#include <stddef.h>

/* GPI-2's widths and values (docs/COMPATIBILITY.md). */
_Static_assert(sizeof(gaspi_rank_t) == sizeof(unsigned short), "gaspi_rank_t");
_Static_assert(sizeof(gaspi_segment_id_t) == 1, "gaspi_segment_id_t");
_Static_assert(sizeof(gaspi_queue_id_t) == 1, "gaspi_queue_id_t");
_Static_assert(sizeof(gaspi_group_t) == 1, "gaspi_group_t");
_Static_assert(sizeof(gaspi_number_t) == sizeof(unsigned int), "gaspi_number_t");
_Static_assert(sizeof(gaspi_notification_t) == sizeof(unsigned int), "gaspi_notification_t");
_Static_assert(sizeof(gaspi_offset_t) == sizeof(unsigned long), "gaspi_offset_t");
_Static_assert(sizeof(gaspi_timeout_t) == sizeof(unsigned long), "gaspi_timeout_t");
_Static_assert(sizeof(gaspi_time_t) == sizeof(float), "gaspi_time_t");
_Static_assert(GASPI_ERROR == -1 && GASPI_SUCCESS == 0 && GASPI_TIMEOUT == 1, "return codes");
_Static_assert(GASPI_QUEUE_FULL == 23 && GASPI_ERR_MEMALLOC == 28, "return codes");
_Static_assert(GASPI_TYPE_INT == 0 && GASPI_TYPE_LONG == 4 && GASPI_TYPE_ULONG == 5, "datatypes");
_Static_assert(GASPI_OFI == 5 && GASPI_TOPOLOGY_DYNAMIC == 2, "enums");
_Static_assert(GASPI_ALLOC_DEFAULT == GASPI_MEM_UNINITIALIZED, "alloc policy");
_Static_assert(GASPI_MAJOR_VERSION == 1 && GASPI_MINOR_VERSION == 6 && GASPI_REVISION == 0, "version");

static gaspi_return_t sum_op(gaspi_pointer_t op1, gaspi_pointer_t op2, gaspi_pointer_t res, gaspi_reduce_state_t state,
                             gaspi_number_t num, gaspi_size_t element_size, gaspi_timeout_t timeout) {
  (void)op1;
  (void)op2;
  (void)res;
  (void)state;
  (void)num;
  (void)element_size;
  (void)timeout;
  return GASPI_SUCCESS;
}

int header_check_c(void);

int header_check_c(void) {
  gaspi_config_t config;
  gaspi_reduce_operation_t op = sum_op;
  gaspi_state_vector_t states = NULL;
  gaspi_alloc_t policy = GASPI_MEM_INITIALIZED | GASPI_ALLOC_NUMA_LOCAL;
  gaspi_timeout_t timeouts[2] = {GASPI_BLOCK, GASPI_TEST};
  gaspi_group_t group = GASPI_GROUP_ALL;
  gaspi_return_t (*write_fn)(gaspi_segment_id_t, gaspi_offset_t, gaspi_rank_t, gaspi_segment_id_t, gaspi_offset_t,
                             gaspi_size_t, gaspi_queue_id_t, gaspi_timeout_t) = pgaspi_write;
  /* GASPI_Threads.h: the two helpers GPI-2 does not mark deprecated, by their exact types. */
  gaspi_return_t (*threads_register)(gaspi_int *) = gaspi_threads_register;
  void (*threads_sync)(void) = gaspi_threads_sync;

  config.queue_num = 8;
  config.build_infrastructure = GASPI_TOPOLOGY_STATIC;
  config.network = GASPI_IB;
  /* GPI-2's device parameters (gaspi_dev_config_t.params), set by name as GPI-2 programs do. */
  config.dev_config.network_type = GASPI_ETHERNET;
  config.dev_config.params.ib.netdev_id = -1;
  config.dev_config.params.ib.mtu = 4096;
  config.dev_config.params.ib.port_check = 1;
  config.dev_config.params.tcp.port = 19000;
  config.dev_config.params.ofi.use_shm = 1;
  config.dev_config.params.ofi.provider_info = 0;
  config.dev_config.params.ofi.progress_auto = 1;
  (void)config;
  (void)op;
  (void)states;
  (void)write_fn;
  (void)threads_register;
  (void)threads_sync;
  return (int)(policy + timeouts[1] + group);
}
