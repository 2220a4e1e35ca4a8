/*
 * GASPI.h -- HyGASPI
 *
 * The GASPI 17.1 API (plus the read_list_notify proposal and the QUEUE_FULL
 * errata), declared with the signatures of GPI-2 1.6.0 wherever GPI-2 and
 * the spec's C prototypes differ, so that GPI-2 programs compile unchanged.
 * Profiling names (pgaspi_*, spec §14.2) are in PGASPI.h.
 */
#ifndef HYGASPI_GASPI_H
#define HYGASPI_GASPI_H

#include "GASPI_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Spec §5: execution model -- configuration, startup, ranks, shutdown.
 * gaspi_config_set takes the structure by value, as in the spec and GPI-2.
 * ------------------------------------------------------------------------- */
HYGASPI_API gaspi_return_t gaspi_config_get(gaspi_config_t *const config);
HYGASPI_API gaspi_return_t gaspi_config_set(const gaspi_config_t new_config);
HYGASPI_API gaspi_return_t gaspi_proc_init(const gaspi_timeout_t timeout);
HYGASPI_API gaspi_return_t gaspi_proc_num(gaspi_rank_t *const proc_num);
HYGASPI_API gaspi_return_t gaspi_proc_rank(gaspi_rank_t *const rank);
HYGASPI_API gaspi_return_t gaspi_proc_term(const gaspi_timeout_t timeout);
HYGASPI_API gaspi_return_t gaspi_proc_kill(const gaspi_rank_t rank, const gaspi_timeout_t timeout);

/* ---------------------------------------------------------------------------
 * Spec §6: connection management and the process state vector.
 * gaspi_state_vec_get fills a caller-allocated array of gaspi_proc_num
 * entries (GPI-2 passes the vector itself, not a pointer to it).
 * ------------------------------------------------------------------------- */
HYGASPI_API gaspi_return_t gaspi_connect(const gaspi_rank_t rank, const gaspi_timeout_t timeout);
HYGASPI_API gaspi_return_t gaspi_disconnect(const gaspi_rank_t rank, const gaspi_timeout_t timeout);
HYGASPI_API gaspi_return_t gaspi_state_vec_get(gaspi_state_vector_t state_vector);

/* ---------------------------------------------------------------------------
 * Spec §7.1: groups.
 * ------------------------------------------------------------------------- */
HYGASPI_API gaspi_return_t gaspi_group_create(gaspi_group_t *const group);
HYGASPI_API gaspi_return_t gaspi_group_add(const gaspi_group_t group, const gaspi_rank_t rank);
HYGASPI_API gaspi_return_t gaspi_group_commit(const gaspi_group_t group, const gaspi_timeout_t timeout);
HYGASPI_API gaspi_return_t gaspi_group_delete(const gaspi_group_t group);
HYGASPI_API gaspi_return_t gaspi_group_num(gaspi_number_t *const group_num);
HYGASPI_API gaspi_return_t gaspi_group_size(const gaspi_group_t group, gaspi_number_t *const group_size);
HYGASPI_API gaspi_return_t gaspi_group_ranks(const gaspi_group_t group, gaspi_rank_t *const group_ranks);

/* ---------------------------------------------------------------------------
 * Spec §7.2: segments.
 * ------------------------------------------------------------------------- */
HYGASPI_API gaspi_return_t gaspi_segment_alloc(const gaspi_segment_id_t segment_id, const gaspi_size_t size,
                                               const gaspi_alloc_t alloc_policy);
HYGASPI_API gaspi_return_t gaspi_segment_register(const gaspi_segment_id_t segment_id, const gaspi_rank_t rank,
                                                  const gaspi_timeout_t timeout);
HYGASPI_API gaspi_return_t gaspi_segment_create(const gaspi_segment_id_t segment_id, const gaspi_size_t size,
                                                const gaspi_group_t group, const gaspi_timeout_t timeout,
                                                const gaspi_alloc_t alloc_policy);
HYGASPI_API gaspi_return_t gaspi_segment_bind(const gaspi_segment_id_t segment_id, gaspi_pointer_t const pointer,
                                              const gaspi_size_t size,
                                              const gaspi_memory_description_t memory_description);
HYGASPI_API gaspi_return_t gaspi_segment_use(const gaspi_segment_id_t segment_id, gaspi_pointer_t const pointer,
                                             const gaspi_size_t size, const gaspi_group_t group,
                                             const gaspi_timeout_t timeout,
                                             const gaspi_memory_description_t memory_description);
HYGASPI_API gaspi_return_t gaspi_segment_delete(const gaspi_segment_id_t segment_id);
HYGASPI_API gaspi_return_t gaspi_segment_num(gaspi_number_t *const segment_num);
HYGASPI_API gaspi_return_t gaspi_segment_list(const gaspi_number_t num, gaspi_segment_id_t *const segment_id_list);
HYGASPI_API gaspi_return_t gaspi_segment_ptr(const gaspi_segment_id_t segment_id, gaspi_pointer_t *const pointer);

/* ---------------------------------------------------------------------------
 * Spec §8.2: one-sided basic communication (write, read, wait).
 * ------------------------------------------------------------------------- */
HYGASPI_API gaspi_return_t gaspi_write(const gaspi_segment_id_t segment_id_local, const gaspi_offset_t offset_local,
                                       const gaspi_rank_t rank, const gaspi_segment_id_t segment_id_remote,
                                       const gaspi_offset_t offset_remote, const gaspi_size_t size,
                                       const gaspi_queue_id_t queue, const gaspi_timeout_t timeout);
HYGASPI_API gaspi_return_t gaspi_read(const gaspi_segment_id_t segment_id_local, const gaspi_offset_t offset_local,
                                      const gaspi_rank_t rank, const gaspi_segment_id_t segment_id_remote,
                                      const gaspi_offset_t offset_remote, const gaspi_size_t size,
                                      const gaspi_queue_id_t queue, const gaspi_timeout_t timeout);
HYGASPI_API gaspi_return_t gaspi_wait(const gaspi_queue_id_t queue, const gaspi_timeout_t timeout);

/* ---------------------------------------------------------------------------
 * Spec §8.3: weak synchronisation -- notifications.
 * ------------------------------------------------------------------------- */
HYGASPI_API gaspi_return_t gaspi_notify(const gaspi_segment_id_t segment_id_remote, const gaspi_rank_t rank,
                                        const gaspi_notification_id_t notification_id,
                                        const gaspi_notification_t notification_value, const gaspi_queue_id_t queue,
                                        const gaspi_timeout_t timeout);
HYGASPI_API gaspi_return_t gaspi_notify_waitsome(const gaspi_segment_id_t segment_id_local,
                                                 const gaspi_notification_id_t notification_begin,
                                                 const gaspi_number_t num, gaspi_notification_id_t *const first_id,
                                                 const gaspi_timeout_t timeout);
HYGASPI_API gaspi_return_t gaspi_notify_reset(const gaspi_segment_id_t segment_id_local,
                                              const gaspi_notification_id_t notification_id,
                                              gaspi_notification_t *const old_notification_val);

/* ---------------------------------------------------------------------------
 * Spec §8.4: extended communication (list and notified transfers), with
 * gaspi_read_list_notify from the read_list_notify proposal.
 * ------------------------------------------------------------------------- */
HYGASPI_API gaspi_return_t gaspi_write_notify(const gaspi_segment_id_t segment_id_local,
                                              const gaspi_offset_t offset_local, const gaspi_rank_t rank,
                                              const gaspi_segment_id_t segment_id_remote,
                                              const gaspi_offset_t offset_remote, const gaspi_size_t size,
                                              const gaspi_notification_id_t notification_id,
                                              const gaspi_notification_t notification_value,
                                              const gaspi_queue_id_t queue, const gaspi_timeout_t timeout);
HYGASPI_API gaspi_return_t gaspi_write_list(const gaspi_number_t num, gaspi_segment_id_t *const segment_id_local,
                                            gaspi_offset_t *const offset_local, const gaspi_rank_t rank,
                                            gaspi_segment_id_t *const segment_id_remote,
                                            gaspi_offset_t *const offset_remote, gaspi_size_t *const size,
                                            const gaspi_queue_id_t queue, const gaspi_timeout_t timeout);
HYGASPI_API gaspi_return_t gaspi_write_list_notify(const gaspi_number_t num, gaspi_segment_id_t *const segment_id_local,
                                                   gaspi_offset_t *const offset_local, const gaspi_rank_t rank,
                                                   gaspi_segment_id_t *const segment_id_remote,
                                                   gaspi_offset_t *const offset_remote, gaspi_size_t *const size,
                                                   const gaspi_segment_id_t segment_id_notification,
                                                   const gaspi_notification_id_t notification_id,
                                                   const gaspi_notification_t notification_value,
                                                   const gaspi_queue_id_t queue, const gaspi_timeout_t timeout);
HYGASPI_API gaspi_return_t gaspi_read_notify(const gaspi_segment_id_t segment_id_local,
                                             const gaspi_offset_t offset_local, const gaspi_rank_t rank,
                                             const gaspi_segment_id_t segment_id_remote,
                                             const gaspi_offset_t offset_remote, const gaspi_size_t size,
                                             const gaspi_notification_id_t notification_id,
                                             const gaspi_queue_id_t queue, const gaspi_timeout_t timeout);
HYGASPI_API gaspi_return_t gaspi_read_list(const gaspi_number_t num, gaspi_segment_id_t *const segment_id_local,
                                           gaspi_offset_t *const offset_local, const gaspi_rank_t rank,
                                           gaspi_segment_id_t *const segment_id_remote,
                                           gaspi_offset_t *const offset_remote, gaspi_size_t *const size,
                                           const gaspi_queue_id_t queue, const gaspi_timeout_t timeout);
HYGASPI_API gaspi_return_t gaspi_read_list_notify(const gaspi_number_t num, gaspi_segment_id_t *const segment_id_local,
                                                  gaspi_offset_t *const offset_local, const gaspi_rank_t rank,
                                                  gaspi_segment_id_t *const segment_id_remote,
                                                  gaspi_offset_t *const offset_remote, gaspi_size_t *const size,
                                                  const gaspi_segment_id_t segment_id_notification,
                                                  const gaspi_notification_id_t notification_id,
                                                  const gaspi_queue_id_t queue, const gaspi_timeout_t timeout);

/* ---------------------------------------------------------------------------
 * Spec §8.5: communication queues.
 * ------------------------------------------------------------------------- */
HYGASPI_API gaspi_return_t gaspi_queue_create(gaspi_queue_id_t *const queue, const gaspi_timeout_t timeout);
HYGASPI_API gaspi_return_t gaspi_queue_delete(const gaspi_queue_id_t queue);
HYGASPI_API gaspi_return_t gaspi_queue_size(const gaspi_queue_id_t queue, gaspi_number_t *const queue_size);
HYGASPI_API gaspi_return_t gaspi_queue_purge(const gaspi_queue_id_t queue, const gaspi_timeout_t timeout);

/* ---------------------------------------------------------------------------
 * Spec §9: passive communication.
 * ------------------------------------------------------------------------- */
HYGASPI_API gaspi_return_t gaspi_passive_send(const gaspi_segment_id_t segment_id_local,
                                              const gaspi_offset_t offset_local, const gaspi_rank_t rank,
                                              const gaspi_size_t size, const gaspi_timeout_t timeout);
HYGASPI_API gaspi_return_t gaspi_passive_receive(const gaspi_segment_id_t segment_id_local,
                                                 const gaspi_offset_t offset_local, gaspi_rank_t *const rem_rank,
                                                 const gaspi_size_t size, const gaspi_timeout_t timeout);
HYGASPI_API gaspi_return_t gaspi_passive_queue_purge(const gaspi_timeout_t timeout);

/* ---------------------------------------------------------------------------
 * Spec §10: global atomics.
 * ------------------------------------------------------------------------- */
HYGASPI_API gaspi_return_t gaspi_atomic_fetch_add(const gaspi_segment_id_t segment_id, const gaspi_offset_t offset,
                                                  const gaspi_rank_t rank, const gaspi_atomic_value_t val_add,
                                                  gaspi_atomic_value_t *const val_old, const gaspi_timeout_t timeout);
HYGASPI_API gaspi_return_t gaspi_atomic_compare_swap(const gaspi_segment_id_t segment_id, const gaspi_offset_t offset,
                                                     const gaspi_rank_t rank, const gaspi_atomic_value_t comparator,
                                                     const gaspi_atomic_value_t val_new,
                                                     gaspi_atomic_value_t *const val_old,
                                                     const gaspi_timeout_t timeout);

/* ---------------------------------------------------------------------------
 * Spec §11: collectives (barrier, predefined and user-defined allreduce).
 * The reduction callback type gaspi_reduce_operation_t is in GASPI_types.h.
 * ------------------------------------------------------------------------- */
HYGASPI_API gaspi_return_t gaspi_barrier(const gaspi_group_t group, const gaspi_timeout_t timeout);
HYGASPI_API gaspi_return_t gaspi_allreduce(gaspi_pointer_t const buffer_send, gaspi_pointer_t const buffer_receive,
                                           const gaspi_number_t num, const gaspi_operation_t operation,
                                           const gaspi_datatype_t datatype, const gaspi_group_t group,
                                           const gaspi_timeout_t timeout);
HYGASPI_API gaspi_return_t gaspi_allreduce_user(gaspi_pointer_t const buffer_send, gaspi_pointer_t const buffer_receive,
                                                const gaspi_number_t num, const gaspi_size_t element_size,
                                                gaspi_reduce_operation_t const reduce_operation,
                                                gaspi_reduce_state_t const reduce_state, const gaspi_group_t group,
                                                const gaspi_timeout_t timeout);

/* ---------------------------------------------------------------------------
 * Spec §12: getters for the granted configuration and implementation limits.
 * gaspi_rw_list_elem_max is a GPI-2 getter (listed among GPI-2's
 * extensions); it is declared only here and GASPI_Ext.h includes this file.
 * ------------------------------------------------------------------------- */
HYGASPI_API gaspi_return_t gaspi_group_max(gaspi_number_t *const group_max);
HYGASPI_API gaspi_return_t gaspi_segment_max(gaspi_number_t *const segment_max);
HYGASPI_API gaspi_return_t gaspi_queue_num(gaspi_number_t *const queue_num);
HYGASPI_API gaspi_return_t gaspi_queue_size_max(gaspi_number_t *const queue_size_max);
HYGASPI_API gaspi_return_t gaspi_queue_max(gaspi_number_t *const queue_max);
HYGASPI_API gaspi_return_t gaspi_transfer_size_max(gaspi_size_t *const transfer_size_max);
HYGASPI_API gaspi_return_t gaspi_notification_num(gaspi_number_t *const notification_num);
HYGASPI_API gaspi_return_t gaspi_passive_transfer_size_max(gaspi_size_t *const passive_transfer_size_max);
HYGASPI_API gaspi_return_t gaspi_atomic_max(gaspi_atomic_value_t *const max_value);
HYGASPI_API gaspi_return_t gaspi_allreduce_buf_size(gaspi_size_t *const buf_size);
HYGASPI_API gaspi_return_t gaspi_allreduce_elem_max(gaspi_number_t *const elem_max);
HYGASPI_API gaspi_return_t gaspi_rw_list_elem_max(gaspi_number_t *const elem_max);
HYGASPI_API gaspi_return_t gaspi_network_type(gaspi_network_t *const network_type);
HYGASPI_API gaspi_return_t gaspi_build_infrastructure(gaspi_number_t *const build_infrastructure);

/* ---------------------------------------------------------------------------
 * Spec §13: utilities -- version, time, error strings.
 * gaspi_time_ticks reports raw timer ticks as gaspi_cycles_t (GPI-2), where
 * the spec's prototype shows gaspi_time_t. Error strings are static: the
 * caller never frees them. gaspi_error_message is the name the spec's
 * listings use; it behaves as gaspi_print_error.
 * ------------------------------------------------------------------------- */
HYGASPI_API gaspi_return_t gaspi_version(float *const version);
HYGASPI_API gaspi_return_t gaspi_time_get(gaspi_time_t *const wtime);
HYGASPI_API gaspi_return_t gaspi_time_ticks(gaspi_cycles_t *const ticks);
HYGASPI_API gaspi_return_t gaspi_print_error(const gaspi_return_t error_code, gaspi_string_t *const error_message);
HYGASPI_API gaspi_return_t gaspi_error_message(const gaspi_return_t error_code, gaspi_string_t *const error_message);

/* ---------------------------------------------------------------------------
 * Spec §14.1: statistics. gaspi_statistic_counter_get takes the argument as
 * gaspi_number_t and returns the value as unsigned long, as in GPI-2.
 * ------------------------------------------------------------------------- */
HYGASPI_API gaspi_return_t gaspi_statistic_counter_max(gaspi_number_t *const counter_max);
HYGASPI_API gaspi_return_t gaspi_statistic_counter_info(const gaspi_statistic_counter_t counter,
                                                        gaspi_statistic_argument_t *const counter_argument,
                                                        gaspi_string_t *const counter_name,
                                                        gaspi_string_t *const counter_description,
                                                        gaspi_number_t *const verbosity_level);
HYGASPI_API gaspi_return_t gaspi_statistic_verbosity_level(const gaspi_number_t verbosity_level);
HYGASPI_API gaspi_return_t gaspi_statistic_counter_get(const gaspi_statistic_counter_t counter,
                                                       const gaspi_number_t argument, gaspi_ulong *const value);
HYGASPI_API gaspi_return_t gaspi_statistic_counter_reset(const gaspi_statistic_counter_t counter);

/* ---------------------------------------------------------------------------
 * Spec §14.2: profiling control. The pgaspi_* names are in PGASPI.h.
 * ------------------------------------------------------------------------- */
HYGASPI_API gaspi_return_t gaspi_pcontrol(gaspi_pointer_t argument);

#ifdef __cplusplus
}
#endif

/* The node path of the global atomics, inlined (HYGASPI_NO_INLINE turns it off). */
#include "GASPI_inline.h"

#endif /* HYGASPI_GASPI_H */
