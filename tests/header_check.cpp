/*
 * header_check.cpp -- compile-only check that the public headers are valid,
 * warning-free C++17, and that every pgaspi_* name has exactly the signature
 * of its gaspi_* counterpart (spec §14.2):
 *   g++ -std=c++17 -Wall -Wextra -pedantic -Werror -Iinclude -c tests/header_check.cpp
 */
#include <GASPI.h>
#include <GASPI_Ext.h>
#include <GASPI_Threads.h>
#include <GASPI_types.h>
#include <GPI2_VERSION.h>
#include <PGASPI.h>

#include <type_traits>

static_assert(std::is_same<gaspi_rank_t, unsigned short>::value, "gaspi_rank_t");
static_assert(std::is_same<gaspi_segment_id_t, unsigned char>::value, "gaspi_segment_id_t");
static_assert(std::is_same<gaspi_number_t, unsigned int>::value, "gaspi_number_t");
static_assert(std::is_same<gaspi_size_t, unsigned long>::value, "gaspi_size_t");
static_assert(std::is_same<gaspi_timeout_t, unsigned long>::value, "gaspi_timeout_t");
static_assert(std::is_same<gaspi_time_t, float>::value, "gaspi_time_t");
static_assert(std::is_same<gaspi_alloc_t, unsigned long>::value, "gaspi_alloc_t");
static_assert(GASPI_ERROR == -1 && GASPI_QUEUE_FULL == 23 && GASPI_ERR_MEMALLOC == 28, "return codes");
static_assert(GASPI_TYPE_DOUBLE == 3 && GASPI_STATISTIC_ARGUMENT_RANK == 1, "enums");

#define HYGASPI_SAME_SIGNATURE(name)                                                                                   \
  static_assert(std::is_same<decltype(gaspi_##name), decltype(pgaspi_##name)>::value,                                  \
                "pgaspi_" #name " differs from gaspi_" #name)
HYGASPI_SAME_SIGNATURE(config_get);
HYGASPI_SAME_SIGNATURE(config_set);
HYGASPI_SAME_SIGNATURE(proc_init);
HYGASPI_SAME_SIGNATURE(proc_num);
HYGASPI_SAME_SIGNATURE(proc_rank);
HYGASPI_SAME_SIGNATURE(proc_term);
HYGASPI_SAME_SIGNATURE(proc_kill);
HYGASPI_SAME_SIGNATURE(connect);
HYGASPI_SAME_SIGNATURE(disconnect);
HYGASPI_SAME_SIGNATURE(state_vec_get);
HYGASPI_SAME_SIGNATURE(group_create);
HYGASPI_SAME_SIGNATURE(group_add);
HYGASPI_SAME_SIGNATURE(group_commit);
HYGASPI_SAME_SIGNATURE(group_delete);
HYGASPI_SAME_SIGNATURE(group_num);
HYGASPI_SAME_SIGNATURE(group_size);
HYGASPI_SAME_SIGNATURE(group_ranks);
HYGASPI_SAME_SIGNATURE(segment_alloc);
HYGASPI_SAME_SIGNATURE(segment_register);
HYGASPI_SAME_SIGNATURE(segment_create);
HYGASPI_SAME_SIGNATURE(segment_bind);
HYGASPI_SAME_SIGNATURE(segment_use);
HYGASPI_SAME_SIGNATURE(segment_delete);
HYGASPI_SAME_SIGNATURE(segment_num);
HYGASPI_SAME_SIGNATURE(segment_list);
HYGASPI_SAME_SIGNATURE(segment_ptr);
HYGASPI_SAME_SIGNATURE(write);
HYGASPI_SAME_SIGNATURE(read);
HYGASPI_SAME_SIGNATURE(wait);
HYGASPI_SAME_SIGNATURE(notify);
HYGASPI_SAME_SIGNATURE(notify_waitsome);
HYGASPI_SAME_SIGNATURE(notify_reset);
HYGASPI_SAME_SIGNATURE(write_notify);
HYGASPI_SAME_SIGNATURE(write_list);
HYGASPI_SAME_SIGNATURE(write_list_notify);
HYGASPI_SAME_SIGNATURE(read_notify);
HYGASPI_SAME_SIGNATURE(read_list);
HYGASPI_SAME_SIGNATURE(read_list_notify);
HYGASPI_SAME_SIGNATURE(queue_create);
HYGASPI_SAME_SIGNATURE(queue_delete);
HYGASPI_SAME_SIGNATURE(queue_size);
HYGASPI_SAME_SIGNATURE(queue_purge);
HYGASPI_SAME_SIGNATURE(passive_send);
HYGASPI_SAME_SIGNATURE(passive_receive);
HYGASPI_SAME_SIGNATURE(passive_queue_purge);
HYGASPI_SAME_SIGNATURE(atomic_fetch_add);
HYGASPI_SAME_SIGNATURE(atomic_compare_swap);
HYGASPI_SAME_SIGNATURE(barrier);
HYGASPI_SAME_SIGNATURE(allreduce);
HYGASPI_SAME_SIGNATURE(allreduce_user);
HYGASPI_SAME_SIGNATURE(group_max);
HYGASPI_SAME_SIGNATURE(segment_max);
HYGASPI_SAME_SIGNATURE(queue_num);
HYGASPI_SAME_SIGNATURE(queue_size_max);
HYGASPI_SAME_SIGNATURE(queue_max);
HYGASPI_SAME_SIGNATURE(transfer_size_max);
HYGASPI_SAME_SIGNATURE(notification_num);
HYGASPI_SAME_SIGNATURE(passive_transfer_size_max);
HYGASPI_SAME_SIGNATURE(atomic_max);
HYGASPI_SAME_SIGNATURE(allreduce_buf_size);
HYGASPI_SAME_SIGNATURE(allreduce_elem_max);
HYGASPI_SAME_SIGNATURE(rw_list_elem_max);
HYGASPI_SAME_SIGNATURE(network_type);
HYGASPI_SAME_SIGNATURE(build_infrastructure);
HYGASPI_SAME_SIGNATURE(version);
HYGASPI_SAME_SIGNATURE(time_get);
HYGASPI_SAME_SIGNATURE(time_ticks);
HYGASPI_SAME_SIGNATURE(print_error);
HYGASPI_SAME_SIGNATURE(error_message);
HYGASPI_SAME_SIGNATURE(statistic_counter_max);
HYGASPI_SAME_SIGNATURE(statistic_counter_info);
HYGASPI_SAME_SIGNATURE(statistic_verbosity_level);
HYGASPI_SAME_SIGNATURE(statistic_counter_get);
HYGASPI_SAME_SIGNATURE(statistic_counter_reset);
HYGASPI_SAME_SIGNATURE(pcontrol);
HYGASPI_SAME_SIGNATURE(initialized);
HYGASPI_SAME_SIGNATURE(proc_local_rank);
HYGASPI_SAME_SIGNATURE(proc_local_num);
HYGASPI_SAME_SIGNATURE(proc_ping);
HYGASPI_SAME_SIGNATURE(cpu_frequency);
HYGASPI_SAME_SIGNATURE(numa_socket);
HYGASPI_SAME_SIGNATURE(set_socket_affinity);
HYGASPI_SAME_SIGNATURE(print_affinity_mask);
HYGASPI_SAME_SIGNATURE(error_str);
HYGASPI_SAME_SIGNATURE(segment_avail_local);
HYGASPI_SAME_SIGNATURE(segment_size);
HYGASPI_SAME_SIGNATURE(transfer_size_min);
HYGASPI_SAME_SIGNATURE(passive_transfer_size_min);
HYGASPI_SAME_SIGNATURE(delay);

// GASPI_Threads.h: GPI-2 1.6.0's signatures (deprecated helpers; no pgaspi_* names).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define HYGASPI_THREADS_SIGNATURE(name, type)                                                                          \
  static_assert(std::is_same<decltype(gaspi_threads_##name), type>::value, #name)
HYGASPI_THREADS_SIGNATURE(get_tid, gaspi_return_t(gaspi_int *const));
HYGASPI_THREADS_SIGNATURE(get_total, gaspi_return_t(gaspi_int *const));
HYGASPI_THREADS_SIGNATURE(get_num_cores, gaspi_return_t(gaspi_int *const));
HYGASPI_THREADS_SIGNATURE(init, gaspi_return_t(gaspi_int *const));
HYGASPI_THREADS_SIGNATURE(init_user, gaspi_return_t(const unsigned int));
HYGASPI_THREADS_SIGNATURE(term, gaspi_return_t());
HYGASPI_THREADS_SIGNATURE(run, gaspi_return_t(void *(*)(void *), void *));
HYGASPI_THREADS_SIGNATURE(register, gaspi_return_t(gaspi_int *));
HYGASPI_THREADS_SIGNATURE(sync, void());
HYGASPI_THREADS_SIGNATURE(sync_all, gaspi_return_t(const gaspi_group_t, const gaspi_timeout_t));
#pragma GCC diagnostic pop

namespace {
gaspi_return_t max_op(gaspi_pointer_t, gaspi_pointer_t, gaspi_pointer_t, gaspi_reduce_state_t, gaspi_number_t,
                      gaspi_size_t, gaspi_timeout_t) {
  return GASPI_SUCCESS;
}
} // namespace

int header_check_cpp();

int header_check_cpp() {
  gaspi_config_t config{};
  config.queue_num = 4;
  config.dev_config.params.tcp.port = 19000; // GPI-2 programs set device parameters by name
  config.dev_config.params.ib.mtu = 2048;
  config.dev_config.params.ofi.use_shm = 0;
  config.build_infrastructure = GASPI_TOPOLOGY_NONE;
  gaspi_reduce_operation_t op = max_op;
  gaspi_alloc_t policy = GASPI_MEM_INITIALIZED | GASPI_ALLOC_NUMA_INTERLEAVE;
  gaspi_timeout_t timeout = GASPI_BLOCK;
  (void)op;
  return static_cast<int>(config.queue_num + policy + GASPI_GROUP_ALL + (timeout == GASPI_TEST));
}
