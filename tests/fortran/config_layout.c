/* config_layout.c -- HyGASPI Fortran test helper: the C layout of gaspi_config_t
 * (sizes and field offsets, in bytes), for mr_fortran to compare with its bind(C) type. */
#include <stddef.h>

#include <GASPI.h>

void hygaspi_test_config_layout(long *out);

void hygaspi_test_config_layout(long *out) {
  int i = 0;
  out[i++] = (long)sizeof(gaspi_config_t);
  out[i++] = (long)sizeof(gaspi_dev_config_t);
  out[i++] = (long)offsetof(gaspi_config_t, logger);
  out[i++] = (long)offsetof(gaspi_config_t, sn_port);
  out[i++] = (long)offsetof(gaspi_config_t, net_info);
  out[i++] = (long)offsetof(gaspi_config_t, user_net);
  out[i++] = (long)offsetof(gaspi_config_t, sn_persistent);
  out[i++] = (long)offsetof(gaspi_config_t, sn_timeout);
  out[i++] = (long)offsetof(gaspi_config_t, dev_config);
  out[i++] = (long)offsetof(gaspi_config_t, dev_config.network_type);
  out[i++] = (long)offsetof(gaspi_config_t, dev_config.params);
  out[i++] = (long)offsetof(gaspi_config_t, dev_config.params.ib.netdev_id);
  out[i++] = (long)offsetof(gaspi_config_t, dev_config.params.ib.mtu);
  out[i++] = (long)offsetof(gaspi_config_t, dev_config.params.ib.port_check);
  out[i++] = (long)offsetof(gaspi_config_t, dev_config.params.tcp.port);
  out[i++] = (long)offsetof(gaspi_config_t, dev_config.params.ofi.use_shm);
  out[i++] = (long)offsetof(gaspi_config_t, dev_config.params.ofi.provider_info);
  out[i++] = (long)offsetof(gaspi_config_t, dev_config.params.ofi.progress_auto);
  out[i++] = (long)offsetof(gaspi_config_t, network);
  out[i++] = (long)offsetof(gaspi_config_t, queue_size_max);
  out[i++] = (long)offsetof(gaspi_config_t, queue_num);
  out[i++] = (long)offsetof(gaspi_config_t, group_max);
  out[i++] = (long)offsetof(gaspi_config_t, segment_max);
  out[i++] = (long)offsetof(gaspi_config_t, transfer_size_max);
  out[i++] = (long)offsetof(gaspi_config_t, notification_num);
  out[i++] = (long)offsetof(gaspi_config_t, passive_queue_size_max);
  out[i++] = (long)offsetof(gaspi_config_t, passive_transfer_size_max);
  out[i++] = (long)offsetof(gaspi_config_t, allreduce_buf_size);
  out[i++] = (long)offsetof(gaspi_config_t, allreduce_elem_max);
  out[i++] = (long)offsetof(gaspi_config_t, rw_list_elem_max);
  out[i++] = (long)offsetof(gaspi_config_t, build_infrastructure);
  out[i++] = (long)offsetof(gaspi_config_t, user_defined);
}
