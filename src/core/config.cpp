#include "core/config.hpp"

#include <algorithm>
#include <cstring>

#include "core/limits.hpp"

namespace hygaspi {

gaspi_config_t default_config() noexcept {
  gaspi_config_t c{};
  c.logger = 0;
  c.sn_port = 10840;
  c.sn_timeout = 30000;
  // GPI-2's defaults for its TCP device build; HyGASPI keeps and ignores them (GASPI_types.h).
  c.dev_config.network_type = GASPI_ETHERNET;
  c.dev_config.params.ib.netdev_id = -1;
  c.dev_config.params.ib.mtu = 0;
  c.dev_config.params.ib.port_check = 1;
  c.dev_config.params.tcp.port = 19000;
  c.dev_config.params.ofi.use_shm = 1;
  c.dev_config.params.ofi.provider_info = 0;
  c.dev_config.params.ofi.progress_auto = 1;
  c.network = GASPI_ETHERNET;
  c.queue_size_max = 1024;
  c.queue_num = 8;
  c.group_max = 32;
  c.segment_max = 255;
  c.transfer_size_max = 1ul << 30;
  c.notification_num = 65536;
  c.passive_queue_size_max = 1024;
  c.passive_transfer_size_max = 65535;
  c.allreduce_buf_size = 2040;
  c.allreduce_elem_max = 255;
  c.rw_list_elem_max = 255;
  c.build_infrastructure = GASPI_TOPOLOGY_STATIC;
  c.user_defined = nullptr;
  return c;
}

namespace {
// One proposal: 0 is impossible unless `zero_ok`; above `max` (a type width or what the hardware
// can give, core/limits.hpp) it is clamped, and `overruled` names it.
template <class T, class U>
bool fit(const char *name, T &value, U max, std::string &error, std::string *overruled, bool zero_ok = false) {
  if (value == 0 && !zero_ok) {
    error = std::string(name) + " must be at least 1";
    return false;
  }
  if (static_cast<unsigned long long>(value) > static_cast<unsigned long long>(max)) {
    if (overruled != nullptr)
      *overruled += std::string(overruled->empty() ? "" : ", ") + name + " " + std::to_string(value) + " -> " +
                    std::to_string(max);
    value = static_cast<T>(max);
  }
  return true;
}
} // namespace

bool sanitize_config(gaspi_config_t &c, std::string &error, std::string *overruled) {
  using namespace limits;
  // notification_num 0: segments without notifications (as GPI-2); every notify on them then
  // fails with GASPI_ERR_INV_NOTIF_ID.
  if (!fit("queue_num", c.queue_num, kMaxQueues, error, overruled) ||
      !fit("queue_size_max", c.queue_size_max, kMaxQueueSize, error, overruled) ||
      !fit("group_max", c.group_max, kMaxGroups, error, overruled) ||
      !fit("segment_max", c.segment_max, kMaxSegments, error, overruled) ||
      !fit("transfer_size_max", c.transfer_size_max, kMaxTransferSize, error, overruled) ||
      !fit("notification_num", c.notification_num, kMaxNotifications, error, overruled, true) ||
      !fit("passive_queue_size_max", c.passive_queue_size_max, kMaxPassiveQueueSize, error, overruled) ||
      !fit("passive_transfer_size_max", c.passive_transfer_size_max, kMaxPassiveTransferSize, error, overruled) ||
      !fit("allreduce_buf_size", c.allreduce_buf_size, kMaxAllreduceBuf, error, overruled) ||
      !fit("allreduce_elem_max", c.allreduce_elem_max, kMaxAllreduceElems, error, overruled) ||
      !fit("rw_list_elem_max", c.rw_list_elem_max, kMaxListElems, error, overruled))
    return false;
  // A C caller may store any integer in an enum field; read the bits, not an enum value (UB).
  auto raw = [](const auto &field) {
    int value = 0;
    static_assert(sizeof field == sizeof value);
    std::memcpy(&value, &field, sizeof value);
    return value;
  };
  if (int v = raw(c.build_infrastructure); v < GASPI_TOPOLOGY_NONE || v > GASPI_TOPOLOGY_DYNAMIC) {
    error = "build_infrastructure " + std::to_string(v) + " is unknown";
    return false;
  }
  if (int v = raw(c.network); v < GASPI_IB || v > GASPI_OFI) {
    error = "network " + std::to_string(v) + " is unknown";
    return false;
  }
  return true;
}

} // namespace hygaspi
